import Adapters
import Dispatch
import Foundation
import Mediation
import MediationVirtualTime

/// `mediate --placement ID --watch [--duration D] [--fast]`: runs the placement the way an app
/// would, as one visible view whose every new ad is rendered at once, and prints each auction
/// (with a one-line trace summary), impression and refresh as it happens, for `--duration`
/// seconds (default 180). `--fast` runs on a `ManualClock`: the same run in virtual time, as
/// fast as the machine goes, with virtual timestamps, the same lines every run. Ctrl-C stops
/// the run cleanly (the engine shuts down and the summary is printed). Timestamps are seconds
/// from the start of the run.
enum WatchCommand {
    /// How long a watch runs when `--duration` is absent.
    static let defaultDuration: Duration = .seconds(180)

    /// Runs watch mode.
    /// - Parameters:
    ///   - options: the parsed run options (`watch`, `duration`, `fast` among them).
    ///   - environment: output streams, current directory, clock, network kinds.
    /// - Returns: success when the run completed or was stopped by Ctrl-C; a usage, data or
    ///   input error otherwise (the same codes as a one-shot run).
    static func run(_ options: RunOptions, environment: CommandEnvironment) async -> ExitCode {
        let path = options.configPath ?? MediateCommand.defaultConfigPath
        let manualClock: ManualClock? = options.fast ? ManualClock() : nil
        let clock: any MediationClock = manualClock ?? environment.clock
        var context = AdRequest.Context()
        if let messagesPath = options.messagesPath {
            switch MediateCommand.loadMessages(messagesPath, environment: environment) {
            case .success(let messages): context.messages = messages
            case .failure(let exit): return exit.code
            }
        }
        var eventLog: EventLogFile?
        if let eventsPath = options.eventsPath {
            switch EventLogFile.create(at: environment.resolve(eventsPath)) {
            case .success(let log): eventLog = log
            case .failure(let reason): return MediateCommand.fail(.cannotCreate, "events file \(eventsPath): \(reason.message)", environment: environment)
            }
        }
        let eventWriter = eventLog?.writer
        let printer = WatchPrinter(output: environment.standardOutput, quiet: options.json)
        let recorder = options.debug.map { _ in HTTPExchangeRecorder() }
        let logger = WatchLogger(output: environment.standardError)
        let hostContext = context
        let remote: RemoteRun?
        switch RemoteRun.prepare(options, environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let prepared): remote = prepared
        }
        let engine: MediationEngine
        switch MediateCommand.makeEngine(
            path,
            seed: options.seed ?? MediateCommand.defaultSeed,
            clock: clock,
            logger: logger,
            hostContext: { _ in hostContext },
            onEvent: { event in
                printer.print(event)
                eventWriter?.record(event)
            },
            exchangeRecorder: recorder,
            remote: remote,
            transport: options.fast ? VirtualTimeTransport() : nil,
            environment: environment
        ) {
        case .failure(let failure):
            return MediateCommand.report(failure, environment: environment)
        case .success(let built):
            engine = built
        }
        guard let placementConfiguration = engine.configuration.placement(options.placementID), let placement = engine.placement(placementConfiguration.id) else {
            await engine.shutdown()
            let known = engine.configuration.placements.map(\.id).joined(separator: ", ")
            return MediateCommand.usageError("unknown placement '\(options.placementID)' in \(MediateCommand.configurationName(path, of: engine)); it has: \(known)", environment: environment)
        }
        if options.fast, let refusal = VirtualTimeTransport.refusal(of: engine.configuration) {
            await engine.shutdown()
            return MediateCommand.usageError(refusal, environment: environment)
        }
        MediateCommand.reportWarnings(of: engine, environment: environment)
        logger.enable()
        let duration = options.duration ?? defaultDuration
        printer.header(engine.placementForm(placementConfiguration.id) ?? placementConfiguration, duration: duration, fast: options.fast)

        // The host: every new ad of the one visible view is rendered as soon as it is current.
        // Its tasks start on the engine's clock, so virtual time waits for them too.
        let events = engine.events()
        let renderer = clock.startTask {
            for await event in events {
                guard case .adLoaded(let ad, _, _) = event, let current = await placement.currentAd?.ad, current.id == ad.adID else { continue }
                _ = await placement.reportShown(current)
            }
        }
        let interruption = Interruption()
        let start = clock.now
        let end = start + duration
        // A banner loads when its view attaches; other formats load when the host asks. Asking
        // a banner too could start a second auction if the first ended at once without a fill.
        let opening = clock.startTask {
            _ = await placement.attachView(visible: true)
            if !placement.refreshes { _ = await placement.load() }
        }

