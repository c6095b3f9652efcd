import Foundation
import Mediation
import MediationLearning

/// The options of `mediate optimize`.
struct OptimizeOptions: Equatable, Sendable {
    /// `--config FILE`; `nil` means `Config/mediation.json` in the current directory.
    var configPath: String?
    /// `--reports FILE...`: the networks' revenue reports (CSV), at least one.
    var reportPaths: [String] = []
    /// `--events FILE`: the engine's NDJSON events, the app's own impressions.
    var eventsPath: String?
    /// `--events-start DAY`: the UTC day on whose midnight the events file's clock started, so
    /// its impressions are compared per day.
    var eventsStart: UTCDay?
    /// `--as-of DAY`: the day the estimates are for (default: the latest reported day).
    var asOf: UTCDay?
    /// `--json`: print the estimates as JSON.
    var json = false
    /// `--write FILE`: write the config with the learned eCPMs there.
    var writePath: String?
}

/// Parses `mediate optimize`'s arguments (after `optimize`):
/// `--config C --reports R.csv... [--events E.ndjson [--events-start DAY]] [--as-of DAY] [--json]
/// [--write NEW.json]`.
/// `--reports` takes every following argument up to the next option; a value may also follow
/// `=` (`--as-of=2026-03-10`). Each option may be given once.
enum OptimizeOptionsParser {
    /// Parses the arguments after `optimize`.
    /// - Throws: ``UsageError`` saying what is wrong.
    static func parse(_ arguments: [String]) throws(UsageError) -> OptimizeOptions {
        let values = try OptionReader(arguments, OptionReader.Grammar(
            command: "optimize", valued: ["--config", "--events", "--events-start", "--as-of", "--write"], flags: ["--json"], lists: ["--reports"]
        ) { argument, _ in UsageError(message: "unexpected argument '\(argument.prefix(80))'") })
        var options = OptimizeOptions()
        options.configPath = values["--config"]
        options.eventsPath = values["--events"]
        options.writePath = values["--write"]
        options.json = values.has("--json")
        options.reportPaths = values.lists["--reports"] ?? []
        for name in ["--as-of", "--events-start"] {
            guard let text = values[name] else { continue }
            guard let day = UTCDay(text) else {
                throw UsageError(message: "\(name) needs a UTC day YYYY-MM-DD from \(UTCDay.earliest) to \(UTCDay.latest), got '\(text.prefix(40))'")
            }
            if name == "--as-of" { options.asOf = day } else { options.eventsStart = day }
        }
        if options.eventsStart != nil, options.eventsPath == nil {
            throw UsageError(message: "--events-start applies to --events only")
        }
        guard !options.reportPaths.isEmpty else {
            throw UsageError(message: "mediate optimize needs --reports FILE.csv... (the networks' revenue reports)")
        }
        return options
    }
}

