import Foundation
import Adapters
import Mediation
@testable import MediationSimulation
import Testing

/// The market with countries: one user value per auction shared by every network, one bid per
/// network tested against each of its tiers' floors, shocks on their day in their country.
@Suite("Market with countries")
struct CountryMarketTests {
    /// Two countries (US 0.6, GB 0.4); networks `a` (base 4) and `b` (base 2), both of bid σ
    /// `bidSigma`; user value σ `userSigma`; GB's price level 0.5 for `a`, 0.25 for `b`.
    static func market(bidSigma: Double = 0, userSigma: Double = 0.8, shocks: [CountryMarket.Shock] = []) -> Market {
        let countries = CountryMarket(countries: [.init(code: "US", trafficShare: 0.6), .init(code: "GB", trafficShare: 0.4)], userValueSigma: userSigma, shocks: shocks)
        func network(_ id: String, base: Double, gb: Double) -> NetworkMarket {
            NetworkMarket(id: id, behaviour: MarketBehaviour(latency: LogNormal(median: 50)), tiered: TieredBid(baseECPM: base, bidSigma: bidSigma, priceLevels: ["US": 1, "GB": gb]))
        }
        return Market(networks: [network("a", base: 4, gb: 0.5), network("b", base: 2, gb: 0.25)], countries: countries)
    }

    @Test func aSharedUserValueMovesEveryNetwork() throws {
        let market = Self.market()
        var values: Set<Double> = []
        for auction in UInt64(0)..<200 {
            let draw = try #require(market.auctionDraw(seed: 3, auction: auction))
            let level = draw.country == "US" ? (1.0, 1.0) : (0.5, 0.25)
            let a = try #require(market.bid(of: "a", seed: 3, auction: auction))
            let b = try #require(market.bid(of: "b", seed: 3, auction: auction))
            // Without bid noise each bid is the user value × base × level, exactly.
            #expect(abs(a / (4 * level.0) - draw.userValue) < 1e-12)
            #expect(abs(b / (2 * level.1) - draw.userValue) < 1e-12)
            values.insert(draw.userValue)
        }
        #expect(values.count == 200)
        let countries = (UInt64(0)..<10_000).compactMap { market.auctionDraw(seed: 3, auction: $0)?.country }
        let us = Double(countries.filter { $0 == "US" }.count) / 10_000
        #expect(abs(us - 0.6) < 0.02)
    }

    @Test func aTierFillsIffTheBidClearsItsFloorAndPaysTheBid() throws {
        let market = Self.market(bidSigma: 0.5)
        let seed: UInt64 = 5
        // A floor exactly at auction 0's bid (in micros) fills: the rule is bid ≥ floor.
        let bid0 = try #require(market.bid(of: "a", seed: seed, auction: 0))
        let exact = Double(SourceDraw.micros(ofPrice: bid0)) / 1_000_000
        let tiers: [LineItem] = [.fixedPrice("a_high", network: "a", eCPM: 6), .fixedPrice("a_exact", network: "a", eCPM: exact), .fixedPrice("a_low", network: "a", eCPM: 1)]
        let configuration = SimulationFixture.configuration(sources: tiers, mode: .waterfall)
        let networks = try SimulatedNetworks(configuration: configuration, market: market, seed: seed, placements: ["level_end"])
        #expect(networks.answer(placementID: "level_end", lineItemID: "a_exact", auction: 0)?.answer == .ad)
        var fills = [0, 0, 0]
        for auction in UInt64(0)..<2000 {
            let bid = try #require(market.bid(of: "a", seed: seed, auction: auction))
            let micros = SourceDraw.micros(ofPrice: bid)
            for (index, tier) in tiers.enumerated() {
                let draw = try #require(networks.answer(placementID: "level_end", lineItemID: tier.id, auction: auction))
                let floor = SourceDraw.micros(ofPrice: tier.eCPM ?? 0)
                #expect(draw.answer == (micros >= floor ? .ad : .noFill), "auction \(auction), tier \(tier.id)")
                #expect(draw.priceMicros == micros)
                if draw.answer == .ad { fills[index] += 1 }
            }
        }
        #expect(fills[0] > 0 && fills[0] < fills[1] && fills[1] < fills[2] && fills[2] < 2000)
    }

