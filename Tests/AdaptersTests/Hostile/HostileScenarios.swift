import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// One misbehaviour of one network's protocol, played by the loopback server, and what the
/// engine must make of it (engine rules R16, R17). The fallback network has no HTTP (it accepts
/// only its in-process sandbox), so it has no hostile scenarios: it is the well-behaved second
/// source of every scenario instead.
struct HostileScenario: Sendable, CustomTestStringConvertible {
    /// The networks that speak HTTP.
    enum Network: String, Sendable, CaseIterable {
        case elo, nitx, qartvelo
    }

    /// What the hostile source's trace line must say. Outcomes are matched by their status word
    /// and details, so that `SourceOutcome.timeout(limit)` (the engine's R3a work) keeps
    /// matching `.timeout` here; tighten `.timeout` to the limit (`deadline`) once it lands.
    enum Expected: Sendable {
        /// The hostile source wins with a bounded ad (of `size`, when given).
        case wins(size: AdSize?)
        /// No fill with `code`, its message containing each of `message`.
        case noFill(code: String, message: [String])
        /// An error of `kind` and `code`, with `httpStatus`, its message containing each of
        /// `message`.
        case error(kind: AdLoadResult.Error.Kind, code: Int, httpStatus: Int?, message: [String])
        /// No answer by the deadline.
        case timeout
        /// The answer was refused by the auction (R2: a price it cannot compare), with any loss
        /// reason; the well-behaved source wins.
        case lost
        /// Anything but a win (no fill, error, timeout, refused), bounded; the well-behaved
        /// source wins. For misbehaviour whose exact error the platform's HTTP stack decides.
        case fails
    }

    var network: Network
    var name: String
    /// The hostile server's answers, by "METHOD path" below the scenario's endpoint path.
    var routes: [String: [LoopbackServer.Response]]
    var expected: Expected
    /// Whether the other origin serves a valid answer this scenario redirects to.
    var redirectsToOtherOrigin = false

    /// `/elo-status500`: the path of the scenario's endpoint on the hostile server (and of its
    /// redirect target on the other one).
    var prefix: String { "/\(network.rawValue)-\(name)" }

    var testDescription: String { "\(network.rawValue) \(name)" }
}

/// Every scenario, per network.
enum HostileScenarios {
    /// The other origin's tracking route (answers 204).
    static let trackingPath = "/track"

    static func all(otherBase: String) -> [HostileScenario] {
        HostileScenario.Network.allCases.flatMap { scenarios(for: $0, otherBase: otherBase) }
    }

    static func scenarios(for network: HostileScenario.Network, otherBase: String) -> [HostileScenario] {
        switch network {
        case .elo: elo(otherBase: otherBase)
        case .nitx: nitx(otherBase: otherBase)
        case .qartvelo: qartvelo(otherBase: otherBase)
        }
    }

    // MARK: - Building blocks

