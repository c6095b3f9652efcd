import MediationSimulation

/// Parses `mediate`'s arguments (without the program name) into an ``Invocation``.
///
/// Grammar:
/// ```
/// mediate --placement ID [--config FILE] [--json] [--seed N] [--messages FILE]
///         [--watch] [--duration D] [--fast] [--debug[=unredacted]] [--report FILE]
///         [--config-url URL --public-key FILE [--state-dir DIR]]
/// mediate config keygen | sign | verify …
/// mediate validate [--config FILE]
/// mediate networks [--config FILE] [--json] [--state-dir DIR [--public-key FILE]]
/// mediate optimize --reports FILE.csv... [--config FILE] [--events FILE [--events-start DAY]] [--as-of DAY] [--json] [--write FILE]
/// mediate experiment report [--config FILE] (--events FILE... | --user-days FILE...) [--as-of DAY] [--json] [--report FILE]
/// mediate --help | -h
/// mediate --version | -V
/// ```
/// Options with a value take it as the next argument or after `=` (`--seed=7`). `--help`
/// anywhere wins, then `mediate config …` (whose `sign` takes a `--version N`), then
/// `--version`. Each option may be given once.
enum InvocationParser {
    /// The options of a run (`mediate --placement …`) and which take a value.
    private static let runValued: Set<String> = ["--placement", "--config", "--seed", "--messages", "--duration", "--report", "--events", "--config-url", "--public-key", "--state-dir"]
    private static let runFlags: Set<String> = ["--json", "--watch", "--fast", "--debug"]

    /// The grammar of a run, or of `validate` / `networks` (a subset of a run's options).
    private static func grammar(command: String?, valued: Set<String> = runValued, flags: Set<String> = runFlags) -> OptionReader.Grammar {
        OptionReader.Grammar(command: command, valued: valued, flags: flags, optionalValue: ["--debug"], singleDash: true) { argument, before in
            if argument == "validate" { return UsageError(message: "'validate' must come first: mediate validate [--config FILE]") }
            if command == nil, before == 0 { return UsageError(message: "unknown command '\(argument)'") }
            return UsageError(message: "unexpected argument '\(argument)'")
        }
    }

    /// The longest `--duration` accepted, in seconds (one week).
    static let maximumDurationSeconds = 7.0 * 24 * 3600

    /// Parses `arguments`.
    /// - Parameter arguments: the command line without the program name.
    /// - Returns: the invocation.
    /// - Throws: ``UsageError`` saying what is wrong.
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        if arguments.contains(where: { $0 == "--help" || $0 == "-h" }) { return .help }
        // `mediate config sign` takes a `--version N` of its own.
        if arguments.first == "config" {
            return .config(try ConfigTool.parse(Array(arguments.dropFirst())))
        }
        if arguments.first == "experiment" {
            return .experiment(try ExperimentOptions.parse(Array(arguments.dropFirst())))
        }
        if arguments.first == "optimize" {
            return .optimize(try OptimizeOptionsParser.parse(Array(arguments.dropFirst())))
        }
        if arguments.contains(where: { $0 == "--version" || $0 == "-V" }) { return .version }
        if arguments.first == "simulate" {
            return .simulate(try SimulateOptionsParser.parse(Array(arguments.dropFirst())))
        }
        if arguments.first == "validate" {
            let values = try OptionReader(Array(arguments.dropFirst()), grammar(command: "validate", valued: ["--config"], flags: []))
            return .validate(ValidateOptions(configPath: values["--config"]))
        }
        if arguments.first == "networks" {
            let values = try OptionReader(Array(arguments.dropFirst()), grammar(command: "networks", valued: ["--config", "--state-dir", "--public-key"], flags: ["--json"]))
            if values["--public-key"] != nil, values["--state-dir"] == nil {
                throw UsageError(message: "--public-key applies to --state-dir only (the keys the stored configuration must be signed with)")
            }
            return .networks(NetworksOptions(configPath: values["--config"], json: values.has("--json"), stateDirectory: values["--state-dir"], publicKeyPath: values["--public-key"]))
        }
        guard !arguments.isEmpty else {
            throw UsageError(message: "missing --placement ID")
        }
        let values = try OptionReader(arguments, grammar(command: nil))
        guard let placementID = values["--placement"] else {
            throw UsageError(message: "missing --placement ID")
        }
        var options = RunOptions(placementID: placementID)
        options.configPath = values["--config"]
        options.json = values.has("--json")
        options.messagesPath = values["--messages"]
        options.watch = values.has("--watch")
        options.fast = values.has("--fast")
        options.reportPath = values["--report"]
        if let debug = values["--debug"] {
            guard let mode: DebugMode = debug.isEmpty ? .redacted : DebugMode(rawValue: debug) else {
                throw UsageError(message: "--debug takes no value or =unredacted, got '\(debug)'")
            }
            options.debug = mode
        }
        options.eventsPath = values["--events"]
        options.seed = try values.whole("--seed", in: 0...UInt64.max)
        if let text = values["--duration"] {
            // The grammar of `mediate simulate --duration`: seconds (`300`, `0.5`) or a number
            // and a unit (`500ms`, `90s`, `5m`, `1h`, `1d`).
            guard let seconds = VirtualTimeText.seconds(text), seconds > 0, seconds <= maximumDurationSeconds else {
                throw UsageError(message: "--duration needs a positive number of seconds, or a number and a unit (90s, 5m, 1h, 1d), at most a week (\(Int(maximumDurationSeconds)) s), got '\(text.prefix(40))'")
            }
            options.duration = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        options.configURL = values["--config-url"]
        options.publicKeyPath = values["--public-key"]
        options.stateDirectory = values["--state-dir"]
        if options.configURL != nil, options.publicKeyPath == nil {
            throw UsageError(message: "--config-url needs --public-key FILE (the keys the configuration must be signed with)")
        }
        if options.configURL == nil, let stray = options.publicKeyPath != nil ? "--public-key" : options.stateDirectory != nil ? "--state-dir" : nil {
            throw UsageError(message: "\(stray) applies to --config-url only")
        }
        if !options.watch, values.has("--duration") || options.fast || options.eventsPath != nil {
            throw UsageError(message: "\(values.has("--duration") ? "--duration" : options.fast ? "--fast" : "--events") applies to --watch only")
        }
        return .run(options)
    }
}
