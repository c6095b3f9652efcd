import Foundation
import Mediation

/// One Elo showing (Elo seed, `EloAd`): equality and hashing follow ``id``.
///
/// The engine's hooks send its tracking once each: ``recordRender()`` and ``recordImpression()``
/// ping the ad's tracking URLs the first time they are called (once per ad opportunity id in the
/// client's session), never after ``releaseResources()`` and never after the client's
/// `shutdown()`. ``recordClick()`` sends nothing (Elo-direct clicks are recorded server-side
/// through the click URL).
/// ``recordBrowserOpened()`` / ``recordBrowserClosed()`` report the host's own in-app browser
/// with the dwell time (analytics only, never billed).
public final class EloAd: LoadedAd, Hashable {
    /// The ad opportunity id the server assigned: one per showing.
    public let id: String
    /// The creative id (stable across showings).
    public let creativeID: String
    /// The OpenRTB request id the bid answered (the response's `id`), bounded (R16).
    public let requestID: String?
    /// The OpenRTB bid id (`seatbid[].bid[].id`), bounded (R16).
    public let bidID: String?
    /// The network id from the configuration, e.g. `"elo"`.
    public let network: String
    /// The engine format: the placement's (`banner` or `native`).
    public let format: AdFormat
    /// Card or strip, as the server chose.
    public let eloFormat: EloAdFormat
    /// The ad's size in points.
    public let size: AdSize
    /// The server's `exp`, or `nil` for the format's default.
    public let timeToLive: Duration?
    /// The headline.
    public let title: String
    /// Body copy.
    public let description: String?
    /// The creative mark's URL.
    public let imageURL: String?
    /// The call-to-action label.
    public let ctaText: String?
    /// The destination URL.
    public let clickURL: String?
    /// The CTA presentation flag the server sent, if any.
    public let ctaEnabled: Bool?

    private let trackingURLs: EloWireTracking
    let tracker: EloTracker?

    private struct State {
        var released = false
        var sent: Set<EloTrackingEvent> = []
        var browserOpenedAt: MediationInstant?
    }

    private let state = Locked(State())

    /// Creates an ad.
    /// - Parameters:
    ///   - tracker: sends the tracking; `nil` makes a display-only ad that sends nothing.
    init(
        id: String,
        creativeID: String,
        network: String,
        format: AdFormat,
        eloFormat: EloAdFormat,
        size: AdSize,
        timeToLive: Duration?,
        title: String,
        description: String?,
        imageURL: String?,
        ctaText: String?,
        clickURL: String?,
        ctaEnabled: Bool?,
        tracking: EloWireTracking,
        tracker: EloTracker?,
        requestID: String? = nil,
        bidID: String? = nil
    ) {
        self.id = id
        self.creativeID = creativeID
        self.requestID = requestID.map(NetworkValueBounds.identifier)
        self.bidID = bidID.map(NetworkValueBounds.identifier)
        self.network = network
        self.format = format
        self.eloFormat = eloFormat
        self.size = size
        self.timeToLive = timeToLive
        self.title = title
        self.description = description
        self.imageURL = imageURL
        self.ctaText = ctaText
        self.clickURL = clickURL
        self.ctaEnabled = ctaEnabled
        self.trackingURLs = tracking
        self.tracker = tracker
    }

    /// Ads are equal when their ids are.
    public static func == (lhs: EloAd, rhs: EloAd) -> Bool { lhs.id == rhs.id }

    /// Hashes the id.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    /// Whether ``releaseResources()`` was called.
    package var isReleased: Bool { state.withLock { $0.released } }

    /// Discards the ad without showing it. Idempotent; afterwards no tracking is sent.
    public func releaseResources() {
        state.withLock { $0.released = true }
    }

    /// Sends the render ping, once.
    public func recordRender() { send(.render, urls: trackingURLs.render) }
    /// Sends the impression ping, once.
    public func recordImpression() { send(.impression, urls: trackingURLs.impression) }
    /// Records the click, once: nothing is sent (the click resolves `.unobservable`).
    public func recordClick() { send(.click, urls: nil) }

    /// The host's browser opened the click URL: sends `browser_open`. A second open before the
    /// close sends nothing.
    public func recordBrowserOpened() {
        guard let tracker else { return }
        let opened = state.withLock { state -> Bool in
            guard state.browserOpenedAt == nil else { return false }
            state.browserOpenedAt = tracker.currentInstant
            return true
        }
        guard opened else { return }
        tracker.postAnalytics(.browserOpen, adID: id, creativeID: creativeID, dwellMilliseconds: nil)
    }

    /// The host's browser closed: sends `browser_close` with `dwell_ms`, the milliseconds since
    /// the open on the client's clock, capped at 24 h. A close without an open sends nothing.
    public func recordBrowserClosed() {
        guard let tracker else { return }
        let now = tracker.currentInstant
        let openedAt = state.withLock { state -> MediationInstant? in
            defer { state.browserOpenedAt = nil }
            return state.browserOpenedAt
        }
        guard let openedAt else { return }
        let dwell = min(max(now - openedAt, .zero), EloTracker.maximumDwell)
        tracker.postAnalytics(.browserClose, adID: id, creativeID: creativeID, dwellMilliseconds: Int(dwell.milliseconds.rounded(.down)))
    }

    /// Whether the slot's height range is this ad's format's (Elo document, "Formats": the card
    /// for 192 pt or more or unbounded, the strip for 72 to 191 pt, in whole points rounded
    /// down). The auction rejects an ad in another slot as a size mismatch (203) and releases
    /// it (engine rule R8).
    /// - Parameter slot: the auction's slot in points.
    /// - Returns: whether the ad's format is the slot's.
    public func suits(_ slot: SlotSize) -> Bool {
        eloFormat.fits(maxHeight: EloAdFormat.wholePoints(slot.maxHeight))
    }

    /// Refits in place while the new slot's height range is still the ad's format's (card:
    /// 192 pt or more or unbounded; strip: 72 to 191 pt; Elo seed "Formats"): the height
    /// stays, the width shrinks to the slot's whole-point width when narrower.
    /// - Parameter slot: the new slot bounds in points.
    /// - Returns: the refitted size, or `nil` when the format no longer fits.
    public func refit(to slot: SlotSize) -> AdSize? {
        guard eloFormat.fits(maxHeight: EloAdFormat.wholePoints(slot.maxHeight)) else { return nil }
        let width = EloAdFormat.wholePoints(slot.maxWidth).map { min(Double($0), size.width) } ?? size.width
        guard width > 0 else { return nil }
        return AdSize(width: width, height: size.height)
    }

    private func send(_ event: EloTrackingEvent, urls: [String]?) {
        guard let tracker else { return }
        let first = state.withLock { state -> Bool in
            guard !state.released else { return false }
            return state.sent.insert(event).inserted
        }
        guard first else { return }
        // A click sends nothing: Elo records it server-side through the click URL.
        guard event != .click else { return }
        tracker.ping(event, urls: urls ?? [], adID: id)
    }
}
