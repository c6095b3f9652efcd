import Foundation
import Adapters
import Mediation
@testable import MediationSimulation
import Testing

/// The shipped `Config/mediation-global.json` segments its placement by country
/// (`docs/audiences.md`, "On the global market"), and a simulation of the global market sends
/// each auction's country to the engine, so every auction runs its country's segment.
@Suite("Shipped global segments")
struct GlobalSegmentsTests {
    static let tier1: Set<String> = ["US", "CA", "GB", "DE", "FR", "JP", "KR", "AU", "NL", "SE", "CH", "NZ"]
    static let emerging: Set<String> = ["IN", "BR", "ID", "MX", "PH", "TR", "VN", "EG", "NG", "RU", "TH", "PK", "ZA", "AR", "CO", "KE", "MY", "BD"]

    static func shipped() throws -> (MediationConfiguration, Market) {
        let root = SimulationFixture.packageRoot
        let configuration = try MediationConfiguration(contentsOf: root.appendingPathComponent("Config/mediation-global.json"), registry: .standard)
        let market = try Market.load(contentsOf: root.appendingPathComponent("Config/market-global.json"))
        return (configuration, market)
    }

    @Test func validatesWithoutSegmentWarnings() throws {
        let (configuration, market) = try Self.shipped()
        try market.check(against: [configuration])
        let engine = try MediationEngine(configuration: configuration, registry: .standard)
        let warnings = engine.configurationWarnings.filter { $0.code == .segmentUnreachable || $0.code == .lineItemUnused }
        #expect(warnings.isEmpty, "\(warnings)")
        let placement = try #require(configuration.placement("level_end"))
        #expect(placement.segments.map(\.id) == ["tier1", "emerging", "default"])
        // Every country of the market falls where the docs say: the rest (and an unknown
        // country) in the default, which keeps the unsegmented config's 12 tiers.
        let countries = try #require(market.countries).countries.map(\.code)
        for country in countries + ["ZZ"] {
            let audience = Audience(country: country == "ZZ" ? nil : country)
            let expected = Self.tier1.contains(country) ? "tier1" : Self.emerging.contains(country) ? "emerging" : "default"
            #expect(placement.segments.firstMatch(audience).map { placement.segments[$0].id } == expected, "\(country)")
        }
        let flat = try MediationConfiguration(contentsOf: SimulationFixture.packageRoot.appendingPathComponent("Config/mediation-global-flat.json"), registry: .standard)
        #expect(placement.segments.last?.override.sources == flat.placement("level_end")?.sources.map(\.id))
    }

    /// Broken (every simulated request without its country), every auction fell in the default
    /// segment: the tier-1 segment's first tier and the emerging segment's last were asked in
    /// no auction.
    @Test func eachSimulatedAuctionRunsItsCountrysSegment() async throws {
        let (configuration, market) = try Self.shipped()
        let auctions = 600
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: auctions, seed: 3, shardSize: 300))
        var inTier1 = 0, inEmerging = 0
        for auction in 0..<auctions {
            let country = try #require(market.auctionDraw(seed: 3, auction: UInt64(auction))).country
            if Self.tier1.contains(country) { inTier1 += 1 } else if Self.emerging.contains(country) { inEmerging += 1 }
        }
        func asked(_ id: String) throws -> Int { try #require(report.lineItems.first { $0.lineItemID == id }).asked }
        // Only tier-1 auctions ask the 30 USD tier, and nearly all of them do (it comes first).
        let top = try asked("level_end_admob_30")
        #expect(top <= inTier1 && Double(top) >= 0.95 * Double(inTier1), "\(top) of \(inTier1)")
        // Only emerging auctions ask the 0.20 USD tier.
        let bottom = try asked("level_end_nitx_0_2")
        #expect(bottom > 0 && bottom <= inEmerging, "\(bottom) of \(inEmerging)")
        // Only the default (the other countries) asks unity's 2.50 tier.
        #expect(try asked("level_end_unity_2_5") <= auctions - inTier1 - inEmerging)
    }
}
