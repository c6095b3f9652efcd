import Foundation
import Mediation
import MediationTestKit
@testable import Adapters

/// A scripted transport: records every request and answers with `handler`.
final class EloFakeTransport: HTTP.Transport {
    typealias Handler = @Sendable (HTTP.Request) async -> Result<HTTP.Response, HTTP.TransportError>

    private let handler: Locked<Handler>
    private let recorded = Locked<[HTTP.Request]>([])

    init(_ handler: @escaping Handler) {
        self.handler = Locked(handler)
    }

    /// Answers every bid request with a bid at `price` (format from the slot), tracking with 204.
    convenience init(price: Double = 2.35) {
        self.init { request in
            if request.url.path.hasSuffix("/v1/bid") { return .success(EloFixtures.bidResponse(for: request, price: price)) }
            return .success(HTTP.Response(statusCode: 204))
        }
    }

    /// Never answers until cancelled (it sleeps on a clock of its own that never moves).
    static func hanging() -> EloFakeTransport {
        let never = ManualClock()
        return EloFakeTransport { _ in
            do {
                try await never.sleep(until: .origin + .seconds(1_000_000))
            } catch {
                return .failure(HTTP.TransportError(kind: .cancelled, message: "cancelled"))
            }
            return .failure(HTTP.TransportError(kind: .connection, message: "unreachable"))
        }
    }

    func setHandler(_ newHandler: @escaping Handler) {
        handler.withLock { $0 = newHandler }
    }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        recorded.withLock { $0.append(request) }
        let current = handler.withLock { $0 }
        switch await current(request) {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }

    var requests: [HTTP.Request] { recorded.withLock { $0 } }
    var bidRequests: [HTTP.Request] { requests.filter { $0.url.path.hasSuffix("/v1/bid") } }
    var pings: [HTTP.Request] { requests.filter { !$0.url.path.hasSuffix("/v1/bid") } }

    /// The decoded bid requests.
    func decodedBidRequests() throws -> [EloWireBidRequest] {
        try bidRequests.map { try JSONDecoder().decode(EloWireBidRequest.self, from: $0.body ?? Data()) }
    }
}

/// Sequential ids: `id-1`, `id-2`, ...
final class SequentialIDs: Sendable {
    private let counter = Locked(0)
    let prefix: String
    init(prefix: String = "id") { self.prefix = prefix }
    var make: @Sendable () -> String {
        { [counter, prefix] in "\(prefix)-\(counter.withLock { $0 += 1; return $0 })" }
    }
}

enum EloFixtures {
    /// 2026-11-29T12:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_953_600)

    static let configuration = EloConfiguration(publisherID: "pub-1", adUnitID: "unit-default")

    static func request(
        format: AdFormat = .native,
        adUnitID: String = "unit-chat",
        maxWidth: Double? = 390,
        maxHeight: Double? = 120,
        messages: [AdRequest.Context.Message] = [
            AdRequest.Context.Message(role: .user, content: "Where should I fly this weekend?", id: "m-1"),
            AdRequest.Context.Message(role: .assistant, content: "Tbilisi has great food.", id: "m-2"),
        ],
        contextObjects: [AdRequest.Context.Object] = [AdRequest.Context.Object(type: "topic", description: "travel planning")],
        device: AdRequest.Device = AdRequest.Device(),
        privacy: AdRequest.Privacy = AdRequest.Privacy(limitAdTracking: false),
        deadline: MediationInstant = .origin + .seconds(3)
    ) -> AdRequest {
        AdRequest(
            placementID: "chat_strip",
            adUnitID: adUnitID,
            format: format,
            slot: SlotSize(maxWidth: maxWidth, maxHeight: maxHeight),
            context: AdRequest.Context(messages: messages, contextObjects: contextObjects),
            device: device,
            privacy: privacy,
            deadline: deadline
        )
    }

    static func client(
        transport: any HTTP.Transport,
        clock: any MediationClock = ManualClock(),
        configuration: EloConfiguration = EloFixtures.configuration,
        logger: any MediationLogger = SilentLogger(),
        stateStore: any StateStore = MemoryStateStore(),
        ids: SequentialIDs = SequentialIDs()
    ) -> EloClient {
        EloClient(configuration: configuration, transport: transport, clock: clock, logger: logger, stateStore: stateStore, now: { EloFixtures.now }, makeID: ids.make)
    }

    /// A bid response echoing the request id, for the format the slot decides.
    static func bidResponse(for request: HTTP.Request, price: Double, adID: String? = nil, format: String? = nil, creativeID: String = "cr-7") -> HTTP.Response {
        guard let body = request.body, let bidRequest = try? JSONDecoder().decode(EloWireBidRequest.self, from: body) else {
            return HTTP.Response(statusCode: 400)
        }
        let chosen = format ?? EloAdFormat.choose(forMaxHeight: bidRequest.imp.first?.native.h)?.rawValue ?? "card"
        return .json(Data(bidJSON(requestID: bidRequest.id, price: price, adID: adID ?? "ad-\(bidRequest.id)", format: chosen, creativeID: creativeID).utf8))
    }

    /// The JSON of a one-bid response.
    static func bidJSON(requestID: String, price: Double, adID: String = "ad-1", format: String = "strip", currency: String = "USD", creativeID: String = "cr-7") -> String {
        """
        {"id":"\(requestID)","bidid":"\(adID)","cur":"\(currency)","seatbid":[{"seat":"elo","bid":[{"id":"b1","impid":"1","price":\(price),"crid":"\(creativeID)","w":390,"h":72,"exp":1800,"ext":{"elo":{"format":"\(format)","title":"Fly to Tbilisi","description":"Weekend fares","image_url":"https://img.elo.test/cr-7.png","cta_text":"Book","click_url":"https://example.com/book","cta_enabled":true,"tracking":{"render":["https://t.elo.test/render?ad=\(adID)"],"impression":["https://t.elo.test/imp?ad=\(adID)"],"click":["https://t.elo.test/click?ad=\(adID)"]}}}}]}]}
        """
    }

    static func json(_ status: Int = 200, _ body: String) -> HTTP.Response {
        HTTP.Response(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(body.utf8))
    }
}