        if let manualClock {
            // A check of --config-url runs over real HTTP: virtual time waits for it, for at
            // most the fetch timeout of real time (then its timeout fires on virtual time), and
            // Ctrl-C ends the wait.
            let settle: (@Sendable () async -> Void)? = remote == nil ? nil : { @Sendable [engine] in
                await engine.configurationChecksSettled { length in await interruption.sleep(for: length) }
            }
            await runFast(manualClock, until: end, interruption: interruption, settle: settle)
        } else {
            let wait = clock.startTask { try? await clock.sleep(until: end) }
            interruption.onInterrupt { wait.cancel() }
            await wait.value
        }
        interruption.stop()
        let stoppedAt = clock.now
        // The watched placement's caps at the end, each with when it frees (`docs/caps.md`).
        let capStatus = placementConfiguration.sources.flatMap { CapsReport.rows(of: engine, lineItemID: $0.id, placementID: placementConfiguration.id) }
        let shutdown = clock.startTask { await engine.shutdown() }
        if let manualClock { await manualClock.runUntilIdle() }
        await shutdown.value
        renderer.cancel()
        opening.cancel()
        printer.summary(at: stoppedAt, interrupted: interruption.happened, capStatus: capStatus)
        let caps = CapsReport.watchRows(status: capStatus, refusals: printer.capped)
        if let eventLog, let failure = eventLog.close(), let eventsPath = options.eventsPath {
            return MediateCommand.fail(.software, "cannot write the events file \(eventsPath): \(failure)", environment: environment)
        }
        let traces = printer.traces
        let debug = DebugReport.make(options.debug, recorder) { mode, recorder in
            DebugReport(recorded: recorder.exchanges, calls: recorder.adapterCalls, dropped: recorder.droppedCount, traces: traces, runStart: start, mode: mode)
        }
        if options.json {
            let document = WatchJSON(
                placement: placementConfiguration.id,
                durationSeconds: duration.milliseconds / 1000,
                fast: options.fast,
                interrupted: interruption.happened,
                summary: WatchJSON.Summary(printer.statistics, caps: caps),
                auctions: traces,
                debug: debug?.json
            )
            guard let text = document.rendered() else {
                return MediateCommand.fail(.software, "cannot encode the watch summary as JSON", environment: environment)
            }
            environment.standardOutput.write(text)
        } else if let debug {
            environment.standardOutput.write(debug.rendered())
        }
        if let reportPath = options.reportPath {
            let how = "watch, \(WatchPrinter.seconds(duration)) s on \(options.fast ? "virtual time" : "real time")"
            let content = HTMLReport.Content(placement: placementConfiguration, runDescription: how, traces: traces, statistics: printer.statistics, health: printer.health, caps: caps)
            if let exit = MediateCommand.writeReport(HTMLReport.render(content), to: reportPath, environment: environment) { return exit }
        }
        return .success
    }
}

extension WatchCommand {
    /// Runs virtual time to `end` one wake-up at a time: the work due at each instant runs to
    /// the end (the clock knows when it is done), then time moves to the next sleeper. Ctrl-C
    /// is noticed between steps. `settle` waits for work outside the clock (a remote
    /// configuration's request in flight) before time moves on.
    static func runFast(_ clock: ManualClock, until end: MediationInstant, interruption: Interruption, settle: (@Sendable () async -> Void)? = nil) async {
        while !interruption.happened {
            await clock.runUntilIdle()
            if let settle {
                await settle()
                await clock.runUntilIdle()
            }
            guard let next = clock.nextDeadline, next <= end else { break }
            await clock.advance(to: next)
        }
        if !interruption.happened { await clock.advance(to: end) }
    }
}

/// Prints watch-mode lines as events happen, and counts what the summary needs.
/// Its counters live in one ``Locked`` box.
final class WatchPrinter: Sendable {
    private struct Counts {
        var auctions = 0
        var filled = 0
        var impressions = 0
        var revenueUSD = 0.0
        var lateAnswers = 0
        /// Each refusal by a cap (`capped` events), in order.
        var capped: [CapRefusal] = []
        var statistics = MediationStatistics()
        var traces: [AuctionTrace] = []
        /// Network health (R24), per network in first-paused order, each network's line items
        /// paused on their own right after it.
        var health: [HealthTally] = []

