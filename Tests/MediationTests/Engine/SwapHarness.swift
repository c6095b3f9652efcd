import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// A network kind whose factory builds a new scripted adapter every time it is asked (so a
/// changed network gets a new adapter and a kept one does not), answering by its options:
/// `delay_ms` (default 100) and `result` (`fill`, `no_fill`, `bid:<eCPM>`; default `fill`).
/// An option `"fail": true` makes the build throw, naming the JSON path.
final class SwapFactory: NetworkAdapterFactory {
    let kind: String
    let pricing: LineItem.Pricing
    private let clock: ManualClock
    private let built = Locked<[ScriptedAdapter]>([])

    init(kind: String, pricing: LineItem.Pricing, clock: ManualClock) {
        self.kind = kind
        self.pricing = pricing
        self.clock = clock
    }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        if case .bool(true)? = network.options["fail"] {
            throw ConfigurationError(code: .invalidValue, path: network.path(of: "options", "fail"), message: "scripted failure")
        }
        var delay: Int64 = 100
        if case .number(let value)? = network.options["delay_ms"] { delay = Int64(value) }
        var result = ScriptedResult.fill
        if case .string(let text)? = network.options["result"] {
            if text == "no_fill" { result = .noFill }
            if text.hasPrefix("bid:"), let price = Double(text.dropFirst(4)) { result = .bid(price) }
        }
        let adapter = ScriptedAdapter(network: network.id, pricing: pricing, clock: clock, script: [.after(.milliseconds(delay), result)])
        built.withLock { $0.append(adapter) }
        return adapter
    }

    /// Every adapter built, in order.
    var adapters: [ScriptedAdapter] { built.withLock { $0 } }
}

/// An engine over ``SwapFactory`` networks on a manual clock, and what a configuration swap
/// test needs: apply, count ads, render banners.
final class SwapHarness: Sendable {
    let clock = ManualClock()
    let recorder = EventRecorder()
    let fixed: SwapFactory
    let bidder: SwapFactory
    let engine: MediationEngine

    init(_ configuration: MediationConfiguration) throws {
        fixed = SwapFactory(kind: "swap.fixed", pricing: .fixedPrice, clock: clock)
        bidder = SwapFactory(kind: "swap.bidder", pricing: .bidder, clock: clock)
        engine = try MediationEngine(
            configuration: configuration,
            registry: NetworkRegistry([fixed, bidder]),
            environment: MediationEnvironment(clock: clock),
            onEvent: recorder.handler
        )
    }

    /// A fixed-price network answering `result` after `delayMS`.
    static func network(_ id: String, delayMS: Int = 100, result: String = "fill", kind: String = "swap.fixed", extra: [String: JSONValue] = [:]) -> MediationConfiguration.Network {
        var options: [String: JSONValue] = ["delay_ms": .number(Double(delayMS)), "result": .string(result)]
        options.merge(extra) { $1 }
        return MediationConfiguration.Network(id: id, adapter: kind, options: options)
    }

    /// Every adapter built, by network id, in build order.
    func adapters(of network: String) -> [ScriptedAdapter] {
        (fixed.adapters + bidder.adapters).filter { $0.network == network }
    }

    /// Every ad any adapter handed out.
    var ads: [ScriptedAd] { (fixed.adapters + bidder.adapters).flatMap(\.ads) }

    /// Applies `configuration` as `version`, from a task on the clock, and lets the work due now run.
    func apply(_ configuration: MediationConfiguration, version: Int) async throws {
        try await Self.apply(configuration, version: version, to: engine, clock: clock)
    }

    /// Applies `configuration` as `version` to `engine` (one no harness holds), from a task on
    /// `clock`, and lets the work due now run.
    static func apply(_ configuration: MediationConfiguration, version: Int, to engine: MediationEngine, clock: ManualClock) async throws {
        let task = clock.startTask { () -> ConfigurationError? in
            do throws(ConfigurationError) {
                try await engine.apply(configuration, version: version, source: .remote)
                return nil
            } catch {
                return error
            }
        }
        await clock.runUntilIdle()
        if let error = await task.value { throw error }
    }

    /// Renders every new ad of `placement` as soon as it is current (a visible view's host).
    func renderEachNewAd(of placement: Placement) -> Task<Void, Never> {
        let stream = engine.events()
        return clock.startTask {
            for await event in stream {
                guard case .adLoaded(let ad, _, _) = event, ad.placementID == placement.id,
                      let current = await placement.currentAd?.ad, current.id == ad.adID else { continue }
                _ = await placement.reportShown(current)
            }
        }
    }

    /// Shuts the engine down from the clock.
    func shutdown() async {
        let engine = engine
        let task = clock.startTask { await engine.shutdown() }
        await clock.runUntilIdle()
        await task.value
    }

    /// After shutdown: every ad handed out was shown once (and never released) or released once
    /// (and never shown). Returns the counts.
    @discardableResult
    func expectEveryAdOnce(sourceLocation: SourceLocation = #_sourceLocation) -> (shown: Int, released: Int) {
        var shown = 0, released = 0
        for ad in ads {
            switch (ad.impressionCount, ad.releaseCount) {
            case (1, 0): shown += 1
            case (0, 1): released += 1
            default: Issue.record("ad \(ad.id): \(ad.impressionCount) impressions, \(ad.releaseCount) releases", sourceLocation: sourceLocation)
            }
        }
        return (shown, released)
    }

    /// The `config_version` of each `auction_started` event, in order.
    var auctionVersions: [Int] {
        recorder.events.compactMap { event in
            if case .auctionStarted(_, _, let version, _, _, _, _) = event { return version }
            return nil
        }
    }
}
