import Mediation

/// Benchmark 4: 10,000 banner placements refreshing for one simulated hour on virtual time.
///
/// Built on the auction alone (the placement controller had not landed when this was
/// written): each placement is an ``Auction`` over four shared networks (a bidder and three
/// fixed-price sources), and the benchmark plays the placement's part of the refresh cycle
/// (engine rule R13) on a ``VirtualClock``: a visible banner refreshes every
/// `refresh_seconds` (30, 45, 60, 90 or 120); one cycle in five it is hidden for 30 to 300 s,
/// which freezes the count; a winner is shown at once (its impression) and retires the ad it
/// replaces; a failed refresh keeps the current ad. Placements start in 100 groups, 100 ms
/// apart, so up to a hundred auctions run at once at each instant.
///
/// Accounting: every ad a network loaded must be shown or released, exactly once, never
/// both; shown ads are never released (R7, R12). Any other count is a failure.
enum PlacementsBenchmark {
    static func run(quick: Bool) async -> BenchmarkResult {
        let placementCount = quick ? 1_000 : 10_000
        let hour = Duration.seconds(3600)
        let ledger = AdLedger()
        let clock = VirtualClock()
        let networks: [SimulatedNetwork] = [
            SimulatedNetwork(network: "elo", pricing: .bidder, ledger: ledger),
            SimulatedNetwork(network: "nitx", pricing: .fixedPrice, fillRate: 0.6, ledger: ledger),
            SimulatedNetwork(network: "qartvelo", pricing: .fixedPrice, fillRate: 0.8, ledger: ledger),
            SimulatedNetwork(network: "fallback", pricing: .fixedPrice, fillRate: 0.5, ledger: ledger),
        ]
        let lineItems: [LineItem] = [
            .bidder("elo", adUnitID: "elo-banner", floor: 0.6),
            .fixedPrice("nitx", adUnitID: "nitx-banner", eCPM: 1.20),
            .fixedPrice("qartvelo", adUnitID: "qartvelo-banner", eCPM: 0.80),
            .fixedPrice("fallback", adUnitID: "house", eCPM: 0.10),
        ]
        let sources = zip(lineItems, networks).map { AuctionSource(lineItem: $0, adapter: $1) }
        let intervals = [30, 45, 60, 90, 120]

        let memoryBefore = ProcessMemory.current()
        var placements: [SimulatedPlacement] = []
        placements.reserveCapacity(placementCount)
        var queue = EventQueue<Int>()
        for index in 0..<placementCount {
            let refresh = intervals[index % intervals.count]
            let configuration = PlacementConfiguration(
                id: "banner_\(index)",
                format: .banner,
                bannerSizing: .anchored,
                slot: SlotSize(maxWidth: 390, maxHeight: 90),
                refreshSeconds: refresh,
                sources: lineItems
            )
            placements.append(SimulatedPlacement(
                auction: Auction(placement: configuration, sources: sources, clock: clock),
                request: AdRequest(placementID: configuration.id, format: .banner, bannerSizing: .anchored, slot: configuration.slot),
                refresh: .seconds(refresh),
                seed: UInt64(index) &* 0x9E37_79B9_7F4A_7C15
            ))
            queue.push(.milliseconds(100 * (index % 100)), index)
        }
        let memoryBuilt = ProcessMemory.current()

        let lateAnswers = Locked(0)
        var auctions = 0
        var filled = 0
        var retired = 0
        var batches = 0
        var largestBatch = 0
        let wall = ContinuousClock()
        let started = wall.now
        while let key = queue.firstKey, key <= hour {
            var batch: [Int] = []
            while queue.firstKey == key, let (_, index) = queue.pop() { batch.append(index) }
            clock.move(to: .origin + key)
            batches += 1
            largestBatch = max(largestBatch, batch.count)
            let outcomes: [(Int, AuctionOutcome)] = await withTaskGroup(of: (Int, AuctionOutcome).self) { group in
                for index in batch {
                    let auction = placements[index].auction
                    let request = placements[index].request
                    group.addTask {
                        (index, await auction.run(request: request) { _ in lateAnswers.withLock { $0 += 1 } })
                    }
                }
                var outcomes: [(Int, AuctionOutcome)] = []
                outcomes.reserveCapacity(batch.count)
                for await outcome in group { outcomes.append(outcome) }
                return outcomes
            }
            for (index, outcome) in outcomes {
                auctions += 1
                if let winner = outcome.winner {
                    filled += 1
                    // A visible banner renders its new ad at once: the impression. The ad it
                    // replaces was shown, so it is retired, never released (R12).
                    winner.ad.recordImpression()
                    if placements[index].current != nil { retired += 1 }
                    placements[index].current = winner.ad
                }
                // The next refresh: the interval, plus a hidden spell one cycle in five (R13).
                let hidden = placements[index].nextHiddenSpell()
                queue.push(key + placements[index].refresh + hidden, index)
            }
        }
        let elapsed = wall.now - started
        await settleLedger(ledger)
        let memoryAfter = ProcessMemory.current()

        var result = BenchmarkResult(name: BenchmarkName.placements.rawValue, title: "\(placementCount) banner placements, refresh for one simulated hour (auction-driven simulation)")
        let counts = ledger.snapshot
        result.figures = [
            Figure(name: "auctions run", unit: "auctions in one simulated hour", summary: Summary(single: Double(auctions))),
            Figure(name: "auctions filled", unit: "auctions", summary: Summary(single: Double(filled))),
            Figure(name: "wall time", unit: "s", summary: Summary(single: elapsed.microseconds / 1e6)),
            Figure(name: "throughput", unit: "auctions/s of real time", summary: Summary(single: Double(auctions) / (elapsed.microseconds / 1e6))),
            Figure(name: "ads loaded", unit: "ads", summary: Summary(single: Double(counts.loaded))),
            Figure(name: "ads shown", unit: "ads (impressions)", summary: Summary(single: Double(counts.shown))),
            Figure(name: "ads released", unit: "ads", summary: Summary(single: Double(counts.released))),
        ]
        if let memoryBefore, let memoryBuilt, let memoryAfter {
            result.figures += [
                Figure(name: "RSS before placements", unit: "KiB", summary: Summary(single: Double(memoryBefore.residentKiB))),
                Figure(name: "RSS with placements built", unit: "KiB", summary: Summary(single: Double(memoryBuilt.residentKiB))),
                Figure(name: "RSS after the hour", unit: "KiB", summary: Summary(single: Double(memoryAfter.residentKiB))),
                Figure(name: "peak RSS (VmHWM)", unit: "KiB (process peak so far)", summary: Summary(single: Double(memoryAfter.peakKiB))),
            ]
        }
        let violations = ledger.violations()
        result.targets = [
            TargetCheck(
                target: "no ad unaccounted for",
                measured: violations.isEmpty
                    ? "loaded \(counts.loaded) = shown \(counts.shown) + released \(counts.released); no double release, no shown ad released"
                    : violations.joined(separator: "; "),
                met: violations.isEmpty
            ),
        ]
        result.failures = violations
        result.notes.append("simulated on the auction alone: the placement controller was not on main; refresh, visibility and impressions are played by the benchmark on a virtual clock")
        result.notes.append("\(batches) virtual instants, up to \(largestBatch) auctions at once; \(retired) shown ads retired; \(lateAnswers.withLock { $0 }) late answers released on arrival; \(clock.sleepCount) timer sleeps on the virtual clock, \(clock.sleeperCount) left")
        if clock.sleeperCount != 0 { result.failures.append("\(clock.sleeperCount) tasks still sleeping on the virtual clock after the hour") }
        return result
    }
}

/// One placement of the simulation: its auction, its request, its refresh interval, the ad it
/// shows, and a deterministic stream deciding its hidden spells.
struct SimulatedPlacement {
    let auction: Auction
    let request: AdRequest
    let refresh: Duration
    var seed: UInt64
    var current: (any LoadedAd)?

    init(auction: Auction, request: AdRequest, refresh: Duration, seed: UInt64) {
        self.auction = auction
        self.request = request
        self.refresh = refresh
        self.seed = seed
    }

    /// One cycle in five: hidden for 30 to 300 s (the refresh count freezes meanwhile).
    mutating func nextHiddenSpell() -> Duration {
        seed &+= 0x9E37_79B9_7F4A_7C15
        var z = seed
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        guard z % 5 == 0 else { return .zero }
        return .seconds(30 + Int((z >> 8) % 271))
    }
}