        /// The tally of `network` (or of its line item `lineItem`), made on its first event.
        mutating func tally(_ network: String, lineItem: String?) -> Int {
            if let index = health.firstIndex(where: { $0.network == network && $0.lineItem == lineItem }) { return index }
            let tally = HealthTally(network: network, lineItem: lineItem)
            guard let last = health.lastIndex(where: { $0.network == network }) else {
                health.append(tally)
                return health.count - 1
            }
            // Under its network: the network's own tally first, then its line items'.
            let index = lineItem == nil ? (health.firstIndex { $0.network == network } ?? last) : last + 1
            health.insert(tally, at: index)
            return index
        }
    }

    /// How many times a network, or one of its line items on its own, was paused and resumed,
    /// and whether the last event left it paused (until when).
    struct HealthTally {
        var network: String
        /// The line item paused on its own; `nil` for the whole network.
        var lineItem: String?
        var pauses = 0
        var resumes = 0
        var pausedUntil: MediationInstant?
    }

    private let output: any TextOutput
    private let quiet: Bool
    private let counts = Locked(Counts())


    /// Creates a printer writing to `output`.
    /// - Parameters:
    ///   - output: where lines go.
    ///   - quiet: count only, print nothing (`--watch --json` prints one document at the end).
    init(output: any TextOutput, quiet: Bool = false) {
        self.output = output
        self.quiet = quiet
    }

    /// Each network's pauses and resumes so far (R24), in first-paused order.
    var health: [HealthTally] { counts.withLock { $0.health } }

    /// The refusals by caps so far (`capped` events), in order.
    var capped: [CapRefusal] { counts.withLock { $0.capped } }

    /// The per-network and per-line-item statistics so far.
    var statistics: MediationStatistics { counts.withLock { $0.statistics } }

    /// The traces of the auctions so far, in order.
    var traces: [AuctionTrace] { counts.withLock { $0.traces } }

    /// The first line: what is watched, for how long, on which time.
    func header(_ placement: MediationConfiguration.Placement, duration: Duration, fast: Bool) {
        guard !quiet else { return }
        let refresh = placement.format == .banner || placement.refreshSeconds != nil
            ? "refresh \(placement.refreshSeconds ?? MediationConfiguration.Placement.defaultRefreshSeconds) s"
            : "no refresh"
        let time = fast ? "virtual time (--fast)" : "real time (Ctrl-C stops)"
        output.write("watching \(DisplayText.escaped(placement.id)) (\(placement.format), \(refresh)) as one visible view for \(Self.seconds(duration)) s on \(time)\n")
    }

