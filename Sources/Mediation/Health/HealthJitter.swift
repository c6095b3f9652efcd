/// The seeded jitter of a back-off (engine rule R24): a number in `0..<1` from the
/// environment's seed, the network id and how many times it opened, so the same inputs give
/// the same trace and two networks failing together do not retry together.
enum HealthJitter {
    /// The jitter's number for `networkID`'s `opening`-th opening under `seed`.
    static func unit(seed: UInt64, networkID: String, opening: Int) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 // FNV-1a over the id
        for byte in networkID.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        var state = seed ^ hash ^ (UInt64(truncatingIfNeeded: opening) &* 0x9e37_79b9_7f4a_7c15)
        // SplitMix64's output function.
        state = state &+ 0x9e37_79b9_7f4a_7c15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xbf58_476d_1ce4_e5b9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94d0_49bb_1331_11eb
        mixed ^= mixed >> 31
        return Double(mixed >> 11) / Double(UInt64(1) << 53)
    }

    /// The largest share a jitter takes off a back-off: 50 %. A wide jitter keeps the probes of
    /// a network that goes up and down in a cycle from falling at the same point of each cycle.
    static let spread = 0.5
}
