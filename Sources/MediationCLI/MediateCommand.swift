import Adapters
import Foundation
import Mediation

/// The `mediate` command: parses the arguments, loads the config, runs one auction and
/// reports it. `main.swift` only calls ``run(arguments:environment:)`` and exits with its code.
enum MediateCommand {
    /// The config used when `--config` is absent, relative to the current directory.
    static let defaultConfigPath = "Config/mediation.json"
    /// The seed used when `--seed` is absent, so plain runs repeat.
    static let defaultSeed: UInt64 = 1

    /// Runs one command line.
    /// - Parameters:
    ///   - arguments: the arguments without the program name.
    ///   - environment: output streams, current directory, clock, adapter factories.
    /// - Returns: the exit code (see ``ExitCode``).
    static func run(arguments: [String], environment: CommandEnvironment) async -> ExitCode {
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
            return validate(options, environment: environment)
        case .run(let options):
            if options.usesWatchMode {
                return await WatchCommand.run(options, environment: environment)
            }
            return await runPlacement(options, environment: environment)
        }
    }

    // MARK: - Commands

    private static func validate(_ options: ValidateOptions, environment: CommandEnvironment) -> ExitCode {
        let path = options.configPath ?? defaultConfigPath
        switch load(path, seed: defaultSeed, environment: environment) {
        case .failure(let failure):
            return report(failure, environment: environment)
        case .success(let auctions):
            let configuration = auctions.configuration
            environment.standardOutput.write("\(path): valid (\(configuration.networks.count) networks, \(configuration.placements.count) placements: \(configuration.placements.map(\.id).joined(separator: ", ")))\n")
            return .success
        }
    }

    private static func runPlacement(_ options: RunOptions, environment: CommandEnvironment) async -> ExitCode {
        let path = options.configPath ?? defaultConfigPath
        let auctions: ConfiguredAuctions
        switch load(path, seed: options.seed ?? defaultSeed, environment: environment) {
        case .failure(let failure):
            return report(failure, environment: environment)
        case .success(let built):
            auctions = built
        }
        guard let placement = auctions.configuration.placement(options.placementID), let auction = auctions.auction(for: placement.id) else {
            let known = auctions.configuration.placements.map(\.id).joined(separator: ", ")
            return usageError("unknown placement '\(options.placementID)' in \(path); it has: \(known)", environment: environment)
        }
        var context = HostContext()
        if let messagesPath = options.messagesPath {
            do {
                context.messages = try ConversationFile.load(environment.resolve(messagesPath))
            } catch {
                switch error {
                case .missing(let message):
                    return fail(.noInput, "messages file \(messagesPath): \(message)", environment: environment)
                case .invalid(let message):
                    return fail(.dataError, "invalid messages file \(messagesPath): \(message)", environment: environment)
                }
            }
        }
        guard let request = auctions.request(for: placement.id, context: context) else {
            return fail(.software, "cannot build a request for \(placement.id)", environment: environment)
        }

        let outcome = await auction.run(request: request)
        // The CLI is the host: it never shows the winner, so it gives the ad back (R7).
        defer { outcome.winner?.ad.releaseResources() }

        if options.json {
            do {
                environment.standardOutput.write(try JSONReport(placementID: placement.id, outcome: outcome).rendered())
            } catch {
                return fail(.software, "cannot encode the trace as JSON", environment: environment)
            }
        } else {
            environment.standardOutput.write(HumanReport.render(placement: placement, outcome: outcome))
        }
        return outcome.isFilled ? .success : .noFill
    }

    // MARK: - Loading

    enum LoadFailure: Error {
        case configuration(path: String, ConfigurationError)
        case adapter(path: String, AdapterConfigurationError)
    }

    /// Loads the config at `path` and builds every network's adapter on `clock` (default: the
    /// environment's clock).
    static func load(_ path: String, seed: UInt64, clock: (any MediationClock)? = nil, environment: CommandEnvironment) -> Result<ConfiguredAuctions, LoadFailure> {
        let loader = ConfigurationLoader(adapterPricing: environment.registry.pricingByKind)
        let configuration: MediationConfiguration
        do {
            configuration = try loader.load(contentsOf: environment.resolve(path))
        } catch {
            return .failure(.configuration(path: path, error))
        }
        // Sandbox servers answer after a phone-like round trip, so the trace shows real races.
        let adapterEnvironment = AdapterEnvironment(clock: clock ?? environment.clock, seed: seed, sandboxLatency: .milliseconds(90))
        do {
            return .success(try ConfiguredAuctions(configuration: configuration, registry: environment.registry, environment: adapterEnvironment))
        } catch {
            return .failure(.adapter(path: path, error))
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
        case .adapter(let path, let error):
            return fail(.dataError, "invalid config \(path): \(error.path): \(error.message)", environment: environment)
        }
    }

    // MARK: - Errors

    static func usageError(_ message: String, environment: CommandEnvironment) -> ExitCode {
        fail(.usage, "\(message) (see mediate --help)", environment: environment)
    }

    /// Writes `mediate: message` as one line on standard error and returns `code`.
    static func fail(_ code: ExitCode, _ message: String, environment: CommandEnvironment) -> ExitCode {
        let oneLine = message.split(whereSeparator: \.isNewline).joined(separator: " ")
        environment.standardError.write("mediate: \(oneLine)\n")
        return code
    }
}