    @Test func aShockAppliesOnItsDayInItsCountryOnly() throws {
        let market = Self.market(shocks: [CountryMarket.Shock(country: "US", day: 3, factor: 0.25)])
        var seen: Set<String> = []
        for auction in UInt64(0)..<100 {
            let country = try #require(market.auctionDraw(seed: 9, auction: auction)).country
            seen.insert(country)
            let day2 = try #require(market.onDay(2).bid(of: "a", seed: 9, auction: auction))
            let day3 = try #require(market.onDay(3).bid(of: "a", seed: 9, auction: auction))
            let day9 = try #require(market.onDay(9).bid(of: "b", seed: 9, auction: auction))
            let day1 = try #require(market.bid(of: "b", seed: 9, auction: auction))
            let factor = country == "US" ? 0.25 : 1
            #expect(abs(day3 / day2 - factor) < 1e-12, "auction \(auction) in \(country)")
            #expect(abs(day9 / day1 - factor) < 1e-12, "auction \(auction) in \(country)")
        }
        #expect(seen == ["US", "GB"])
    }

    @Test func theAuctionsCountryReachesTheEngine() throws {
        let market = Self.market()
        let configuration = SimulationFixture.configuration(sources: [.fixedPrice("a1", network: "a", eCPM: 1)], mode: .waterfall)
        let networks = try SimulatedNetworks(configuration: configuration, market: market, seed: 2, placements: ["level_end"])
        for auction in UInt64(0)..<50 {
            #expect(networks.signals(forAuction: auction)?.device.country == market.auctionDraw(seed: 2, auction: auction)?.country)
        }
        let oneCountry = try SimulatedNetworks(configuration: configuration, market: Market(networks: [SimulationFixture.fixed("a", latencyMilliseconds: 5)]), seed: 2, placements: ["level_end"])
        #expect(oneCountry.signals(forAuction: 0) == nil)
    }

    @Test func theTruthByHand() throws {
        // No noise at all: every bid is base × level; `a` bids 4 in the US and 2 in GB.
        let market = Self.market(userSigma: 0)
        let tiers: [LineItem] = [.fixedPrice("a5", network: "a", eCPM: 5), .fixedPrice("a3", network: "a", eCPM: 3), .fixedPrice("b1", network: "b", eCPM: 1), .fixedPrice("a1", network: "a", eCPM: 1)]
        let placement = SimulationFixture.configuration(sources: tiers, mode: .waterfall).placements[0]
        let truth = try #require(market.truth(of: placement))
        // US: a5 fails (4 < 5), a3 wins at 4. GB: a5, a3 fail (2), b1 wins at 0.5? No: b bids
        // 2 × 0.25 = 0.5 < 1, so a1 wins at 2.
        #expect(truth.cells[0].map(\.winProbability).map { ($0 * 1e9).rounded() / 1e9 } == [0, 1, 0, 0])
        #expect(abs(truth.cells[0][1].meanPrice - 4) < 1e-9)
        #expect(truth.cells[1].map(\.winProbability).map { ($0 * 1e9).rounded() / 1e9 } == [0, 0, 0, 1])
        #expect(abs(truth.cells[1][3].meanPrice - 2) < 1e-9)
        #expect(abs(truth.revenuePer1000 - (0.6 * 4 + 0.4 * 2)) < 1e-9)
    }

