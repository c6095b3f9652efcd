import Foundation
import MediationLearning
import MediationSimulation

// experiment-simulation: measures the experiment report's statistics on simulated users whose
// revenue is drawn directly (docs/experiments.md, "How the statistics were checked"):
//
//   swift run -c release experiment-simulation [--seeds 200]
//
// Users: value v lognormal with mean 1 and sigma 1.0 (heavy-tailed: the top 1 % of users hold
// about a fifth of the value); from the day they arrive, each day active with probability 0.6,
// earning v × 0.02 USD × Exp(1) on an active day. 1,000 users arrive a day, assigned 50/50.
//
// 1. A/A: both variants the same; the report read after each of 14 days; a false positive is a
//    seed where any read's interval excludes 0 (the always-valid one, and the read-once one
//    beside it).
// 2. Split check: B loses 1 % of its exposures (each B user missing with probability 0.01), at
//    100,000 and 1,000,000 users; and with no loss (A/A, 2,000 seeds) how often it fires.
// 3. Lift: B earns +3 % per user; users arrive so that the report's own "enough" count (for a
//    3 % effect, from seed 1's A/A read at day 14) has arrived by day 14; found when a read's
//    always-valid interval lies above 0 (any daily read, and the day-14 read alone).

var seeds = 200
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    if argument == "--seeds", let text = arguments.popFirst(), let value = Int(text), value > 0 { seeds = value } else {
        FileHandle.standardError.write(Data("usage: experiment-simulation [--seeds N]\n".utf8))
        exit(64)
    }
}

let design = ExperimentDesign(id: "sim", variants: [.init(id: "A", weightBP: 5000), .init(id: "B", weightBP: 5000)])
let sigma = 1.0, activeShare = 0.6, scale = 0.02, days = 14

struct SimUser {
    var variant: UInt16
    var value: Double
    var arrival: Int
    var revenue = 0.0
    var impressions: UInt32 = 0
}

func lognormal(_ generator: inout SplitMix64) -> Double {
    // Box–Muller; mean 1.
    let u1 = max(generator.nextUnitInterval(), 1e-300), u2 = generator.nextUnitInterval()
    let z = (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    return exp(sigma * z - sigma * sigma / 2)
}

func exponential(_ generator: inout SplitMix64) -> Double { -log(max(1 - generator.nextUnitInterval(), 1e-300)) }

/// One run: `perDay` users arrive a day; after each day `read` gets the report's users.
func run(seed: UInt64, perDay: Int, lift: Double, readDays: Set<Int>, minimumEffect: Double = ExperimentReport.defaultMinimumEffect, _ read: (Int, ExperimentReport) -> Void) {
    var generator = SplitMix64(state: SplitMix64.mix(seed))
    var users: [SimUser] = []
    users.reserveCapacity(perDay * days)
    for day in 1...days {
        for _ in 0..<perDay {
            let variant: UInt16 = generator.nextUnitInterval() < 0.5 ? 0 : 1
            users.append(SimUser(variant: variant, value: lognormal(&generator), arrival: day))
        }
        for index in users.indices where generator.nextUnitInterval() < activeShare {
            let earned = users[index].value * scale * exponential(&generator)
            users[index].revenue += users[index].variant == 1 ? earned * lift : earned
            users[index].impressions += 1
        }
        guard readDays.contains(day) else { continue }
        var table: [UInt64: ExperimentUsers.User] = [:]
        table.reserveCapacity(users.count)
        for (index, user) in users.enumerated() {
            table[UInt64(index)] = ExperimentUsers.User(variant: user.variant, requests: user.impressions, impressions: user.impressions, revenue: user.revenue)
        }
        read(day, ExperimentReport(design: design, users: table, asOf: nil, minimumEffect: minimumEffect))
    }
}

func share(_ count: Int, _ total: Int) -> String { String(format: "%.1f %% (%d of %d)", 100 * Double(count) / Double(total), count, total) }
let started = Date()

// 1. A/A.
var sequentialFalse = 0, naiveFalse = 0, naiveLastFalse = 0, srmAny = 0
for seed in 1...seeds {
    var sequential = false, naive = false
    run(seed: UInt64(seed), perDay: 1000, lift: 1, readDays: Set(1...days)) { day, report in
        if report.withheld != nil { srmAny += 1 }
        guard let difference = report.comparisons[0].difference else { return }
        if difference.sequential.lowerBound > 0 || difference.sequential.upperBound < 0 { sequential = true }
        let outside = difference.naive.lowerBound > 0 || difference.naive.upperBound < 0
        if outside { naive = true }
        if day == days, outside { naiveLastFalse += 1 }
    }
    if sequential { sequentialFalse += 1 }
    if naive { naiveFalse += 1 }
}
print("A/A, \(seeds) seeds, read after each of \(days) days (1,000 users a day):")
print("  always-valid interval excludes 0 on some day: \(share(sequentialFalse, seeds))  (target ≤ 5 %)")
print("  read-once 95 % interval excludes 0 on some day (naive): \(share(naiveFalse, seeds))")
print("  read-once 95 % interval excludes 0 on day \(days) only: \(share(naiveLastFalse, seeds))")
print("  split check withheld a read: \(srmAny) of \(seeds * days) reads")

// 2. The split check.
func srmRate(users: Int, loss: Double, runs: Int, seedBase: UInt64) -> Int {
    var flagged = 0
    for seed in 1...runs {
        var generator = SplitMix64(state: SplitMix64.mix(seedBase &+ UInt64(seed)))
        var counts = [0, 0]
        for _ in 0..<users {
            if generator.nextUnitInterval() < 0.5 { counts[0] += 1 } else if generator.nextUnitInterval() >= loss { counts[1] += 1 }
        }
        if ExperimentStatistics.sampleRatio(observed: counts, weights: [5000, 5000]).p < ExperimentStatistics.sampleRatioThreshold { flagged += 1 }
    }
    return flagged
}
print("split check (p < 0.001), B loses 1 % of its exposures:")
for users in [100_000, 1_000_000] {
    print("  \(users) users: flagged in \(share(srmRate(users: users, loss: 0.01, runs: seeds, seedBase: 1_000_000 + UInt64(users)), seeds))")
}
let aaRuns = 10 * seeds
print("  no loss (A/A), 100000 users: fired in \(share(srmRate(users: 100_000, loss: 0, runs: aaRuns, seedBase: 7_000_000), aaRuns))  (stated rate 0.1 %)")

// 3. Lift at the report's own "enough".
var pilotNeeded: Int?
run(seed: 1, perDay: 1000, lift: 1, readDays: [days], minimumEffect: 0.03) { _, report in pilotNeeded = report.comparisons[0].usersNeeded }
if let needed = pilotNeeded {
    let perDay = (needed + days - 1) / days
    var foundAny = 0, foundLast = 0
    for seed in 1...seeds {
        var any = false
        run(seed: 10_000 + UInt64(seed), perDay: perDay, lift: 1.03, readDays: Set(1...days)) { day, report in
            guard let difference = report.comparisons[0].difference else { return }
            if difference.sequential.lowerBound > 0 {
                any = true
                if day == days { foundLast += 1 }
            }
        }
        if any { foundAny += 1 }
    }
    print("+3 % lift, \(perDay * days) users by day \(days) (the report's enough for 3 %: \(needed)):")
    print("  found on some daily read: \(share(foundAny, seeds))  (target ≥ 80 %)")
    print("  found on the day-\(days) read: \(share(foundLast, seeds))")
} else {
    print("+3 % lift: the report gave no enough count")
}
print(String(format: "(%.0f s)", Date().timeIntervalSince(started)))
