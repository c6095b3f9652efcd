import Foundation
import Mediation
import MediationVirtualTime

/// One auction of `mediate --placement ID` (the one-shot mode), run the way the trace can be
/// trusted: when every network of the config answers from its sandbox, on virtual time (a
/// ``ManualClock`` driven one wake-up at a time, as `--watch --fast` does), so the same seed
/// gives the same trace, line for line, whatever the machine's load; otherwise on the
/// environment's clock (real endpoints answer in real time).
///
/// The warnings the adapters log while they work for a source are on its trace line already
/// (`adapter_warning`: the engine attributes them); on virtual time the answers that come after
/// the decision, up to the auction's deadline, are recorded on their lines as late answers.
final class OneShotRun: Sendable {
    private struct State {
        var clock: ManualClock?
        var lateAnswers: [MediationEvent.LateAnswer] = []
        /// Whether the cache warnings of configuration checks are written (after launch, whose
        /// warnings the command writes from `launchWarnings`).
        var reportsStoreWarnings = false
    }

    private let environment: CommandEnvironment
    private let state = Locked(State())

    init(environment: CommandEnvironment) {
        self.environment = environment
    }

    /// The logger the engine gets: it prints only network health's warnings, as a watch does
    /// (a stored health discarded or not stored, R21, R24); what the adapters warn about while
    /// they work for a source is on its trace line (a logger that is not the `SilentLogger`
    /// asks the engine to attribute it).
    var logger: any MediationLogger { HealthWarningLogger(output: environment.standardError) }

    /// The event handler the engine gets: it keeps the late answers and, once
    /// ``reportStoreWarnings()`` was called, writes a configuration check's warning that the
    /// state store could not keep the configuration (`store_unavailable`), which the check's
    /// own update does not carry.
    var onEvent: @Sendable (MediationEvent) -> Void {
        { [self] event in
            switch event {
            case .lateAnswer(let late):
                state.withLock { $0.lateAnswers.append(late) }
            case .configuration(let update) where update.code == .storeUnavailable:
                if state.withLock({ $0.reportsStoreWarnings }) { RemoteRun.report(update, environment: environment) }
            default:
                break
            }
        }
    }

    /// From now on, writes the state store's warnings of configuration checks (call it once the
    /// launch warnings are written, before the first check).
    func reportStoreWarnings() {
        state.withLock { $0.reportsStoreWarnings = true }
    }

    /// Virtual time when every network of `configuration` is a sandbox and the environment's
    /// clock is the real one; `nil` (the environment's clock) otherwise.
    func clock(for configuration: MediationConfiguration) -> (any MediationClock)? {
        guard environment.clock is SystemClock, !configuration.networks.isEmpty, configuration.networks.allSatisfy({ $0.endpoint == .sandbox }) else { return nil }
        let clock = ManualClock()
        state.withLock { $0.clock = clock }
        return clock
    }

    /// Runs one auction of `placementID` on `engine`, reads the outcome (the winner while its ad
    /// is held), then gives the winner's ad back (the CLI never shows it, R7), shuts the engine
    /// down and returns what it read.
    func auction(of placementID: String, on engine: MediationEngine, context: AdRequest.Context) async -> OneShotOutcome? {
        let virtualClock = state.withLock { $0.clock }
        let outcome: MediationEngine.AuctionOutcome?
        if let clock = virtualClock {
            outcome = await clock.run { await engine.runAuction(placementID: placementID, context: context) } ?? nil
            if let outcome {
                // Answers after the decision, up to the deadline, are recorded as late answers.
                let deadline = MediationInstant.origin + .saturating(milliseconds: outcome.trace.deadlineMilliseconds)
                await clock.advance(to: max(deadline, clock.now))
            }
        } else {
            outcome = await engine.runAuction(placementID: placementID, context: context)
        }
        // The CLI is the host: it reads the winner, then, never showing it, gives the ad back (R7).
        let read = outcome.map(OneShotOutcome.init)
        outcome?.winner?.ad.releaseResources()
        if let clock = virtualClock {
            let shutdown = clock.startTask { await engine.shutdown() }
            await clock.runUntilIdle()
            await shutdown.value
        } else {
            await engine.shutdown()
        }
        guard var outcome = read else { return nil }
        let lateAnswers = state.withLock { $0.lateAnswers }
        for late in lateAnswers { outcome.trace.record(late) }
        return outcome
    }
}

/// The logger of one-shot runs and `mediate networks`: drops the adapters' lines, the warnings of a source's request
/// reaching its trace line through the engine's attribution; network health's warnings, which
/// belong to no source (a stored health that was discarded, one that could not be stored), are
/// written to standard error in the watch's form.
struct HealthWarningLogger: MediationLogger {
    let output: any TextOutput

    func log(_ level: LogLevel, _ message: String, source: String) {
        guard level >= .warning, source == "health" else { return }
        output.write("mediate: \(level) [\(DisplayText.escaped(source))] \(DisplayText.escaped(message))\n")
    }
}
