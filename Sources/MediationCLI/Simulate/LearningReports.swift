import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Mediation
import MediationLearning
import MediationSimulation

/// `mediate simulate --days … --write-reports DIR`: each learner's simulated revenue report of
/// each day, `DIR/LEARNER/YYYY-MM-DD.csv`, in the format `mediate optimize --reports` reads
/// (one row per network and ad unit, or per network, ad unit and country on a market with
/// countries, its ad unit id and currency as configured).
enum LearningReports {
    /// Makes `DIR/LEARNER` for every learner before the run, so a folder that cannot be made
    /// fails at once; `nil` on success, else the exit code after saying what failed.
    static func prepare(_ learners: [String], in directory: String, environment: CommandEnvironment) -> ExitCode? {
        let root = environment.resolve(directory)
        for learner in learners {
            if let reason = makeDirectories(root.appendingPathComponent(learner, isDirectory: true)) {
                return MediateCommand.fail(.cannotCreate, "cannot create the reports folder \(directory)/\(learner): \(reason)", environment: environment)
            }
        }
        return nil
    }

    /// Writes the reports; `nil` on success, else the exit code after saying what failed.
    static func write(_ run: LearningRun, configuration: MediationConfiguration, to directory: String, environment: CommandEnvironment) -> ExitCode? {
        let sources = configuration.placement(run.placementID)?.sources ?? []
        let root = environment.resolve(directory)
        // A market with countries: every report has the country column, a line item that won
        // nowhere has no row (as the loop's learners saw it).
        let byCountry = run.daily.contains { $0.learners.contains { $0.prices.contains { !$0.impressionsByCountry.isEmpty } } }
        for (index, learner) in run.learners.enumerated() {
            let folder = root.appendingPathComponent(learner, isDirectory: true)
            if let reason = makeDirectories(folder) {
                return MediateCommand.fail(.cannotCreate, "cannot create the reports folder \(directory)/\(learner): \(reason)", environment: environment)
            }
            for day in run.daily where index < day.learners.count {
                guard let date = UTCDay(day.date) else { continue }
                // One row per network and ad unit, as a network reports it: line items sharing an
                // ad unit share its row (so `mediate optimize` reads the file back), in one
                // currency, its first line item's (a network reports an ad unit in one currency).
                // On a market with countries, one row per network, ad unit and country it won in.
                var rows: [RevenueReportWriter.Row] = []
                var usdRates: [Double] = []
                for price in day.learners[index].prices {
                    guard let lineItem = sources.first(where: { $0.id == price.lineItemID }) else { continue }
                    let parts: [(country: String?, impressions: Int, revenueUSD: Double)] = !byCountry
                        ? [(nil, price.impressions, price.revenueUSD)]
                        : price.impressionsByCountry.keys.sorted().map { ($0, price.impressionsByCountry[$0] ?? 0, price.revenueUSDByCountry[$0] ?? 0) }
                    for part in parts {
                        if let at = rows.firstIndex(where: { $0.network == lineItem.network && $0.adUnitID == lineItem.adUnitID && $0.country == part.country }) {
                            rows[at].impressions += part.impressions
                            rows[at].revenue += part.revenueUSD / usdRates[at]
                        } else {
                            rows.append(RevenueReportWriter.Row(day: date, network: lineItem.network, adUnitID: lineItem.adUnitID, country: part.country, impressions: part.impressions, revenue: part.revenueUSD / lineItem.usdRate, currency: lineItem.currency))
                            usdRates.append(lineItem.usdRate)
                        }
                    }
                }
                do throws(OutputFile.Failure) {
                    try OutputFile.write(RevenueReportWriter.csv(rows, byCountry: byCountry), to: folder.appendingPathComponent(day.date + ".csv"))
                } catch {
                    return MediateCommand.fail(.cannotCreate, "cannot write the report \(directory)/\(learner)/\(day.date).csv: \(error.message)", environment: environment)
                }
            }
        }
        return nil
    }

    /// Creates `url` and its missing parents (mode 0755); `nil` on success, else the system's
    /// reason for the first one that could not be made (Foundation's own error says only
    /// "error 512").
    private static func makeDirectories(_ url: URL) -> String? {
        var path = ""
        for component in url.standardizedFileURL.path.split(separator: "/") {
            path += "/" + component
            var status = stat()
            if stat(path, &status) == 0 {
                guard (status.st_mode & S_IFMT) == S_IFDIR else { return "\(path) is not a directory" }
                continue
            }
            guard mkdir(path, 0o755) == 0 || errno == EEXIST else { return "\(path): " + String(cString: strerror(errno)) }
        }
        return nil
    }
}
