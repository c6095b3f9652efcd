import Mediation
import MediationTestKit

/// Benchmark 4 on the engine: 10,000 banner placements of a ``MediationEngine``, each with one
/// visible view, refreshing (R13) for one simulated hour on a `ManualClock` (virtual time).
///
/// The host's part is played by the benchmark: every new current ad is reported shown at the
/// instant it becomes current (a visible banner renders it at once); one placement in five is
/// hidden for two minutes during the hour (its count freezes). Placements attach in 100
/// cohorts, 100 ms apart. Sources answer at once (``SimulatedNetwork``).
///
/// Time moves only when the work due at the current instant is done (the clock's serial
/// executor has nothing left to run) and every new ad has been shown; then the clock moves to
/// the next timer or host action. The host's part runs as a task on the clock too.
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
                case .clicked, .renderFailed, .configuration, .placementRemoved, .networkPaused, .networkResumed, .exposure, .capped: break
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

    /// The host's actions by instant.
    typealias HostActionQueue = DeadlineQueue<(index: Int, action: HostAction)>

    enum HostAction: Sendable {
        case attach
        case hide
        case show
    }

    static func run(quick: Bool) async -> BenchmarkResult {
        let placementCount = quick ? 1_000 : 10_000
        let end = MediationInstant.origin + .seconds(3600)
        let ledger = AdLedger()
        let clock = ManualClock()
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
            MediationConfiguration.Placement(
                id: "banner_\(index)",
                format: .banner,
                bannerSizing: .anchored,
                slot: SlotSize(maxWidth: 390, maxHeight: 90),
                refreshSeconds: intervals[index % intervals.count],
                sources: lineItems
            )
        }
        var prebuilt = PrebuiltNetworks()
        for network in networks { prebuilt.add(network.network, pricing: network.pricing, adapter: network) }

        let memoryBefore = ProcessMemory.current()
        let events = EventCounts()
        let engine: MediationEngine
        do {
            engine = try MediationEngine(
                configuration: prebuilt.configuration(placements: placementConfigurations),
                registry: prebuilt.registry,
                environment: MediationEnvironment(clock: clock),
                onEvent: { events.record($0) }
            )
        } catch {
            var result = BenchmarkResult(name: BenchmarkName.placements.rawValue, title: "banner placements of a MediationEngine")
            result.failures.append("the engine could not be built: \(error)")
            return result
        }
        var placements: [Placement] = []
        var indexByID: [String: Int] = [:]
        placements.reserveCapacity(placementCount)
        for (index, placementConfiguration) in placementConfigurations.enumerated() {
            guard let placement = engine.placement(placementConfiguration.id) else { continue }
            placements.append(placement)
            indexByID[placementConfiguration.id] = index
        }
        var actions = HostActionQueue()
        for index in placements.indices {
            actions.push(.origin + .milliseconds(100 * (index % 100)), (index, .attach))
            if index % 5 == 0 {
                let hideAt = MediationInstant.origin + .seconds(600 + index % 1800)
                actions.push(hideAt, (index, .hide))
                actions.push(hideAt + .seconds(120), (index, .show))
            }
        }

        let wall = ContinuousClock()
        let started = wall.now
        let host = clock.startTask { [placements, actions, indexByID] () -> Int in
            var actions = actions
            var views: [Placement.ViewID?] = Array(repeating: nil, count: placements.count)
            var instants = 0

            /// Runs the work due now, showing each new ad as it becomes current, until none is left.
            func settle() async {
                while true {
                    await clock.runUntilIdle()
                    let toShow = events.takeToShow()
                    if toShow.isEmpty { return }
                    for id in toShow {
                        guard let index = indexByID[id] else { continue }
                        let placement = placements[index]
                        if let current = await placement.currentAd, !current.isShown {
                            _ = await placement.reportShown(current.ad)
                        }
                    }
                }
            }

            while true {
                await settle()
                let nextTimer = clock.nextDeadline
                let nextAction = actions.firstKey
                guard let next = [nextTimer, nextAction].compactMap({ $0 }).min(), next <= end else { break }
                instants += 1
                await clock.advance(to: next)
                while actions.firstKey == next, let (_, item) = actions.pop() {
                    let placement = placements[item.index]
                    switch item.action {
                    case .attach:
                        views[item.index] = await placement.attachView(visible: true)
                    case .hide:
                        if let view = views[item.index] { await placement.setVisible(false, for: view) }
                    case .show:
                        if let view = views[item.index] { await placement.setVisible(true, for: view) }
                    }
                }
            }
            return instants
        }
        let instants = await host.value
        let elapsed = wall.now - started
        let memoryAtEnd = ProcessMemory.current()
        let counts = events.snapshot

        // Shut the engine down: every placement is destroyed (an unshown current ad released, a
        // shown one retired).
        await clock.startTask { await engine.shutdown() }.value
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
        result.notes.append("\(clock.sleepCount) sleeps on the virtual clock")
        return result
    }
}
