#if os(Linux)
import CCurl
import Foundation

/// One request's libcurl easy handle and what has arrived for it, on ``CurlLoop``'s thread only
/// (never shared: libcurl's callbacks reach it through an unretained pointer while the loop
/// holds it).
///
/// It keeps the transport's guarantees where libcurl leaves them to the caller:
/// - the body is cut at the limit (the size announced in `Content-Length`, or the bytes
///   received after decompression): the transfer stops there, nothing more is read or inflated;
/// - a redirect is never followed by libcurl: its headers end the transfer, and the loop sends
///   the request again to the target only when it is on the request's origin and under the
///   limit (`301`, `302` with `POST`, and `303` go on as `GET` without a body, as browsers do);
/// - a header line that is not a field (no colon, a name that is not a token) is ignored, and a
///   value that is not UTF-8 is read as Latin-1;
/// - the backstop bounds the whole request, redirects included.
final class CurlTransfer {
    /// What the loop does with a transfer that libcurl has finished.
    enum Completion {
        /// The request's answer.
        case finished(Result<HTTP.Response, HTTP.TransportError>)
        /// A same-origin redirect: the handle is set up for the target; add it again.
        case again
    }

    /// Why the transfer was stopped before libcurl finished it.
    private enum Stop {
        /// A redirect (`status`, the `Location` as sent).
        case redirect(status: Int, location: String)
        /// A body over the limit: the size announced in `Content-Length`, if that is why.
        case tooLarge(announced: Int64?, status: Int)
    }

    /// The request as the caller gave it.
    let request: CurlRequest
    /// The `CURL *`.
    let easy: UnsafeMutableRawPointer
    /// The request as sent now (after redirects: their URL, maybe `GET`).
    private var current: HTTP.Request
    private var redirects = 0
    private let deadline: ContinuousClock.Instant
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>

    /// The final (not 1xx) response's status, once its header block has ended.
    private var status: Int?
    private var headers: [String: String] = [:]
    /// The name each header is kept under, by its lowercased name (repeated fields are joined).
    private var headerNames: [String: String] = [:]
    private var body = Data()
    private var stop: Stop?

    /// A transfer for `request`, or `nil` when libcurl could not make a handle.
    init?(_ request: CurlRequest) {
        guard let easy = curl_easy_init() else { return nil }
        self.request = request
        self.easy = easy
        current = request.request
        deadline = .now + .milliseconds(Int64((request.limits.backstopTimeout * 1000).rounded(.up)))
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
    }

    /// Frees the handle and what it holds; the transfer must be out of the multi handle.
    func close() {
        curl_easy_cleanup(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        errorBuffer.deallocate()
    }

    /// Sets the handle up for ``current``: the error when it cannot be sent.
    func configure() -> HTTP.TransportError? {
        curl_easy_reset(easy)
        curl_slist_free_all(headerList)
        headerList = nil
        status = nil
        headers = [:]
        headerNames = [:]
        body = Data()
        stop = nil
        errorBuffer[0] = 0

        let remaining = ContinuousClock.now.duration(to: deadline)
        guard remaining > .zero else {
            return HTTP.TransportError(kind: .timedOut, message: "backstop timeout")
        }
        let (seconds, attoseconds) = remaining.components
        let milliseconds = max(1, seconds * 1000 + attoseconds / 1_000_000_000_000_000)

        guard Self.isToken(current.method) else {
            return HTTP.TransportError(kind: .invalidRequest, message: "the method is not an HTTP token")
        }
        var list: UnsafeMutablePointer<curl_slist>?
        var hasUserAgent = false
        var hasExpect = false
        for (name, value) in current.headers {
            guard Self.isToken(name), !value.utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 }) else {
                curl_slist_free_all(list)
                return HTTP.TransportError(kind: .invalidRequest, message: "a request header field has a name that is not a token or a value with a line break")
            }
            hasUserAgent = hasUserAgent || name.lowercased() == "user-agent"
            hasExpect = hasExpect || name.lowercased() == "expect"
            // `Name;` is libcurl's way of sending a field with an empty value.
            let line = value.isEmpty ? "\(name);" : "\(name): \(value)"
            list = curl_slist_append(list, line)
        }
        // No `Expect: 100-continue` before a large body: the body goes at once.
        if !hasExpect { list = curl_slist_append(list, "Expect:") }
        headerList = list

