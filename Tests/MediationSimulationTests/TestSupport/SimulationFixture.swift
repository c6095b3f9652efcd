import Adapters
import Foundation
import Mediation
import MediationSimulation
import Testing

/// Configurations and markets built in code, whose every draw is fixed (spread 0, fill rate 1
/// or 0, fixed latency), so a test can work out its figures by hand.
enum SimulationFixture {
    /// A placement `level_end` (interstitial, deadline 3000 ms unless given) over networks
    /// `bid` (bidder), `neta` and `netb` (fixed price), one line item each with the network's id.
    /// Network health is off unless `health` says otherwise: these fixtures check the auction's
    /// figures, and a network that always fails would be paused (the health tests turn it on).
    static func configuration(
        sources: [LineItem],
        mode: MediationConfiguration.Placement.AuctionMode = .parallel,
        deadline: Duration = .milliseconds(3000),
        floor: Double? = nil,
        networkTimeouts: [String: Duration] = [:],
        health: NetworkHealthSettings = .disabled
    ) -> MediationConfiguration {
        let networks = Set(sources.map(\.network)).sorted().map { id in
            MediationConfiguration.Network(id: id, adapter: "unused", timeout: networkTimeouts[id], health: health)
        }
        let placement = MediationConfiguration.Placement(id: "level_end", format: .interstitial, deadline: deadline, floor: floor, mode: mode, sources: sources)
        return MediationConfiguration(networks: networks, placements: [placement])
    }

    /// A banner placement `home_banner` (anchored, slot 90 pt high, refresh `refreshSeconds`).
    static func banner(sources: [LineItem], refreshSeconds: Int = 30, health: NetworkHealthSettings = .disabled) -> MediationConfiguration {
        let networks = Set(sources.map(\.network)).sorted().map { MediationConfiguration.Network(id: $0, adapter: "unused", health: health) }
        let placement = MediationConfiguration.Placement(
            id: "home_banner",
            format: .banner,
            bannerSizing: .anchored,
            slot: SlotSize(maxHeight: 90),
            refreshSeconds: refreshSeconds,
            sources: sources
        )
        return MediationConfiguration(networks: networks, placements: [placement])
    }

    /// A network whose every request draws the same: an ad (or not) at `price` after `latency`.
    static func fixed(_ id: String, fills: Bool = true, price: Double = 1, latencyMilliseconds: Double, neverAnswers: Bool = false, error: Bool = false) -> NetworkMarket {
        NetworkMarket(id: id, behaviour: MarketBehaviour(
            fillRate: fills ? 1 : 0,
            price: LogNormal(median: price),
            latency: LogNormal(median: latencyMilliseconds),
            neverAnswers: neverAnswers ? 1 : 0,
            error: error ? 1 : 0
        ))
    }

    /// A market with draws that vary: fill rates, price and latency spreads, errors and silence.
    static let randomMarket = Market(networks: [
        NetworkMarket(id: "bid", behaviour: MarketBehaviour(fillRate: 0.6, price: LogNormal(median: 1.4, spread: 0.7), latency: LogNormal(median: 250, spread: 0.8), neverAnswers: 0.02, error: 0.03)),
        NetworkMarket(id: "neta", behaviour: MarketBehaviour(fillRate: 0.5, price: LogNormal(median: 1.0, spread: 0.3), latency: LogNormal(median: 150, spread: 0.5), neverAnswers: 0.01, error: 0.02)),
        NetworkMarket(id: "netb", behaviour: MarketBehaviour(fillRate: 0.9, price: LogNormal(median: 0.9, spread: 0.3), latency: LogNormal(median: 90, spread: 0.4), neverAnswers: 0.005, error: 0.01)),
    ])

    /// The three scenario sources: `bid` (floor 0.50), `neta` at 1.20, `netb` at 0.80.
    static let scenarioSources: [LineItem] = [
        .bidder("bid", floor: 0.50),
        .fixedPrice("neta", eCPM: 1.20),
        .fixedPrice("netb", eCPM: 0.80),
    ]

    /// The package's root directory (three levels up from this file).
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Config/mediation.json`, loaded with the standard networks' kinds.
    static func shippedConfiguration() throws -> MediationConfiguration {
        try MediationConfiguration(contentsOf: packageRoot.appendingPathComponent("Config/mediation.json"), registry: .standard)
    }

    /// `Config/market.json`.
    static func shippedMarket() throws -> Market {
        try Market.load(contentsOf: packageRoot.appendingPathComponent("Config/market.json"))
    }

    /// A report as sorted-key JSON, to compare byte for byte.
    static func json<Value: Encodable>(_ value: Value) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(value)
    }
}
