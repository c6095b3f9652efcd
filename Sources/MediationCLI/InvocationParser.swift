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
/// mediate networks [--config FILE] [--json]
/// mediate optimize --reports FILE.csv... [--config FILE] [--events FILE [--events-start DAY]] [--as-of DAY] [--json] [--write FILE]
/// mediate --help | -h
/// mediate --version | -V
/// ```
/// Options with a value take it as the next argument or after `=` (`--seed=7`). `--help`
/// anywhere wins, then `mediate config …` (whose `sign` takes a `--version N`), then
/// `--version`. Each option may be given once.
enum InvocationParser {
    private enum Option: String, CaseIterable {
        case placement = "--placement"
        case config = "--config"
        case json = "--json"
        case seed = "--seed"
        case messages = "--messages"
        case watch = "--watch"
        case duration = "--duration"
        case fast = "--fast"
        case debug = "--debug"
        case report = "--report"
        case events = "--events"
        case configURL = "--config-url"
        case publicKey = "--public-key"
        case stateDir = "--state-dir"

        var takesValue: Bool {
            switch self {
            case .placement, .config, .seed, .messages, .duration, .report, .events, .configURL, .publicKey, .stateDir: true
            case .json, .watch, .fast, .debug: false
            }
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
        if arguments.first == "optimize" {
            return .optimize(try OptimizeOptionsParser.parse(Array(arguments.dropFirst())))
        }
        if arguments.contains(where: { $0 == "--version" || $0 == "-V" }) { return .version }
        if arguments.first == "simulate" {
            return .simulate(try SimulateOptionsParser.parse(Array(arguments.dropFirst())))
        }
        if arguments.first == "validate" {
            let values = try parseOptions(Array(arguments.dropFirst()), allowed: [.config], command: "validate")
            return .validate(ValidateOptions(configPath: values[.config]))
        }
        if arguments.first == "networks" {
            let values = try parseOptions(Array(arguments.dropFirst()), allowed: [.config, .json, .stateDir], command: "networks")
            return .networks(NetworksOptions(configPath: values[.config], json: values[.json] != nil, stateDirectory: values[.stateDir]))
        }
        guard !arguments.isEmpty else {
            throw UsageError(message: "missing --placement ID")
        }
        let values = try parseOptions(arguments, allowed: Set(Option.allCases), command: nil)
        guard let placementID = values[.placement] else {
            throw UsageError(message: "missing --placement ID")
        }
        var options = RunOptions(placementID: placementID)
        options.configPath = values[.config]
        options.json = values[.json] != nil
        options.messagesPath = values[.messages]
        options.watch = values[.watch] != nil
        options.fast = values[.fast] != nil
        options.reportPath = values[.report]
        if let debug = values[.debug] {
            guard let mode: DebugMode = debug.isEmpty ? .redacted : DebugMode(rawValue: debug) else {
                throw UsageError(message: "--debug takes no value or =unredacted, got '\(debug)'")
            }
            options.debug = mode
        }
        options.eventsPath = values[.events]
        if let text = values[.seed] {
            guard let seed = UInt64(text) else {
                throw UsageError(message: "--seed needs a whole number from 0 to \(UInt64.max), got '\(text)'")
            }
            options.seed = seed
        }
        if let text = values[.duration] {
            // The grammar of `mediate simulate --duration`: seconds (`300`, `0.5`) or a number
            // and a unit (`500ms`, `90s`, `5m`, `1h`, `1d`).
            guard let seconds = VirtualTimeText.seconds(text), seconds > 0, seconds <= maximumDurationSeconds else {
                throw UsageError(message: "--duration needs a positive number of seconds, or a number and a unit (90s, 5m, 1h, 1d), at most a week (\(Int(maximumDurationSeconds)) s), got '\(text.prefix(40))'")
            }
            options.duration = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        options.configURL = values[.configURL]
        options.publicKeyPath = values[.publicKey]
        options.stateDirectory = values[.stateDir]
        if options.configURL != nil, options.publicKeyPath == nil {
            throw UsageError(message: "--config-url needs --public-key FILE (the keys the configuration must be signed with)")
        }
        if options.configURL == nil, let stray = options.publicKeyPath != nil ? "--public-key" : options.stateDirectory != nil ? "--state-dir" : nil {
            throw UsageError(message: "\(stray) applies to --config-url only")
        }
        if !options.watch, values[.duration] != nil || options.fast || options.eventsPath != nil {
            throw UsageError(message: "\(values[.duration] != nil ? "--duration" : options.fast ? "--fast" : "--events") applies to --watch only")
        }
        return .run(options)
    }

    /// Reads `--name value`, `--name=value` and flags; a flag's value is `""`.
    private static func parseOptions(_ arguments: [String], allowed: Set<Option>, command: String?) throws(UsageError) -> [Option: String] {
        var values: [Option: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument.count > 1 else {
                if argument == "validate" {
                    throw UsageError(message: "'validate' must come first: mediate validate [--config FILE]")
                }
                if command == nil, values.isEmpty, index == 1 {
                    throw UsageError(message: "unknown command '\(argument)'")
                }
                throw UsageError(message: "unexpected argument '\(argument)'")
            }
            let name: String
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            } else {
                name = argument
            }
            guard let option = Option(rawValue: name) else {
                throw UsageError(message: "unknown option \(name)")
            }
            guard allowed.contains(option) else {
                throw UsageError(message: "\(name) does not apply to \(command.map { "mediate \($0)" } ?? "this command")")
            }
            guard values[option] == nil else {
                throw UsageError(message: "\(name) given more than once")
            }
            if option.takesValue {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                    value = arguments[index]
                    index += 1
                } else {
                    throw UsageError(message: "\(name) needs a value")
                }
                guard !value.isEmpty else {
                    throw UsageError(message: "\(name) needs a non-empty value")
                }
                values[option] = value
            } else {
                if option == .debug, let inlineValue {
                    values[option] = inlineValue // `--debug=unredacted`, checked by the caller
                    continue
                }
                if inlineValue != nil {
                    throw UsageError(message: "\(name) takes no value")
                }
                values[option] = ""
            }
        }
        return values
    }
}
