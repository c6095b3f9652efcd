import Adapters
import Foundation
import Mediation

/// The `mediate` command line, as a library: a host that adds its own networks builds its own
/// `mediate` with them in one line.
///
/// ```swift
/// import Adapters
/// import MediationCLI
///
/// exit(await Mediate.main(registry: NetworkRegistry.standard.registering(HouseAdsFactory())))
/// ```
public enum Mediate {
    /// Runs `mediate` with the process's arguments, standard output and error, and current
    /// directory.
    /// - Parameters:
    ///   - arguments: the arguments without the program name (default: the process's).
    ///   - registry: the network kinds `mediate` knows (`NetworkRegistry.standard` and the
    ///     host's own).
    /// - Returns: the exit status (0 filled or valid, 2 no fill, 64 usage, 65 invalid config,
    ///   66 missing file, 70 internal error).
    public static func main(arguments: [String] = Array(CommandLine.arguments.dropFirst()), registry: NetworkRegistry) async -> Int32 {
        await MediateCommand.run(arguments: arguments, environment: .live(registry: registry)).rawValue
    }
}

/// The `mediate` command: parses the arguments, loads the config, builds the engine, runs one
/// auction through it and reports it. ``Mediate/main(arguments:registry:)`` calls
/// ``run(arguments:environment:)``; tests call it with captured output.
enum MediateCommand {
    /// The config used when `--config` is absent, relative to the current directory.
    static let defaultConfigPath = "Config/mediation.json"
    /// The seed used when `--seed` is absent, so plain runs repeat.
    static let defaultSeed: UInt64 = 1

    /// Runs one command line. When standard output could not be written (a full disk,
    /// `/dev/full`, a closed descriptor or pipe), the command exits 70 (`EX_SOFTWARE`) and says so
    /// on standard error, whatever it would have exited with.
    /// - Parameters:
    ///   - arguments: the arguments without the program name.
    ///   - environment: output streams, current directory, clock, adapter factories.
    /// - Returns: the exit code (see ``ExitCode``).
    static func run(arguments: [String], environment: CommandEnvironment) async -> ExitCode {
        let code = await perform(arguments: arguments, environment: environment)
        if let failure = environment.standardOutput.failure {
            return fail(.software, "cannot write to standard output: \(failure)", environment: environment)
        }
        return code
    }

    /// Runs one command line without checking its output (see ``run(arguments:environment:)``).
    private static func perform(arguments: [String], environment: CommandEnvironment) async -> ExitCode {
        let invocation: Invocation
        do {
            invocation = try InvocationParser.parse(arguments)
        } catch {
            return usageError(error.message, environment: environment)
        }
        switch invocation {
        case .help:
            environment.standardOutput.write(HelpText.usage)
            return .success
        case .version:
            environment.standardOutput.write("mediate \(HelpText.version)\n")
            return .success
        case .validate(let options):
            return await validate(options, environment: environment)
        case .networks(let options):
            return await NetworksCommand.run(options, environment: environment)
        case .simulate(let options):
            return await SimulateCommand.run(options, environment: environment)
        case .config(let tool):
            return await ConfigCommand.run(tool, environment: environment)
        case .optimize(let options):
            return await OptimizeCommand.run(options, environment: environment)
        case .experiment(let options):
            return await ExperimentCommand.run(options, environment: environment)
        case .run(let options):
            if options.usesWatchMode {
                return await WatchCommand.run(options, environment: environment)
            }
            return await runPlacement(options, environment: environment)
        }
    }

    // MARK: - Commands

    private static func validate(_ options: ValidateOptions, environment: CommandEnvironment) async -> ExitCode {
        let path = options.configPath ?? defaultConfigPath
        switch makeEngine(path, seed: defaultSeed, environment: environment) {
        case .failure(let failure):
            return report(failure, environment: environment)
        case .success(let engine):
            await engine.shutdown()
            reportWarnings(of: engine, environment: environment)
            let configuration = engine.configuration
            let networks = configuration.networks.count, placements = configuration.placements.count
            let ids = configuration.placements.map { DisplayText.escaped($0.id) }.joined(separator: ", ")
            // No placements: say so, not "0 placements: " with nothing after the colon.
            let placed = placements == 0 ? "no placements" : "\(placements) placement\(placements == 1 ? "" : "s"): \(ids)"
            environment.standardOutput.write("\(DisplayText.escaped(path)): valid (\(networks) network\(networks == 1 ? "" : "s"), \(placed))\n")
            return .success
        }
    }

    /// The configuration a run's engine runs, for a message: the file, or the signed version
    /// from the server or the cache that replaced it (which may lack what the file has).
    static func configurationName(_ path: String, of engine: MediationEngine) -> String {
        switch engine.configurationSource {
        case .bundled: path
        case .cache: "the cached signed configuration, version \(engine.configurationVersion) (bundled: \(path))"
        case .remote: "the signed configuration from the server, version \(engine.configurationVersion) (bundled: \(path))"
        }
    }

