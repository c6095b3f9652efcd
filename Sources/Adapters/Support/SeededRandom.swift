/// The adapters' seeded pseudo-random numbers: SplitMix64 (Steele, Lea and Flood, 2014).
/// The fallback network and the sandbox servers seed it from the engine's seed (and, for the
/// fallback, its `seed` option, the ad unit id and the request number), so the same
/// configuration and seed give the same fills, prices, latencies and creatives on every run
/// and every platform.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator from a 64-bit seed.
    init(seed: UInt64) {
        state = seed
    }

    /// Creates a generator from several values mixed together (order matters).
    init(mixing values: [UInt64]) {
        var mixer = SeededRandom(seed: 0x5EED_FA11_BAC4_0001)
        var seed: UInt64 = 0
        for value in values {
            mixer.state ^= value
            seed = mixer.next() ^ (seed &* 0x9E37_79B9_7F4A_7C15)
        }
        state = seed
    }

    /// The next 64 random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0 ..< 1` with 53 bits of precision.
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// The 64-bit FNV-1a hash of `text`'s UTF-8 bytes: stable across runs and platforms
    /// (unlike `Hasher`, which is seeded per process).
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
