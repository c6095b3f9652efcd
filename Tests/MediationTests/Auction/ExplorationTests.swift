import Foundation
import Testing
@testable import Mediation

/// Exploration (R23): a placement's `"exploration"`, and the seeded posterior draws an exploring
/// auction values its fixed-price line items by.
@Suite("Exploration (R23)")
struct ExplorationTests {
    @Test("\"exploration\" is off by default, \"thompson\" turns it on, anything else is an error at its path")
    func loading() throws {
        #expect(try ConfigurationFixture.load(ConfigurationFixture.base).placement("home_banner")?.exploration == .off)
        let on = try ConfigurationFixture.load(ConfigurationFixture.edited("\"refresh_seconds\": 60,", "\"refresh_seconds\": 60, \"exploration\": \"thompson\","))
        #expect(on.placement("home_banner")?.exploration == .thompson)
        #expect(on.placement("level_end")?.exploration == .off)
        #expect {
            _ = try ConfigurationFixture.load(ConfigurationFixture.edited("\"refresh_seconds\": 60,", "\"refresh_seconds\": 60, \"exploration\": \"greedy\","))
        } throws: { error in
            (error as? ConfigurationError).map { $0.code == .invalidValue && $0.path == "placements.home_banner.exploration" } ?? false
        }
        #expect {
            _ = try ConfigurationFixture.load(ConfigurationFixture.edited("\"refresh_seconds\": 60,", "\"refresh_seconds\": 60, \"exploration\": true,"))
        } throws: { error in
            (error as? ConfigurationError).map { $0.code == .wrongType && $0.path == "placements.home_banner.exploration" } ?? false
        }
    }

    @Test("the draw is a function of the auction id and the line item id, and standard normal")
    func standardNormal() {
        let a = ExplorationDraw.standardNormal(auctionID: "0123456789abcdef0123456789abcdef", lineItemID: "nitx")
        #expect(a == ExplorationDraw.standardNormal(auctionID: "0123456789abcdef0123456789abcdef", lineItemID: "nitx"))
        #expect(a != ExplorationDraw.standardNormal(auctionID: "0123456789abcdef0123456789abcdef", lineItemID: "nitx2"))
        #expect(a != ExplorationDraw.standardNormal(auctionID: "0123456789abcdef0123456789abcdee", lineItemID: "nitx"))
        // 40,000 draws: mean within 0.03 of 0, variance within 0.04 of 1, a tail share near 15.9 %.
        let draws = (0..<40_000).map { ExplorationDraw.standardNormal(auctionID: String($0, radix: 16), lineItemID: "x") }
        let mean = draws.reduce(0, +) / Double(draws.count)
        let variance = draws.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(draws.count - 1)
        let tail = Double(draws.filter { $0 > 1 }.count) / Double(draws.count)
        #expect(abs(mean) < 0.03)
        #expect(abs(variance - 1) < 0.04)
        #expect(abs(tail - 0.1587) < 0.01)
        #expect(draws.allSatisfy { $0.isFinite })
    }

    @Test("prices: ecpm + sd·z, 30 % of the eCPM when never learned, at least the floor it meets; bidders untouched")
    func prices() {
        var learned = LineItem.fixedPrice("learned", eCPM: 2.0)
        learned.eCPMSD = 0.1
        let unlearned = LineItem.fixedPrice("unlearned", eCPM: 1.0)
        var exact = LineItem.fixedPrice("exact", eCPM: 1.5)
        exact.eCPMSD = 0
        let low = LineItem.fixedPrice("low", eCPM: 0.05)
        let id = "00000000000000000000000000000001"
        let prices = ExplorationDraw.prices(of: [.bidder("bid"), learned, unlearned, exact, low], placementFloorUSD: 0.04, auctionID: id)
        #expect(prices[0] == nil)
        #expect(prices[1] == 2.0 + 0.1 * ExplorationDraw.standardNormal(auctionID: id, lineItemID: "learned"))
        #expect(prices[2] == max(0.04, 1.0 + 0.3 * ExplorationDraw.standardNormal(auctionID: id, lineItemID: "unlearned")))
        #expect(prices[3] == 1.5)
        #expect(prices[4].map { $0 >= 0.04 } == true)
        // A draw far below: the floor it meets holds it up (never under_floor by a draw).
        let many = (0..<2000).compactMap { ExplorationDraw.prices(of: [low], placementFloorUSD: 0.04, auctionID: String($0))[0] }
        #expect(many.allSatisfy { $0 >= 0.04 })
        #expect(many.contains(0.04))
    }
}
