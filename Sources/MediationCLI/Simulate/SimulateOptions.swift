import MediationLearning
import MediationSimulation

/// The options of `mediate simulate`, parsed by ``SimulateOptionsParser``.
struct SimulateOptions: Equatable, Sendable {
    /// What kind of run.
    enum Mode: Equatable, Sendable {
        /// N auctions of the configuration.
        case run
        /// `--compare FILE`: the configuration (A) against another (B) on the same draws.
        case compare(String)
        /// `--sweep SPEC`: one parameter over a range.
        case sweep(SweepSpecification)
        /// `--duration SECONDS`: a refreshing placement over virtual time.
        case duration(Duration)
        /// `--replay FILE`: a recorded event log re-run under the configuration.
        case replay(String)
        /// `--days D [--learner L] [--drift SPEC] [--write-reports DIR]`: the learning loop.
        case learn(LearningMode)
    }

    /// The learning loop's options.
    struct LearningMode: Equatable, Sendable {
        /// `--days D`.
        var days: Int
        /// `--learner NAME[,NAME…]` or `all` (the default): the learners, in their canonical order.
        var learners: [String]
        /// `--drift NETWORK:FACTOR@DAY[,…]`.
        var drifts: [PriceDrift]
        /// `--write-reports DIR`.
        var reportsDirectory: String?
    }

    /// The default number of auctions.
    static let defaultAuctions = 10_000
    /// The most shards run at once.
    static let maximumJobs = 256

    /// `--placement ID`.
    var placementID: String
    /// `--config FILE` (A); `nil`: `Config/mediation.json`.
    var configPath: String?
    /// `--market FILE`; `nil`: `Config/market.json`.
    var marketPath: String?
    /// `--auctions N` (default 10,000).
    var auctions: Int = SimulateOptions.defaultAuctions
    /// `--seed S` (default 1).
    var seed: UInt64 = 1
    /// `--json`.
    var json = false
    /// `--jobs K` (default 1).
    var jobs = 1
    /// `--report FILE.html`.
    var reportPath: String?
    /// The kind of run.
    var mode: Mode = .run
}

/// Parses `mediate simulate …` (the arguments after `simulate`).
///
/// ```
/// mediate simulate --placement P [--config F] [--market M] [--auctions N] [--seed S] [--json]
///                  [--jobs K] [--report FILE.html]
///                  [--compare OTHER_CONFIG | --sweep SPEC | --duration SECONDS | --replay FILE.ndjson
///                   | --days D [--learner L] [--drift NETWORK:FACTOR@DAY] [--write-reports DIR]]
/// ```
/// SPEC: `floor=0.5:4.0:0.25`, `deadline_ms=500:3000:250`, `LINE_ITEM.ecpm=1.0:2.0:0.2` (or
/// `ecpm[LINE_ITEM]=…`); a list `A,B,C` or one value instead of `FROM:TO:STEP`.
enum SimulateOptionsParser {
    private static let valued: Set<String> = ["--placement", "--config", "--market", "--auctions", "--seed", "--compare", "--sweep", "--duration", "--jobs", "--replay", "--report", "--days", "--learner", "--drift", "--write-reports"]
    private static let flags: Set<String> = ["--json"]