    /// One line per event worth showing (auctions, ads, impressions, clicks, refreshes, late
    /// answers). Ids and outcomes from the configuration or a network have their control
    /// characters escaped, so each event stays one line (R17).
    func print(_ event: MediationEvent) {
        counts.withLock { counts in
            counts.statistics.record(event)
            if case .auctionFinished(_, let trace, _) = event { counts.traces.append(trace) }
        }
        let safe: (String) -> String = DisplayText.escaped
        let line: String?
        switch event {
        case .auctionStarted(_, let reason, _, let at, _, _, _):
            let number = counts.withLock { counts in
                counts.auctions += 1
                return counts.auctions
            }
            line = "[\(at)] auction \(number) started (\(reason.rawValue))"
        case .auctionFinished(_, let trace, let at):
            let number = counts.withLock { counts in
                if trace.winner != nil { counts.filled += 1 }
                return counts.auctions
            }
            let result = trace.winner.map { "\(safe($0)) wins at $\(ReportFormat.money(trace.winningECPM ?? 0))" } ?? "no fill"
            let sources = trace.sources.map { "\(safe($0.lineItemID)) \(safe($0.outcome.description))" }.joined(separator: ", ")
            line = "[\(at)] auction \(number) ended after \(ReportFormat.millis(trace.durationMilliseconds)) ms: \(result) | \(sources)"
        case .adLoaded(let ad, let expiresAt, let at):
            line = "[\(at)] ad loaded: \(safe(ad.network))/\(safe(ad.lineItemID)) \(safe(ad.adID)) \(ad.size) @ $\(ReportFormat.money(ad.eCPM)), expires \(expiresAt)"
        case .shown(let impression, let at):
            counts.withLock { counts in
                counts.impressions += 1
                counts.revenueUSD += impression.revenueUSD
            }
            line = "[\(at)] impression: \(safe(impression.network))/\(safe(impression.lineItemID)) @ $\(ReportFormat.money(impression.eCPM)) eCPM, revenue $\(ReportFormat.money(impression.revenueUSD, digits: 6))"
        case .clicked(let ad, let at):
            line = "[\(at)] click: \(safe(ad.network))/\(safe(ad.lineItemID))"
        case .retired(let ad, let at):
            line = "[\(at)] retired: \(safe(ad.network))/\(safe(ad.lineItemID)) \(safe(ad.adID))"
        case .released(let ad, let reason, let at):
            line = "[\(at)] released: \(safe(ad.network))/\(safe(ad.lineItemID)) \(safe(ad.adID)) (\(reason.rawValue))"
        case .expired(let ad, let at):
            line = "[\(at)] expired: \(safe(ad.network))/\(safe(ad.lineItemID)) \(safe(ad.adID))"
        case .renderFailed(let ad, let at):
            line = "[\(at)] render failed: \(safe(ad.network))/\(safe(ad.lineItemID))"
        case .refreshScheduled(_, let dueAt, _, let at, _):
            line = "[\(at)] next refresh at \(dueAt) while visible"
        case .configuration(let update):
            line = Self.line(for: update)
        case .placementRemoved(let placementID, let version, let at):
            line = "[\(at)] placement \(safe(placementID)) removed by config version \(version)"
        case .networkPaused(let pause):
            counts.withLock { counts in
                let index = counts.tally(pause.networkID, lineItem: pause.lineItemID)
                counts.health[index].pauses += 1
                counts.health[index].pausedUntil = pause.retryAt
            }
            line = "[\(pause.at)] network \(Self.healthSubject(pause.networkID, lineItem: pause.lineItemID)) paused (\(pause.cause.rawValue): \(pause.failures) of \(pause.outcomes) failed) until \(pause.retryAt)"
        case .networkResumed(let networkID, let failedProbes, let at, _, let lineItemID):
            counts.withLock { counts in
                let index = counts.tally(networkID, lineItem: lineItemID)
                counts.health[index].resumes += 1
                counts.health[index].pausedUntil = nil
            }
            line = "[\(at)] network \(Self.healthSubject(networkID, lineItem: lineItemID)) resumed after \(failedProbes) failed probes"
        case .exposure(let exposure):
            line = "[\(exposure.at)] exposed to \(exposure.arm) (unit \(exposure.arm.unit))"
        case .capped(_, let lineItemID, let refusal, let at):
            counts.withLock { $0.capped.append(refusal) }
            line = "[\(at)] capped: \(lineItemID.map { safe($0) + " " } ?? "")\(safe(refusal.description))"
        case .lateAnswer(let late):
            counts.withLock { $0.lateAnswers += 1 }
            line = "[\(late.arrivedAt)] late answer: \(safe(late.lineItemID))\(late.adReleased ? " (ad released)" : "")"
        }
        if let line, !quiet { output.write(line + "\n") }
    }

    /// The line of a configuration update: every new version applied, and every refusal,
    /// failure, deferral or launch warning; a check that found nothing new prints nothing.
    static func line(for update: MediationEngine.RemoteConfiguration.Update) -> String? {
        switch update.outcome {
        case .applied:
            return "[\(update.at)] config version \(update.runningVersion) applied (\(update.source.rawValue))"
        case .unchanged:
            return nil
        case .deferred, .refused, .failed, .warning:
            return "[\(update.at)] \(update)"
        }
    }

    /// The summary tables per network and per line item, then the last line: totals.
    /// - Parameter capStatus: the rules of the watched placement's line items at the end
    ///   (``CapsReport/rows(of:lineItemID:placementID:)``).
    func summary(at instant: MediationInstant, interrupted: Bool, capStatus: [CapsReport.Row] = []) {
        guard !quiet else { return }
        let counts = counts.withLock { $0 }
        let how = interrupted ? "stopped by Ctrl-C" : "done"
        output.write(Self.statisticsText(counts.statistics))
        if !counts.health.isEmpty {
            output.write("network health (R24):\n")
            for entry in counts.health {
                let now = entry.pausedUntil.map { "paused until \($0)" } ?? "asked"
                output.write("  \(Self.healthSubject(entry.network, lineItem: entry.lineItem)): paused \(HumanReport.counted(entry.pauses, "time")), resumed \(HumanReport.counted(entry.resumes, "time")); at the end \(now)\n")
            }
        }
        let caps = CapsReport.watchRows(status: capStatus, refusals: counts.capped)
        if !caps.isEmpty {
            output.write("caps (docs/caps.md):\n")
            for row in caps { output.write("  \(CapsReport.text(row))\n") }
        }
        output.write("[\(instant)] \(how): \(HumanReport.counted(counts.auctions, "auction")) (\(counts.filled) filled), \(HumanReport.counted(counts.impressions, "impression")), revenue $\(ReportFormat.money(counts.revenueUSD, digits: 6)) USD, \(HumanReport.counted(counts.lateAnswers, "late answer"))\n")
    }