    private static func runPlacement(_ options: RunOptions, environment: CommandEnvironment) async -> ExitCode {
        let path = options.configPath ?? defaultConfigPath
        var context = AdRequest.Context()
        if let messagesPath = options.messagesPath {
            switch loadMessages(messagesPath, environment: environment) {
            case .success(let messages): context.messages = messages
            case .failure(let exit): return exit.code
            }
        }
        let recorder = options.debug.map { _ in HTTPExchangeRecorder() }
        let remote: RemoteRun?
        switch RemoteRun.prepare(options, environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let prepared): remote = prepared
        }
        let engine: MediationEngine
        let run = OneShotRun(environment: environment)
        // A run that fetches from a server runs on real time; else sandboxes run on virtual time.
        let clockFor: ((MediationConfiguration) -> (any MediationClock)?)? = remote == nil ? { run.clock(for: $0) } : nil
        switch makeEngine(path, seed: options.seed ?? defaultSeed, logger: run.logger, onEvent: run.onEvent, exchangeRecorder: recorder, clockFor: clockFor, remote: remote, environment: environment) {
        case .failure(let failure):
            return report(failure, environment: environment)
        case .success(let built):
            engine = built
        }
        var configUpdate: MediationEngine.RemoteConfiguration.Update?
        if remote != nil {
            // One check before the auction, bounded by the fetch timeout, applied by an app's rules.
            for warning in engine.launchWarnings { RemoteRun.report(warning, environment: environment) }
            run.reportStoreWarnings()
            configUpdate = await engine.firstConfigurationCheck()
            if let configUpdate { RemoteRun.report(configUpdate, environment: environment) }
        }
        guard let placement = engine.configuration.placement(options.placementID) else {
            await engine.shutdown()
            let known = engine.configuration.placements.map(\.id).joined(separator: ", ")
            return usageError("unknown placement '\(options.placementID)' in \(configurationName(path, of: engine)); it has: \(known)", environment: environment)
        }
        reportWarnings(of: engine, environment: environment)

        let runStart = engine.clock.now
        guard let outcome = await run.auction(of: placement.id, on: engine, context: context) else {
            return fail(.software, "cannot run an auction of \(placement.id)", environment: environment)
        }

