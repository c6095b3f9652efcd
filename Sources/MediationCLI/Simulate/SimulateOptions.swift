import Mediation
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
        /// `--compare-health`: the engine without network health (A) against the engine with the
        /// configuration's health settings (B), on the same draws.
        case compareHealth
        /// `--sweep SPEC`: one parameter over a range.
        case sweep(SweepSpecification)
        /// `--duration SECONDS` alone: a refreshing placement in one visible view over virtual
        /// time (``SimulateOptions/rate`` is `nil`).
        case duration(Duration)
        /// `--replay FILE`: a recorded event log re-run under the configuration.
        case replay(String)
        /// `--days D [--learner L] [--drift SPEC] [--write-reports DIR] [--country CC]`: the
        /// learning loop.
        case learn(LearningMode)
        /// `--users N --days D [--events FILE] [--compare OTHER]`: users through days.
        case users(UsersMode)
    }

    /// A users run's options.
    struct UsersMode: Equatable, Sendable {
        /// `--users N`.
        var users: Int
        /// `--days D` (default 1).
        var days: Int
        /// `--events FILE.ndjson`.
        var eventsPath: String?
        /// `--compare OTHER`: the same users under another configuration.
        var comparePath: String?
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
        /// `--country CC`: a country whose daily ratio to its limit the run adds.
        var country: String?
    }

    /// The default number of auctions.
    static let defaultAuctions = 10_000
    /// The default rate of a timed run, requests per second.
    static let defaultRate: Double = 10
    /// The most shards run at once.
    static let maximumJobs = 256
    /// The most user-days a users run takes (`--users × --days`).
    static let maximumUserDays = 100_000_000
    /// The most auctions a run asks for: `--auctions`, or a timed run's `--duration × --rate`.
    static let maximumAuctions = 1_000_000_000

    /// `--placement ID` (optional for `--users`: every full-screen placement; empty then).
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
    /// A timed run's virtual time (`--duration` with `--rate`, `--compare`, `--compare-health`
    /// or `--sweep`, or on a placement that does not refresh): auctions at ``rate`` per second.
    var timedDuration: Duration?
    /// `--rate R`: a timed run's requests per second (default 10).
    var rate: Double?
    /// `--window SECONDS`: a timed run's window (default 60 s).
    var window: Duration?
}

/// Parses `mediate simulate …` (the arguments after `simulate`).
///
/// ```
/// mediate simulate --placement P [--config F] [--market M] [--auctions N | --duration D [--rate R] [--window W]]
///                  [--seed S] [--json] [--jobs K] [--report FILE.html]
///                  [--compare OTHER_CONFIG | --compare-health | --sweep SPEC | --replay FILE.ndjson
///                   | --days D [--learner L] [--drift NETWORK:FACTOR@DAY] [--write-reports DIR] [--country CC]]
/// mediate simulate --users N [--days D] [--placement P] [--config F] [--market M] [--seed S] [--json] [--jobs K]
///                  [--events FILE.ndjson] [--compare OTHER_CONFIG]
/// ```
/// D and W: seconds, or a number and a unit (`90s`, `10m`, `1h`, `1d`). `--duration` runs
/// auctions at R requests per second (default 10) over D of virtual time; on a refreshing
/// placement without `--rate`, `--compare`, `--compare-health` or `--sweep` it runs the
/// placement in one visible view instead.
/// SPEC: `floor=0.5:4.0:0.25`, `deadline_ms=500:3000:250`, `LINE_ITEM.ecpm=1.0:2.0:0.2` (or
/// `ecpm[LINE_ITEM]=…`); a list `A,B,C` or one value instead of `FROM:TO:STEP`.
enum SimulateOptionsParser {
    private static let grammar = OptionReader.Grammar(
        command: "simulate",
        valued: ["--placement", "--config", "--market", "--auctions", "--seed", "--compare", "--sweep", "--duration", "--jobs", "--replay", "--report", "--rate", "--window", "--days", "--learner", "--drift", "--write-reports", "--users", "--events", "--country"],
        flags: ["--json", "--compare-health"]
    ) { argument, _ in UsageError(message: "unexpected argument '\(argument.prefix(80))' after simulate") }

