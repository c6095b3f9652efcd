import Foundation

/// The tests' scripted loopback HTTP server (`Tests/AdaptersTests/Loopback/loopback_server.py`,
/// Python standard library), started as a subprocess on 127.0.0.1 and stopped by closing its
/// standard input.
final class LoopbackProcess {
    static let scriptPath = "Tests/AdaptersTests/Loopback/loopback_server.py"

    let port: Int
    private let process: Process
    private let stdin: Pipe

    enum StartError: Error, CustomStringConvertible {
        case scriptMissing
        case noPort(String)

        var description: String {
            switch self {
            case .scriptMissing: "\(LoopbackProcess.scriptPath) not found from the current directory or its parents"
            case .noPort(let line): "the server did not print its port (got \"\(line)\")"
            }
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
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, routesJSON]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw StartError.noPort(text)
        }
        self.port = port
        self.process = process
        self.stdin = stdin
    }

    /// Stops the server and waits for it to exit.
    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    deinit { stop() }
}
