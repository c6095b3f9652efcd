/// What a `mediate` command line asks for, parsed by ``InvocationParser``.
enum Invocation: Equatable, Sendable {
    /// `mediate --help`: print the usage.
    case help
    /// `mediate --version`: print the version.
    case version
    /// `mediate validate [--config FILE]`: load the config and build every adapter.
    case validate(ValidateOptions)
    /// `mediate --placement ID …`: run one auction.
    case run(RunOptions)
    /// `mediate networks [--config FILE] [--json]`: each configured network's status.
    case networks(NetworksOptions)
    /// `mediate simulate --placement ID …`: what-if runs on the market model.
    case simulate(SimulateOptions)
    /// `mediate config keygen | sign | verify …`: signed remote configurations.
    case config(ConfigTool)
    /// `mediate optimize --reports FILE.csv… [--config FILE] …`: learned eCPMs.
    case optimize(OptimizeOptions)
    /// `mediate experiment report --config C --events E.ndjson… | --user-days U.csv… …`: an
    /// experiment's result per variant.
    case experiment(ExperimentOptions)
}

/// The options of `mediate networks`.
struct NetworksOptions: Equatable, Sendable {
    /// `--config FILE`; `nil` means `Config/mediation.json` in the current directory.
    var configPath: String?
    /// `--json`: print the networks as JSON.
    var json = false
    /// `--state-dir DIR`: read the networks' stored health (a pause kept by an earlier run with
    /// `--config-url … --state-dir DIR`, R24) from it; `nil`: every network starts closed.
    var stateDirectory: String?
    /// `--public-key FILE` (with `--state-dir`): the keys the run that stored a remote
    /// configuration in DIR trusted; the engine then launches as that run would (R22), on the
    /// stored configuration when it verifies and is the best local one.
    var publicKeyPath: String?
}

/// What `--debug` shows of each HTTP exchange.
enum DebugMode: String, Equatable, Sendable {
    /// `--debug`: user data and identifiers redacted (``HTTPExchangeRedactor``).
    case redacted
    /// `--debug=unredacted`: everything as it went over the wire.
    case unredacted
}

/// The options of `mediate validate`.
struct ValidateOptions: Equatable, Sendable {
    /// `--config FILE`; `nil` means `Config/mediation.json` in the current directory.
    var configPath: String?
}

/// The options of a placement run.
struct RunOptions: Equatable, Sendable {
    /// `--placement ID`: a key of the config's `placements`.
    var placementID: String
    /// `--config FILE`; `nil` means `Config/mediation.json` in the current directory.
    var configPath: String?
    /// `--json`: print the outcome and trace as JSON instead of the table.
    var json = false
    /// `--seed N`: the seed for the sandboxes and the fallback network (default 1).
    var seed: UInt64?
    /// `--messages FILE`: a JSON conversation passed in the request's host context.
    var messagesPath: String?
    /// `--watch`: keep the placement running as one visible view.
    var watch = false
    /// `--duration D`: how long watch mode runs (seconds, or a number and a unit: `5m`).
    var duration: Duration?
    /// `--fast`: watch mode on virtual time, run as fast as the CPU allows.
    var fast = false
    /// `--debug[=unredacted]`: print every HTTP exchange per source.
    var debug: DebugMode?
    /// `--report FILE`: write a self-contained HTML report of the run.
    var reportPath: String?
    /// `--events FILE`: watch mode writes every engine event there as NDJSON.
    var eventsPath: String?
    /// `--config-url URL`: a signed remote configuration, checked before the auction (one-shot)
    /// or as an app would (`--watch`), over `--config` as the bundled one.
    var configURL: String?
    /// `--public-key FILE`: the trusted keys of `--config-url` (one `KEY.pub` line each).
    var publicKeyPath: String?
    /// `--state-dir DIR`: where the remote configuration's cache and the install id are kept
    /// across runs (default: memory only).
    var stateDirectory: String?

    /// Whether any watch-mode option was given.
    var usesWatchMode: Bool { watch || duration != nil || fast || eventsPath != nil }
}

/// The command line is wrong: says what, for one line on standard error (exit 64).
struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, e.g. `unknown option --palcement`.
    var message: String

    /// The message.
    var description: String { message }
}
