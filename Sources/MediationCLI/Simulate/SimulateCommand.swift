import Foundation
import Mediation
import MediationLearning
import MediationSimulation

/// `mediate simulate`: what-if runs of a placement on the real engine in virtual time against
/// the market model (`docs/simulation.md`): a run of N auctions, a comparison of two
/// configurations on the same draws, a sweep of one parameter, a refreshing placement over
/// virtual time, or the replay of a recorded event log. The same arguments print the same
/// bytes; `--jobs` changes only how fast.
enum SimulateCommand {
    /// The market used when `--market` is absent, relative to the current directory.
    static let defaultMarketPath = "Config/market.json"

    /// Runs `mediate simulate`.
    /// - Returns: success, or usage (64: an unknown placement, a sweep that does not apply),
    ///   data (65: an invalid config, market or recording), no input (66: a missing file) or
    ///   software (70: the HTML report could not be written, an internal error).
    static func run(_ options: SimulateOptions, environment: CommandEnvironment) async -> ExitCode {
        let configPath = options.configPath ?? MediateCommand.defaultConfigPath
        let marketPath = options.marketPath ?? defaultMarketPath
        let configuration: MediationConfiguration
        switch loadConfiguration(configPath, environment: environment) {
        case .success(let loaded): configuration = loaded
        case .failure(let exit): return exit.code
        }
        let market: Market
        do {
            market = try Market.load(contentsOf: environment.resolve(marketPath))
        } catch {
            switch error.code {
            case .fileNotFound: return MediateCommand.fail(.noInput, "market file not found: \(marketPath)", environment: environment)
            case .unreadableFile: return MediateCommand.fail(.noInput, "cannot read market file \(marketPath): \(error.message)", environment: environment)
            default: return MediateCommand.fail(.dataError, "invalid market \(marketPath): \(error.path): \(error.message)", environment: environment)
            }
        }
        let progress = SimulationProgress()
        var options = options
        if case .duration(let duration) = options.mode, let placement = configuration.placement(options.placementID), placement.format != .banner, placement.refreshSeconds == nil {
            // A placement that does not refresh runs as a timed run at the default rate.
            options.mode = .run
            options.timedDuration = duration
            options.rate = SimulateOptions.defaultRate
            do {
                try SimulateOptionsParser.checkAuctions(duration: duration, rate: SimulateOptions.defaultRate)
            } catch {
                return MediateCommand.usageError(error.message, environment: environment)
            }
        }
        var simulationOptions = SimulationOptions(auctions: options.auctions, seed: options.seed, jobs: options.jobs, progress: progress)
        if let duration = options.timedDuration, let rate = options.rate {
            simulationOptions = .timed(duration: duration, rate: rate, seed: options.seed, jobs: options.jobs, window: options.window)
            simulationOptions.progress = progress
        }
        let bar = ProgressBar.start(progress, environment: environment)
        let outcome = await simulate(options, configuration: configuration, configPath: configPath, market: market, marketPath: marketPath, simulationOptions: simulationOptions, environment: environment)
        await bar?.finish()
        switch outcome {
        case .failure(let exit):
            return exit.code
        case .success(let result):
            if let reportPath = options.reportPath, let html = result.html {
                if let exit = MediateCommand.writeReport(html, to: reportPath, environment: environment) { return exit }
            }
            environment.standardOutput.write(options.json ? result.json : result.text)
            return .success
        }
    }

    /// Warns, once per experiment that changes the placement, that a run of auctions leaves
    /// experiments out: its engine's clock starts at 1970-01-01, before any experiment, so every
    /// auction runs the placement as configured. `--users` runs them (its users are assigned).
    private static func warnOfExperiments(_ options: SimulateOptions, configuration: MediationConfiguration, environment: CommandEnvironment) {
        if case .users = options.mode { return }
        for (index, experiment) in configuration.experiments.enumerated() where experiment.variants.contains(where: { $0.placements[options.placementID] != nil }) {
            environment.standardError.write("mediate: warning: experiments[\(index)] (\"\(DisplayText.escaped(experiment.id))\"): this run's auctions take no part in it (the simulated clock starts at 1970-01-01, before any experiment), so every auction runs \(DisplayText.escaped(options.placementID)) as configured; simulate --users runs experiments (experiment_not_simulated)\n")
        }
    }

    /// What a simulation printed and drew.
    private struct Rendered {
        var text: String
        var json: String
        var html: String?
    }

