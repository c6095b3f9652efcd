import Foundation
import Mediation
import MediationLearning

/// The three forms of `mediate experiment report`: a table per experiment, JSON, and one HTML
/// page.
enum ExperimentText {
    private static let header = ["variant", "weight", "users", "requests", "impr./user", "fill", "eCPM", "revenue", "rev./user", "rev./1000 req.", "winsorized rev./user"]

    private static func cells(_ variant: ExperimentReport.Variant) -> [String] {
        [
            DisplayText.escaped(variant.id), "\(DecimalText.trimmed(Double(variant.weightBP) / 100, minimumDigits: 0, maximumDigits: 2)) %",
            "\(variant.users)", "\(variant.requests)", ReportFormat.ratio(variant.impressionsPerUser, digits: 2),
            "\(ReportFormat.ratio(variant.fill * 100, digits: 1)) %", ReportFormat.money(variant.eCPM, digits: 3),
            ReportFormat.money(variant.revenue, digits: 4), ReportFormat.money(variant.revenuePerUser, digits: 5),
            ReportFormat.money(variant.revenuePer1000Requests, digits: 4), ReportFormat.money(variant.winsorizedRevenuePerUser, digits: 5),
        ]
    }

    private static func interval(_ range: ClosedRange<Double>) -> String {
        "\(percentText(range.lowerBound)) to \(percentText(range.upperBound))"
    }

    private static func percentText(_ value: Double) -> String {
        (value < 0 ? "−" : "+") + DecimalText.fixed(abs(value) * 100, digits: 2) + " %"
    }