        let debug = DebugReport.make(options.debug, recorder) { mode, recorder in
            DebugReport(recorded: recorder.exchanges, calls: recorder.adapterCalls, dropped: recorder.droppedCount, traces: [outcome.trace], runStart: runStart, mode: mode)
        }
        if options.json {
            do {
                var report = JSONReport(placementID: placement.id, outcome: outcome)
                report.debug = debug?.json
                report.configuration = JSONReport.Configuration(version: outcome.trace.configVersion, source: engine.configurationSource, update: configUpdate)
                environment.standardOutput.write(try report.rendered())
            } catch {
                return fail(.software, "cannot encode the trace as JSON", environment: environment)
            }
        } else {
            environment.standardOutput.write(HumanReport.render(placement: placement, outcome: outcome))
            if let debug { environment.standardOutput.write(debug.rendered()) }
        }
        if let reportPath = options.reportPath {
            let content = HTMLReport.Content(placement: placement, runDescription: "one-shot auction", traces: [outcome.trace], statistics: nil)
            if let exit = writeReport(HTMLReport.render(content), to: reportPath, environment: environment) { return exit }
        }
        return outcome.isFilled ? .success : .noFill
    }

    // MARK: - Loading

    enum LoadFailure: Error {
        case configuration(path: String, ConfigurationError)
    }

    /// The exit of a failed step, already reported on standard error.
    struct Exit: Error {
        var code: ExitCode
    }

    /// Loads the config at `path` and builds the engine (every network's adapter) on `clock`
    /// (default: what `clockFor` chooses for the loaded config, else the environment's
    /// clock), with the sandboxes' phone-like round trip.
    static func makeEngine(
        _ path: String,
        seed: UInt64,
        clock: (any MediationClock)? = nil,
        logger: any MediationLogger = SilentLogger(),
        hostContext: @escaping @Sendable (String) -> AdRequest.Context = { _ in AdRequest.Context() },
        onEvent: (@Sendable (MediationEvent) -> Void)? = nil,
        exchangeRecorder: HTTPExchangeRecorder? = nil,
        clockFor: ((MediationConfiguration) -> (any MediationClock)?)? = nil,
        remote: RemoteRun? = nil,
        stateStore: (any StateStore)? = nil,
        transport: (any HTTP.Transport)? = nil,
        environment: CommandEnvironment
    ) -> Result<MediationEngine, LoadFailure> {
        if let remote {
            // The config file is the bundled one; the cache in the state store and the server
            // may replace it (engine rule R22).
            var engineEnvironment = MediationEnvironment(clock: clock ?? environment.clock, logger: logger, seed: seed, transport: transport ?? MediateTransport.networks, sandboxLatency: .milliseconds(90), exchangeRecorder: exchangeRecorder, stateStore: remote.store)
            // Auction ids from the seed, so an exploring placement's draws (R23) repeat too.
            engineEnvironment.auctionIDSeed = seed
            do {
                return .success(try MediationEngine(bundledConfiguration: environment.resolve(path), remote: remote.remote, registry: environment.registry, environment: engineEnvironment, hostContext: hostContext, onEvent: onEvent))
            } catch {
                return .failure(.configuration(path: path, error))
            }
        }
        let loader = ConfigurationLoader(registry: environment.registry)
        let configuration: MediationConfiguration
        do {
            configuration = try loader.load(contentsOf: environment.resolve(path))
        } catch {
            return .failure(.configuration(path: path, error))
        }
        // Sandbox servers answer after a phone-like round trip, so the trace shows real races.
        var engineEnvironment = MediationEnvironment(clock: clock ?? clockFor?(configuration) ?? environment.clock, logger: logger, seed: seed, transport: transport ?? MediateTransport.networks, sandboxLatency: .milliseconds(90), exchangeRecorder: exchangeRecorder)
        if let stateStore { engineEnvironment.stateStore = stateStore }
        // Auction ids from the seed, so an exploring placement's draws (R23) repeat too.
        engineEnvironment.auctionIDSeed = seed
        do {
            return .success(try MediationEngine(configuration: configuration, registry: environment.registry, environment: engineEnvironment, hostContext: hostContext, onEvent: onEvent))
        } catch {
            return .failure(.configuration(path: path, error))
        }
    }

    /// Writes the `--report` file; on failure says so on standard error and returns exit 73
    /// (`EX_CANTCREAT`).
    static func writeReport(_ html: String, to path: String, environment: CommandEnvironment) -> ExitCode? {
        do throws(OutputFile.Failure) {
            try OutputFile.write(html, to: environment.resolve(path))
            return nil
        } catch {
            return fail(.cannotCreate, "cannot write the report \(path): \(error.message)", environment: environment)
        }
    }

    /// Loads the `--messages` file, reporting a failure on standard error.
    static func loadMessages(_ messagesPath: String, environment: CommandEnvironment) -> Result<[AdRequest.Context.Message], Exit> {
        do {
            return .success(try ConversationFile.load(environment.resolve(messagesPath)))
        } catch {
            switch error {
            case .missing(let message):
                return .failure(Exit(code: fail(.noInput, "messages file \(messagesPath): \(message)", environment: environment)))
            case .invalid(let message):
                return .failure(Exit(code: fail(.dataError, "invalid messages file \(messagesPath): \(message)", environment: environment)))
            }
        }
    }

    static func report(_ failure: LoadFailure, environment: CommandEnvironment) -> ExitCode {
        switch failure {
        case .configuration(let path, let error) where error.code == .fileNotFound:
            return fail(.noInput, "config file not found: \(path)", environment: environment)
        case .configuration(let path, let error) where error.code == .unreadableFile:
            return fail(.noInput, "cannot read config file \(path): \(error.message)", environment: environment)
        case .configuration(let path, let error):
            return fail(.dataError, "invalid config \(path): \(error.path): \(error.message)", environment: environment)
        }
    }

    // MARK: - Warnings

    /// Writes the configuration's warnings on standard error (engine rule R19), one line each,
    /// and one line naming the networks answered by their sandbox: `mediate: warning: …`.
    static func reportWarnings(of engine: MediationEngine, environment: CommandEnvironment) {
        for warning in engine.configurationWarnings where warning.code != .sandboxEndpoint {
            environment.standardError.write("mediate: warning: \(warning.path): \(warning.message) (\(warning.code))\n")
        }
        if !engine.sandboxNetworks.isEmpty {
            let names = engine.sandboxNetworks.map(DisplayText.escaped).joined(separator: ", ")
            environment.standardError.write("mediate: warning: sandbox endpoints: \(names) answer from their in-process simulated servers, not real ad servers (sandbox_endpoint)\n")
        }
    }

    // MARK: - Errors

    static func usageError(_ message: String, environment: CommandEnvironment) -> ExitCode {
        fail(.usage, "\(message) (see mediate --help)", environment: environment)
    }

    /// Writes `mediate: message` as one line on standard error and returns `code`.
    static func fail(_ code: ExitCode, _ message: String, environment: CommandEnvironment) -> ExitCode {
        environment.standardError.write("mediate: \(DisplayText.escaped(message))\n")
        return code
    }
}
