import Mediation

/// A network for the placements benchmark: answers at once, with a mix of outcomes drawn from
/// a deterministic stream (SplitMix64 seeded by the network's name), each ad tracked in the
/// ``AdLedger``.
///
/// - `bidder`: 70 % a bid between 0.50 and 3.00, 5 % a bid with an ad too big for a banner
///   slot (728 x 90 pt: rejected with 203 and released), 20 % no fill, 5 % an error.
/// - fixed price: a fill with probability `fillRate`, else no fill.
final class SimulatedNetwork: AdNetworkAdapter {
    let network: String
    let pricing: LineItem.Pricing
    private let fillRate: Double
    private let ledger: AdLedger
    private let random: Locked<UInt64>

    init(network: String, pricing: LineItem.Pricing, fillRate: Double = 1, ledger: AdLedger) {
        self.network = network
        self.pricing = pricing
        self.fillRate = fillRate
        self.ledger = ledger
        random = Locked(UInt64(truncatingIfNeeded: network.utf8.reduce(14_695_981_039_346_656_037 as UInt64) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }))
    }

    /// A uniform draw in [0, 1).
    private func draw() -> Double {
        let value = random.withLock { state -> UInt64 in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return Double(value >> 11) / Double(1 << 53)
    }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let roll = draw()
        switch pricing {
        case .bidder:
            if roll < 0.70 {
                let price = 0.5 + 2.5 * draw()
                return .bid(BenchAd(network: network, format: request.format, ledger: ledger), eCPM: price)
            }
            if roll < 0.75 {
                return .bid(BenchAd(network: network, format: request.format, size: AdSize(width: 728, height: 90), ledger: ledger), eCPM: 4.0)
            }
            if roll < 0.95 { return .noFill(.noInventory) }
            return .failure(AdLoadResult.Error(kind: .server, code: 500, message: "simulated server error"))
        case .fixedPrice:
            guard roll < fillRate else { return .noFill(.noInventory) }
            return .fill(BenchAd(network: network, format: request.format, ledger: ledger))
        }
    }
}
