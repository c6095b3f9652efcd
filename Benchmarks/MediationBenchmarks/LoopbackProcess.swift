import Foundation
import MediationTestKit

/// The tests' scripted loopback HTTP server (`Tests/AdaptersTests/Loopback/loopback_server.py`,
/// Python standard library), started as a subprocess on 127.0.0.1 and stopped by closing its
/// standard input.
final class LoopbackProcess {
    static let scriptPath = "Tests/AdaptersTests/Loopback/loopback_server.py"

    let port: Int
    private let process: LoopbackScriptProcess

    enum StartError: Error, CustomStringConvertible {
        case scriptMissing

        var description: String {
            "\(LoopbackProcess.scriptPath) not found from the current directory or its parents"
        }
    }

    /// Finds the script from the current directory (or up to three parents).
    static func findScript() -> String? {
        var directory = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent(scriptPath).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            directory.deleteLastPathComponent()
        }
        return nil
    }

    /// Starts the server with `routesJSON` ("METHOD /path" to a scripted response).
    init(routesJSON: String) throws {
        guard let script = LoopbackProcess.findScript() else { throw StartError.scriptMissing }
        process = try LoopbackScriptProcess.launch(script: script, routesArgument: routesJSON)
        port = process.port
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        process.stop()
        process.waitUntilExit()
    }

    deinit { stop() }
}
