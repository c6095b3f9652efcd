import Mediation

/// Benchmark 4 on the engine: 10,000 banner placements of a ``MediationEngine``, each with one
/// visible view, refreshing (R13) for one simulated hour on a ``VirtualClock``.
///
/// The host's part is played by the benchmark: every new current ad is reported shown at the
/// instant it becomes current (a visible banner renders it at once); one placement in five is
/// hidden for two minutes during the hour (its count freezes). Placements attach in 100
/// cohorts, 100 ms apart. Sources answer at once (``SimulatedNetwork``).
///
/// Time moves only when everything is settled: every auction started has finished, every new
/// ad has been shown, every visible placement sleeps on its refresh timer, and the clock has
/// seen no activity for a few yields. Then the clock moves to the next timer or host action.
///
/// Accounting at the end, after every placement is destroyed (which releases an unshown
/// current ad): every ad a network loaded was shown or released, exactly once, never both.
enum PlacementsBenchmark {
    /// What the engine reported, counted from its event handler.
    final class EventCounts: Sendable {
        struct Counts {
            var started = 0
            var finished = 0
            var loaded = 0
            var shown = 0
            var retired = 0
            var released = 0
            var expired = 0
            var late = 0
            var refreshScheduled = 0
            /// Placements whose new current ad the host has not shown yet.
            var toShow: [String] = []
        }

        let counts = Locked(Counts())

        func record(_ event: MediationEvent) {
            counts.withLock { counts in
                switch event {
                case .auctionStarted: counts.started += 1
                case .auctionFinished: counts.finished += 1
                case .adLoaded(let ad, _, _):
                    counts.loaded += 1
                    counts.toShow.append(ad.placementID)
                case .shown: counts.shown += 1
                case .retired: counts.retired += 1
                case .released: counts.released += 1
                case .expired: counts.expired += 1
                case .lateAnswer: counts.late += 1
                case .refreshScheduled: counts.refreshScheduled += 1
                case .clicked, .renderFailed: break
                }
            }
        }

        func takeToShow() -> [String] {
            counts.withLock { counts in
                defer { counts.toShow.removeAll(keepingCapacity: true) }
                return counts.toShow
            }
        }

        var snapshot: Counts { counts.withLock { $0 } }
    }

    private enum HostAction {
        case attach
        case hide
        case show
    }

