import Foundation
import MediationTestKit
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A scripted HTTP server on 127.0.0.1 for real-HTTP tests (`loopback_server.py`, standard
/// library only). It starts on a free port and stops by itself when ``stop()`` is called, when
/// the test process ends (its stdin closes), or after five minutes.
final class LoopbackServer: Sendable {
    /// One scripted response (see `loopback_server.py` for each field's meaning on the wire).
    struct Response: Encodable, Sendable {
        var status: Int = 200
        var body: String = ""
        var headers: [String: String] = [:]
        var delayMilliseconds: Int = 0
        /// The body as each text repeated its count of times, in order (a body too large for a
        /// command line); replaces `body`.
        var bodyParts: [BodyPart]?
        /// `$REQUEST_ID` in the body becomes the `id` of the request's JSON body.
        var echoRequestID = false
        /// Trickle the body: `bytes` at a time, one chunk every `intervalMilliseconds`.
        var drip: Drip?
        /// Read the request and never answer; drop the connection after `holdMilliseconds`.
        var never = false
        /// How long a `never` connection is held (the server's default: 3000 ms).
        var holdMilliseconds: Int?
        /// Send this many bytes of the body (after headers announcing all of it), then reset
        /// the connection.
        var resetAfter: Int?
        /// Send no `Content-Length`: the body ends when the server closes the connection.
        var noLength = false
        /// Encode the body as Latin-1 instead of UTF-8 (`"\u{FF}"` is the byte 0xFF: invalid
        /// UTF-8 on the wire).
        var latin1 = false
        /// Send the body gzip-compressed (`Content-Encoding: gzip`): a few kilobytes on the wire
        /// that inflate to the whole body.
        var gzip = false
        /// Send this many pseudo-random bytes (the same each time), gzip-framed with
        /// `Content-Encoding: gzip`: as many bytes on the wire as inflated, so a client that
        /// reads on past its limit shows in ``ReceivedRequest/sent``.
        var gzipRandom: Int?
        /// Send these bytes (each character one Latin-1 byte) in place of a response, hold the
        /// connection `holdMilliseconds` (default 0), then close it: a malformed response.
        var raw: String?

        /// One piece of a generated body.
        struct BodyPart: Encodable, Sendable {
            var text: String
            var count: Int

            func encode(to encoder: any Encoder) throws {
                var container = encoder.unkeyedContainer()
                try container.encode(text)
                try container.encode(count)
            }
        }

        /// A trickled body.
        struct Drip: Encodable, Sendable {
            var bytes: Int
            var intervalMilliseconds: Int

            enum CodingKeys: String, CodingKey {
                case bytes
                case intervalMilliseconds = "interval_ms"
            }
        }

        enum CodingKeys: String, CodingKey {
            case status, body, headers, drip, never
            case delayMilliseconds = "delay_ms"
            case bodyParts = "body_parts"
            case echoRequestID = "echo_id"
            case holdMilliseconds = "hold_ms"
            case resetAfter = "reset_after"
            case noLength = "no_length"
            case latin1, gzip, raw
            case gzipRandom = "gzip_random"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(status, forKey: .status)
            try container.encode(body, forKey: .body)
            try container.encode(headers, forKey: .headers)
            try container.encode(delayMilliseconds, forKey: .delayMilliseconds)
            try container.encodeIfPresent(bodyParts, forKey: .bodyParts)
            if echoRequestID { try container.encode(true, forKey: .echoRequestID) }
            try container.encodeIfPresent(drip, forKey: .drip)
            if never { try container.encode(true, forKey: .never) }
            try container.encodeIfPresent(holdMilliseconds, forKey: .holdMilliseconds)
            try container.encodeIfPresent(resetAfter, forKey: .resetAfter)
            if noLength { try container.encode(true, forKey: .noLength) }
            if latin1 { try container.encode(true, forKey: .latin1) }
            if gzip { try container.encode(true, forKey: .gzip) }
            try container.encodeIfPresent(raw, forKey: .raw)
            try container.encodeIfPresent(gzipRandom, forKey: .gzipRandom)
        }

        /// A JSON body (`application/json`) with `status`.
        static func json(_ body: String, status: Int = 200, delayMilliseconds: Int = 0) -> Response {
            Response(status: status, body: body, headers: ["Content-Type": "application/json"], delayMilliseconds: delayMilliseconds)
        }

        /// `bytes` (each character one Latin-1 byte) in place of a response, then the connection
        /// held `holdMilliseconds` and closed.
        static func raw(_ bytes: String, holdMilliseconds: Int? = nil) -> Response {
            Response(holdMilliseconds: holdMilliseconds, raw: bytes)
        }

        /// A redirect: `status` with `Location: location`.
        static func redirect(_ status: Int, to location: String) -> Response {
            Response(status: status, headers: ["Location": location])
        }
    }

    /// A request the server received.
    struct ReceivedRequest: Decodable, Sendable {
        var method: String
        var path: String
        var query: String
        var headers: [String: String]
        var body: String
        /// The bytes of the response body the server wrote before the reply ended (the client
        /// may have closed the connection first).
        var sent: Int
    }

    enum StartError: Error {
        case scriptMissing
    }

    let port: Int
    private let process: LoopbackScriptProcess

    /// The base URL, e.g. `http://127.0.0.1:54321`.
    var baseURL: URL {
        URL(string: "http://127.0.0.1:\(port)") ?? URL(fileURLWithPath: "/")
    }

    /// Starts a server with `routes` ("METHOD /path" to one response, or to a list served in turn).
    /// Starting a process and reading its port block, so that happens on a thread of its own,
    /// never on the concurrency pool the tests run on.
    convenience init(routes: [String: [Response]]) async throws {
        let (script, routesArgument, routesFile) = try LoopbackServer.arguments(routes: routes)
        defer { routesFile.map { try? FileManager.default.removeItem(at: $0) } }
        self.init(try await LoopbackScriptProcess.start(script: script, routesArgument: routesArgument))
    }

    private init(_ process: LoopbackScriptProcess) {
        port = process.port
        self.process = process
    }

    /// The script's path and its routes argument (in a file when too large for one argument).
    private static func arguments(routes: [String: [Response]]) throws -> (String, String, URL?) {
        guard let script = Bundle.module.path(forResource: "loopback_server", ofType: "py") else {
            throw StartError.scriptMissing
        }
        let routesArgument = String(decoding: try JSONEncoder().encode(routes), as: UTF8.self)
        guard routesArgument.utf8.count > 64 * 1024 else { return (script, routesArgument, nil) }
        // Linux caps one command-line argument at 128 KiB: large route tables go in a file,
        // which the server reads before it prints its port.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("loopback-routes-\(UUID().uuidString).json")
        try Data(routesArgument.utf8).write(to: file)
        return (script, "@" + file.path, file)
    }

    /// Starts a server where each route has a single response.
    convenience init(single routes: [String: Response]) async throws {
        try await self.init(routes: routes.mapValues { [$0] })
    }

    /// The requests received so far (the control request itself excluded).
    /// With `settled`, the server first waits (at most 10 s) until no reply is being written, so
    /// that each ``ReceivedRequest/sent`` is final.
    func receivedRequests(settled: Bool = false) async throws -> [ReceivedRequest] {
        let plain = baseURL.appendingPathComponent("__requests")
        let url = settled ? URL(string: plain.absoluteString + "?settled") ?? plain : plain
        let (data, _) = try await URLSession.shared.data(from: url)
        return try JSONDecoder().decode([ReceivedRequest].self, from: data)
    }

    /// Stops the server (it exits on its own once its stdin closes; this does not wait).
    func stop() {
        process.stop()
    }

    /// Stops the server and waits, off the concurrency pool, until its process has exited and
    /// its port is closed.
    func stopAndWait() async {
        stop()
        let process = process
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            Thread.detachNewThread {
                process.waitUntilExit()
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