    private static func simulate(_ options: SimulateOptions, configuration: MediationConfiguration, configPath: String, market: Market, marketPath: String, simulationOptions: SimulationOptions, environment: CommandEnvironment) async -> Result<Rendered, MediateCommand.Exit> {
        let header = SimulationHeader(placementID: options.placementID, configPath: configPath, marketPath: marketPath, seed: options.seed)
        let wantsHTML = options.reportPath != nil
        warnOfExperiments(options, configuration: configuration, environment: environment)
        do {
            switch options.mode {
            case .run:
                let report = try await Simulation.run(configuration: configuration, market: market, placementID: options.placementID, options: simulationOptions)
                return .success(Rendered(text: SimulationText.run(report, header: header), json: try ReportFormat.json(report), html: wantsHTML ? SimulationHTML.run(report, header: header) : nil))
            case .compareHealth:
                let comparison = try await Simulation.compareHealth(configuration: configuration, market: market, placementID: options.placementID, options: simulationOptions)
                let label = "\(configPath) with network health off"
                return .success(Rendered(text: SimulationText.compare(comparison, header: header, otherPath: "\(configPath) with its health settings", aLabel: label), json: try ReportFormat.json(comparison), html: wantsHTML ? SimulationHTML.compare(comparison, header: header, otherPath: "\(configPath) with health") : nil))
            case .compare(let otherPath):
                let other: MediationConfiguration
                switch loadConfiguration(otherPath, environment: environment) {
                case .success(let loaded): other = loaded
                case .failure(let exit): return .failure(exit)
                }
                let comparison = try await Simulation.compare(configuration, other, market: market, placementID: options.placementID, options: simulationOptions)
                return .success(Rendered(text: SimulationText.compare(comparison, header: header, otherPath: otherPath), json: try ReportFormat.json(comparison), html: wantsHTML ? SimulationHTML.compare(comparison, header: header, otherPath: otherPath) : nil))
            case .sweep(let specification):
                let sweep = try await Simulation.sweep(specification, configuration: configuration, market: market, placementID: options.placementID, options: simulationOptions)
                return .success(Rendered(text: SimulationText.sweep(sweep, header: header), json: try ReportFormat.json(sweep), html: wantsHTML ? SimulationHTML.sweep(sweep, header: header) : nil))
            case .duration(let duration):
                let report = try await Simulation.runPlacement(configuration: configuration, market: market, placementID: options.placementID, duration: duration, seed: options.seed)
                return .success(Rendered(text: SimulationText.placement(report, header: header), json: try ReportFormat.json(report), html: nil))
            case .learn(let mode):
                if let directory = mode.reportsDirectory, let exit = LearningReports.prepare(mode.learners, in: directory, environment: environment) {
                    return .failure(MediateCommand.Exit(code: exit))
                }
                let learners = mode.learners.compactMap(ECPMLearners.named)
                if market.countries != nil, let placement = configuration.placement(options.placementID) {
                    for change in placement.changesTheTruthLeavesOut {
                        environment.standardError.write("mediate: warning: \(DisplayText.escaped(change)): the learning loop's limit and calibration do not model it (the market's truth orders each country's tiers by the prices it is given, at the tiers' own floors; docs/simulation.md, \"The market's truth\") (limit_not_modelled)\n")
                    }
                }
                let run = try await Simulation.learn(configuration: configuration, market: market, placementID: options.placementID, learners: learners, learning: LearningOptions(days: mode.days, drifts: mode.drifts, country: mode.country), options: simulationOptions)
                if let directory = mode.reportsDirectory, let exit = LearningReports.write(run, configuration: configuration, to: directory, environment: environment) {
                    return .failure(MediateCommand.Exit(code: exit))
                }
                return .success(Rendered(text: LearningText.run(run, header: header), json: try ReportFormat.json(run), html: wantsHTML ? LearningHTML.run(run, header: header) : nil))
            case .users(let mode):
                return await users(mode, options, configuration: configuration, configPath: configPath, market: market, environment: environment)
            case .replay(let recordingPath):
                let recording: Recording
                do {
                    recording = try Recording.load(contentsOf: environment.resolve(recordingPath))
                } catch {
                    return .failure(MediateCommand.Exit(code: report(error, recordingPath: recordingPath, configPath: configPath, marketPath: marketPath, environment: environment)))
                }
                let replay = try await Simulation.replay(recording, configuration: configuration, market: market, placementID: options.placementID, options: simulationOptions)
                return .success(Rendered(text: SimulationText.replay(replay, header: header, recordingPath: recordingPath), json: try ReportFormat.json(replay), html: wantsHTML ? SimulationHTML.replay(replay, header: header, recordingPath: recordingPath) : nil))
            }
        } catch let error as SimulationError {
            let recordingPath: String? = if case .replay(let path) = options.mode { path } else { nil }
            return .failure(MediateCommand.Exit(code: report(error, recordingPath: recordingPath, configPath: configPath, marketPath: marketPath, environment: environment)))
        } catch {
            return .failure(MediateCommand.Exit(code: MediateCommand.fail(.software, "cannot encode the report as JSON: \(error)", environment: environment)))
        }
    }