    /// A network, or its line item paused on its own, escaped: `nitx`, `nitx line item
    /// level_end_nitx`.
    static func healthSubject(_ network: String, lineItem: String?) -> String {
        DisplayText.escaped(network) + (lineItem.map { " line item " + DisplayText.escaped($0) } ?? "")
    }

    /// The summary tables per network and per line item (nearest-rank latency percentiles).
    static func statisticsText(_ statistics: MediationStatistics) -> String {
        var lines = ["summary per network (fill rate = fills / requests, win rate = wins / fills, latency percentiles nearest-rank):"]
        lines.append(contentsOf: HumanReport.table(header: StatisticsTable.header, rows: StatisticsTable.rows(statistics.networks)))
        lines.append("")
        lines.append("summary per line item:")
        lines.append(contentsOf: HumanReport.table(header: StatisticsTable.header, rows: StatisticsTable.rows(statistics.lineItems)))
        return lines.joined(separator: "\n") + "\n\n"
    }

    static func seconds(_ duration: Duration) -> String {
        let millis = duration.milliseconds
        return millis.truncatingRemainder(dividingBy: 1000) == 0 && abs(millis) < 9e18 ? String(Int64(millis / 1000)) : String(millis / 1000)
    }

}

/// Warnings from the engine and adapters, one line each on standard error. Lines logged while
/// the engine is being built are dropped: what a factory warns about then is among the
/// engine's configuration warnings, which the command prints once (``enable()`` starts it).
struct WatchLogger: MediationLogger {
    let output: any TextOutput
    private let enabled = Locked(false)

    init(output: any TextOutput) {
        self.output = output
    }

    /// Starts writing lines (once the engine is built).
    func enable() {
        enabled.withLock { $0 = true }
    }

    func log(_ level: LogLevel, _ message: String, source: String) {
        guard level >= .warning, enabled.withLock({ $0 }) else { return }
        output.write("mediate: \(level) [\(DisplayText.escaped(source))] \(DisplayText.escaped(message))\n")
    }
}

/// Ctrl-C (SIGINT) during a watch: noticed through a `DispatchSource`, so the run stops between
/// steps instead of the process dying; the default handling comes back when the run ends.
/// Its state lives in one ``Locked`` box.
final class Interruption: Sendable {
    private struct State: Sendable {
        var happened = false
        var handler: (@Sendable () -> Void)?
        var source: SignalSource?
    }

    /// The dispatch source, which Dispatch does not mark `Sendable` on every platform; it is
    /// thread-safe (`cancel()` may be called from any thread), and this box only stores it and
    /// cancels it once.
    private struct SignalSource: @unchecked Sendable {
        let source: any DispatchSourceSignal
    }

    private let state = Locked(State())

    /// Starts listening for SIGINT.
    init() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: DispatchQueue(label: "mediate.watch.sigint"))
        let state = self.state
        source.setEventHandler {
            let handler: (@Sendable () -> Void)? = state.withLock { state in
                state.happened = true
                return state.handler
            }
            handler?()
        }
        state.withLock { $0.source = SignalSource(source: source) }
        source.resume()
    }

    /// Whether Ctrl-C was pressed.
    var happened: Bool { state.withLock { $0.happened } }

    /// Calls `handler` on Ctrl-C (at once if it already happened).
    func onInterrupt(_ handler: @escaping @Sendable () -> Void) {
        let already: Bool = state.withLock { state in
            state.handler = handler
            return state.happened
        }
        if already { handler() }
    }

    /// Sleeps for `length` of real time, or until Ctrl-C (checked every 50 ms) or the task is
    /// cancelled.
    func sleep(for length: Duration) async {
        let end = ContinuousClock.now + length
        while !happened, !Task.isCancelled, ContinuousClock.now < end {
            try? await Task.sleep(for: min(.milliseconds(50), end - ContinuousClock.now))
        }
    }

    /// Stops listening; Ctrl-C kills the process again.
    func stop() {
        let source = state.withLock { state in
            defer { state.source = nil }
            return state.source
        }
        source?.source.cancel()
        signal(SIGINT, SIG_DFL)
    }
}
