@testable import Mediation
import Testing

@Suite("Experiment assignment")
struct ExperimentAssignmentTests {
    /// Expected values computed independently with Python's hashlib:
    /// ```python
    /// import hashlib
    /// def bp(t): return int.from_bytes(hashlib.sha256(t.encode()).digest()[:4], 'big') % 10000
    /// bucket = bp(salt + ":" + install_id); draw = bp(salt + ":variant:" + install_id)
    /// unit = hashlib.sha256((salt + ":unit:" + install_id).encode()).digest()[:8].hex()
    /// ```
    static let cases: [(salt: String, installID: String, bucket: Int, draw: Int, unit: String)] = [
        ("s1", "00000000000000000000000000000000", 3058, 3348, "52d74a6eea5d6a3b"),
        ("s1", "0123456789abcdef0123456789abcdef", 4142, 9935, "dcfc7a8056d4e1f7"),
        ("s1", "ffffffffffffffffffffffffffffffff", 5023, 292, "a087c861dc241cac"),
        ("s1", "5f2b9c4e8a7d1036b4e2c9f0a1d3e567", 3307, 4567, "1e22ee43ad716636"),
        ("waterfall_b-2026-12", "00000000000000000000000000000000", 9010, 5275, "8265ede9aef3bb84"),
        ("waterfall_b-2026-12", "0123456789abcdef0123456789abcdef", 4852, 2927, "1e4b52371366d952"),
        ("waterfall_b-2026-12", "ffffffffffffffffffffffffffffffff", 9081, 9990, "18c9bb2447e6683b"),
        ("waterfall_b-2026-12", "5f2b9c4e8a7d1036b4e2c9f0a1d3e567", 1461, 9975, "e0e4be5747534926"),
    ]

    @Test("buckets, variant draws and units are the documented SHA-256 values")
    func exactValues() {
        for item in Self.cases {
            #expect(ExperimentAssignment.bucket(salt: item.salt, installID: item.installID) == item.bucket, "\(item)")
            #expect(ExperimentAssignment.variantDraw(salt: item.salt, installID: item.installID) == item.draw, "\(item)")
            #expect(ExperimentAssignment.unit(salt: item.salt, installID: item.installID) == item.unit, "\(item)")
        }
    }

    @Test("in the experiment iff the bucket is under the allocation; the variant from the cumulative weights")
    func allocationAndVariants() {
        // s1 / 0…0: bucket 3058, draw 3348.
        let id = "00000000000000000000000000000000"
        #expect(ExperimentAssignment.variantIndex(salt: "s1", installID: id, allocationBasisPoints: 3058, weights: [5000, 5000]) == nil)
        #expect(ExperimentAssignment.variantIndex(salt: "s1", installID: id, allocationBasisPoints: 3059, weights: [5000, 5000]) == 0)
        #expect(ExperimentAssignment.variantIndex(salt: "s1", installID: id, allocationBasisPoints: 10_000, weights: [3348, 6652]) == 1)
        #expect(ExperimentAssignment.variantIndex(salt: "s1", installID: id, allocationBasisPoints: 10_000, weights: [3349, 6651]) == 0)
        #expect(ExperimentAssignment.variantIndex(salt: "s1", installID: id, allocationBasisPoints: 0, weights: [10_000]) == nil)
    }

    /// Seeded install ids: 32 lowercase hex digits from SplitMix64.
    static func installIDs(count: Int, seed: UInt64) -> [String] {
        var state = seed
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        return (0..<count).map { _ in
            let high = String(next(), radix: 16), low = String(next(), radix: 16)
            return String(repeating: "0", count: 16 - high.count) + high + String(repeating: "0", count: 16 - low.count) + low
        }
    }

    @Test("two experiments' assignments are independent (chi-square over 100,000 install ids)")
    func independence() {
        let ids = Self.installIDs(count: 100_000, seed: 42)
        var table = [[Double]](repeating: [0, 0, 0], count: 3) // rows: experiment 1 (out, A, B); columns: experiment 2
        for id in ids {
            let first = ExperimentAssignment.variantIndex(salt: "exp-one", installID: id, allocationBasisPoints: 5_000, weights: [5_000, 5_000]).map { $0 + 1 } ?? 0
            let second = ExperimentAssignment.variantIndex(salt: "exp-two", installID: id, allocationBasisPoints: 5_000, weights: [5_000, 5_000]).map { $0 + 1 } ?? 0
            table[first][second] += 1
        }
        let statistic = ExperimentAssignmentTests.chiSquare(table)
        // 4 degrees of freedom: the 0.999 quantile is 18.47; this seed gives the value below.
        #expect(statistic < 18.47, "chi-square \(statistic)")
    }

    /// Pearson's chi-square statistic of a contingency table.
    static func chiSquare(_ table: [[Double]]) -> Double {
        let total = table.joined().reduce(0, +)
        let rows = table.map { $0.reduce(0, +) }
        let columns = table[0].indices.map { column in table.reduce(0) { $0 + $1[column] } }
        var statistic = 0.0
        for (row, values) in table.enumerated() {
            for (column, observed) in values.enumerated() {
                let expected = rows[row] * columns[column] / total
                statistic += (observed - expected) * (observed - expected) / expected
            }
        }
        return statistic
    }

    @Test("a 10 % allocation holds 10 % of 100,000 install ids within 0.3 points")
    func allocationShare() {
        let ids = Self.installIDs(count: 100_000, seed: 7)
        let inside = ids.filter { ExperimentAssignment.variantIndex(salt: "ten-percent", installID: $0, allocationBasisPoints: 1_000, weights: [5_000, 5_000]) != nil }.count
        let share = Double(inside) / Double(ids.count) * 100
        // One standard deviation at this N is 0.095 points: 0.3 is more than three.
        #expect(abs(share - 10) <= 0.3, "share \(share) %")
    }
}