        let context = UnsafeMutableRawPointer(Unmanaged.passUnretained(self).toOpaque())
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_URL, current.url.absoluteString)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Int(clamping: milliseconds))
        _ = ccurl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 0)
        _ = ccurl_easy_setopt_long(easy, CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // Every encoding this libcurl decodes is offered, and decoded before the body's limit.
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ACCEPT_ENCODING, "")
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_WRITEFUNCTION, curlWriteBody)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        _ = ccurl_easy_setopt_write_function(easy, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HTTPHEADER, headerList)
        if !hasUserAgent, let userAgent = request.limits.userAgent {
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_USERAGENT, userAgent)
        }
        switch (current.method, current.body) {
        case ("GET", nil):
            _ = ccurl_easy_setopt_long(easy, CURLOPT_HTTPGET, 1)
        case ("HEAD", nil):
            _ = ccurl_easy_setopt_long(easy, CURLOPT_NOBODY, 1)
        case ("POST", let body):
            _ = ccurl_easy_setopt_long(easy, CURLOPT_POST, 1)
            setBody(body ?? Data())
        case (let method, let body):
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_CUSTOMREQUEST, method)
            if let body { setBody(body) }
        }
        return nil
    }

    /// Sends `body` (libcurl keeps a copy).
    private func setBody(_ body: Data) {
        _ = ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
        if body.isEmpty {
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, "")
        } else {
            body.withUnsafeBytes { bytes in
                _ = ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress)
            }
        }
    }

    /// What the transfer came to, libcurl having finished it with `code`.
    func complete(_ code: CURLcode) -> Completion {
        switch stop {
        case .tooLarge(let announced, let status):
            return .finished(.failure(request.limits.tooLarge(announced: announced, status: status)))
        case .redirect(let status, let location):
            return redirect(status: status, location: location)
        case nil:
            break
        }
        if code == CURLE_OK {
            guard let status else {
                return .finished(.failure(HTTP.TransportError(kind: .connection, message: "no HTTP response")))
            }
            return .finished(.success(HTTP.Response(statusCode: status, headers: headers, body: body)))
        }
        if code == CURLE_OPERATION_TIMEDOUT {
            return .finished(.failure(HTTP.TransportError(kind: .timedOut, message: "backstop timeout")))
        }
        let detail = String(cString: errorBuffer)
        let message = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
        let kind: HTTP.TransportError.Kind = code == CURLE_URL_MALFORMAT ? .invalidRequest : .connection
        return .finished(.failure(HTTP.TransportError(kind: kind, message: message)))
    }

    /// Follows the redirect to `location` when it stays on the request's origin and under the
    /// limit; otherwise the refusal.
    private func redirect(status: Int, location: String) -> Completion {
        let target = URL(string: location, relativeTo: current.url)?.absoluteURL
        let targetOrigin = target.flatMap { HTTP.OriginLockedTransport.Origin($0) }
        guard var target, let targetOrigin, targetOrigin == request.origin, redirects < request.limits.maximumRedirects else {
            return .finished(.failure(request.limits.redirectRefused(status: status, target: targetOrigin, origin: request.origin)))
        }
        if target.scheme != targetOrigin.scheme, var components = URLComponents(url: target, resolvingAgainstBaseURL: false) {
            components.scheme = targetOrigin.scheme
            target = components.url ?? target
        }
        redirects += 1
        current.url = target
        if (status == 303 && current.method != "HEAD") || ((status == 301 || status == 302) && current.method == "POST") {
            current.method = "GET"
            current.body = nil
            current.headers = current.headers.filter { !["content-type", "content-length"].contains($0.key.lowercased()) }
        }
        if let error = configure() { return .finished(.failure(error)) }
        return .again
    }

    /// Takes `bytes` of the body: `false` (the transfer stops) when they would pass the limit.
    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard body.count + bytes.count <= request.limits.maximumResponseBytes else {
            stop = .tooLarge(announced: nil, status: status ?? 0)
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Takes one header line (the status line, a field, or the empty line that ends a block):
    /// `false` (the transfer stops) at the end of a redirect's headers, or of headers that
    /// announce a body over the limit.
    fileprivate func receiveHeader(_ line: UnsafeRawBufferPointer) -> Bool {
        // Trailers after a chunked body, and anything after the final header block, are ignored.
        guard status == nil else { return true }
        var end = line.count
        while end > 0, line[end - 1] == 0x0A || line[end - 1] == 0x0D { end -= 1 }
        let bytes = UnsafeRawBufferPointer(rebasing: line[0..<end])
        if bytes.isEmpty {
            return headersEnded()
        }
        if bytes.starts(with: "HTTP/".utf8) {
            // A new response: a 1xx's block is over, or this is the first.
            headers = [:]
            headerNames = [:]
            return true
        }
        // A line folded onto the previous one (obsolete), or no field at all: ignored.
        guard bytes[0] != 0x20, bytes[0] != 0x09, let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > 0 else { return true }
        let nameBytes = UnsafeRawBufferPointer(rebasing: bytes[0..<colon])
        guard nameBytes.allSatisfy(Self.isTokenByte) else { return true }
        var start = colon + 1
        var last = bytes.count
        while start < last, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while last > start, bytes[last - 1] == 0x20 || bytes[last - 1] == 0x09 { last -= 1 }
        let valueBytes = UnsafeRawBufferPointer(rebasing: bytes[start..<last])
        let name = String(decoding: nameBytes, as: UTF8.self)
        // HTTP allows any byte from 0x80 in a value (RFC 9110's obs-text): what is not UTF-8
        // is read as Latin-1, where every byte is a character.
        let value = String(validating: valueBytes, as: UTF8.self) ?? String(valueBytes.map { Character(Unicode.Scalar($0)) })
        let key = name.lowercased()
        if let kept = headerNames[key] {
            headers[kept] = (headers[kept] ?? "") + ", " + value
        } else {
            headerNames[key] = name
            headers[name] = value
        }
        return true
    }

    /// The end of a header block: a 1xx goes on to the next block; a final response is kept,
    /// unless it is a redirect or announces a body over the limit.
    private func headersEnded() -> Bool {
        var code = 0
        _ = ccurl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &code)
        guard code >= 200 else { return true }
        status = code
        if [301, 302, 303, 307, 308].contains(code), let location = header("location") {
            stop = .redirect(status: code, location: location)
            return false
        }
        if let announced = header("content-length").flatMap({ Int64($0) }), announced > Int64(request.limits.maximumResponseBytes) {
            stop = .tooLarge(announced: announced, status: code)
            return false
        }
        return true
    }

    /// The value of the field `lowercasedName`, if the response has it.
    private func header(_ lowercasedName: String) -> String? {
        headerNames[lowercasedName].flatMap { headers[$0] }
    }

    /// Whether `byte` may appear in a token (a method or a field name, RFC 9110).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// Whether `text` is a non-empty token.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy(isTokenByte)
    }
}

/// libcurl's body callback: hands the bytes to the transfer; a short count stops the transfer.
private let curlWriteBody: curl_write_callback = { pointer, size, count, context in
    guard let context else { return 0 }
    let length = size * count
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveBody(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}

/// libcurl's header callback: one header line to the transfer; a short count stops the transfer.
private let curlWriteHeader: curl_write_callback = { pointer, size, count, context in
    guard let context else { return 0 }
    let length = size * count
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    return transfer.receiveHeader(UnsafeRawBufferPointer(start: pointer, count: length)) ? length : 0
}
#endif
