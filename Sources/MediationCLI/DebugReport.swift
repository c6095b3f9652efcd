import Foundation
import Mediation

/// The `--debug` section: every HTTP exchange of the run, grouped by source (line item) in the
/// trace's order, then the exchanges made outside an auction's `loadAd` (tracking pings, event
/// batches) by network. Times are milliseconds on the engine's clock from the start of the
/// exchange's auction (or, outside an auction, of the run).
///
/// Unless the mode is ``DebugMode/unredacted``, URLs, headers and bodies go through
/// ``HTTPExchangeRedactor``. Every body is cut to ``bodyCap`` characters; everything a network
/// sent is escaped (``DisplayText``) so each line stays one line.
struct DebugReport {
    /// The most characters of one body shown (human and JSON output): 8192.
    static let bodyCap = 8192

    /// One exchange, ready to print or encode.
    struct Exchange: Encodable {
        struct Message: Encodable {
            var headers: [String: String]
            var body: String?
            var bodyBytes: Int
            var bodyTruncated: Bool

            enum CodingKeys: String, CodingKey {
                case headers, body
                case bodyBytes = "body_bytes"
                case bodyTruncated = "body_truncated"
            }
        }

        /// `adapter_call` (the engine's `loadAd` to the adapter) or `http`.
        var kind: String
        var network: String
        var lineItem: String?
        var auctionID: String?
        /// An adapter call's result: `bid 1.25`, `fill`, `no_fill (…)`, `failure (…)`.
        var result: String?
        var method: String
        var url: String
        var status: Int?
        var error: String?
        var startMilliseconds: Double
        var durationMilliseconds: Double
        var request: Message
        var response: Message

        enum CodingKeys: String, CodingKey {
            case kind, network, result
            case lineItem = "line_item"
            case auctionID = "auction_id"
            case method, url, status, error
            case startMilliseconds = "start_ms"
            case durationMilliseconds = "duration_ms"
            case request, response
        }
    }

    /// `{"redacted", "body_cap", "dropped", "exchanges"}` for `--json`.
    struct JSON: Encodable {
        var redacted: Bool
        var bodyCap: Int
        var dropped: Int
        var exchanges: [Exchange]

        enum CodingKeys: String, CodingKey {
            case redacted
            case bodyCap = "body_cap"
            case dropped, exchanges
        }
    }

    let mode: DebugMode
    let exchanges: [Exchange]
    let dropped: Int

    /// Prepares the exchanges of a run.
    /// - Parameters:
    ///   - recorded: the recorder's exchanges.
    ///   - calls: the recorder's adapter calls.
    ///   - dropped: how many the recorder did not keep.
    ///   - traces: the run's auctions (to order sources and measure times from their starts).
    ///   - runStart: the run's start on the engine's clock (for exchanges outside an auction).
    ///   - mode: redacted or not.
    init(recorded: [HTTPExchange], calls: [AdapterCall] = [], dropped: Int, traces: [AuctionTrace], runStart: MediationInstant, mode: DebugMode) {
        self.mode = mode
        self.dropped = dropped
        var starts: [String: Double] = [:]
        var order: [String: Int] = [:]
        for (auctionIndex, trace) in traces.enumerated() {
            starts[trace.auctionID] = trace.startedAtMilliseconds
            for (sourceIndex, source) in trace.sources.enumerated() {
                order["\(trace.auctionID)\u{0}\(source.lineItemID)"] = auctionIndex * 1_000_000 + sourceIndex
            }
        }
        let redact = mode == .redacted
        func message(headers: [String: String], body: Data?, bytes: Int) -> Exchange.Message {
            let text = body.map { HTTPExchangeRedactor.bodyText($0, redact: redact) }
            let cut = text.map { $0.count > Self.bodyCap } ?? false
            return Exchange.Message(
                headers: redact ? HTTPExchangeRedactor.headers(headers) : headers,
                body: text.map { cut ? String($0.prefix(Self.bodyCap)) : $0 },
                bodyBytes: bytes,
                bodyTruncated: cut || (body.map { $0.count < bytes } ?? false)
            )
        }
        var prepared = calls.map { call -> (key: Int, exchange: Exchange) in
            let origin = call.source.flatMap { starts[$0.auctionID] } ?? runStart.milliseconds
            let key = call.source.flatMap { order["\($0.auctionID)\u{0}\($0.lineItemID)"] } ?? Int.max / 2
            return (key, Exchange(
                kind: "adapter_call",
                network: call.networkID,
                lineItem: call.source?.lineItemID,
                auctionID: call.source?.auctionID,
                result: call.result,
                method: "loadAd",
                url: "adapter \(call.networkID)",
                status: nil,
                error: nil,
                startMilliseconds: call.startedAt.milliseconds - origin,
                durationMilliseconds: (call.endedAt - call.startedAt).milliseconds,
                request: message(headers: [:], body: call.request, bytes: call.request.count),
                response: Exchange.Message(headers: [:], body: nil, bodyBytes: 0, bodyTruncated: false)
            ))
        }
        prepared += recorded.map { exchange -> (key: Int, exchange: Exchange) in
            let origin = exchange.source.flatMap { starts[$0.auctionID] } ?? runStart.milliseconds
            let key = exchange.source.flatMap { order["\($0.auctionID)\u{0}\($0.lineItemID)"] } ?? Int.max / 2
            return (key, Exchange(
                kind: "http",
                network: exchange.networkID,
                lineItem: exchange.source?.lineItemID,
                auctionID: exchange.source?.auctionID,
                result: nil,
                method: exchange.method,
                url: redact ? HTTPExchangeRedactor.url(exchange.url) : exchange.url.absoluteString,
                status: exchange.statusCode,
                error: exchange.error,
                startMilliseconds: exchange.startedAt.milliseconds - origin,
                durationMilliseconds: exchange.durationMilliseconds,
                request: message(headers: exchange.requestHeaders, body: exchange.requestBody, bytes: exchange.requestBodyBytes),
                response: message(headers: exchange.responseHeaders, body: exchange.responseBody, bytes: exchange.responseBodyBytes)
            ))
        }
        // Stable: by source in trace order, then exchanges outside auctions by network; each
        // group the adapter call first, then by start.
        exchanges = prepared.enumerated()
            .sorted { Self.sortKey($0.element, $0.offset) < Self.sortKey($1.element, $1.offset) }
            .map(\.element.exchange)
    }

