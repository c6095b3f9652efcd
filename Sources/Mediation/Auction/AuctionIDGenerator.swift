/// Makes auction ids (OpenRTB `${AUCTION_ID}`): 32 lowercase hex digits, unique with
/// overwhelming probability.
///
/// Seeded once from the system's random source; each id then costs a lock and a few
/// multiplications (a SplitMix64 stream per half) instead of two `getrandom` system calls.
final class AuctionIDGenerator: Sendable {
    private struct State {
        var high: UInt64
        var low: UInt64
    }

    private let state: Locked<State>

    /// Creates a generator with a fresh random seed.
    init() {
        var random = SystemRandomNumberGenerator()
        state = Locked(State(high: random.next(), low: random.next()))
    }

    /// The next id.
    func next() -> String {
        let (high, low) = state.withLock { state in
            state.high &+= 0x9E37_79B9_7F4A_7C15
            state.low &+= 0xD1B5_4A32_D192_ED03
            return (state.high, state.low)
        }
        return AuctionIDGenerator.hex(AuctionIDGenerator.mix(high), AuctionIDGenerator.mix(low))
    }

    /// A generator whose ids follow from `seed` alone (a simulation's, so its runs repeat).
    /// - Parameter seed: the seed.
    init(seed: UInt64) {
        state = Locked(State(high: AuctionIDGenerator.mix(seed), low: AuctionIDGenerator.mix(seed ^ 0x5851_F42D_4C95_7F2D)))
    }

    /// SplitMix64's finaliser.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    private static func hex(_ high: UInt64, _ low: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { buffer in
            digits.withUTF8Buffer { digits in
                for position in 0..<16 {
                    let shift = UInt64(60 - 4 * position)
                    buffer[position] = digits[Int((high >> shift) & 0xF)]
                    buffer[16 + position] = digits[Int((low >> shift) & 0xF)]
                }
            }
            return 32
        }
    }
}
