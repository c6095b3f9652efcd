/// The malformed and cut-off HTTP responses no server may crash the host with: each is the
/// bytes a loopback server sends (each character one Latin-1 byte) in place of a response,
/// before it holds the connection `holdMilliseconds` and closes it. One list for the
/// transport's, the networks' and the configuration fetch's tests.
package struct MalformedHTTPResponse: Sendable, CustomStringConvertible {
    /// A short name, e.g. `statusLineOnly`.
    package let name: String
    /// What the server sends.
    package let bytes: String
    /// How long the server holds the connection before it closes it, in milliseconds.
    package let holdMilliseconds: Int

    /// The name.
    package var description: String { name }

    /// Every shape.
    package static let all: [MalformedHTTPResponse] = [
        // FoundationNetworking's URLSession stopped the process on this one ("Transfer
        // completed, but there's no response").
        MalformedHTTPResponse(name: "statusLineOnly", bytes: "HTTP/1.1 200 OK\r\n", holdMilliseconds: 100),
        MalformedHTTPResponse(name: "nothing", bytes: "", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "headersThenClose", bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2\r\n", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "headerCutMidLine", bytes: "HTTP/1.1 200 OK\r\nContent-Le", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "lengthLongerThanBody", bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"id\":", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "lengthShorterThanBody", bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\n{\"id\":\"x\",\"more\":\"bytes than announced\"}", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "chunkedCutMidChunk", bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n{\"id\":\"x\"", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "chunkedBadSize", bytes: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "badStatusLine", bytes: "HTTP/1.1 2x0 OK\r\nContent-Length: 2\r\n\r\n{}", holdMilliseconds: 0),
        MalformedHTTPResponse(name: "garbage", bytes: "\u{00}\u{FF}\u{FE}\u{07}garbage\r\n\r\n\u{1B}[31m", holdMilliseconds: 0),
        // A slow server that finally gives up: a status line, a pause, then the close.
        MalformedHTTPResponse(name: "slowThenGivesUp", bytes: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n", holdMilliseconds: 400),
    ]
}