    @Test func theTruthRunsEachCountrysSegment() throws {
        // As in the truth by hand (a bids 4 in the US, 2 in GB; b 0.5 in GB), but the US runs
        // segment `us` (a5, a1) and GB the default (a3, b1): the truth must follow the segments,
        // not the placement's four line items.
        let market = Self.market(userSigma: 0)
        let tiers: [LineItem] = [.fixedPrice("a5", network: "a", eCPM: 5), .fixedPrice("a3", network: "a", eCPM: 3), .fixedPrice("b1", network: "b", eCPM: 1), .fixedPrice("a1", network: "a", eCPM: 1)]
        var placement = SimulationFixture.configuration(sources: tiers, mode: .waterfall).placements[0]
        let us = AudiencePredicate.test(AudienceTest(signal: .country, operation: .isIn([.string("US")]), text: "in [US]"))
        placement.segments = [
            AudienceSegment(id: "us", predicate: us, override: MediationConfiguration.PlacementOverride(sources: ["a5", "a1"]), path: "placements.level_end.segments[0]"),
            AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(sources: ["a3", "b1"]), path: "placements.level_end.segments[1]"),
        ]
        let truth = try #require(market.truth(of: placement))
        #expect(truth.cells[0].map(\.takesPart) == [true, false, false, true])
        #expect(truth.cells[1].map(\.takesPart) == [false, true, true, false])
        // US: a5 fails (4 < 5), a1 wins at 4 (a3, which would win at 4, is not in the segment).
        #expect(truth.cells[0].map(\.winProbability).map { ($0 * 1e9).rounded() / 1e9 } == [0, 0, 0, 1])
        #expect(abs(truth.cells[0][3].meanPrice - 4) < 1e-9)
        // GB: a3 fails (2 < 3), b1 fails (0.5 < 1), and a1 is not there: no fill.
        #expect(truth.cells[1].map(\.winProbability).map { ($0 * 1e9).rounded() / 1e9 } == [0, 0, 0, 0])
        #expect(abs(truth.revenuePer1000 - 0.6 * 4) < 1e-9)
        // The market's own walk of the same waterfalls agrees, auction by auction.
        let walker = LimitWalker(market: market, placement: placement, prices: truth.cells.map { $0.map(\.meanPrice) })
        let draws = try #require(market.countries.map { AuctionDraws(countries: $0) })
        for auction in UInt64(0)..<200 {
            let country = draws.draw(seed: 5, auction: auction).country
            #expect(walker.revenue(seed: 5, auction: auction) == (country == 0 ? 4 : 0))
        }
    }

    /// A segment may test a signal other than the country: the simulator's requests carry the
    /// default template's (a phone, OS 17.4, app 1.0.0), so a `device_kind == phone` segment
    /// takes every simulated auction in the engine, and the truth must take it too. Broken (the
    /// truth choosing the segment from the country alone), the truth ran the default segment
    /// in both countries: US a3 at 4, GB no fill, 2.4 per 1000 against the engine's 3.2.
    @Test func theTruthChoosesTheSegmentFromTheSimulatorsSignals() async throws {
        let market = Self.market(userSigma: 0)
        let tiers: [LineItem] = [.fixedPrice("a5", network: "a", eCPM: 5), .fixedPrice("a3", network: "a", eCPM: 3), .fixedPrice("b1", network: "b", eCPM: 1), .fixedPrice("a1", network: "a", eCPM: 1)]
        var configuration = SimulationFixture.configuration(sources: tiers, mode: .waterfall)
        let phone = AudiencePredicate.test(AudienceTest(signal: .deviceKind, operation: .equal(.string("phone")), text: "== phone"))
        configuration.placements[0].segments = [
            AudienceSegment(id: "phones", predicate: phone, override: MediationConfiguration.PlacementOverride(sources: ["a5", "a1"]), path: "placements.level_end.segments[0]"),
            AudienceSegment(id: "default", predicate: nil, override: MediationConfiguration.PlacementOverride(sources: ["a3", "b1"]), path: "placements.level_end.segments[1]"),
        ]
        let placement = configuration.placements[0]
        let truth = try #require(market.truth(of: placement))
        #expect(truth.cells.map { $0.map(\.takesPart) } == [[true, false, false, true], [true, false, false, true]])
        // a5 fails everywhere (bids 4 and 2), a1 wins every auction at the bid.
        #expect(truth.cells.map { $0.map(\.winProbability).map { ($0 * 1e9).rounded() / 1e9 } } == [[0, 0, 0, 1], [0, 0, 0, 1]])
        #expect(abs(truth.revenuePer1000 - (0.6 * 4 + 0.4 * 2)) < 1e-9)
        let walker = LimitWalker(market: market, placement: placement, prices: truth.cells.map { $0.map(\.meanPrice) })
        for auction in UInt64(0)..<100 {
            let country = try #require(market.auctionDraw(seed: 5, auction: auction)).country
            #expect(walker.revenue(seed: 5, auction: auction) == (country == "US" ? 4 : 2))
        }
        // The engine, on the simulator's own requests, runs the same segment.
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: 200, seed: 5, shardSize: 100))
        func wins(_ id: String) throws -> Int { try #require(report.lineItems.first { $0.lineItemID == id }).wins }
        #expect(try wins("a1") == 200)
        #expect(try wins("a3") == 0)
    }

    @Test func thePerCountryLimitBeatsOneGlobalPrice() throws {
        // b pays more than a in GB, less in the US: one global order is wrong in one country.
        var market = Self.market(bidSigma: 0.4, userSigma: 0.6)
        market.networks[1].tiered?.priceLevels["GB"] = 2.5
        let tiers: [LineItem] = [.fixedPrice("a2", network: "a", eCPM: 2), .fixedPrice("b2", network: "b", eCPM: 2), .fixedPrice("a1", network: "a", eCPM: 0.5), .fixedPrice("b1", network: "b", eCPM: 0.5)]
        let placement = SimulationFixture.configuration(sources: tiers, mode: .waterfall).placements[0]
        let limits = try #require(market.limits(of: placement))
        #expect(limits.ratio > 1.01)
        // The per-country prices order b first in GB and a first in the US.
        #expect(limits.perCountryPrices[0][0] > limits.perCountryPrices[0][1])
        #expect(limits.perCountryPrices[1][1] > limits.perCountryPrices[1][0])
        // The truth agrees with the market's own draws (the walker) within a percent.
        let figure = try #require(market.limitFigure(of: placement, days: 1, auctionsPerDay: 100_000, seeds: [1]))
        let simulated = try #require(figure.simulatedRatios.first)
        #expect(abs(simulated - figure.expectedRatio) < 0.01, "simulated \(simulated), expected \(figure.expectedRatio)")
    }
}