    /// Groups by source in trace order (then the exchanges outside auctions by network); inside
    /// a group, the adapter call first, then by start time, then in recorded order.
    private static func sortKey(_ entry: (key: Int, exchange: Exchange), _ offset: Int) -> (Int, String, Int, Double, Int) {
        let exchange = entry.exchange
        let start = exchange.startMilliseconds.isFinite ? exchange.startMilliseconds : 0
        return (entry.key, exchange.lineItem == nil ? exchange.network : "", exchange.kind == "adapter_call" ? 0 : 1, start, offset)
    }

    /// `build(mode, recorder)` when `--debug` was given (both are set), else `nil`.
    static func make(_ mode: DebugMode?, _ recorder: HTTPExchangeRecorder?, _ build: (DebugMode, HTTPExchangeRecorder) -> DebugReport) -> DebugReport? {
        guard let mode, let recorder else { return nil }
        return build(mode, recorder)
    }

    /// The JSON value of the section.
    var json: JSON {
        JSON(redacted: mode == .redacted, bodyCap: Self.bodyCap, dropped: dropped, exchanges: exchanges)
    }

    /// The human section, ending with a newline.
    func rendered() -> String {
        let safe: (String) -> String = DisplayText.escaped
        var lines: [String] = [""]
        let how = mode == .redacted
            ? "user data and identifiers shown as \(HTTPExchangeRedactor.placeholder); --debug=unredacted shows them"
            : "UNREDACTED: user data and identifiers as sent"
        lines.append("Debug: adapter calls and HTTP exchanges (\(exchanges.count); \(how); bodies cut at \(Self.bodyCap) characters; times in ms from the auction's start):")
        if exchanges.isEmpty { lines.append("  (none)") }
        var currentGroup: String?
        for exchange in exchanges {
            let group = exchange.lineItem.map { "\(safe(exchange.network)) / \(safe($0))" + (exchange.auctionID.map { " (auction \(safe($0)))" } ?? "") }
                ?? "\(safe(exchange.network)) (outside an auction's request; times from the run's start)"
            if group != currentGroup {
                lines.append("== \(group)")
                currentGroup = group
            }
            if exchange.kind == "adapter_call" {
                let answer = exchange.result == "no answer yet" ? "no answer yet (still running when the report was taken)" : "\(safe(exchange.result ?? "?")) in \(ReportFormat.millis(exchange.durationMilliseconds)) ms"
                lines.append("  +\(ReportFormat.millis(exchange.startMilliseconds)) ms engine -> adapter loadAd -> \(answer)")
                lines.append(contentsOf: Self.describe("request", exchange.request))
                continue
            }
            let result: String
            if let status = exchange.status {
                result = "HTTP \(status) in \(ReportFormat.millis(exchange.durationMilliseconds)) ms"
            } else if exchange.error == "no response yet" {
                result = "no response yet (in flight when the report was taken)"
            } else {
                result = "failed: \(safe(exchange.error ?? "no response")) after \(ReportFormat.millis(exchange.durationMilliseconds)) ms"
            }
            lines.append("  +\(ReportFormat.millis(exchange.startMilliseconds)) ms \(safe(exchange.method)) \(safe(exchange.url)) -> \(result)")
            lines.append(contentsOf: Self.describe("request", exchange.request))
            if exchange.status != nil {
                lines.append(contentsOf: Self.describe("response", exchange.response))
            }
        }
        if dropped > 0 { lines.append("  (\(dropped) more exchanges not kept: the recorder's limit)") }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ name: String, _ message: Exchange.Message) -> [String] {
        let safe: (String) -> String = DisplayText.escaped
        var lines: [String] = []
        if !message.headers.isEmpty {
            let headers = message.headers.sorted { $0.key < $1.key }.map { "\(safe($0.key)): \(safe($0.value))" }.joined(separator: "; ")
            lines.append("    \(name) headers: \(headers)")
        }
        if let body = message.body, message.bodyBytes > 0 {
            let cut = message.bodyTruncated ? " (cut)" : ""
            lines.append("    \(name) body (\(message.bodyBytes) bytes\(cut)): \(safe(body))")
        }
        return lines
    }

}
