import Foundation

/// The values of fixed-price line items in an exploring auction
/// (``MediationConfiguration/Placement/Exploration/thompson``, R23): a draw from each price's
/// posterior, seeded by the auction id and the line item id, so the same auction always values them
/// the same.
package enum ExplorationDraw {
    /// The coefficient of variation taken for a line item with no `ecpm_sd` (a hand-typed price,
    /// never learned): 0.3, one standard deviation of ±30 %.
    package static let unlearnedCoefficientOfVariation = 0.3

    /// The eCPM each source of `sources` is valued at in auction `auctionID`, in its currency:
    /// for a fixed-price source `max(eCPM + sd · z, floor)`, where `sd` is its `ecpm_sd` (or
    /// ``unlearnedCoefficientOfVariation`` × eCPM), `z` ``standardNormal(auctionID:lineItemID:)``,
    /// and `floor` the placement's floor in its currency when its eCPM meets it (else 1 micro);
    /// `nil` for bidders and for an invalid eCPM.
    package static func prices(of sources: [LineItem], placementFloorUSD: Double?, auctionID: String) -> [Double?] {
        sources.map { item in
            guard item.pricing == .fixedPrice, let eCPM = item.eCPM, eCPM.isFinite, eCPM > 0 else { return item.eCPM }
            let sd = item.eCPMSD.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil } ?? unlearnedCoefficientOfVariation * eCPM
            let draw = eCPM + sd * standardNormal(auctionID: auctionID, lineItemID: item.id)
            let floor = placementFloorUSD.map { $0 / item.usdRate }.flatMap { eCPM >= $0 ? $0 : nil } ?? 0.000001
            guard draw.isFinite else { return eCPM }
            return min(max(draw, floor), AuctionValue.maximumECPM / item.usdRate)
        }
    }

    /// A standard normal number from `auctionID` and `lineItemID`: their FNV-1a hash, spread by
    /// SplitMix64's finaliser into two uniforms, through the Box–Muller transform.
    package static func standardNormal(auctionID: String, lineItemID: String) -> Double {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in auctionID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        hash = (hash ^ 0xFF) &* 0x0000_0100_0000_01B3
        for byte in lineItemID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        let first = AuctionIDGenerator.mix(hash &+ 0x9E37_79B9_7F4A_7C15)
        let second = AuctionIDGenerator.mix(hash &+ 2 &* 0x9E37_79B9_7F4A_7C15)
        // u1 in (0, 1] (never 0, so the logarithm is finite), u2 in [0, 1).
        let u1 = (Double(first >> 11) + 1) / 9_007_199_254_740_992
        let u2 = Double(second >> 11) / 9_007_199_254_740_992
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