/// The market file's countries and tiered networks: every mistake names its JSON path.
@Suite("Market file with countries")
struct CountryMarketFileTests {
    static let base = """
    {
      "countries": [ { "code": "US", "traffic_share": 0.75 }, { "code": "GB", "traffic_share": 0.25, "daily_drift": -0.01 } ],
      "user_value": { "sigma": 0.8 },
      "shocks": [ { "country": "US", "day": 5, "factor": 0.25 } ],
      "networks": {
        "a": { "base_ecpm": 10, "bid_sigma": 0.5, "fill_rate": 0.9, "price_level": { "US": 1, "GB": 0.6 }, "latency": { "median_ms": 80 },
               "line_items": { "a1": { "error": 0.01 } } },
        "old": { "fill_rate": 0.5, "price": { "median": 1 }, "latency": { "median_ms": 10 } }
      }
    }
    """

    @Test func readsEveryField() throws {
        let market = try Market(json: Self.base)
        let countries = try #require(market.countries)
        #expect(countries.countries == [.init(code: "US", trafficShare: 0.75), .init(code: "GB", trafficShare: 0.25, dailyDrift: -0.01)])
        #expect(countries.userValueSigma == 0.8)
        #expect(countries.shocks == [.init(country: "US", day: 5, factor: 0.25)])
        #expect(market.network("a")?.tiered == TieredBid(baseECPM: 10, bidSigma: 0.5, priceLevels: ["US": 1, "GB": 0.6]))
        #expect(market.network("old")?.tiered == nil)
    }

