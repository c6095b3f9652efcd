import Foundation
import Mediation

/// What a Nitx ad tells its client when the engine calls its hooks.
package enum NitxAdSignal: Sendable, Hashable {
    /// The ad was rendered: Nitx's impression (POST mode: an `impression` event).
    case impression
    /// The ad was in a visible view: Nitx's viewable (POST mode: a `viewable` event).
    case viewable
    /// The ad was shown (an app open ad's last show time is recorded).
    case shown
}

/// One loaded Nitx ad. Thread-safe: its mutable state sits behind a lock.
///
/// Hooks: ``recordRender()`` counts the impression; ``recordImpression()`` counts the impression
/// (if render was not reported) and the viewable, once each; full-screen ads count both when
/// shown (Nitx seed, "Interstitial"). Events are sent by the client in POST mode only.
/// ``recordClick()`` sends nothing: a Nitx click is recorded by the backend when the host opens
/// ``NitxCreative/clickURL`` (Nitx seed: "clicks open the backend click URL").
///
/// An app open ad may be shown at most once per minimum interval (Nitx document, "App open"):
/// inside it, ``impressionReadiness`` is `notAllowed` and the engine refuses the show (R12a).
public final class NitxLoadedAd: LoadedAd {
    private struct State {
        var creative: NitxCreative?
        var impressionRecorded = false
        var viewableRecorded = false
        var released = false
    }

    /// Unique per showing: `<network id>-<sequence>-<creative id>`.
    public let id: String
    /// The Nitx ad id.
    public let creativeID: String
    /// The network id from the config.
    public let network: String
    /// The engine format.
    public let format: AdFormat
    /// The Nitx format served.
    public let nitxFormat: NitxFormat
    /// The ad's size in points.
    public let size: AdSize
    /// The slot code (the line item's ad unit id).
    package let slotCode: String
    /// POST mode: the impression id events refer to; `nil` in GET mode.
    package let impressionID: String?
    /// The impression id of Nitx's POST answer (the trace's `request_id`), `nil` for GET.
    public var requestID: String? { impressionID }
    private let state: Locked<State>
    private let signal: @Sendable (NitxAdSignal) -> Void
    private let readiness: @Sendable () -> ImpressionReadiness

    /// Creates an ad.
    /// - Parameters:
    ///   - id: unique per showing.
    ///   - creativeID: the Nitx ad id.
    ///   - network: the config's network id.
    ///   - nitxFormat: the Nitx format served.
    ///   - size: the size in points.
    ///   - slotCode: the slot code.
    ///   - impressionID: the POST answer's impression id.
    ///   - creative: what the ad shows.
    ///   - signal: called (without blocking) for each hook's signal.
    ///   - readiness: whether a show may count now (the app open interval); default always.
    package init(id: String, creativeID: String, network: String, nitxFormat: NitxFormat, size: AdSize, slotCode: String, impressionID: String?, creative: NitxCreative, signal: @escaping @Sendable (NitxAdSignal) -> Void, readiness: @escaping @Sendable () -> ImpressionReadiness = { .ready }) {
        self.id = id
        self.creativeID = creativeID
        self.network = network
        self.nitxFormat = nitxFormat
        self.format = nitxFormat.engineFormat
        self.size = size
        self.slotCode = slotCode
        self.impressionID = impressionID
        self.state = Locked(State(creative: creative))
        self.signal = signal
        self.readiness = readiness
    }

    /// Whether a show may count now: an app open ad inside the minimum interval since the last
    /// app open ad was shown is `notAllowed`; everything else is `ready`.
    public var impressionReadiness: ImpressionReadiness { readiness() }

    /// What the ad shows; `nil` after ``releaseResources()``.
    public var creative: NitxCreative? { state.withLock { $0.creative } }

    /// Whether ``releaseResources()`` was called.
    package var isReleased: Bool { state.withLock { $0.released } }

    /// Drops the creative and ends the ad (a native ad's `destroy()`, Nitx document, "Native"):
    /// afterwards its hooks record nothing. Idempotent.
    public func releaseResources() {
        state.withLock { state in
            state.released = true
            state.creative = nil
        }
    }

    /// Counts the impression, once; nothing after ``releaseResources()`` (the native ad's
    /// `destroy()`, Nitx document, "Native").
    public func recordRender() {
        let first = state.withLock { state -> Bool in
            guard !state.released else { return false }
            defer { state.impressionRecorded = true }
            return !state.impressionRecorded
        }
        if first { signal(.impression) }
    }

    /// Counts the impression (if not yet) and the viewable, once each; marks the ad shown.
    /// Nothing after ``releaseResources()``.
    public func recordImpression() {
        let (impression, viewable) = state.withLock { state -> (Bool, Bool) in
            guard !state.released else { return (false, false) }
            defer {
                state.impressionRecorded = true
                state.viewableRecorded = true
            }
            return (!state.impressionRecorded, !state.viewableRecorded)
        }
        if impression { signal(.impression) }
        if viewable {
            signal(.viewable)
            signal(.shown)
        }
    }
}
