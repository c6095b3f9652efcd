/// A price as the auction compares it: USD CPM in integer micros (eCPM x 1,000,000, rounded
/// half away from zero), so `1.4999999999999998` and `1.50` are equal (engine rule R2).
package struct AuctionValue: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// USD CPM x 1,000,000.
    package var micros: Int64

    /// The largest eCPM the auction accepts (USD 1,000,000 CPM); larger prices are invalid.
    package static let maximumECPM: Double = 1_000_000

    /// Creates a value from micros.
    package init(micros: Int64) {
        self.micros = micros
    }

    /// Converts a price: multiplies by `usdRate` exactly once (R9) and rounds to micros.
    /// - Parameters:
    ///   - price: the price in the source's currency, CPM.
    ///   - usdRate: USD per unit of that currency (1 for USD).
    /// - Returns: the value, or `nil` when the price is NaN, infinite, zero, negative, or above
    ///   ``maximumECPM`` once converted (an invalid price, loss reason 3).
    package init?(price: Double, usdRate: Double = 1) {
        let usd = price * usdRate
        guard usd.isFinite, usd > 0, usd <= AuctionValue.maximumECPM else { return nil }
        let micros = (usd * 1_000_000).rounded(.toNearestOrAwayFromZero)
        guard micros >= 1 else { return nil }
        self.micros = Int64(micros)
    }

    /// The value in USD CPM.
    package var eCPM: Double { Double(micros) / 1_000_000 }

    /// Orders by micros.
    package static func < (lhs: AuctionValue, rhs: AuctionValue) -> Bool { lhs.micros < rhs.micros }

    /// The value in USD CPM, e.g. `1.2`.
    package var description: String { String(eCPM) }
}
