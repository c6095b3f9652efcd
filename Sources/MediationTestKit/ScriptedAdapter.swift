import Mediation

/// What a ``ScriptedAdapter`` answers with, once its delay has passed.
public enum ScriptedResult: Sendable {
    /// A bid at this eCPM (USD CPM), with a new ``ScriptedAd``.
    case bid(Double)
    /// A bid at this eCPM with the given ad.
    case bidWith(ScriptedAd, Double)
    /// A fill (priced by the line item's configured eCPM), with a new ``ScriptedAd``.
    case fill
    /// A fill with the given ad.
    case fillWith(ScriptedAd)
    /// A no-fill (``AdLoadResult/NoFillReason/noInventory``).
    case noFill
    /// A failure (``AdLoadResult/Error/Kind/server``, code 500).
    case error
}

/// One scripted answer to one request.
public enum ScriptedAnswer: Sendable {
    /// Answers `result` this long after the request arrived, on the adapter's clock. By default
    /// the answer comes even when the calling task was cancelled (as a network that ignores
    /// cancellation would), so late and post-cancel arrivals can be tested (R6, R7).
    case after(Duration, ScriptedResult)
    /// Never answers, even when cancelled (engine rules, "Silent adapter").
    case never
}

/// A test adapter that answers each request from a script, on an injected clock: request `i`
/// (0-based) gets `script[i]`, and requests past the end get the script's last answer (an empty
/// script answers no fill at once). Counts requests, keeps every ad it creates, and records the
/// engine's notices and life-cycle calls.
///
/// Sendable: all mutable state lives in one lock box.
public final class ScriptedAdapter: AdNetworkAdapter {
    /// A life-cycle call the engine made.
    public enum LifeCycleCall: Hashable, Sendable {
        /// ``AdNetworkAdapter/didEnterBackground()``.
        case didEnterBackground
        /// ``AdNetworkAdapter/willEnterForeground()``.
        case willEnterForeground
        /// ``AdNetworkAdapter/willResignActive()``.
        case willResignActive
        /// ``AdNetworkAdapter/shutdown()``.
        case shutdown
    }

    private struct State {
        var requests: [AdRequest] = []
        var requestInstants: [MediationInstant] = []
        var answerInstants: [MediationInstant] = []
        var ads: [ScriptedAd] = []
        var cancelledBeforeAnswer = 0
        var notices: [AuctionNotice] = []
        var lifeCycleCalls: [LifeCycleCall] = []
        var templates: [RequestTemplate] = []
    }

    /// The network id, e.g. `"elo"`.
    public let network: String
    /// Bidder or fixed price.
    public let pricing: LineItem.Pricing
    /// Whether a `.after` answer is cut short when the calling task is cancelled (it then
    /// returns a `.cancelled` failure at once). Default `false`: the answer comes anyway.
    public let honoursCancellation: Bool
    private let clock: any MediationClock
    private let answer: @Sendable (Int, AdRequest) -> ScriptedAnswer
    private let adTemplate: AdTemplate
    private let state = Locked(State())

    /// Properties of the ads the adapter creates for `.bid(_:)` and `.fill`.
    public struct AdTemplate: Sendable {
        /// The format; `nil` uses the request's.
        public var format: AdFormat?
        /// The size in points; `nil` picks 320 x 50 for banners and the screen for other
        /// formats, scaled down to fit the request's slot.
        public var size: AdSize?
        /// The network's TTL; `nil` uses the format's default.
        public var timeToLive: Duration?
        /// A server-sent refresh interval in whole seconds.
        public var serverRefreshSeconds: Int?
        /// Whether the ads refit in place.
        public var refitsInPlace: Bool

        /// Creates a template.
        public init(format: AdFormat? = nil, size: AdSize? = nil, timeToLive: Duration? = nil, serverRefreshSeconds: Int? = nil, refitsInPlace: Bool = false) {
            self.format = format
            self.size = size
            self.timeToLive = timeToLive
            self.serverRefreshSeconds = serverRefreshSeconds
            self.refitsInPlace = refitsInPlace
        }
    }

