/// SplitMix64 (Steele, Lea and Flood, 2014): a 64-bit generator whose state is a counter and
/// whose output is a strong mix of it. A generator is a pure function of its starting state, so
/// any number of independent streams can be split off by keying that state, with no shared
/// generator to advance: the simulation's draws for one source in one auction come from the
/// stream ``forSource(seed:auction:lineItemKey:)`` and from nothing else (see
/// `docs/simulation.md`, "Randomness").
public struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The golden-ratio increment added to the state before each output.
    public static let gamma: UInt64 = 0x9E37_79B9_7F4A_7C15

    /// The counter; the next output is ``mix(_:)`` of `state + gamma`.
    public private(set) var state: UInt64

    /// Creates a generator whose first output is `mix(state + gamma)`.
    /// - Parameter state: the starting state.
    public init(state: UInt64) {
        self.state = state
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= SplitMix64.gamma
        return SplitMix64.mix(state)
    }

    /// A uniform draw strictly inside (0, 1): the top 53 bits of ``next()``, plus one half, times
    /// 2^-53. Never 0 or 1, so its logarithm and its normal quantile are finite.
    public mutating func nextUnitInterval() -> Double {
        (Double(next() >> 11) + 0.5) * 0x1p-53
    }

    /// SplitMix64's output function (a variant of MurmurHash3's 64-bit finaliser): a bijection
    /// of 64-bit words that spreads every input bit over the whole output.
    /// - Parameter value: the word to mix.
    /// - Returns: the mixed word.
    public static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The stream of one source in one auction: state =
    /// `mix(mix(mix(seed + gamma) ^ (auction + 0x632BE59BD9B4E019)) ^ lineItemKey)`.
    /// It depends on nothing else (not the order auctions run in, not the shard, not the line
    /// item's position in its placement), so two configurations simulated with the same seed
    /// see the same draws for the same line item id (common random numbers).
    /// - Parameters:
    ///   - seed: the run's seed.
    ///   - auction: the auction's index in the run, from 0.
    ///   - lineItemKey: ``key(ofLineItem:)`` of the source's line item id.
    /// - Returns: the generator.
    public static func forSource(seed: UInt64, auction: UInt64, lineItemKey: UInt64) -> SplitMix64 {
        let seeded = mix(seed &+ gamma)
        let perAuction = mix(seeded ^ (auction &+ 0x632B_E59B_D9B4_E019))
        return SplitMix64(state: mix(perAuction ^ lineItemKey))
    }

    /// A stable 64-bit key of a line item id: FNV-1a over its UTF-8 bytes (the same on every
    /// platform and in every process, unlike `Hasher`).
    /// - Parameter id: the line item id, e.g. `"home_banner_nitx"`.
    /// - Returns: the key.
    public static func key(ofLineItem id: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in id.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01B3
        }
        return hash
    }
}