    @Test(arguments: [
        ("\"traffic_share\": 0.75", "\"traffic_share\": 0.7", "invalid_value", "countries"),
        ("\"code\": \"US\", \"traffic_share\"", "\"code\": \"usa\", \"traffic_share\"", "invalid_value", "countries[0].code"),
        ("\"code\": \"GB\"", "\"code\": \"US\"", "duplicate_id", "countries[1].code"),
        ("\"sigma\": 0.8", "\"sigma\": 4", "invalid_value", "user_value.sigma"),
        ("\"country\": \"US\", \"day\": 5", "\"country\": \"FR\", \"day\": 5", "invalid_value", "shocks[0].country"),
        ("\"day\": 5", "\"day\": 0", "invalid_value", "shocks[0].day"),
        ("\"factor\": 0.25", "\"factor\": 0", "invalid_value", "shocks[0].factor"),
        ("{ \"US\": 1, \"GB\": 0.6 }", "{ \"US\": 1 }", "missing_field", "networks.a.price_level.GB"),
        ("{ \"US\": 1, \"GB\": 0.6 }", "{ \"US\": 1, \"GB\": 0.6, \"FR\": 1 }", "invalid_value", "networks.a.price_level.FR"),
        ("\"bid_sigma\": 0.5, ", "", "missing_field", "networks.a.bid_sigma"),
        ("\"fill_rate\": 0.9,", "\"fill_rate\": 0.9, \"price\": { \"median\": 1 },", "invalid_value", "networks.a.price"),
        ("{ \"error\": 0.01 }", "{ \"price\": { \"median\": 1 } }", "invalid_value", "networks.a.line_items.a1.price"),
        ("\"old\": { \"fill_rate\": 0.5,", "\"old\": { \"bid_sigma\": 0.5, \"fill_rate\": 0.5,", "invalid_value", "networks.old.price"),
    ])
    func mistakesNameTheirPath(old: String, new: String, code: String, path: String) {
        #expect(Self.base.contains(old), "fixture has no \(old)")
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: Self.base.replacingOccurrences(of: old, with: new))
        }
        #expect(error?.code.rawValue == code)
        #expect(error?.path == path, "\(error?.message ?? "")")
    }

    @Test func countriesAloneNeedCountries() {
        let json = #"{ "user_value": { "sigma": 0.5 }, "networks": {} }"#
        let error = #expect(throws: ConfigurationError.self) { _ = try Market(json: json) }
        #expect(error?.path == "user_value")
        let tiered = #"{ "networks": { "a": { "base_ecpm": 1, "bid_sigma": 0.1, "price_level": {}, "latency": { "median_ms": 1 } } } }"#
        let tieredError = #expect(throws: ConfigurationError.self) { _ = try Market(json: tiered) }
        #expect(tieredError?.path == "networks.a.base_ecpm")
    }

    @Test func theShippedGlobalMarketAndConfigurationFit() throws {
        let market = try Market.load(contentsOf: SimulationFixture.packageRoot.appendingPathComponent("Config/market-global.json"))
        let shock = try Market.load(contentsOf: SimulationFixture.packageRoot.appendingPathComponent("Config/market-global-shock.json"))
        let configuration = try MediationConfiguration(contentsOf: SimulationFixture.packageRoot.appendingPathComponent("Config/mediation-global.json"), registry: .standard)
        try market.check(against: [configuration])
        let countries = try #require(market.countries)
        #expect(countries.countries.count >= 30)
        let largest = countries.countries.map(\.trafficShare).max() ?? 0
        #expect(largest >= 0.2 && largest <= 0.3)
        #expect(shock.countries?.shocks.count == 1)
        let placement = try #require(configuration.placement("level_end"))
        #expect(placement.sources.count == 34)
        #expect(placement.segments.count == 3)
    }
}

/// A tier's floor in a country is its `ecpm_by_country` entry there, else its eCPM.
@Suite("Floors by country")
struct CountryFloorTests {
    @Test func aTiersFloorFollowsItsPriceInTheCountry() throws {
        let market = CountryMarketTests.market(bidSigma: 0.5)
        var tier = LineItem.fixedPrice("a1", network: "a", eCPM: 3)
        tier.eCPMByCountry = ["GB": 0.5]
        let configuration = SimulationFixture.configuration(sources: [tier], mode: .waterfall)
        let networks = try SimulatedNetworks(configuration: configuration, market: market, seed: 4, placements: ["level_end"])
        var checked: Set<String> = []
        for auction in UInt64(0)..<500 {
            let country = try #require(market.auctionDraw(seed: 4, auction: auction)).country
            let bid = try #require(market.bid(of: "a", seed: 4, auction: auction))
            let floor = country == "GB" ? 0.5 : 3
            let draw = try #require(networks.answer(placementID: "level_end", lineItemID: "a1", auction: auction))
            #expect(draw.answer == (SourceDraw.micros(ofPrice: bid) >= SourceDraw.micros(ofPrice: floor) ? .ad : .noFill), "auction \(auction) in \(country)")
            checked.insert(country)
        }
        #expect(checked == ["US", "GB"])
        // Pinned floors stay when a repriced configuration runs.
        let pinned = market.pinningFloors(to: configuration)
        var repriced = configuration
        repriced.placements[0].sources[0].eCPM = 100
        repriced.placements[0].sources[0].eCPMByCountry = [:]
        let pinnedNetworks = try SimulatedNetworks(configuration: repriced, market: pinned, seed: 4, placements: ["level_end"])
        for auction in UInt64(0)..<200 {
            #expect(pinnedNetworks.answer(placementID: "level_end", lineItemID: "a1", auction: auction) == networks.answer(placementID: "level_end", lineItemID: "a1", auction: auction))
        }
    }
}