    /// A users run (`--users N --days D`), or two on the same users (`--compare`).
    private static func users(_ mode: SimulateOptions.UsersMode, _ options: SimulateOptions, configuration: MediationConfiguration, configPath: String, market: Market, environment: CommandEnvironment) async -> Result<Rendered, MediateCommand.Exit> {
        var usersOptions = UsersOptions(users: mode.users, days: mode.days, seed: options.seed, jobs: options.jobs)
        usersOptions.eventsURL = mode.eventsPath.map(environment.resolve)
        let placementID = options.placementID.isEmpty ? nil : options.placementID
        guard let data = try? Data(contentsOf: environment.resolve(configPath)) else {
            return .failure(MediateCommand.Exit(code: MediateCommand.fail(.noInput, "cannot read config file \(configPath)", environment: environment)))
        }
        do {
            if let otherPath = mode.comparePath {
                let other: MediationConfiguration
                switch loadConfiguration(otherPath, environment: environment) {
                case .success(let loaded): other = loaded
                case .failure(let exit): return .failure(exit)
                }
                guard let otherData = try? Data(contentsOf: environment.resolve(otherPath)) else {
                    return .failure(MediateCommand.Exit(code: MediateCommand.fail(.noInput, "cannot read config file \(otherPath)", environment: environment)))
                }
                let comparison = try await Simulation.compareUsers((configuration, data), (other, otherData), market: market, placementID: placementID, options: usersOptions)
                return .success(Rendered(text: UsersText.compare(comparison, configPath: configPath, otherPath: otherPath), json: try ReportFormat.json(comparison), html: nil))
            }
            let report = try await Simulation.runUsers(configuration: configuration, configurationData: data, market: market, placementID: placementID, options: usersOptions)
            return .success(Rendered(text: UsersText.run(report, configPath: configPath), json: try ReportFormat.json(report), html: nil))
        } catch let error as SimulationError {
            return .failure(MediateCommand.Exit(code: report(error, recordingPath: nil, configPath: configPath, marketPath: options.marketPath ?? defaultMarketPath, environment: environment)))
        } catch {
            return .failure(MediateCommand.Exit(code: MediateCommand.fail(.software, "cannot encode the report as JSON: \(error)", environment: environment)))
        }
    }

    /// Loads a configuration file with the registry's pricing, reporting a failure.
    private static func loadConfiguration(_ path: String, environment: CommandEnvironment) -> Result<MediationConfiguration, MediateCommand.Exit> {
        do {
            return .success(try ConfigurationLoader(registry: environment.registry).load(contentsOf: environment.resolve(path)))
        } catch {
            return .failure(MediateCommand.Exit(code: MediateCommand.report(.configuration(path: path, error), environment: environment)))
        }
    }

    /// Reports a simulation error on standard error with its exit code.
    private static func report(_ error: SimulationError, recordingPath: String?, configPath: String, marketPath: String, environment: CommandEnvironment) -> ExitCode {
        let located = error.path.map { "\($0): \(error.message)" } ?? error.message
        switch error.code {
        case .unknownPlacement, .invalidOptions:
            return MediateCommand.usageError(error.message, environment: environment)
        case .invalidSweep:
            return MediateCommand.usageError("--sweep \(error.message)", environment: environment)
        case .invalidMarket:
            return MediateCommand.fail(.dataError, "invalid market \(marketPath): \(located)", environment: environment)
        case .invalidConfiguration:
            return MediateCommand.fail(.dataError, "invalid config \(configPath): \(located)", environment: environment)
        case .invalidRecording:
            return MediateCommand.fail(.dataError, "invalid recording \(recordingPath ?? "-"): \(located)", environment: environment)
        case .unreadableRecording:
            return MediateCommand.fail(.noInput, "recording \(recordingPath ?? "-"): \(error.message)", environment: environment)
        default:
            return MediateCommand.fail(.software, "simulation failed: \(located)", environment: environment)
        }
    }
}

/// What every rendering names: the placement, the files and the seed.
struct SimulationHeader: Sendable {
    var placementID: String
    var configPath: String
    var marketPath: String
    var seed: UInt64
}