    /// Parses the arguments after `simulate`.
    /// - Throws: ``UsageError`` saying what is wrong.
    static func parse(_ arguments: [String]) throws(UsageError) -> SimulateOptions {
        let values = try OptionReader(arguments, grammar)
        if values["--users"] != nil { return try users(values) }
        if values["--events"] != nil { throw UsageError(message: "--events applies to a users run: give --users N too") }
        guard let placementID = values["--placement"] else { throw UsageError(message: "mediate simulate needs --placement ID") }
        var options = SimulateOptions(placementID: placementID)
        options.configPath = values["--config"]
        options.marketPath = values["--market"]
        options.json = values["--json"] != nil
        options.reportPath = values["--report"]
        options.auctions = try values.whole("--auctions", in: 1...SimulateOptions.maximumAuctions) ?? options.auctions
        options.seed = try values.whole("--seed", in: 0...UInt64.max) ?? options.seed
        options.jobs = try values.whole("--jobs", in: 1...SimulateOptions.maximumJobs) ?? options.jobs
        let modes = ["--compare", "--compare-health", "--sweep", "--replay", "--days"].filter { values[$0] != nil }
        guard modes.count <= 1 else { throw UsageError(message: "\(modes[0]) and \(modes[1]) do not combine: give one of --compare, --compare-health, --sweep, --replay, --days") }
        for name in ["--learner", "--drift", "--write-reports", "--country"] where values[name] != nil && values["--days"] == nil {
            throw UsageError(message: "\(name) applies to the learning loop: give --days D")
        }
        if let text = values["--days"] {
            if values["--duration"] != nil { throw UsageError(message: "--duration does not apply to --days (each day is --auctions N auctions)") }
            var learning = try learning(days: text, learners: values["--learner"], drifts: values["--drift"], reportsDirectory: values["--write-reports"])
            if let country = values["--country"] {
                guard country.utf8.count == 2, country.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }) else {
                    throw UsageError(message: "--country needs an upper-case ISO 3166-1 alpha-2 code of the market (e.g. IN), got '\(country.prefix(40))'")
                }
                learning.country = country
            }
            try checkAuctions(days: learning.days, auctions: options.auctions)
            options.mode = .learn(learning)
        }
        if let file = values["--compare"] { options.mode = .compare(file) }
        if values["--compare-health"] != nil { options.mode = .compareHealth }
        if let text = values["--sweep"] { options.mode = .sweep(try sweep(text)) }
        if let file = values["--replay"] {
            if values["--auctions"] != nil { throw UsageError(message: "--auctions does not apply to --replay (the recording's auctions are replayed)") }
            if values["--duration"] != nil { throw UsageError(message: "--duration does not apply to --replay (the recording's auctions are replayed)") }
            options.mode = .replay(file)
        }
        if values["--duration"] == nil {
            for name in ["--rate", "--window"] where values[name] != nil {
                throw UsageError(message: "\(name) applies to a timed run: give --duration D too")
            }
        }
        if let text = values["--duration"] {
            guard let duration = virtualTime(text), duration > .zero, duration <= .seconds(366 * 86_400) else {
                throw UsageError(message: "--duration needs a positive number of seconds, or a number and a unit (90s, 10m, 1h, 1d), at most a year (31622400 s), got '\(text.prefix(40))'")
            }
            if values["--auctions"] != nil { throw UsageError(message: "--auctions does not apply to --duration (the auctions follow from the duration and the rate)") }
            options.rate = try values.decimal("--rate", "a number of requests per second above 0 and at most \(Int(SimulationOptions.maximumRate))") { $0 > 0 && $0 <= SimulationOptions.maximumRate }
            if let text = values["--window"] {
                guard let window = virtualTime(text), window >= .seconds(1), window <= duration else {
                    throw UsageError(message: "--window needs a length from 1 s to the duration, in seconds or with a unit (30s, 1m), got '\(text.prefix(40))'")
                }
                options.window = window
            }
            if options.mode == .run, options.rate == nil, options.window == nil {
                // Decided with the configuration: a refreshing placement runs in one view, any
                // other as a timed run at the default rate.
                options.mode = .duration(duration)
            }
            options.timedDuration = duration
            if case .duration = options.mode {} else if options.rate == nil { options.rate = SimulateOptions.defaultRate }
            if let rate = options.rate { try checkAuctions(duration: duration, rate: rate) }
        }
        if case .duration = options.mode, values["--report"] != nil, options.rate == nil {
            throw UsageError(message: "--report applies to runs of auctions, not to a refreshing placement's --duration (add --rate R for a timed run)")
        }
        return options
    }

    /// The options of a users run (`--users N`).
    private static func users(_ values: OptionReader) throws(UsageError) -> SimulateOptions {
        for name in ["--auctions", "--duration", "--rate", "--window", "--sweep", "--replay", "--compare-health", "--learner", "--drift", "--write-reports", "--report", "--country"] where values[name] != nil {
            throw UsageError(message: "\(name) does not apply to a users run (--users N --days D)")
        }
        var options = SimulateOptions(placementID: values["--placement"] ?? "")
        options.configPath = values["--config"]
        options.marketPath = values["--market"]
        options.json = values["--json"] != nil
        options.seed = try values.whole("--seed", in: 0...UInt64.max) ?? options.seed
        options.jobs = try values.whole("--jobs", in: 1...SimulateOptions.maximumJobs) ?? options.jobs
        let users = try values.whole("--users", in: 1...UsersOptions.maximumUsers) ?? 1
        let days = try values.whole("--days", in: 1...UsersOptions.maximumDays) ?? 1
        let (userDays, overflow) = users.multipliedReportingOverflow(by: days)
        if overflow || userDays > SimulateOptions.maximumUserDays {
            throw UsageError(message: "--users × --days gives more than \(SimulateOptions.maximumUserDays) user-days, the most a run takes (\(users) × \(days)): give fewer --users or --days")
        }
        options.mode = .users(SimulateOptions.UsersMode(users: users, days: days, eventsPath: values["--events"], comparePath: values["--compare"]))
        return options
    }

    /// Refuses a timed run whose `duration × rate` is less than one auction (it would otherwise
    /// be rounded up to one auction the flags did not ask for), or more than
    /// ``maximumAuctions``, the bound of `--auctions`, naming both flags and their true product
    /// (the simulation's own check names `auctions`, a count it caps).
    /// - Parameters:
    ///   - duration: `--duration`.
    ///   - rate: `--rate`, or the default rate.
    /// - Throws: ``UsageError`` naming both flags and their product.
    static func checkAuctions(duration: Duration, rate: Double) throws(UsageError) {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        let auctions = seconds * rate
        let text = { (value: Double) in DecimalText.trimmed(value, minimumDigits: 0, maximumDigits: 9) }
        if auctions > Double(SimulateOptions.maximumAuctions) {
            throw UsageError(message: "--duration × --rate gives more than \(SimulateOptions.maximumAuctions) auctions, the most a run takes (\(text(seconds)) s × \(text(rate)) per second = \(text(auctions.rounded()))): give a shorter --duration or a lower --rate")
        }
        guard auctions < 1 else { return }
        throw UsageError(message: "--duration × --rate gives fewer than 1 auction (\(text(seconds)) s × \(text(rate)) per second = \(text(auctions))): give a longer --duration or a higher --rate")
    }

    /// Refuses a learning loop of more auctions in all (`--days × --auctions`) than
    /// ``SimulateOptions/maximumAuctions``, the bound of every run.
    /// - Throws: ``UsageError`` naming both options and their product.
    static func checkAuctions(days: Int, auctions: Int) throws(UsageError) {
        let (total, overflow) = days.multipliedReportingOverflow(by: auctions)
        guard overflow || total > SimulateOptions.maximumAuctions else { return }
        throw UsageError(message: "--days × --auctions gives more than \(SimulateOptions.maximumAuctions) auctions, the most a run takes (\(days) × \(auctions)): give fewer --days or --auctions")
    }

    /// The learning loop's options from their texts.
    static func learning(days text: String, learners: String?, drifts: String?, reportsDirectory: String?) throws(UsageError) -> SimulateOptions.LearningMode {
        let days = try OptionReader.whole("--days", text, in: 1...LearningOptions.maximumDays)
        var names = ECPMLearners.all
        if let learners, learners != "all" {
            let given = learners.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            for name in given where name != "all" && !ECPMLearners.names.contains(name) {
                throw UsageError(message: "--learner: unknown learner '\(name.prefix(40))'; known: \(ECPMLearners.names.joined(separator: ", ")), or all")
            }
            // A list is a union in the known order: `all,thompson` runs all five, `all,bayes` the
            // first four; only a learner named twice by name is refused.
            let named = given.filter { $0 != "all" }
            guard Set(named).count == named.count else { throw UsageError(message: "--learner: a learner is named twice") }
            let wanted = Set(named).union(given.contains("all") ? ECPMLearners.all : [])
            names = ECPMLearners.names.filter(wanted.contains)
        }
        var parsed: [PriceDrift] = []
        for spec in (drifts ?? "").split(separator: ",", omittingEmptySubsequences: false) where drifts != nil {
            do {
                parsed.append(try PriceDrift(parsing: String(spec)))
            } catch {
                throw UsageError(message: "--" + error.message)
            }
            if let drift = parsed.last, drift.fromDay > days {
                throw UsageError(message: "--drift '\(spec.prefix(80))': day \(drift.fromDay) is after the last day of the run (--days \(days)), so it would never apply")
            }
        }
        return SimulateOptions.LearningMode(days: days, learners: names, drifts: parsed, reportsDirectory: reportsDirectory)
    }

    /// A length of virtual time: seconds (`90`, `0.5`), or a number and a unit (`500ms`, `90s`,
    /// `10m`, `1.5h`, `1d`); `nil` when it is neither.
    static func virtualTime(_ text: String) -> Duration? {
        guard let seconds = VirtualTimeText.seconds(text), seconds <= 10 * 366 * 86_400 else { return nil }
        return .milliseconds(Int64((seconds * 1000).rounded()))
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
