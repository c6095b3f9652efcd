import Foundation
import Mediation
import MediationTestKit

/// The adapter tests' loopback HTTP server (`Tests/AdaptersTests/Loopback/loopback_server.py`,
/// run from the source tree as the schema check is) serving a signed configuration at
/// `/config.json`: each request gets the next response of the list (the last one repeats).
final class ConfigServer: Sendable {
    /// One response: a status, a body and headers; or `raw` bytes (each character one
    /// Latin-1 byte) in place of a response, the connection then held `holdMilliseconds` and
    /// closed.
    struct Response: Encodable, Sendable {
        var status = 200
        var body = ""
        var headers: [String: String] = [:]
        var raw: String?
        var holdMilliseconds: Int?

        enum CodingKeys: String, CodingKey {
            case status, body, headers, raw
            case holdMilliseconds = "hold_ms"
        }
    }

    let port: Int
    private let process: LoopbackScriptProcess

    /// The configuration's URL.
    var url: URL { URL(string: "http://127.0.0.1:\(port)/config.json") ?? URL(fileURLWithPath: "/") }

    /// Starts the server with `responses` for `GET /config.json`, on a thread of its own.
    convenience init(_ responses: [Response]) async throws {
        try await self.init(routes: ["GET /config.json": responses])
    }

    /// Starts the server with `routes` (`"GET /v1.json": [responses]`), passed in a file (a
    /// command line would be too short for many signed configurations).
    init(routes: [String: [Response]]) async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("config-routes-\(UUID().uuidString).json")
        try JSONEncoder().encode(routes).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = Workspace.repositoryRoot.appendingPathComponent("Tests/AdaptersTests/Loopback/loopback_server.py")
        process = try await LoopbackScriptProcess.start(script: script.path, routesArgument: "@" + file.path)
        port = process.port
    }

    /// The server's base URL, `http://127.0.0.1:PORT`.
    var base: String { "http://127.0.0.1:\(port)" }

    /// The headers of each request the server received, in order (names in lower case).
    func receivedHeaders() async throws -> [[String: String]] {
        struct Received: Decodable {
            var headers: [String: String]
        }
        let url = URL(string: "http://127.0.0.1:\(port)/__requests") ?? URL(fileURLWithPath: "/")
        let response = try await HTTP.SystemTransport().send(HTTP.Request(url: url))
        return try JSONDecoder().decode([Received].self, from: response.body).map(\.headers)
    }

    /// Stops the server (it exits once its standard input closes).
    func stop() {
        process.stop()
    }

    deinit {
        stop()
    }
}
