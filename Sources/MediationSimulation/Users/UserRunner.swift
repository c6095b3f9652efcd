import Foundation
import Mediation
import MediationVirtualTime

/// What every user of a users run shares: the simulated networks of one configuration, its
/// rules for the independent counter, the placements the host drives, the model and the run's
/// start.
struct UsersRunSetup: Sendable {
    /// The configuration's simulated networks.
    var networks: SimulatedNetworks
    /// The caps, pacing and gap as the configuration file states them.
    var rules: CapRules
    /// The full-screen placements the host shows at level ends, in the order it tries them.
    var levelEndPlacements: [String]
    /// The app-open placements the host shows when a session starts.
    var appOpenPlacements: [String]
    var model: UsersModel
    var seed: UInt64
    var days: Int
    /// The wall-clock instant of the run's start (day 0, 00:00 UTC).
    var start: Date
}

/// Runs one user through every day of a run on the real engine: one ``MediationEngine`` and
/// one ``ManualClock`` per process (a cold start or a relaunch makes a new one), all on one
/// ``MemoryStateStore`` that holds the user's install id and outlives every process.
enum UserRunner {
    /// What the engine's event handler saw, read by the host between steps.
    private struct Seen: Sendable {
        var auctions = 0
        var filled = 0
        /// Ads that expired unshown.
        var expired = 0
        /// Ads loaded since the host last looked: placement, network, line item, when (ms) and
        /// when they expire (ms), on the process clock (the run's true time).
        var loads: [(placement: String, network: String, lineItem: String, segment: String?, variant: String?, at: Int64, expiresAt: Int64)] = []
        /// The next auction's number for this user.
        var nextAuction: UInt64 = 0
    }

    /// A running process: its clock and engine.
    private struct Process {
        var clock: ManualClock
        var engine: MediationEngine
    }