    /// Creates an adapter that answers from a list.
    /// - Parameters:
    ///   - network: the network id.
    ///   - pricing: bidder or fixed price.
    ///   - clock: the clock delays run on (a ``ManualClock`` in tests).
    ///   - script: the answer to request 0, 1, …; the last one repeats.
    ///   - ads: properties of the ads it creates.
    ///   - honoursCancellation: whether a cancelled request stops waiting (default `false`).
    ///   - receivesNotices: its ``receivesAuctionNotices`` (default `true`).
    public convenience init(
        network: String,
        pricing: LineItem.Pricing,
        clock: any MediationClock,
        script: [ScriptedAnswer],
        ads: AdTemplate = AdTemplate(),
        honoursCancellation: Bool = false,
        receivesNotices: Bool = true
    ) {
        self.init(network: network, pricing: pricing, clock: clock, ads: ads, honoursCancellation: honoursCancellation, receivesNotices: receivesNotices) { index, _ in
            guard let last = script.last else { return .after(.zero, .noFill) }
            return index < script.count ? script[index] : last
        }
    }

    /// Creates an adapter that asks a closure for each answer.
    /// - Parameters:
    ///   - network: the network id.
    ///   - pricing: bidder or fixed price.
    ///   - clock: the clock delays run on.
    ///   - ads: properties of the ads it creates.
    ///   - honoursCancellation: whether a cancelled request stops waiting (default `false`).
    ///   - receivesNotices: its ``receivesAuctionNotices`` (default `true`): `false` plays a
    ///     network that ignores notices, so the engine must send it none.
    ///   - answer: given the 0-based request index and the request, the answer.
    public init(
        network: String,
        pricing: LineItem.Pricing,
        clock: any MediationClock,
        ads: AdTemplate = AdTemplate(),
        honoursCancellation: Bool = false,
        receivesNotices: Bool = true,
        answer: @escaping @Sendable (Int, AdRequest) -> ScriptedAnswer
    ) {
        receivesAuctionNotices = receivesNotices
        self.network = network
        self.pricing = pricing
        self.clock = clock
        self.adTemplate = ads
        self.honoursCancellation = honoursCancellation
        self.answer = answer
    }

    /// Whether the engine sends it notices (``AdNetworkAdapter/receivesAuctionNotices``).
    public let receivesAuctionNotices: Bool

    /// How many requests arrived.
    public var requestCount: Int { state.withLock { $0.requests.count } }
    /// Every request, in arrival order.
    public var requests: [AdRequest] { state.withLock { $0.requests } }
    /// When each request arrived, on the clock.
    public var requestInstants: [MediationInstant] { state.withLock { $0.requestInstants } }
    /// When each answer was returned, on the clock (in answer order).
    public var answerInstants: [MediationInstant] { state.withLock { $0.answerInstants } }
    /// How many answers were returned after the calling task had been cancelled.
    public var answersAfterCancellation: Int { state.withLock { $0.cancelledBeforeAnswer } }
    /// Every ad this adapter handed out (created or scripted), in order.
    public var ads: [ScriptedAd] { state.withLock { $0.ads } }
    /// Every auction notice the engine sent, in order.
    public var notices: [AuctionNotice] { state.withLock { $0.notices } }
    /// Every life-cycle call the engine made, in order.
    public var lifeCycleCalls: [LifeCycleCall] { state.withLock { $0.lifeCycleCalls } }
    /// Every request template the engine passed on (``AdNetworkAdapter/requestTemplateDidChange(_:)``), in order.
    public var templates: [RequestTemplate] { state.withLock { $0.templates } }

    /// Records the notice.
    public func auctionDidEnd(_ notice: AuctionNotice) {
        state.withLock { $0.notices.append(notice) }
    }

    /// Records the call.
    public func didEnterBackground() async {
        state.withLock { $0.lifeCycleCalls.append(.didEnterBackground) }
    }

    /// Records the call.
    public func willEnterForeground() async {
        state.withLock { $0.lifeCycleCalls.append(.willEnterForeground) }
    }

