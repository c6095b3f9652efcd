import Testing
@testable import Mediation

@Suite("Auction values (R2, R9)")
struct AuctionValueTests {
    @Test func comparesInIntegerMicros() throws {
        let nearly = try #require(AuctionValue(price: 1.4999999999999998))
        let exact = try #require(AuctionValue(price: 1.50))
        #expect(nearly == exact)
        #expect(nearly.micros == 1_500_000)
    }

    @Test func roundsHalfAwayFromZero() throws {
        #expect(try #require(AuctionValue(price: 0.0000005)).micros == 1)
        #expect(try #require(AuctionValue(price: 2.0000015)).micros == 2_000_002)
    }

    @Test(arguments: [0.0, -1.0, Double.nan, Double.infinity, -Double.infinity, 0.0000004, 2_000_000.0])
    func rejectsInvalidPrices(price: Double) {
        #expect(AuctionValue(price: price) == nil)
    }

    @Test func convertsCurrencyExactlyOnce() throws {
        let value = try #require(AuctionValue(price: 2.00, usdRate: 1.10))
        #expect(value.micros == 2_200_000)
    }
}