    static let html = LoopbackServer.Response(status: 200, body: "<html><body><h1>502 Bad Gateway</h1></body></html>", headers: ["Content-Type": "text/html"])
    static let status500 = LoopbackServer.Response.json(#"{"error":"internal"}"#, status: 500)
    /// 9,000,000 bytes: over the transport's 8 MiB.
    static let hugeBody = LoopbackServer.Response(headers: ["Content-Type": "application/json"], bodyParts: [.init(text: #"{"id":""#, count: 1), .init(text: "x", count: 9_000_000), .init(text: #""}"#, count: 1)])
    static let badGzip = LoopbackServer.Response(status: 200, body: "this is not gzip at all", headers: ["Content-Type": "application/json", "Content-Encoding": "gzip"])
    static let never = LoopbackServer.Response(never: true, holdMilliseconds: 1500)

    static func json(_ body: String, echo: Bool = false) -> LoopbackServer.Response {
        var response = LoopbackServer.Response.json(body)
        response.echoRequestID = echo
        return response
    }

    /// `body` trickled a byte at a time over about 2 s: well past an 800 ms deadline.
    static func drip(_ body: String, echo: Bool = false) -> LoopbackServer.Response {
        var response = json(body, echo: echo)
        response.drip = .init(bytes: 1, intervalMilliseconds: max(1, 2000 / max(1, body.utf8.count)))
        return response
    }

    /// `body` cut off by a connection reset after 40 bytes.
    static func reset(_ body: String, echo: Bool = false) -> LoopbackServer.Response {
        var response = json(body, echo: echo)
        response.resetAfter = 40
        return response
    }

    /// A body the server builds from `pieces`: each text repeated its count of times, in order
    /// (huge bodies never cross the command line).
    static func generated(_ pieces: [(String, Int)], echo: Bool = false) -> LoopbackServer.Response {
        var response = LoopbackServer.Response(headers: ["Content-Type": "application/json"], bodyParts: pieces.map { .init(text: $0.0, count: $0.1) })
        response.echoRequestID = echo
        return response
    }

    static let long = 5000

    /// An escape sequence that would recolour a terminal and start a fake line: it must reach
    /// no trace description, log line or CLI output raw (R17).
    static let terminalEscape = #"\u001b[31mRED\u001b]0;pwned\u0007\nFAKE-LINE"#

    /// `body` sent `milliseconds` after the request: past an 800 ms deadline.
    static func late(_ body: String, milliseconds: Int = 1200, echo: Bool = false) -> LoopbackServer.Response {
        var response = json(body, echo: echo)
        response.delayMilliseconds = milliseconds
        return response
    }

    /// 9,000,000 bytes (over the transport's 8 MiB) that gzip to about 9 KB: a decompression bomb.
    static var gzipBomb: LoopbackServer.Response {
        var response = hugeBody
        response.bodyParts = [.init(text: #"{"id":""#, count: 1), .init(text: "0", count: 9_000_000), .init(text: #""}"#, count: 1)]
        response.gzip = true
        return response
    }

    /// 9,000,000 bytes with no Content-Length: the body ends when the connection closes.
    static var hugeBodyNoLength: LoopbackServer.Response {
        var response = hugeBody
        response.noLength = true
        return response
    }

    /// A 200 with a 64 KB header and an empty body.
    static let hugeHeaderEmptyBody = LoopbackServer.Response(status: 200, headers: ["Content-Type": "application/json", "X-Padding": String(repeating: "p", count: 65_536)])
    /// A redirect status with no Location.
    static let redirectWithoutLocation = LoopbackServer.Response(status: 302, body: "", headers: [:])
    /// 204 No Content.
    static let noContent = LoopbackServer.Response(status: 204)

    /// The transport-level attacks every HTTP network gets, with their scenario names.
    static let transportAttacks: [(String, LoopbackServer.Response)] = [
        ("gzipBomb", gzipBomb),
        ("hugeBodyNoLength", hugeBodyNoLength),
        ("hugeHeaderEmptyBody", hugeHeaderEmptyBody),
        ("redirectWithoutLocation", redirectWithoutLocation),
        ("status418", LoopbackServer.Response.json(#"{"teapot":true}"#, status: 418)),
        // 200,000 nested arrays (400 KB): a recursive JSON parser without a depth limit would
        // overflow its stack and crash the app.
        ("deepNesting", generated([(#"{"id":"$REQUEST_ID","ext":"#, 1), ("[", 200_000), ("]", 200_000), ("}", 1)], echo: true)),
        // A price, size or TTL written with 200,000 digits.
        ("hugeDigitNumbers", generated([(#"{"id":"$REQUEST_ID","seatbid":[{"bid":[{"price":"#, 1), ("9", 200_000), (#","w":"#, 1), ("9", 200_000), ("}]}],\"ad\":{\"w\":1e999999,\"ttl_seconds\":-1e999999},\"slot\":{\"code\":\"SLOT-HOSTILE\"}}", 1)], echo: true)),
    ] + malformedResponses

    /// Every malformed or cut-off response (a status line alone, headers then a close, a
    /// `Content-Length` longer or shorter than the body, chunked encoding cut mid-chunk,
    /// garbage, a slow server that gives up): never a crash, the other source wins.
    static let malformedResponses: [(String, LoopbackServer.Response)] = MalformedHTTPResponse.all.map {
        ("malformed-\($0.name)", LoopbackServer.Response.raw($0.bytes, holdMilliseconds: $0.holdMilliseconds))
    }

    /// `body` encoded as Latin-1: each `\u{FF}` in it is the invalid UTF-8 byte 0xFF.
    static func latin1(_ body: String, echo: Bool = false) -> LoopbackServer.Response {
        var response = json(body, echo: echo)
        response.latin1 = true
        return response
    }

    // MARK: - Elo

    /// An Elo bid for the echoed request id.
    static func eloBid(price: String = "2.5", size: String = #""w":390,"h":72"#, exp: String = "1800", crid: String = "cr-ok", bidid: String = "opp-1", otherBase: String) -> String {
        #"{"id":"$REQUEST_ID","bidid":"\#(bidid)","cur":"USD","seatbid":[{"seat":"elo","bid":[{"id":"b1","impid":"1","price":\#(price),"crid":"\#(crid)",\#(size),"exp":\#(exp),"ext":{"elo":{"format":"strip","title":"Hello","tracking":{"impression":["\#(otherBase)\#(trackingPath)?e=imp"]}}}}]}]}"#
    }

    static func elo(otherBase: String) -> [HostileScenario] {
        let bid = eloBid(otherBase: otherBase)
        let route = "POST /v1/bid"
        func scenario(_ name: String, _ response: LoopbackServer.Response, _ expected: HostileScenario.Expected, redirects: Bool = false) -> HostileScenario {
            HostileScenario(network: .elo, name: name, routes: [route: [response]], expected: expected, redirectsToOtherOrigin: redirects)
        }
        let invalid = HostileScenario.Expected.error(kind: .invalidResponse, code: 1, httpStatus: nil, message: [])
        let tracker = "\(otherBase)\(trackingPath)?e=imp"
        // One valid bid with 5000 impression trackers, then 3000 more bids.
        let manyBidsAndTrackers: [(String, Int)] = [
            (#"{"id":"$REQUEST_ID","bidid":"opp-1","cur":"USD","seatbid":[{"seat":"elo","bid":[{"id":"b1","impid":"1","price":2.5,"crid":"cr-1","w":390,"h":72,"ext":{"elo":{"format":"strip","title":"Hello","tracking":{"impression":["#, 1),
            (#""\#(tracker)","#, 4999),
            (#""\#(tracker)"]}}}},"#, 1),
            (#"{"id":"b","impid":"1","price":9,"crid":"c","ext":{"elo":{"format":"strip","title":"t"}}},"#, 2999),
            (#"{"id":"b","impid":"1","price":9,"crid":"c","ext":{"elo":{"format":"strip","title":"t"}}}]}]}"#, 1),
        ]
        let longIDs: [(String, Int)] = [
            (#"{"id":"$REQUEST_ID","bidid":""#, 1), ("b", long),
            (#"","cur":"USD","seatbid":[{"seat":"elo","bid":[{"id":"b1","impid":"1","price":2.5,"crid":""#, 1), ("c", long),
            (#"","w":390,"h":72,"ext":{"elo":{"format":"strip","title":""#, 1), ("t", long),
            (#""}}}]}]}"#, 1),
        ]
        return [
            scenario("ok", json(bid, echo: true), .wins(size: AdSize(width: 390, height: 72))),
            scenario("status500", status500, .error(kind: .server, code: EloErrorCode.serverStatus.rawValue, httpStatus: 500, message: ["networkError: HTTP 500"])),
            scenario("redirect302", .redirect(302, to: "\(otherBase)/elo-redirect302/v1/bid"), .error(kind: .server, code: EloErrorCode.redirectRefused.rawValue, httpStatus: 302, message: ["networkError: ", "redirectRefused: HTTP 302 redirect to \(otherBase)", "refused"]), redirects: true),
            scenario("redirect307", .redirect(307, to: "\(otherBase)/elo-redirect307/v1/bid"), .error(kind: .server, code: EloErrorCode.redirectRefused.rawValue, httpStatus: 307, message: ["networkError: ", "redirectRefused: HTTP 307 redirect to \(otherBase)", "refused"]), redirects: true),
            scenario("redirectLoop", .redirect(307, to: "/elo-redirectLoop/v1/bid"), .error(kind: .server, code: EloErrorCode.redirectRefused.rawValue, httpStatus: 307, message: ["networkError: ", "redirectRefused: HTTP 307", "more than 3 redirects"])),
            scenario("malformed", json(#"{"id":"$REQUEST_ID","seatbid":[{"bid":[{"price":"#, echo: true), invalid),
            scenario("html", html, invalid),
            scenario("wrongTypes", json(eloBid(price: #""2.5""#, otherBase: otherBase), echo: true), invalid),
            scenario("hugeBody", hugeBody, .error(kind: .invalidResponse, code: EloErrorCode.responseTooLarge.rawValue, httpStatus: 200, message: ["networkError: ", "responseTooLarge: response body of 9000009 bytes exceeds the 8388608-byte limit"])),
            scenario("badGzip", badGzip, .error(kind: .network, code: EloErrorCode.network.rawValue, httpStatus: nil, message: ["networkError: ", "connection: "])),
            scenario("reset", reset(bid, echo: true), .error(kind: .network, code: EloErrorCode.network.rawValue, httpStatus: nil, message: ["networkError: ", "connection: "])),
            scenario("never", never, .timeout),
            scenario("drip", drip(bid, echo: true), .timeout),
            scenario("priceNaN", json(eloBid(price: "NaN", otherBase: otherBase), echo: true), invalid),
            scenario("priceHuge", json(eloBid(price: "1e300", otherBase: otherBase), echo: true), .error(kind: .invalidResponse, code: 1, httpStatus: nil, message: ["price must be a finite number from 0 to 1000000"])),
            scenario("priceNegative", json(eloBid(price: "-1", otherBase: otherBase), echo: true), .error(kind: .invalidResponse, code: 1, httpStatus: nil, message: ["price must be"])),
            scenario("size1e308", json(eloBid(size: #""w":1e308,"h":72"#, otherBase: otherBase), echo: true), .error(kind: .invalidResponse, code: 1, httpStatus: nil, message: ["ad size must be positive and at most 10000 pt"])),
            scenario("size2000", json(eloBid(size: #""w":2000,"h":72"#, otherBase: otherBase), echo: true), .wins(size: AdSize(width: 390, height: 72))),
            scenario("expHuge", json(eloBid(exp: "9223372036854775807", otherBase: otherBase), echo: true), .wins(size: nil)),
            scenario("manyBidsAndTrackers", generated(manyBidsAndTrackers, echo: true), .wins(size: AdSize(width: 390, height: 72))),
            scenario("longIDs", generated(longIDs, echo: true), .wins(size: AdSize(width: 390, height: 72))),
            // Red-team additions.
            scenario("lateAnswer", late(bid, echo: true), .timeout),
            scenario("priceMaxDouble", json(eloBid(price: "1.7976931348623157e308", otherBase: otherBase), echo: true), .error(kind: .invalidResponse, code: 1, httpStatus: nil, message: ["price must be"])),
            scenario("priceZero", json(eloBid(price: "0", otherBase: otherBase), echo: true), .lost),
            scenario("priceNegativeZero", json(eloBid(price: "-0.0", otherBase: otherBase), echo: true), .lost),
            scenario("sizeZero", json(eloBid(size: #""w":0,"h":0"#, otherBase: otherBase), echo: true), .error(kind: .invalidResponse, code: 1, httpStatus: nil, message: ["ad size must be positive"])),
            scenario("expZero", json(eloBid(exp: "0", otherBase: otherBase), echo: true), .wins(size: nil)),
            scenario("expNegative", json(eloBid(exp: "-86400", otherBase: otherBase), echo: true), .wins(size: nil)),
            // OpenRTB's `exp` is whole seconds: a fraction makes the answer malformed.
            scenario("expFraction", json(eloBid(exp: "0.0001", otherBase: otherBase), echo: true), invalid),
            scenario("terminalEscapes", json(eloBid(crid: "cr" + terminalEscape, bidid: "opp" + terminalEscape, otherBase: otherBase), echo: true), .wins(size: AdSize(width: 390, height: 72))),
            scenario("duplicateBidIDs", json(#"{"id":"$REQUEST_ID","bidid":"opp-1","cur":"USD","seatbid":[{"seat":"elo","bid":[{"id":"b1","impid":"1","price":2.5,"crid":"cr-1","w":390,"h":72,"ext":{"elo":{"format":"strip","title":"One"}}},{"id":"b1","impid":"1","price":3.0,"crid":"cr-1","w":390,"h":72,"ext":{"elo":{"format":"strip","title":"Two"}}}]},{"seat":"elo","bid":[{"id":"b1","impid":"1","price":2.0,"crid":"cr-1","w":390,"h":72,"ext":{"elo":{"format":"strip","title":"Three"}}}]}]}"#, echo: true), .wins(size: AdSize(width: 390, height: 72))),
            scenario("invalidUTF8", latin1(eloBid(crid: "cr-\u{FF}\u{FE}", otherBase: otherBase), echo: true), invalid),
            scenario("redirectSchemeChange", .redirect(307, to: "https://$HOSTPORT/elo-redirectSchemeChange/v1/bid"), .error(kind: .server, code: EloErrorCode.redirectRefused.rawValue, httpStatus: 307, message: ["networkError: ", "redirectRefused", "refused"])),
            scenario("redirectUserInfo", .redirect(307, to: "http://$HOSTPORT@evil.invalid/elo-redirectUserInfo/v1/bid"), .error(kind: .server, code: EloErrorCode.redirectRefused.rawValue, httpStatus: 307, message: ["networkError: ", "redirectRefused", "refused"])),
            scenario("noContent", noContent, .fails),
        ] + transportAttacks.map { scenario($0.0, $0.1, .fails) } + [
            scenario("redirectOtherPortSameHost", .redirect(307, to: "\(otherBase)/elo-redirectOtherPortSameHost/v1/bid"), .error(kind: .server, code: EloErrorCode.redirectRefused.rawValue, httpStatus: 307, message: ["networkError: ", "redirectRefused", "refused"]), redirects: true),
        ]
    }

    /// The redirect targets on the other origin: each serves a valid answer that would win.
    static func otherOriginRoutes(otherBase: String) -> [String: [LoopbackServer.Response]] {
        var routes: [String: [LoopbackServer.Response]] = ["GET \(trackingPath)": [LoopbackServer.Response(status: 204)]]
        for scenario in all(otherBase: otherBase) where scenario.redirectsToOtherOrigin {
            switch scenario.network {
            case .elo:
                for method in ["GET", "POST"] { routes["\(method) \(scenario.prefix)/v1/bid"] = [json(eloBid(price: "50", otherBase: otherBase), echo: true)] }
            case .nitx:
                routes["GET \(scenario.prefix)/api/ad-slots/show/SLOT-HOSTILE"] = [json(nitxAd)]
            case .qartvelo:
                for method in ["GET", "POST"] { routes["\(method) \(scenario.prefix)/v1/banner"] = [json(qartveloAd(otherBase: otherBase))] }
                routes["GET \(scenario.prefix)/bundle"] = [LoopbackServer.Response(status: 200, body: "<html></html>")]
            }
        }
        return routes
    }

    // MARK: - Nitx

    static let nitxConfig = #"{"code":"SDK-AM-HOSTILE","bundle_id":"com.example.app","status":"active"}"#
    static let nitxAd = #"{"slot":{"code":"SLOT-HOSTILE","format":"banner_adaptive"},"ad":{"id":7,"name":"Hello","type":"image","path":"/creatives/7.png"}}"#

    static func nitxAd(_ ad: String) -> String {
        #"{"slot":{"code":"SLOT-HOSTILE","format":"banner_adaptive"},"ad":{\#(ad)}}"#
    }

    static func nitx(otherBase: String) -> [HostileScenario] {
        func scenario(_ name: String, _ response: LoopbackServer.Response, _ expected: HostileScenario.Expected, redirects: Bool = false) -> HostileScenario {
            HostileScenario(network: .nitx, name: name, routes: [
                "GET /api/ad-mobiles/show/SDK-AM-HOSTILE": [json(nitxConfig)],
                "GET /api/ad-slots/show/SLOT-HOSTILE": [response],
            ], expected: expected, redirectsToOtherOrigin: redirects)
        }
        let invalid = HostileScenario.Expected.error(kind: .invalidResponse, code: NitxErrorCode.invalidResponse.rawValue, httpStatus: nil, message: [])
        let slot = "/api/ad-slots/show/SLOT-HOSTILE"
        let redirect = NitxErrorCode.redirectRefused.rawValue
        return [
            scenario("ok", json(nitxAd), .wins(size: AdSize(width: 390, height: 61))),
            scenario("status500", status500, .error(kind: .server, code: NitxErrorCode.server.rawValue, httpStatus: 500, message: ["HTTP 500"])),
            scenario("redirect302", .redirect(302, to: "\(otherBase)/nitx-redirect302\(slot)"), .error(kind: .server, code: redirect, httpStatus: 302, message: ["HTTP 302 redirect to \(otherBase)"]), redirects: true),
            scenario("redirect307", .redirect(307, to: "\(otherBase)/nitx-redirect307\(slot)"), .error(kind: .server, code: redirect, httpStatus: 307, message: ["HTTP 307 redirect to \(otherBase)"]), redirects: true),
            scenario("redirectLoop", .redirect(302, to: "/nitx-redirectLoop\(slot)"), .error(kind: .server, code: redirect, httpStatus: 302, message: ["more than 3 redirects"])),
            scenario("malformed", json(#"{"slot":{"code":"SLOT-HOSTILE"},"ad":{"id":"#), invalid),
            scenario("html", html, invalid),
            scenario("wrongTypes", json(nitxAd(#""id":7,"type":["image"],"path":"/c/7.png""#)), invalid),
            scenario("hugeBody", hugeBody, .error(kind: .invalidResponse, code: NitxErrorCode.responseTooLarge.rawValue, httpStatus: 200, message: ["exceeds the 8388608-byte limit"])),
            scenario("badGzip", badGzip, .error(kind: .network, code: NitxErrorCode.network.rawValue, httpStatus: nil, message: ["connection: "])),
            scenario("reset", reset(nitxAd), .error(kind: .network, code: NitxErrorCode.network.rawValue, httpStatus: nil, message: ["connection: "])),
            scenario("never", never, .timeout),
            scenario("drip", drip(nitxAd), .timeout),
            scenario("sizeHuge", json(nitxAd(#""id":7,"type":"image","path":"/c/7.png","width":1e308,"height":50"#)), invalid),
            scenario("sizeNegative", json(nitxAd(#""id":7,"type":"image","path":"/c/7.png","width":320,"height":-50"#)), invalid),
            scenario("idHuge", json(nitxAd(#""id":1e300,"type":"image","path":"/c/7.png""#)), invalid),
            scenario("longIDs", generated([(#"{"impression_id":""#, 1), ("m", long), (#"","ad":{"type":"image","path":"/c/7.png","name":""#, 1), ("n", long), (#"","id":""#, 1), ("i", long), (#""}}"#, 1)]), .wins(size: AdSize(width: 390, height: 61))),
            // Red-team additions.
            scenario("lateAnswer", late(nitxAd), .timeout),
            scenario("terminalEscapes", json(#"{"impression_id":"imp\#(terminalEscape)","ad":{"id":"ad\#(terminalEscape)","name":"n\#(terminalEscape)","type":"image","path":"/c/7.png"}}"#), .wins(size: AdSize(width: 390, height: 61))),
            scenario("invalidUTF8", latin1(nitxAd(#""id":7,"name":"caf\#u{FF}","type":"image","path":"/c/7.png""#)), invalid),
            scenario("redirectSchemeChange", .redirect(302, to: "https://$HOSTPORT/nitx-redirectSchemeChange\(slot)"), .error(kind: .server, code: redirect, httpStatus: 302, message: ["redirect"])),
            scenario("redirectUserInfo", .redirect(302, to: "http://$HOSTPORT@evil.invalid/nitx-redirectUserInfo\(slot)"), .error(kind: .server, code: redirect, httpStatus: 302, message: ["redirect"])),
            scenario("noContent", noContent, .fails),
            // A relative redirect on the same origin is followed (at most 3 times) and fills.
            HostileScenario(network: .nitx, name: "redirectRelativeSameOrigin", routes: [
                "GET /api/ad-mobiles/show/SDK-AM-HOSTILE": [json(nitxConfig)],
                "GET /api/ad-slots/show/SLOT-HOSTILE": [.redirect(302, to: "/nitx-redirectRelativeSameOrigin/api/ad-slots/show/SLOT-MOVED")],
                "GET /api/ad-slots/show/SLOT-MOVED": [json(nitxAd)],
            ], expected: .wins(size: AdSize(width: 390, height: 61))),
        ] + transportAttacks.map { scenario($0.0, $0.1, .fails) }
    }

    // MARK: - Qartvelo

    static func qartveloAd(_ fields: String = #""w":1320,"h":204,"density":3"#, extra: String = "", refresh: String = "60", otherBase: String) -> String {
        #"{"id":"qv","ad":{"creative_id":"cr-ok","type":"image",\#(fields),"image_url":"https://cdn.example/i.png","impression_url":"\#(otherBase)\#(trackingPath)?e=imp"\#(extra)},"banner_refresh_seconds":\#(refresh)}"#
    }

    static func qartvelo(otherBase: String) -> [HostileScenario] {
        func scenario(_ name: String, _ response: LoopbackServer.Response, _ expected: HostileScenario.Expected, redirects: Bool = false, bundle: LoopbackServer.Response? = nil) -> HostileScenario {
            var routes = ["POST /v1/banner": [response]]
            if let bundle { routes["GET /bundle"] = [bundle] }
            return HostileScenario(network: .qartvelo, name: name, routes: routes, expected: expected, redirectsToOtherOrigin: redirects)
        }
        let ad = qartveloAd(otherBase: otherBase)
        let malformed = HostileScenario.Expected.error(kind: .invalidResponse, code: QartveloErrorCode.malformedResponse.rawValue, httpStatus: nil, message: [])
        let invalid = HostileScenario.Expected.error(kind: .invalidResponse, code: QartveloErrorCode.invalidAd.rawValue, httpStatus: nil, message: [])
        let redirect = QartveloErrorCode.redirectRefused.rawValue
        // An HTML5 bundle on the hostile server itself: `$SELF` is the server's own base URL.
        return [
            scenario("ok", json(ad), .wins(size: AdSize(width: 390, height: 60))),
            scenario("status500", status500, .error(kind: .server, code: QartveloErrorCode.serverStatus.rawValue, httpStatus: 500, message: ["500"])),
            scenario("redirect302", .redirect(302, to: "\(otherBase)/qartvelo-redirect302/v1/banner"), .error(kind: .server, code: redirect, httpStatus: 302, message: ["HTTP 302 redirect to \(otherBase)"]), redirects: true),
            scenario("redirect307", .redirect(307, to: "\(otherBase)/qartvelo-redirect307/v1/banner"), .error(kind: .server, code: redirect, httpStatus: 307, message: ["HTTP 307 redirect to \(otherBase)"]), redirects: true),
            scenario("redirectLoop", .redirect(307, to: "/qartvelo-redirectLoop/v1/banner"), .error(kind: .server, code: redirect, httpStatus: 307, message: ["more than 3 redirects"])),
            scenario("malformed", json(#"{"id":"qv","ad":{"creative_id":"#), malformed),
            scenario("html", html, malformed),
            scenario("wrongTypes", json(qartveloAd(#""w":"1320","h":204"#, otherBase: otherBase)), malformed),
            scenario("hugeBody", hugeBody, .error(kind: .invalidResponse, code: QartveloErrorCode.responseTooLarge.rawValue, httpStatus: 200, message: ["exceeds the 8388608-byte limit"])),
            scenario("badGzip", badGzip, .error(kind: .network, code: QartveloErrorCode.network.rawValue, httpStatus: nil, message: [])),
            scenario("reset", reset(ad), .error(kind: .network, code: QartveloErrorCode.network.rawValue, httpStatus: nil, message: [])),
            scenario("never", never, .timeout),
            scenario("drip", drip(ad), .timeout),
            scenario("densityTiny", json(qartveloAd(#""w":1320,"h":204,"density":1e-300"#, otherBase: otherBase)), invalid),
            scenario("widthInt64Max", json(qartveloAd(#""w":9223372036854775807,"h":204,"density":3"#, otherBase: otherBase)), invalid),
            scenario("widthNegative", json(qartveloAd(#""w":-1320,"h":204,"density":3"#, otherBase: otherBase)), invalid),
            scenario("ttlHuge", json(qartveloAd(extra: #","ttl_seconds":9223372036854775807"#, otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("refreshHuge", json(qartveloAd(refresh: "9223372036854775807", otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("hugeNoFillReason", generated([(#"{"id":"qv","nofill_reason":""#, 1), ("r", 5_000_000), (#""}"#, 1)]), .noFill(code: String(repeating: "r", count: 127) + "…", message: [])),
            scenario("longIDs", generated([(#"{"id":"qv","banner_refresh_seconds":60,"ad":{"type":"image","w":1320,"h":204,"density":3,"image_url":"https://cdn.example/i.png","creative_id":""#, 1), ("c", long), (#""}}"#, 1)]), .wins(size: AdSize(width: 390, height: 60))),
            scenario("bundleRedirect", json(#"{"id":"qv","ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"$SELF/qartvelo-bundleRedirect/bundle"}}"#), .error(kind: .server, code: redirect, httpStatus: 302, message: ["HTTP 302 redirect to \(otherBase)"]), redirects: true, bundle: .redirect(302, to: "\(otherBase)/qartvelo-bundleRedirect/bundle")),
            // Red-team additions.
            scenario("lateAnswer", late(ad), .timeout),
            scenario("ttlZero", json(qartveloAd(extra: #","ttl_seconds":0"#, otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("ttlNegative", json(qartveloAd(extra: #","ttl_seconds":-5"#, otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("ttlTrillion", json(qartveloAd(extra: #","ttl_seconds":1000000000000"#, otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("refreshZero", json(qartveloAd(refresh: "0", otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("refreshTrillion", json(qartveloAd(refresh: "1000000000000", otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("refreshNegative", json(qartveloAd(refresh: "-60", otherBase: otherBase)), .wins(size: AdSize(width: 390, height: 60))),
            scenario("terminalEscapes", json(#"{"id":"qv","ad":{"creative_id":"cr\#(terminalEscape)","type":"image","w":1320,"h":204,"density":3,"image_url":"https://cdn.example/i.png"},"banner_refresh_seconds":60}"#), .wins(size: AdSize(width: 390, height: 60))),
            scenario("noFillReasonEscapes", json(#"{"id":"qv","nofill_reason":"no\#(terminalEscape)"}"#), .noFill(code: "no\u{1B}[31mRED\u{1B}]0;pwned\u{07}\nFAKE-LINE", message: [])),
            scenario("invalidUTF8", latin1(#"{"id":"qv","ad":{"creative_id":"cr-\#u{FF}\#u{FE}","type":"image","w":1320,"h":204,"density":3,"image_url":"https://cdn.example/i.png"},"banner_refresh_seconds":60}"#), malformed),
            scenario("redirectSchemeChange", .redirect(307, to: "https://$HOSTPORT/qartvelo-redirectSchemeChange/v1/banner"), .error(kind: .server, code: redirect, httpStatus: 307, message: ["redirect"])),
            scenario("redirectUserInfo", .redirect(307, to: "http://$HOSTPORT@evil.invalid/qartvelo-redirectUserInfo/v1/banner"), .error(kind: .server, code: redirect, httpStatus: 307, message: ["redirect"])),
            scenario("noContent", noContent, .fails),
            // A relative 307 on the same origin keeps the method and body, is followed and fills.
            HostileScenario(network: .qartvelo, name: "redirectRelativeSameOrigin", routes: [
                "POST /v1/banner": [.redirect(307, to: "/qartvelo-redirectRelativeSameOrigin/v1/banner-moved")],
                "POST /v1/banner-moved": [json(ad)],
            ], expected: .wins(size: AdSize(width: 390, height: 60))),
        ] + transportAttacks.map { scenario($0.0, $0.1, .fails) } + [
            scenario("bundleTooLargeNoLength", json(#"{"id":"qv","ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"$SELF/qartvelo-bundleTooLargeNoLength/bundle"}}"#), .fails, bundle: {
                var bundle = LoopbackServer.Response(bodyParts: [.init(text: "b", count: 3_000_000)])
                bundle.noLength = true
                return bundle
            }()),
            scenario("bundleGzipBomb", json(#"{"id":"qv","ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"$SELF/qartvelo-bundleGzipBomb/bundle"}}"#), .fails, bundle: {
                var bundle = LoopbackServer.Response(bodyParts: [.init(text: "<html>", count: 1), .init(text: "0", count: 3_000_000)])
                bundle.gzip = true
                return bundle
            }()),
        ] + malformedResponses.filter { $0.0 != "malformed-lengthShorterThanBody" }.map { attack in
            // The creative bundle's GET gets every malformed response too (but a body longer
            // than its Content-Length: the announced bytes are a bundle like any other).
            scenario("bundle-\(attack.0)", json(#"{"id":"qv","ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"$SELF/qartvelo-bundle-\#(attack.0)/bundle"}}"#), .fails, bundle: attack.1)
        } + [
            scenario("bundleTooLarge", json(#"{"id":"qv","ad":{"creative_id":"cr-h5","type":"html5","w":320,"h":50,"bundle_url":"$SELF/qartvelo-bundleTooLarge/bundle"}}"#), .error(kind: .creative, code: QartveloErrorCode.bundleTooLarge.rawValue, httpStatus: nil, message: ["over the 2 MB"]), bundle: LoopbackServer.Response(bodyParts: [.init(text: "b", count: 3_000_000)])),
        ]
    }
}