    static func run(quick: Bool) async -> BenchmarkResult {
        let placementCount = quick ? 1_000 : 10_000
        let end = MediationInstant.origin + .seconds(3600)
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
        let intervals = [30, 45, 60, 90, 120]
        let placementConfigurations = (0..<placementCount).map { index in
            PlacementConfiguration(
                id: "banner_\(index)",
                format: .banner,
                bannerSizing: .anchored,
                slot: SlotSize(maxWidth: 390, maxHeight: 90),
                refreshSeconds: intervals[index % intervals.count],
                sources: lineItems
            )
        }
        let configuration = MediationConfiguration(
            networks: networks.map { NetworkConfiguration(id: $0.network, adapter: $0.network) },
            placements: placementConfigurations
        )
        var adapters: [String: any AdNetworkAdapter] = [:]
        for network in networks { adapters[network.network] = network }

        let memoryBefore = ProcessMemory.current()
        let events = EventCounts()
        let engine = MediationEngine(configuration: configuration, adapters: adapters, clock: clock, onEvent: { events.record($0) })
        var placements: [Placement] = []
        var indexByID: [String: Int] = [:]
        placements.reserveCapacity(placementCount)
        for (index, placementConfiguration) in placementConfigurations.enumerated() {
            guard let placement = engine.placement(placementConfiguration.id) else { continue }
            placements.append(placement)
            indexByID[placementConfiguration.id] = index
        }
        var views: [ViewID?] = Array(repeating: nil, count: placements.count)

        var actions = EventQueue<(index: Int, action: HostAction)>()
        for index in placements.indices {
            actions.push(.milliseconds(100 * (index % 100)), (index, .attach))
            if index % 5 == 0 {
                let hideAt = Duration.seconds(600 + index % 1800)
                actions.push(hideAt, (index, .hide))
                actions.push(hideAt + .seconds(120), (index, .show))
            }
        }

        var visible = 0
        var settleTimeouts = 0
        var instants = 0
        let wall = ContinuousClock()
        let started = wall.now

        /// Shows new ads and waits until nothing is left to do at this instant.
        func settle() async {
            var quietYields = 0
            var lastActivity = clock.activity
            for _ in 0..<200_000 {
                let toShow = events.takeToShow()
                for id in toShow {
                    guard let index = indexByID[id] else { continue }
                    let placement = placements[index]
                    if let current = await placement.currentAd, !current.isShown {
                        _ = await placement.reportShown(current.ad)
                    }
                }
                let counts = events.snapshot
                let activity = clock.activity
                if toShow.isEmpty, counts.started == counts.finished, counts.toShow.isEmpty,
                   activity == lastActivity, clock.sleeperCount == visible {
                    quietYields += 1
                    if quietYields >= 8 { return }
                } else {
                    quietYields = 0
                    lastActivity = activity
                }
                await Task.yield()
            }
            settleTimeouts += 1
        }

        while true {
            await settle()
            let nextTimer = clock.nextDeadline?.offset
            let nextAction = actions.firstKey
            guard let next = [nextTimer, nextAction].compactMap({ $0 }).min(), next <= end.offset else { break }
            instants += 1
            clock.move(to: .origin + next)
            while actions.firstKey == next, let (_, item) = actions.pop() {
                let placement = placements[item.index]
                switch item.action {
                case .attach:
                    views[item.index] = await placement.attachView(visible: true)
                    visible += 1
                case .hide:
                    if let view = views[item.index] {
                        await placement.setVisible(false, for: view)
                        visible -= 1
                    }
                case .show:
                    if let view = views[item.index] {
                        await placement.setVisible(true, for: view)
                        visible += 1
                    }
                }
            }
        }
        let elapsed = wall.now - started
        let memoryAtEnd = ProcessMemory.current()
        let counts = events.snapshot

        // Destroy every placement: an unshown current ad is released, a shown one retired.
        for placement in placements { await placement.destroy() }
        await settleLedger(ledger)
        let memoryAfter = ProcessMemory.current()
        let ledgerCounts = ledger.snapshot

        var result = BenchmarkResult(name: BenchmarkName.placements.rawValue, title: "\(placements.count) banner placements of a MediationEngine, refresh for one simulated hour")
        result.figures = [
            Figure(name: "auctions run", unit: "auctions in one simulated hour", summary: Summary(single: Double(counts.finished))),
            Figure(name: "ads became current", unit: "ads", summary: Summary(single: Double(counts.loaded))),
            Figure(name: "wall time", unit: "s", summary: Summary(single: elapsed.microseconds / 1e6)),
            Figure(name: "throughput", unit: "auctions/s of real time", summary: Summary(single: Double(counts.finished) / (elapsed.microseconds / 1e6))),
            Figure(name: "ads loaded", unit: "ads", summary: Summary(single: Double(ledgerCounts.loaded))),
            Figure(name: "ads shown", unit: "ads (impressions)", summary: Summary(single: Double(ledgerCounts.shown))),
            Figure(name: "ads released", unit: "ads", summary: Summary(single: Double(ledgerCounts.released))),
        ]
        if let memoryBefore, let memoryAtEnd, let memoryAfter {
            result.figures += [
                Figure(name: "RSS before the engine", unit: "KiB", summary: Summary(single: Double(memoryBefore.residentKiB))),
                Figure(name: "RSS at the end of the hour", unit: "KiB", summary: Summary(single: Double(memoryAtEnd.residentKiB))),
                Figure(name: "RSS after destroying", unit: "KiB", summary: Summary(single: Double(memoryAfter.residentKiB))),
                Figure(name: "peak RSS (VmHWM)", unit: "KiB (process peak so far)", summary: Summary(single: Double(memoryAfter.peakKiB))),
            ]
        }
        let violations = ledger.violations()
        result.targets = [
            TargetCheck(
                target: "no ad unaccounted for",
                measured: violations.isEmpty
                    ? "loaded \(ledgerCounts.loaded) = shown \(ledgerCounts.shown) + released \(ledgerCounts.released); no double release, no shown ad released"
                    : violations.joined(separator: "; "),
                met: violations.isEmpty
            ),
        ]
        result.failures = violations
        if counts.shown != ledgerCounts.shown {
            result.failures.append("the engine reported \(counts.shown) impressions, the ads counted \(ledgerCounts.shown)")
        }
        result.notes.append("\(instants) virtual instants; events: \(counts.started) auctions started, \(counts.shown) shown, \(counts.retired) retired, \(counts.released) released, \(counts.expired) expired, \(counts.late) late answers, \(counts.refreshScheduled) refreshes scheduled")
        result.notes.append("\(clock.sleepCount) sleeps on the virtual clock; \(settleTimeouts) instants did not settle within 200,000 yields")
        return result
    }
}
