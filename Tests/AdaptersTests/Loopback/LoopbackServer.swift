import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted HTTP server on 127.0.0.1 for real-HTTP tests (`loopback_server.py`, standard
/// library only). It starts on a free port and stops by itself when ``stop()`` is called, when
/// the test process ends (its stdin closes), or after five minutes.
final class LoopbackServer: Sendable {
    /// One scripted response.
    struct Response: Encodable, Sendable {
        var status: Int = 200
        var body: String = ""
        var headers: [String: String] = [:]
        var delayMilliseconds: Int = 0

        enum CodingKeys: String, CodingKey {
            case status, body, headers
            case delayMilliseconds = "delay_ms"
        }

        /// A JSON body (`application/json`) with `status`.
        static func json(_ body: String, status: Int = 200, delayMilliseconds: Int = 0) -> Response {
            Response(status: status, body: body, headers: ["Content-Type": "application/json"], delayMilliseconds: delayMilliseconds)
        }
    }

    /// A request the server received.
    struct ReceivedRequest: Decodable, Sendable {
        var method: String
        var path: String
        var query: String
        var headers: [String: String]
        var body: String
    }

    enum StartError: Error {
        case scriptMissing
        case noPort(String)
    }

    let port: Int
    private let process: Process
    private let stdin: Pipe

    /// The base URL, e.g. `http://127.0.0.1:54321`.
    var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Starts a server with `routes` ("METHOD /path" to one response, or to a list served in turn).
    /// Starting a process and reading its port block, so that happens on a thread of its own,
    /// never on the concurrency pool the tests run on.
    convenience init(routes: [String: [Response]]) async throws {
        let started = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Started, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try LoopbackServer.launch(routes: routes) })
            }
        }
        self.init(started)
    }

    private struct Started: @unchecked Sendable {
        // Process and Pipe are handed over once from the launching thread; never shared.
        let port: Int
        let process: Process
        let stdin: Pipe
    }

    private init(_ started: Started) {
        port = started.port
        process = started.process
        stdin = started.stdin
    }

    private static func launch(routes: [String: [Response]]) throws -> Started {
        guard let script = Bundle.module.path(forResource: "loopback_server", ofType: "py") else {
            throw StartError.scriptMissing
        }
        let routesJSON = String(decoding: try JSONEncoder().encode(routes), as: UTF8.self)
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
        return Started(port: port, process: process, stdin: stdin)
    }

    /// Starts a server where each route has a single response.
    convenience init(single routes: [String: Response]) async throws {
        try await self.init(routes: routes.mapValues { [$0] })
    }

    /// The requests received so far (the control request itself excluded).
    func receivedRequests() async throws -> [ReceivedRequest] {
        let url = baseURL.appendingPathComponent("__requests")
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode([ReceivedRequest].self, from: data)
    }

    /// Stops the server (it exits on its own once its stdin closes; this does not wait).
    func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    /// Stops the server and waits, off the concurrency pool, until its process has exited and
    /// its port is closed.
    func stopAndWait() async {
        stop()
        let process = Started(port: port, process: process, stdin: stdin)
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                process.process.waitUntilExit()
                continuation.resume()
            }
        }
    }

    deinit {
        stop()
    }

    /// A port on 127.0.0.1 with nothing listening (for connection-refused tests): a port the
    /// kernel just handed out and took back.
    static func closedPort() async throws -> Int {
        let server = try await LoopbackServer(single: [:])
        let port = server.port
        await server.stopAndWait()
        return port
    }
}