    /// Parses the arguments after `simulate`.
    /// - Throws: ``UsageError`` saying what is wrong.
    static func parse(_ arguments: [String]) throws(UsageError) -> SimulateOptions {
        var values: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") else {
                throw UsageError(message: "unexpected argument '\(argument.prefix(80))' after simulate")
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            guard valued.contains(name) || flags.contains(name) else {
                throw UsageError(message: "unknown option \(name.prefix(80)) for mediate simulate")
            }
            guard values[name] == nil else { throw UsageError(message: "\(name) given more than once") }
            if flags.contains(name) {
                guard inline == nil else { throw UsageError(message: "\(name) takes no value") }
                values[name] = ""
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "\(name) needs a value")
            }
            guard !value.isEmpty else { throw UsageError(message: "\(name) needs a non-empty value") }
            values[name] = value
        }
        guard let placementID = values["--placement"] else { throw UsageError(message: "mediate simulate needs --placement ID") }
        var options = SimulateOptions(placementID: placementID)
        options.configPath = values["--config"]
        options.marketPath = values["--market"]
        options.json = values["--json"] != nil
        options.reportPath = values["--report"]
        if let text = values["--auctions"] {
            guard let auctions = Int(text), auctions >= 1, auctions <= 1_000_000_000 else {
                throw UsageError(message: "--auctions needs a whole number from 1 to 1000000000, got '\(text.prefix(40))'")
            }
            options.auctions = auctions
        }
        if let text = values["--seed"] {
            guard let seed = UInt64(text) else { throw UsageError(message: "--seed needs a whole number from 0 to \(UInt64.max), got '\(text.prefix(40))'") }
            options.seed = seed
        }
        if let text = values["--jobs"] {
            guard let jobs = Int(text), jobs >= 1, jobs <= SimulateOptions.maximumJobs else {
                throw UsageError(message: "--jobs needs a whole number from 1 to \(SimulateOptions.maximumJobs), got '\(text.prefix(40))'")
            }
            options.jobs = jobs
        }
        let modes = ["--compare", "--sweep", "--duration", "--replay", "--days"].filter { values[$0] != nil }
        guard modes.count <= 1 else { throw UsageError(message: "\(modes[0]) and \(modes[1]) do not combine: give one of --compare, --sweep, --duration, --replay, --days") }
        for name in ["--learner", "--drift", "--write-reports"] where values[name] != nil && values["--days"] == nil {
            throw UsageError(message: "\(name) applies to the learning loop: give --days D")
        }
        if let text = values["--days"] {
            options.mode = .learn(try learning(days: text, learners: values["--learner"], drifts: values["--drift"], reportsDirectory: values["--write-reports"]))
        }
        if let file = values["--compare"] { options.mode = .compare(file) }
        if let text = values["--sweep"] { options.mode = .sweep(try sweep(text)) }
        if let file = values["--replay"] {
            if values["--auctions"] != nil { throw UsageError(message: "--auctions does not apply to --replay (the recording's auctions are replayed)") }
            options.mode = .replay(file)
        }
        if let text = values["--duration"] {
            guard let seconds = Double(text), seconds.isFinite, seconds > 0, seconds <= 366 * 86_400 else {
                throw UsageError(message: "--duration needs a positive number of seconds (at most a year, 31622400), got '\(text.prefix(40))'")
            }
            if values["--auctions"] != nil { throw UsageError(message: "--auctions does not apply to --duration (the placement refreshes over virtual time)") }
            if values["--report"] != nil { throw UsageError(message: "--report applies to runs of auctions, not to --duration") }
            options.mode = .duration(.milliseconds(Int64((seconds * 1000).rounded())))
        }
        return options
    }

    /// The learning loop's options from their texts.
    static func learning(days text: String, learners: String?, drifts: String?, reportsDirectory: String?) throws(UsageError) -> SimulateOptions.LearningMode {
        guard let days = Int(text), days >= 1, days <= LearningOptions.maximumDays else {
            throw UsageError(message: "--days needs a whole number from 1 to \(LearningOptions.maximumDays), got '\(text.prefix(40))'")
        }
        var names = ECPMLearners.all
        if let learners, learners != "all" {
            let given = learners.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for name in given where !ECPMLearners.names.contains(name) {
                throw UsageError(message: "--learner: unknown learner '\(name.prefix(40))'; known: \(ECPMLearners.names.joined(separator: ", ")), or all")
            }
            guard Set(given).count == given.count else { throw UsageError(message: "--learner: a learner is named twice") }
            names = ECPMLearners.names.filter(given.contains)
        }
        var parsed: [PriceDrift] = []
        for spec in (drifts ?? "").split(separator: ",", omittingEmptySubsequences: false) where drifts != nil {
            do {
                parsed.append(try PriceDrift(parsing: String(spec)))
            } catch {
                throw UsageError(message: "--" + error.message)
            }
        }
        return SimulateOptions.LearningMode(days: days, learners: names, drifts: parsed, reportsDirectory: reportsDirectory)
    }

    /// A sweep as the command line writes it: `floor=…`, `deadline_ms=…`, `LINE_ITEM.ecpm=…`
    /// or `ecpm[LINE_ITEM]=…`.
    static func sweep(_ text: String) throws(UsageError) -> SweepSpecification {
        var spec = text
        if let equals = text.firstIndex(of: "=") {
            let name = text[..<equals]
            if name.hasSuffix(".ecpm"), name.count > ".ecpm".count {
                spec = "ecpm[\(name.dropLast(".ecpm".count))]" + text[equals...]
            }
        }
        do {
            return try SweepSpecification(parsing: spec)
        } catch {
            throw UsageError(message: "--sweep \(error.message)")
        }
    }
}
