import Testing
@testable import Mediation

/// The one-pass form of an auction's health signals (R24) that the monitor reads: it must say
/// exactly what the sources' signals say one by one, within the first 64 sources and beyond.
@Suite("Network health: an auction's signals in one pass")
struct HealthSignalsTests {
    /// A seeded walk over the three signals (no randomness from the system).
    private static func signals(count: Int, seed: UInt64) -> [HealthSignal?] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            switch state >> 62 {
            case 0: return .success
            case 1: return .failure
            default: return nil
            }
        }
    }

    @Test("each source's signal reads back as appended, before and beyond the 64th", arguments: [0, 1, 63, 64, 65, 130])
    func readsBackEachSource(count: Int) {
        let expected = Self.signals(count: count, seed: UInt64(count) + 7)
        var signals = HealthSignals()
        for signal in expected { signals.append(signal) }
        #expect(signals.count == count)
        for index in 0..<count { #expect(signals.signal(at: index) == expected[index], "source \(index)") }
        #expect(signals.signal(at: -1) == nil)
        #expect(signals.signal(at: count) == nil)
    }

    @Test("a network's mask combines its sources as combined(signals:) does: any answer, else any failure")
    func maskCombinesAsTheSourcesDo() {
        for seed in UInt64(0)..<200 {
            let all = Self.signals(count: 64, seed: seed)
            var signals = HealthSignals()
            for signal in all { signals.append(signal) }
            // A network of up to 8 sources picked from the seed.
            let sources = (0..<8).map { Int((seed &* 2_654_435_761 &+ UInt64($0) &* 40_503) % 64) }
            let mask = sources.reduce(UInt64(0)) { $0 | UInt64(1) << UInt64($1) }
            let expected = HealthSignal.combined(signals: sources.map { all[$0] })
            #expect(signals.signal(ofSourcesIn: mask) == expected, "seed \(seed), sources \(sources)")
        }
        var failedOnly = HealthSignals()
        failedOnly.append(.failure)
        failedOnly.append(nil)
        failedOnly.append(.success)
        #expect(failedOnly.signal(ofSourcesIn: 0b011) == .failure)
        #expect(failedOnly.signal(ofSourcesIn: 0b111) == .success)
        #expect(failedOnly.signal(ofSourcesIn: 0b010) == nil)
    }
}