/// `mediate optimize`: learns each fixed-price line item's eCPM from the networks' revenue
/// reports (``BayesianECPM``, `docs/learning.md`), prints it per line item with its 90 %
/// interval and decision, and with `--write` writes the config with the learned eCPMs.
enum OptimizeCommand {
    static func run(_ options: OptimizeOptions, environment: CommandEnvironment) async -> ExitCode {
        let configPath = options.configPath ?? MediateCommand.defaultConfigPath
        let configURL = environment.resolve(configPath)
        let configuration: MediationConfiguration
        do {
            configuration = try ConfigurationLoader(registry: environment.registry).load(contentsOf: configURL)
        } catch {
            return MediateCommand.report(.configuration(path: configPath, error), environment: environment)
        }
        let reports: [RevenueReportInput]
        switch ReportFiles.open(options.reportPaths, environment: environment) {
        case .success(let inputs): reports = inputs
        case .failure(let exit): return exit.code
        }
        var events: (file: String, bytes: [UInt8])?
        if let path = options.eventsPath {
            switch read(path, limit: AppImpressions.maximumSize, what: "events", environment: environment) {
            case .success(let bytes): events = (path, bytes)
            case .failure(let exit): return exit.code
            }
        }
        let assembly: ReportAssembly
        do {
            assembly = try ReportAssembly(reading: reports, events: events, eventsStart: options.eventsStart, asOf: options.asOf, configuration: configuration)
        } catch {
            return MediateCommand.fail(.dataError, "invalid input: \(error)", environment: environment)
        }
        var warnings = assembly.warnings
        var warningCounts = assembly.warningCounts
        if let asOf = options.asOf, let later = assembly.rowsAfterAsOf {
            warnings.append(laterRows(later, asOf: asOf))
            warningCounts[.afterAsOf, default: 0] += 1
        }
        printWarnings(warnings, counts: warningCounts, environment: environment)
        guard let asOf = options.asOf ?? assembly.latestDay else {
            // A report with its header only: no day to learn as of (not 1970-01-01).
            let files = options.reportPaths.map { DisplayText.escaped($0) }.joined(separator: ", ")
            return MediateCommand.fail(.dataError, "the reports hold no rows (\(files)): nothing to learn from; give --as-of DAY to print the configured prices anyway", environment: environment)
        }
        let estimator = BayesianECPM()
        let estimates = estimator.estimate(assembly.inputs, asOf: asOf)
        if let figure = nonFiniteFigure(in: estimates) {
            return MediateCommand.fail(.software, "\(figure); nothing is printed or written", environment: environment)
        }

        if let writePath = options.writePath {
            let text: String
            do {
                let bytes = try [UInt8](Data(contentsOf: configURL))
                text = try LearnedConfiguration.rewrite(bytes, configuration: configuration, estimates: estimates)
                _ = try ConfigurationLoader(registry: environment.registry).load(json: text)
            } catch {
                return MediateCommand.fail(.software, "the learned configuration does not load: \(error)", environment: environment)
            }
            do throws(OutputFile.Failure) {
                try OutputFile.writeAtomically(text, to: environment.resolve(writePath))
            } catch {
                return MediateCommand.fail(.cannotCreate, "cannot write \(writePath): \(error.message)", environment: environment)
            }
        }

        if options.json {
            guard let text = json(estimates, asOf: asOf, parameters: estimator.parameters, warnings: warnings, counts: warningCounts, written: options.writePath) else {
                return MediateCommand.fail(.software, "the estimates cannot be written as JSON", environment: environment)
            }
            environment.standardOutput.write(text)
        } else {
            environment.standardOutput.write(table(estimates, asOf: asOf, parameters: estimator.parameters, written: options.writePath))
        }
        return .success
    }

    /// Prints the warnings on standard error: the first ``ReportAssembly/listedWarningsPerKind``
    /// of each kind (all that `warnings` lists), then one line per kind with how many more
    /// `counts` has (100,000 rows of unknown ad units print 21 lines, not 100,000).
    private static func printWarnings(_ warnings: [ReportWarning], counts: [ReportWarning.Code: Int], environment: CommandEnvironment) {
        var listed: [ReportWarning.Code: Int] = [:]
        var order: [ReportWarning.Code] = []
        for warning in warnings {
            if listed[warning.code] == nil { order.append(warning.code) }
            listed[warning.code, default: 0] += 1
            environment.standardError.write("mediate: warning: \(DisplayText.escaped(warning.description))\n")
        }
        for code in order {
            let more = counts[code, default: 0] - listed[code, default: 0]
            guard more > 0 else { continue }
            let what: String = switch code {
            case .unknownAdUnit: "rows for unknown ad units"
            case .missingDay: "gaps of missing days"
            case .impressionDiscrepancy: "impression discrepancies"
            default: "warnings"
            }
            environment.standardError.write("mediate: warning: … and \(more) more \(what) (\(DisplayText.escaped(code.rawValue)))\n")
        }
    }