    /// Runs user `index` and adds what happened to `totals`; with `sink`, writes every event as
    /// an NDJSON line.
    static func run(user index: Int, setup: UsersRunSetup, totals: inout UsersTotals, sink: (@Sendable (String) -> Void)?) async throws(SimulationError) {
        let profile = setup.model.profile(seed: setup.seed, user: index)
        let store = MemoryStateStore()
        try? store.setData(Data(profile.installID.utf8), forKey: InstallID.key)
        let seen = Locked(Seen())
        let wallOffset = Locked<Int64>(0)
        var counter = CapCounter(rules: setup.rules)
        var forwardJumps: Int64 = 0
        var backgroundSince: Int64 = 0
        var process: Process?
        /// Full-screen ads on screen: when each leaves it, and its placement.
        var onScreen: [(until: Int64, placement: String, ad: any LoadedAd)] = []
        var userTotals = UserTotals(days: setup.days)

        func launch(at time: Int64) throws(SimulationError) -> Process {
            let clock = ManualClock(start: .origin + .milliseconds(time))
            let start = setup.start
            var environment = MediationEnvironment(
                clock: clock,
                seed: SplitMix64.mix(setup.seed ^ UInt64(index)),
                wallClock: { start.addingTimeInterval(Double(UserRunner.milliseconds(clock.now) + wallOffset.withLock { $0 }) / 1000) },
                stateStore: store
            )
            environment.auctionIDSeed = SplitMix64.mix(setup.seed ^ SplitMix64.mix(UInt64(index) &+ UInt64(time)))
            let value = profile.value
            do throws(ConfigurationError) {
                let engine = try MediationEngine(
                    configuration: setup.networks.configuration,
                    registry: setup.networks.registry,
                    environment: environment,
                    hostContext: { _ in
                        let number = seen.withLock { seen in
                            defer { seen.nextAuction += 1 }
                            return seen.nextAuction
                        }
                        return SimulatedNetworks.context(forAuction: UInt64(index) << 32 | number, userValue: value)
                    },
                    onEvent: { event in
                        if let sink, let line = MediationEvent.NDJSONWriter.line(for: event) { sink(line) }
                        switch event {
                        case .auctionFinished(_, let trace, _):
                            seen.withLock { seen in
                                seen.auctions += 1
                                if trace.winner != nil { seen.filled += 1 }
                            }
                        case .expired:
                            seen.withLock { $0.expired += 1 }
                        case .adLoaded(let ad, let expiresAt, let at):
                            seen.withLock { $0.loads.append((ad.placementID, ad.network, ad.lineItemID, ad.segment, UserRunner.variant(of: ad), UserRunner.milliseconds(at), UserRunner.milliseconds(expiresAt))) }
                        default:
                            break
                        }
                    }
                )
                totals.processLaunches += 1
                return Process(clock: clock, engine: engine)
            } catch {
                throw SimulationError(code: .invalidConfiguration, path: error.path, message: error.message)
            }
        }

        /// Ends a process as the system kills an app: what the store held at that instant is
        /// what the next process finds (anything written while shutting down is undone).
        func kill(_ process: Process) async {
            let keys = (try? store.keys()) ?? []
            let records = keys.map { ($0, store.record(forKey: $0)) }
            await process.clock.perform { await process.engine.shutdown() }
            await process.clock.runUntilIdle()
            for key in (try? store.keys()) ?? [] where !keys.contains(key) { store.setRecord(nil, forKey: key) }
            for (key, record) in records { store.setRecord(record, forKey: key) }
        }

        /// Moves the process's time to `time` (every auction due finishes), then looks at the
        /// loads that finished: a load whose ad cannot be shown before it expires is wasted.
        func advance(_ process: Process, to time: Int64) async {
            let target = MediationInstant.origin + .milliseconds(time)
            if target > process.clock.now {
                await process.clock.perform { await process.clock.advance(to: target) }
            } else {
                await process.clock.runUntilIdle()
            }
            let loads = seen.withLock { seen in
                defer { seen.loads.removeAll() }
                return seen.loads
            }
            for load in loads {
                let earliest = counter.earliestShow(placement: load.placement, network: load.network, lineItem: load.lineItem, segment: load.segment, variant: load.variant, from: load.at + forwardJumps)
                if earliest >= load.expiresAt + forwardJumps { totals.wastedLoads += 1 }
            }
        }

        func startLoads(_ process: Process, _ placements: [String]) async {
            for id in placements {
                guard let placement = process.engine.placement(id) else { continue }
                _ = process.clock.startTask { _ = await placement.load() }
            }
            await process.clock.runUntilIdle()
        }

        /// Takes the full-screen ads whose time on screen ended by `time` off the screen, and
        /// loads their placements' next ads.
        func dismiss(until time: Int64, _ process: Process) async {
            while let next = onScreen.min(by: { $0.until < $1.until }), next.until <= time {
                onScreen.removeAll { $0.until == next.until && $0.placement == next.placement }
                await advance(process, to: next.until)
                if let placement = process.engine.placement(next.placement) {
                    await process.clock.perform { await placement.reportDismissed(next.ad) }
                }
                await startLoads(process, [next.placement])
            }
        }

        /// Offers one opportunity at `time` to `placements` in order: the first with a fresh
        /// ad shows it.
        func offer(_ placements: [String], at time: Int64, _ process: Process, day: Int) async {
            guard !placements.isEmpty else { return }
            totals.opportunities += 1
            var hadAd = false
            for id in placements {
                guard let placement = process.engine.placement(id), let current = await placement.currentAd, !current.isShown else { continue }
                hadAd = true
                let result = await process.clock.perform { await placement.reportShown(current.ad) }
                switch result {
                case .impression(let impression):
                    let micros = (current.ad as? SimulatedAd)?.realisedPriceMicros ?? Int64((impression.eCPM * 1_000_000).rounded())
                    let end = setup.rules.fullScreenPlacements.contains(id) ? time + setup.model.adDuration(seed: setup.seed, user: index, at: time) : nil
                    let broken = counter.impression(placement: id, network: impression.network, lineItem: impression.lineItemID, segment: impression.ad.segment, variant: Self.variant(of: impression.ad), at: time + forwardJumps, end: end.map { $0 + forwardJumps })
                    totals.count(broken, user: index, day: day)
                    userTotals.add(impressionMicros: micros, day: day)
                    if let end { onScreen.append((end, id, current.ad)) }
                    return
                default:
                    totals.refused[Self.reason(of: result), default: 0] += 1
                }
            }
            if !hadAd { totals.withoutAd += 1 }
        }

        for day in 0..<setup.days {
            for session in setup.model.sessions(seed: setup.seed, user: index, day: day) {
                if session.clockJump != 0 {
                    wallOffset.withLock { $0 += session.clockJump }
                    if session.clockJump > 0 {
                        forwardJumps += session.clockJump
                        totals.jumpsForward += 1
                    } else {
                        totals.jumpsBack += 1
                    }
                }
                totals.sessions += 1
                userTotals.sessionOn(day: day)
                // A session (for per-session caps) starts at a launch, and back in the
                // foreground after at least the session gap away.
                if session.coldStart || process == nil || session.start - backgroundSince >= CapRules.sessionGapMilliseconds {
                    counter.newSession()
                }
                if session.coldStart || process == nil {
                    if let old = process { await kill(old) }
                    process = try launch(at: session.start)
                } else if let running = process {
                    await advance(running, to: session.start)
                    await running.clock.perform { await running.engine.setForeground(true) }
                }
                guard var current = process else { continue }
                await advance(current, to: session.start)
                await offer(setup.appOpenPlacements, at: session.start, current, day: day)
                await startLoads(current, setup.levelEndPlacements + setup.appOpenPlacements)
                var relaunchAt = session.relaunchAt
                for levelEnd in session.levelEnds {
                    if let death = relaunchAt, death <= levelEnd {
                        await dismiss(until: death, current)
                        await advance(current, to: death)
                        if !onScreen.isEmpty { counter.endFullScreen(at: death + forwardJumps) }
                        onScreen.removeAll()
                        await kill(current)
                        totals.relaunches += 1
                        counter.newSession()
                        current = try launch(at: death + UsersModel.relaunchDelay)
                        process = current
                        await advance(current, to: death + UsersModel.relaunchDelay)
                        await startLoads(current, setup.levelEndPlacements + setup.appOpenPlacements)
                        relaunchAt = nil
                    }
                    guard levelEnd >= UserRunner.milliseconds(current.clock.now) else { continue }
                    await dismiss(until: levelEnd, current)
                    await advance(current, to: levelEnd)
                    await offer(setup.levelEndPlacements, at: levelEnd, current, day: day)
                }
                await dismiss(until: session.end, current)
                await advance(current, to: session.end)
                if !onScreen.isEmpty { counter.endFullScreen(at: session.end + forwardJumps) }
                for shown in onScreen {
                    // The user leaves the app: the ad on screen is closed with it.
                    if let placement = current.engine.placement(shown.placement) {
                        await current.clock.perform { await placement.reportDismissed(shown.ad) }
                    }
                }
                onScreen.removeAll()
                let ending = current
                await ending.clock.perform { await ending.engine.setForeground(false) }
                backgroundSince = session.end
            }
        }
        if let last = process { await kill(last) }
        let (auctions, filled, expired) = seen.withLock { ($0.auctions, $0.filled, $0.expired) }
        totals.auctions += auctions
        totals.filledAuctions += filled
        totals.expiredLoads += expired
        totals.add(userTotals, profile: profile)
    }

    /// An instant of a process clock in whole milliseconds (the run's true time).
    static func milliseconds(_ instant: MediationInstant) -> Int64 {
        let parts = instant.offset.components
        return parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
    }

    /// The experiment variant an ad's events name (``CapRules/variantKey(experiment:variant:)``).
    static func variant(of ad: MediationEvent.AdSummary) -> String? {
        ad.experiment.map { CapRules.variantKey(experiment: $0.experimentID, variant: $0.variantID) }
    }

    /// The name of a refused show's reason, as reports count it.
    static func reason(of result: Placement.ShowResult) -> String {
        switch result {
        case .impression: "impression"
        case .alreadyShown: "already_shown"
        case .expired: "expired"
        case .notCurrent: "not_current"
        case .refused(let refusal):
            switch refusal {
            case .background: "background"
            case .noVisibleView: "no_visible_view"
            case .notReady: "not_ready"
            case .notAllowed: "not_allowed"
            case .capped: "capped"
            }
        }
    }
}
