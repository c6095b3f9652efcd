import Foundation
import Mediation
import MediationTestKit
import Testing

/// The repository's `Config/` directory, found from this file's path.
enum RepositoryFiles {
    static var configDirectory: URL {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent() // TestSupport
            .deletingLastPathComponent() // AdaptersTests
            .deletingLastPathComponent() // Tests
            .deletingLastPathComponent() // repository root
            .appendingPathComponent("Config")
    }

    /// `Config/mediation.json`, the shipped configuration.
    static var shippedConfiguration: URL {
        configDirectory.appendingPathComponent("mediation.json")
    }
}

extension MediationEngine {
    /// Runs one auction of `placementID` on `clock` (``ManualClock/run(_:)``: time moves, one
    /// wake-up at a time, until the auction is decided) and returns its outcome.
    /// - Throws: when the auction stalled (waiting with nothing left on the clock to wake it) or
    ///   the engine has no such placement; each is recorded as a test issue first.
    func runAuction(placementID: String, context: AdRequest.Context? = nil, on clock: ManualClock) async throws -> MediationEngine.AuctionOutcome {
        let ran = await clock.run { await self.runAuction(placementID: placementID, context: context) }
        let finished = try #require(ran, "the auction of \(placementID) stalled on the clock")
        return try #require(finished, "the engine has no placement \(placementID)")
    }
}

/// One request a recorded adapter received: the network it went to, when, what it asked, and
/// what the network answered (`nil` while it has not answered).
struct RecordedLoad: Sendable {
    var network: String
    var askedAt: MediationInstant
    var request: AdRequest
    var result: AdLoadResult?
}

/// Wraps the factories of a registry so that every adapter they build is recorded: which
/// networks were built (once each), and every request and answer. The adapters themselves are
/// the real ones, built by the real factories; the wrapper only forwards.
final class NetworkRecorder: Sendable {
    private struct State {
        var built: [String] = []
        var loads: [RecordedLoad] = []
    }

    private let state = Locked(State())

    /// The network ids whose adapters were built, in build order (one entry per build).
    var builtNetworks: [String] { state.withLock { $0.built } }
    /// Every request so far, in arrival order.
    var loads: [RecordedLoad] { state.withLock { $0.loads } }

    /// The requests `network` received, in arrival order.
    func loads(of network: String) -> [RecordedLoad] {
        loads.filter { $0.network == network }
    }

    /// `registry` with every kind's factory wrapped.
    func wrapping(_ registry: NetworkRegistry) -> NetworkRegistry {
        registry.wrappingAdapters { network, adapter, environment in
            self.recordBuilt(network)
            return RecordingAdapter(network: network, inner: adapter, clock: environment.clock, recorder: self)
        }
    }

    fileprivate func recordBuilt(_ network: String) {
        state.withLock { $0.built.append(network) }
    }

    fileprivate func recordRequest(_ network: String, _ request: AdRequest, at instant: MediationInstant) -> Int {
        state.withLock { state in
            state.loads.append(RecordedLoad(network: network, askedAt: instant, request: request))
            return state.loads.count - 1
        }
    }

    fileprivate func recordResult(_ index: Int, _ result: AdLoadResult) {
        state.withLock { $0.loads[index].result = result }
    }
}

private struct RecordingAdapter: AdNetworkAdapter {
    let network: String
    let inner: any AdNetworkAdapter
    let clock: any MediationClock
    let recorder: NetworkRecorder

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let index = recorder.recordRequest(network, request, at: clock.now)
        let result = await inner.loadAd(for: request)
        recorder.recordResult(index, result)
        return result
    }

    func auctionDidEnd(_ notice: AuctionNotice) { inner.auctionDidEnd(notice) }
    func didEnterBackground() async { await inner.didEnterBackground() }
    func willEnterForeground() async { await inner.willEnterForeground() }
    func willResignActive() async { await inner.willResignActive() }
    func shutdown() async { await inner.shutdown() }
    func requestTemplateDidChange(_ template: RequestTemplate) { inner.requestTemplateDidChange(template) }
}

extension Placement {
    /// Attaches a visible view, loads, and reports the current ad shown, on `clock` (time moves
    /// until it is done), then runs `after` with the ad (a click, draining its tracking).
    /// - Returns: the ad whose impression counted, or `nil` when none loaded or it did not count.
    func showOnce(on clock: ManualClock, after: (@Sendable (any LoadedAd) async -> Void)? = nil) async -> (any LoadedAd)? {
        let shown = await clock.run { () -> (any LoadedAd)? in
            _ = await self.attachView(visible: true)
            guard let ad = await self.load().ad?.ad else { return nil }
            guard case .impression = await self.reportShown(ad) else { return nil }
            await after?(ad)
            return ad
        }
        return shown ?? nil
    }
}