    /// One `after_as_of` warning for the rows dated after `asOf` (which the estimates do not
    /// use), at the first of them.
    private static func laterRows(_ later: (count: Int, first: ReportLocation, latest: UTCDay), asOf: UTCDay) -> ReportWarning {
        let counted = later.count == 1 ? "1 report row is" : "\(later.count) report rows are"
        return ReportWarning(code: .afterAsOf, location: later.first, message: "\(counted) dated after --as-of \(asOf) (up to \(later.latest)) and not used; the first is here")
    }

    /// Reads an input file whole, at most `limit` bytes (66 when it is missing or unreadable,
    /// 65 when it is larger).
    private static func read(_ path: String, limit: Int, what: String, environment: CommandEnvironment) -> Result<[UInt8], MediateCommand.Exit> {
        InputFile.read(path, what: what, limit: limit, environment: environment).map { [UInt8]($0) }
    }

    private static func price(_ value: Double) -> String { DecimalText.fixed(value, digits: 4) }

    private static func table(_ estimates: [BayesianECPM.Estimate], asOf: UTCDay, parameters: BayesianECPM.Parameters, written: String?) -> String {
        var out = "learned eCPMs (USD CPM) as of \(asOf): half-life \(DisplayText.number(parameters.halfLifeDays)) days, pooling estimated from the data (configured prices a prior of relative sd \(DisplayText.number(parameters.priorRelativeSD))), at least \(DisplayText.number(parameters.minimumEffectiveImpressions)) effective impressions, change capped at ±\(DisplayText.number(parameters.maximumChange * 100)) %\n"
        let header = ["placement", "line item", "configured", "learned", "90 % interval", "impressions", "days", "decision", "new eCPM"]
        var rows = [header]
        for estimate in estimates {
            rows.append([
                DisplayText.escaped(estimate.placementID), DisplayText.escaped(estimate.lineItemID),
                price(estimate.configuredECPM), price(estimate.mean), "\(price(estimate.lower))–\(price(estimate.upper))",
                "\(estimate.impressions) (\(DisplayText.number(estimate.effectiveImpressions.rounded())) eff.)", "\(estimate.days)",
                estimate.decision.rawValue, price(estimate.newECPM),
            ])
            for country in estimate.countries {
                rows.append([
                    "", "  \(country.country)", "", price(country.mean), "\(price(country.lower))–\(price(country.upper))",
                    "\(country.impressions) (\(DisplayText.number(country.effectiveImpressions.rounded())) eff.)", "\(country.days)",
                    country.differs(from: estimate.mean) ? "differs" : "as line item", "",
                ])
            }
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            out += row.enumerated().map { column, cell in cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        if estimates.isEmpty { out += "(no fixed-price line items)\n" }
        if let written { out += "wrote \(DisplayText.escaped(written))\n" }
        return out
    }

    private struct JSONOutput: Encodable {
        struct LineItemEstimate: Encodable {
            var placement: String
            var line_item: String
            var network: String
            var configured_ecpm: Double
            var pooled_ecpm: Double
            var learned_ecpm: Double
            var ecpm_sd: Double
            var interval_90: [Double]
            var impressions: Int
            var effective_impressions: Double
            var days: Int
            var decision: String
            var new_ecpm: Double
            /// The line item's countries with data (reports with a country column).
            var countries: [Country]
        }
        struct Country: Encodable {
            var country: String
            var learned_ecpm: Double
            var ecpm_sd: Double
            var interval_90: [Double]
            var shrinkage: Double
            var impressions: Int
            var effective_impressions: Double
            var days: Int
            /// Whether the interval excludes the line item's learned price.
            var differs: Bool
        }
        struct Warning: Encodable {
            var code: String
            var location: String
            var message: String
        }
        struct Parameters: Encodable {
            var half_life_days: Double
            var window_days: Int
            var prior_relative_sd: Double
            var minimum_effective_impressions: Double
            var maximum_change: Double
        }
        var as_of: String
        var parameters: Parameters
        var line_items: [LineItemEstimate]
        var warnings: [Warning]
        /// Warnings of a kind beyond those listed, by code (absent when every one is listed).
        var warnings_not_listed: [String: Int]?
        var written: String?
    }

    private static func countries(_ estimate: BayesianECPM.Estimate) -> [JSONOutput.Country] {
        estimate.countries.map {
            .init(country: $0.country, learned_ecpm: $0.mean, ecpm_sd: $0.standardDeviation, interval_90: [$0.lower, $0.upper], shrinkage: $0.shrinkage, impressions: $0.impressions, effective_impressions: $0.effectiveImpressions, days: $0.days, differs: $0.differs(from: estimate.mean))
        }
    }

    private static func json(_ estimates: [BayesianECPM.Estimate], asOf: UTCDay, parameters: BayesianECPM.Parameters, warnings: [ReportWarning], counts: [ReportWarning.Code: Int], written: String?) -> String? {
        var notListed: [String: Int] = [:]
        for (code, count) in counts {
            let more = count - warnings.count { $0.code == code }
            if more > 0 { notListed[code.rawValue] = more }
        }
        let output = JSONOutput(
            as_of: asOf.description,
            parameters: .init(half_life_days: parameters.halfLifeDays, window_days: parameters.windowDays, prior_relative_sd: parameters.priorRelativeSD, minimum_effective_impressions: parameters.minimumEffectiveImpressions, maximum_change: parameters.maximumChange),
            line_items: estimates.map {
                .init(placement: $0.placementID, line_item: $0.lineItemID, network: $0.network, configured_ecpm: $0.configuredECPM, pooled_ecpm: $0.pooledECPM, learned_ecpm: $0.mean, ecpm_sd: $0.standardDeviation, interval_90: [$0.lower, $0.upper], impressions: $0.impressions, effective_impressions: $0.effectiveImpressions, days: $0.days, decision: $0.decision.rawValue, new_ecpm: $0.newECPM, countries: countries($0))
            },
            warnings: warnings.map { .init(code: $0.code.rawValue, location: $0.location.description, message: $0.message) },
            warnings_not_listed: notListed.isEmpty ? nil : notListed,
            written: written
        )
        return try? ReportFormat.json(output)
    }

    /// The first figure of `estimates` that is not a finite number, named by its line item and
    /// its `--json` field: `line item "home_banner_nitx" of placement "home_banner": learned_ecpm
    /// is nan, not a finite number`; `nil` when every one is finite. Estimates with one are
    /// never printed nor written (the table would show `nan`, `--json` a string, `--write` a
    /// config that does not load).
    static func nonFiniteFigure(in estimates: [BayesianECPM.Estimate]) -> String? {
        for estimate in estimates {
            var figures: [(String, Double)] = [
                ("configured_ecpm", estimate.configuredECPM), ("pooled_ecpm", estimate.pooledECPM), ("learned_ecpm", estimate.mean),
                ("ecpm_sd", estimate.standardDeviation), ("interval_90[0]", estimate.lower), ("interval_90[1]", estimate.upper),
                ("effective_impressions", estimate.effectiveImpressions), ("new_ecpm", estimate.newECPM),
            ]
            for (index, country) in estimate.countries.enumerated() {
                figures += [
                    ("learned_ecpm", country.mean), ("ecpm_sd", country.standardDeviation), ("interval_90[0]", country.lower),
                    ("interval_90[1]", country.upper), ("shrinkage", country.shrinkage), ("effective_impressions", country.effectiveImpressions),
                ].map { ("countries[\(index)] (\(DisplayText.escaped(country.country))).\($0)", $1) }
            }
            if let (field, value) = figures.first(where: { !$0.1.isFinite }) {
                return "line item \"\(DisplayText.escaped(estimate.lineItemID))\" of placement \"\(DisplayText.escaped(estimate.placementID))\": \(field) is \(value), not a finite number"
            }
        }
        return nil
    }
}