    /// Records the call.
    public func willResignActive() async {
        state.withLock { $0.lifeCycleCalls.append(.willResignActive) }
    }

    /// Records the call.
    public func shutdown() async {
        state.withLock { $0.lifeCycleCalls.append(.shutdown) }
    }

    /// Records the template.
    public func requestTemplateDidChange(_ template: RequestTemplate) {
        state.withLock { $0.templates.append(template) }
    }

    /// Answers by the script.
    /// - Parameter request: the request.
    /// - Returns: the scripted result, after its delay on the clock.
    public func loadAd(for request: AdRequest) async -> AdLoadResult {
        let start = clock.now
        let index: Int = state.withLock { state in
            state.requests.append(request)
            state.requestInstants.append(start)
            return state.requests.count - 1
        }
        switch answer(index, request) {
        case .never:
            // Suspends forever, cancelled or not: a network that never answers.
            await withUnsafeContinuation { (_: UnsafeContinuation<Void, Never>) in }
            return .failure(AdLoadResult.Error(kind: .timeout, message: "unreachable"))
        case .after(let delay, let result):
            if delay > .zero {
                let clock = self.clock
                let deadline = start + delay
                if honoursCancellation {
                    do {
                        try await clock.sleep(until: deadline)
                    } catch {
                        return .failure(AdLoadResult.Error(kind: .cancelled, message: "cancelled"))
                    }
                } else {
                    if let manual = clock as? ManualClock {
                        await manual.sleepIgnoringCancellation(until: deadline)
                    } else {
                        // An unstructured task does not inherit cancellation: the answer comes anyway.
                        await clock.startTask { try? await clock.sleep(until: deadline) }.value
                    }
                }
            }
            return deliver(result, index: index, request: request)
        }
    }

    private func deliver(_ result: ScriptedResult, index: Int, request: AdRequest) -> AdLoadResult {
        let cancelled = Task.isCancelled
        let now = clock.now
        let loadResult: AdLoadResult
        switch result {
        case .bid(let eCPM): loadResult = .bid(makeAd(index: index, request: request), eCPM: eCPM)
        case .bidWith(let ad, let eCPM): loadResult = .bid(ad, eCPM: eCPM)
        case .fill: loadResult = .fill(makeAd(index: index, request: request))
        case .fillWith(let ad): loadResult = .fill(ad)
        case .noFill: loadResult = .noFill(.noInventory)
        case .error: loadResult = .failure(AdLoadResult.Error(kind: .server, code: 500, message: "scripted error"))
        }
        state.withLock { state in
            state.answerInstants.append(now)
            if cancelled { state.cancelledBeforeAnswer += 1 }
            if let ad = loadResult.ad as? ScriptedAd { state.ads.append(ad) }
        }
        return loadResult
    }

    private func makeAd(index: Int, request: AdRequest) -> ScriptedAd {
        let format = adTemplate.format ?? request.format
        let natural = format == .banner
            ? AdSize(width: 320, height: 50)
            : AdSize(width: request.screen.width, height: request.screen.height)
        return ScriptedAd(
            id: "\(network)-\(index + 1)",
            creativeID: "\(network)-creative-\(index + 1)",
            network: network,
            format: format,
            size: adTemplate.size ?? Self.fit(natural, in: request.slot),
            timeToLive: adTemplate.timeToLive,
            serverRefreshSeconds: adTemplate.serverRefreshSeconds,
            refitsInPlace: adTemplate.refitsInPlace
        )
    }

    private static func fit(_ size: AdSize, in slot: SlotSize) -> AdSize {
        var scale = 1.0
        if let maxWidth = slot.maxWidth, maxWidth > 0, size.width > maxWidth { scale = min(scale, maxWidth / size.width) }
        if let maxHeight = slot.maxHeight, maxHeight > 0, size.height > maxHeight { scale = min(scale, maxHeight / size.height) }
        return AdSize(width: size.width * scale, height: size.height * scale)
    }
}