    /// The reports as text: per experiment a table of its variants, the split check, and per
    /// variant its difference to control and verdict.
    static func text(_ reports: [ExperimentReport]) -> String {
        var out = ""
        for report in reports {
            out += "experiment \(DisplayText.escaped(report.experiment)) as of \(report.asOf.map { "\($0)" } ?? "(no data)"): control \(DisplayText.escaped(report.control)), revenue per user winsorized at \(ReportFormat.money(report.cap, digits: 6)) USD (pooled \(DecimalText.trimmed(ExperimentStatistics.winsorizingPercentile, minimumDigits: 1, maximumDigits: 1))th percentile)\n"
            let rows = [header] + report.variants.map(cells)
            let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            for row in rows {
                out += "  " + row.enumerated().map { column, cell in
                    column == 0 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0) : String(repeating: " ", count: widths[column] - cell.count) + cell
                }.joined(separator: "  ") + "\n"
            }
            out += "  split check: chi-square \(ReportFormat.ratio(report.chiSquare, digits: 2)), p = \(ReportFormat.ratio(report.sampleRatioP, digits: 4))\(report.withheld == nil ? " (ok)" : " (below \(ExperimentStatistics.sampleRatioThreshold))")\n"
            for comparison in report.comparisons {
                if let difference = comparison.difference, report.withheld == nil {
                    out += "  \(DisplayText.escaped(comparison.variant)) vs \(DisplayText.escaped(report.control)): \(percentText(difference.relative)) per user, always-valid \(DecimalText.trimmed((1 - report.alpha) * 100, minimumDigits: 0, maximumDigits: 2)) % interval \(interval(difference.sequential)) (read-once interval \(interval(difference.naive)))\n"
                }
                out += "  verdict: \(DisplayText.escaped(comparison.verdict))\n"
            }
            out += "\n"
        }
        return out
    }

    private struct JSONOutput: Encodable {
        struct Variant: Encodable {
            var id: String
            var weight_bp: Int
            var users: Int
            var requests: Int
            var impressions: Int
            var revenue_usd: Double
            var impressions_per_user: Double
            var fill: Double
            var ecpm: Double
            var revenue_per_user: Double
            var revenue_per_1000_requests: Double
            var winsorized_revenue_per_user: Double
        }
        struct Comparison: Encodable {
            var variant: String
            var relative: Double?
            var standard_error: Double?
            var interval: [Double]?
            var read_once_interval: [Double]?
            var users_needed: Int?
            var verdict: String
        }
        struct Experiment: Encodable {
            var experiment: String
            var control: String
            var as_of: String?
            var winsorized_at_usd: Double
            var winsorizing_percentile: Double
            var alpha: Double
            var minimum_effect: Double
            var sample_ratio: [String: Double]
            var withheld: String?
            var variants: [Variant]
            var comparisons: [Comparison]
        }
        var experiments: [Experiment]
    }

    /// The reports as JSON; `nil` when a figure is not finite.
    static func json(_ reports: [ExperimentReport]) -> String? {
        let output = JSONOutput(experiments: reports.map { report in
            JSONOutput.Experiment(
                experiment: report.experiment, control: report.control, as_of: report.asOf?.description,
                winsorized_at_usd: report.cap, winsorizing_percentile: ExperimentStatistics.winsorizingPercentile, alpha: report.alpha,
                minimum_effect: report.minimumEffect, sample_ratio: ["chi_square": report.chiSquare, "p": report.sampleRatioP], withheld: report.withheld,
                variants: report.variants.map {
                    .init(id: $0.id, weight_bp: $0.weightBP, users: $0.users, requests: $0.requests, impressions: $0.impressions, revenue_usd: $0.revenue, impressions_per_user: $0.impressionsPerUser, fill: $0.fill, ecpm: $0.eCPM, revenue_per_user: $0.revenuePerUser, revenue_per_1000_requests: $0.revenuePer1000Requests, winsorized_revenue_per_user: $0.winsorizedRevenuePerUser)
                },
                comparisons: report.comparisons.map {
                    .init(variant: $0.variant, relative: $0.difference?.relative, standard_error: $0.difference?.standardError, interval: $0.difference.map { [$0.sequential.lowerBound, $0.sequential.upperBound] }, read_once_interval: $0.difference.map { [$0.naive.lowerBound, $0.naive.upperBound] }, users_needed: $0.usersNeeded, verdict: $0.verdict)
                }
            )
        })
        let numbers = reports.flatMap { report in
            [report.cap, report.chiSquare, report.sampleRatioP] + report.variants.flatMap { [$0.revenue, $0.winsorizedRevenuePerUser] }
                + report.comparisons.flatMap { $0.difference.map { [$0.relative, $0.standardError, $0.sequential.lowerBound, $0.sequential.upperBound] } ?? [] }
        }
        guard numbers.allSatisfy(\.isFinite) else { return nil }
        return try? ReportFormat.json(output)
    }

    /// The reports as one self-contained HTML page.
    static func html(_ reports: [ExperimentReport]) -> String {
        var body = ""
        for report in reports {
            body += "<h2>\(HTML.escape(report.experiment))</h2>\n<p>As of \(report.asOf.map { "\($0)" } ?? "(no data)"); control \(HTML.escape(report.control)); revenue per user winsorized at \(ReportFormat.money(report.cap, digits: 6)) USD.</p>\n<table>\n<tr>"
            body += header.map { "<th>\(HTML.escape($0))</th>" }.joined() + "</tr>\n"
            for variant in report.variants {
                body += "<tr>" + cells(variant).map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>\n"
            }
            body += "</table>\n<p>Split check: chi-square \(ReportFormat.ratio(report.chiSquare, digits: 2)), p = \(ReportFormat.ratio(report.sampleRatioP, digits: 4)).</p>\n<ul>\n"
            for comparison in report.comparisons {
                body += "<li><strong>\(HTML.escape(comparison.verdict))</strong></li>\n"
            }
            body += "</ul>\n"
        }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Experiment report</title>
        <style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}th{background:#f0f0f0}td:first-child{text-align:left}</style>
        </head><body>
        <h1>Experiment report</h1>
        \(body)</body></html>

        """
    }
}
