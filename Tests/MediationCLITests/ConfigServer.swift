import Foundation

/// The adapter tests' loopback HTTP server (`Tests/AdaptersTests/Loopback/loopback_server.py`,
/// run from the source tree as the schema check is) serving a signed configuration at
/// `/config.json`: each request gets the next response of the list (the last one repeats).
final class ConfigServer: Sendable {
    /// One response: a status, a body and headers.
    struct Response: Encodable, Sendable {
        var status = 200
        var body = ""
        var headers: [String: String] = [:]
    }

    let port: Int
    private let process: Process
    private let stdin: Pipe

    /// The configuration's URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)/config.json") ?? URL(fileURLWithPath: "/") }

    private struct Started: @unchecked Sendable {
        // Handed over once from the launching thread; never shared.
        let port: Int
        let process: Process
        let stdin: Pipe
    }

    /// Starts the server with `responses` for `GET /config.json`, on a thread of its own.
    init(_ responses: [Response]) async throws {
        let routes = String(decoding: try JSONEncoder().encode(["GET /config.json": responses]), as: UTF8.self)
        let started = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Started, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try ConfigServer.launch(routes) })
            }
        }
        port = started.port
        process = started.process
        stdin = started.stdin
    }

    private static func launch(_ routes: String) throws -> Started {
        let script = Workspace.repositoryRoot.appendingPathComponent("Tests/AdaptersTests/Loopback/loopback_server.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, routes]
        let stdout = Pipe(), stdin = Pipe()
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
            throw CocoaError(.fileReadCorruptFile)
        }
        return Started(port: port, process: process, stdin: stdin)
    }

    /// Stops the server (it exits once its standard input closes).
    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    deinit {
        stop()
    }
}
