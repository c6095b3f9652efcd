import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Mediation

/// A wall clock a test sets (to jump it back or forward).
final class TestWallClock: Sendable {
    private let value = Locked(Date(timeIntervalSince1970: 1_796_000_000))

    /// Moves it by `seconds` (negative: back).
    func move(by seconds: Double) {
        value.withLock { $0 = $0.addingTimeInterval(seconds) }
    }

    var read: @Sendable () -> Date { { [value] in value.withLock { $0 } } }
}

/// An engine whose one network `neta` fills every request at once (fixed price 1.20), on a
/// manual clock starting at the origin, with a state store and a wall clock a test keeps
/// across relaunches.
final class CapsHarness: Sendable {
    let clock = ManualClock()
    let recorder = EventRecorder()
    let logger = RecordingLogger()
    let adapter: ScriptedAdapter
    let engine: MediationEngine

    static func interstitial(_ id: String, format: AdFormat = .interstitial, caps: MediationConfiguration.CapSettings = .init(), lineItemCaps: MediationConfiguration.CapSettings = .init()) -> MediationConfiguration.Placement {
        var lineItem = LineItem.fixedPrice("\(id)_neta", network: "neta", eCPM: 1.20)
        lineItem.caps = lineItemCaps
        var placement = MediationConfiguration.Placement(id: id, format: format, sources: [lineItem])
        placement.caps = caps
        return placement
    }

    init(placements: [MediationConfiguration.Placement], app: MediationConfiguration.AppSettings = .init(), networkCaps: MediationConfiguration.CapSettings = .init(), store: MemoryStateStore = MemoryStateStore(), wall: TestWallClock = TestWallClock(), template: RequestTemplate = RequestTemplate()) throws {
        adapter = ScriptedAdapter(network: "neta", pricing: .fixedPrice, clock: clock, script: [.after(.zero, .fill)])
        var networks = PrebuiltNetworks()
        networks.add("neta", pricing: .fixedPrice, adapter: adapter)
        var configuration = networks.configuration(placements: placements)
        configuration.app = app
        for index in configuration.networks.indices { configuration.networks[index].caps = networkCaps }
        var environment = MediationEnvironment(clock: clock, logger: logger, wallClock: wall.read, stateStore: store)
        environment.requestTemplate = template
        engine = try MediationEngine(
            configuration: configuration,
            registry: networks.registry,
            environment: environment,
            onEvent: recorder.handler
        )
    }

    func placement(_ id: String) throws -> Placement {
        try #require(engine.placement(id))
    }

    /// Loads an ad into `id` now (the auction ends at once).
    func load(_ id: String) async throws -> Placement.LoadResult {
        let placement = try placement(id)
        let task = clock.startTask { await placement.load() }
        await clock.runUntilIdle()
        return await task.value
    }

    /// Reports `id`'s current ad shown now.
    func showCurrent(_ id: String) async throws -> Placement.ShowResult {
        let placement = try placement(id)
        let ad = try #require(await placement.currentAd?.ad)
        return await placement.reportShown(ad)
    }

    /// Loads, then shows, then dismisses (full-screen) at the same instant.
    @discardableResult
    func showAndDismiss(_ id: String) async throws -> Placement.ShowResult {
        _ = try await load(id)
        let result = try await showCurrent(id)
        let placement = try placement(id)
        if let ad = await placement.currentAd?.ad { await placement.reportDismissed(ad) }
        return result
    }

    func advance(to seconds: Double) async {
        await clock.advance(to: at(seconds))
    }

    var cappedEvents: [MediationEvent] { recorder.events(named: "capped") }
}

extension Placement.ShowResult {
    var isImpression: Bool {
        if case .impression = self { return true }
        return false
    }

    var capRefusal: CapRefusal? {
        if case .refused(.capped(let refusal)) = self { return refusal }
        return nil
    }
}
