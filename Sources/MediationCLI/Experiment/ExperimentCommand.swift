import Foundation
import Mediation
import MediationLearning

/// The options of `mediate experiment report`.
struct ExperimentOptions: Equatable, Sendable {
    /// `--config FILE`; `nil` means `Config/mediation.json` in the current directory.
    var configPath: String?
    /// `--events FILE...`: engine NDJSON events logs.
    var eventPaths: [String] = []
    /// `--user-days FILE...`: a warehouse's per-user aggregates (`sql/user_day.sql`).
    var userDayPaths: [String] = []
    /// `--as-of DAY`: the last day counted (default: the latest day read).
    var asOf: UTCDay?
    /// `--json`: print the report as JSON.
    var json = false
    /// `--report FILE`: write the report as one HTML page.
    var reportPath: String?

    /// Parses the arguments after `experiment`:
    /// `report [--config C] (--events E.ndjson... | --user-days U.csv...) [--as-of DAY] [--json] [--report R.html]`.
    /// - Throws: ``UsageError`` saying what is wrong.
    static func parse(_ arguments: [String]) throws(UsageError) -> ExperimentOptions {
        guard arguments.first == "report" else {
            throw UsageError(message: "mediate experiment needs a subcommand: report (got '\(arguments.first.map { String($0.prefix(40)) } ?? "")')")
        }
        let values = try OptionReader(Array(arguments.dropFirst()), OptionReader.Grammar(
            command: "experiment report", valued: ["--config", "--as-of", "--report"], flags: ["--json"], lists: ["--events", "--user-days"]
        ) { argument, _ in UsageError(message: "unexpected argument '\(argument.prefix(80))'") })
        var options = ExperimentOptions()
        options.configPath = values["--config"]
        options.eventPaths = values.lists["--events"] ?? []
        options.userDayPaths = values.lists["--user-days"] ?? []
        options.json = values.has("--json")
        options.reportPath = values["--report"]
        if let text = values["--as-of"] {
            guard let day = UTCDay(text) else {
                throw UsageError(message: "--as-of needs a UTC day YYYY-MM-DD from \(UTCDay.earliest) to \(UTCDay.latest), got '\(text.prefix(40))'")
            }
            options.asOf = day
        }
        guard options.eventPaths.isEmpty != options.userDayPaths.isEmpty else {
            throw UsageError(message: "mediate experiment report needs --events FILE.ndjson... or --user-days FILE.csv... (one of the two)")
        }
        // One file given twice would count every user's figures twice.
        var seen = Set<String>()
        for path in options.eventPaths + options.userDayPaths where !seen.insert(URL(fileURLWithPath: path).standardizedFileURL.path).inserted {
            throw UsageError(message: "mediate experiment report: '\(path.prefix(200))' is given twice (its rows would count twice)")
        }
        return options
    }
}

/// `mediate experiment report`: reads the exposed users of the config's experiments from engine
/// events or a warehouse's per-user aggregates and prints each experiment's report
/// (``ExperimentReport``).
enum ExperimentCommand {
    static func run(_ options: ExperimentOptions, environment: CommandEnvironment) async -> ExitCode {
        let configPath = options.configPath ?? MediateCommand.defaultConfigPath
        let designs: [ExperimentDesign]
        switch InputFile.read(configPath, what: "config", limit: 16 << 20, environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let data):
            do {
                designs = try ExperimentDesign.experiments(inConfig: [UInt8](data), file: configPath)
            } catch {
                return MediateCommand.fail(.dataError, "invalid config: \(error)", environment: environment)
            }
        }
        var users = ExperimentUsers(designs: designs, asOf: options.asOf)
        var days = ExperimentEvents.Days()
        for path in options.eventPaths {
            switch InputFile.read(path, what: "events", limit: EventLog.maximumSize, environment: environment) {
            case .failure(let exit): return exit.code
            case .success(let data):
                do {
                    try ExperimentEvents.read([UInt8](data), file: path, into: &users, days: &days)
                } catch {
                    return MediateCommand.fail(.dataError, "invalid input: \(error)", environment: environment)
                }
            }
        }
        for path in options.userDayPaths {
            let url = environment.resolve(path)
            guard FileManager.default.isReadableFile(atPath: url.path) else {
                return MediateCommand.fail(.noInput, "user-days file not found or unreadable: \(path)", environment: environment)
            }
            do {
                try UserDayCSV.read(try RevenueReportInput(file: path, contentsOf: url), into: &users)
            } catch {
                return MediateCommand.fail(.dataError, "invalid input: \(error)", environment: environment)
            }
        }
        if users.unknownExperimentRows > 0 {
            let named = users.unknownExperiments.map { "\"\(DisplayText.escaped($0))\"" }.joined(separator: ", ")
            let more = users.moreUnknownExperiments ? " and others" : ""
            environment.standardError.write("mediate: warning: \(users.unknownExperimentRows) rows of experiments the config does not hold (\(named)\(more)) are not counted\n")
        }
        if let asOf = options.asOf, users.rowsAfterAsOf > 0 {
            environment.standardError.write("mediate: warning: \(users.rowsAfterAsOf) rows dated after --as-of \(asOf) are not counted\n")
        }
        let asOf = options.asOf ?? users.latestDay
        let reports = designs.indices.map { ExperimentReport(design: designs[$0], users: users.users[$0], asOf: asOf) }
        if let path = options.reportPath {
            do throws(OutputFile.Failure) {
                try OutputFile.writeAtomically(ExperimentText.html(reports), to: environment.resolve(path))
            } catch {
                return MediateCommand.fail(.cannotCreate, "cannot write \(path): \(error.message)", environment: environment)
            }
        }
        if options.json {
            guard let text = ExperimentText.json(reports) else {
                return MediateCommand.fail(.software, "the report cannot be written as JSON (a number is not finite)", environment: environment)
            }
            environment.standardOutput.write(text)
        } else {
            environment.standardOutput.write(ExperimentText.text(reports))
        }
        return .success
    }
}
