import MediationSimulation

/// The text of a users run (`mediate simulate --users N --days D`).
enum UsersText {
    /// One run.
    static func run(_ report: UsersReport, configPath: String) -> String {
        var lines = header(report, configPath: configPath)
        lines += figures(report)
        lines.append("")
        var days = TextColumns([.init(alignment: .left, minimumWidth: 5), .init(alignment: .left, minimumWidth: 12), .init(alignment: .right, minimumWidth: 8), .init(alignment: .right, minimumWidth: 13), .init(alignment: .right, minimumWidth: 13), .init(alignment: .right, minimumWidth: 11), .init(alignment: .right, minimumWidth: 11)])
        days.append(["day", "date", "active", "impressions", "revenue USD", "impr/user", "USD/user"])
        for day in report.byDay {
            days.append([String(day.day), day.date, String(day.activeUsers), String(day.impressions), ReportFormat.money(day.revenueUSD, digits: 4), ReportFormat.ratio(day.impressionsPerUser, digits: 3), ReportFormat.money(day.revenuePerUserUSD, digits: 5)])
        }
        lines += days.lines
        lines.append("")
        var deciles = TextColumns([.init(alignment: .left, minimumWidth: 14), .init(alignment: .right, minimumWidth: 8), .init(alignment: .right, minimumWidth: 13), .init(alignment: .right, minimumWidth: 13), .init(alignment: .right, minimumWidth: 9)])
        deciles.append(["value decile", "users", "impressions", "revenue USD", "share"])
        for decile in report.byValueDecile {
            deciles.append([String(decile.decile), String(decile.users), String(decile.impressions), ReportFormat.money(decile.revenueUSD, digits: 4), ReportFormat.ratio(decile.revenueShare * 100, digits: 1) + " %"])
        }
        lines += deciles.lines
        return lines.joined(separator: "\n") + "\n"
    }

    /// Two runs of the same users.
    static func compare(_ comparison: UsersComparison, configPath: String, otherPath: String) -> String {
        var lines = ["users: A = \(configPath), B = \(otherPath); the same \(comparison.a.users) users over \(HumanReport.counted(comparison.a.days, "day")), seed \(comparison.a.seed)", ""]
        lines.append("A")
        lines += figures(comparison.a).map { "  " + $0 }
        lines.append("B")
        lines += figures(comparison.b).map { "  " + $0 }
        lines.append("")
        var table = TextColumns([.init(alignment: .left, minimumWidth: 24), .init(alignment: .right, minimumWidth: 12), .init(alignment: .right, minimumWidth: 12), .init(alignment: .right, minimumWidth: 12), .init(alignment: .left, minimumWidth: 0, gap: 3)])
        table.append(["figure", "A", "B", "B - A", "   95 % interval (paired per user)"])
        for difference in comparison.differences {
            let interval = difference.interval.map { "   (\(signed($0.lower)) to \(signed($0.upper)))" } ?? "   -"
            table.append([difference.figure, plain(difference.a), plain(difference.b), signed(difference.difference), interval])
        }
        lines += table.lines
        return lines.joined(separator: "\n") + "\n"
    }

    private static func header(_ report: UsersReport, configPath: String) -> [String] {
        ["users: \(HumanReport.counted(report.users, "user")) × \(HumanReport.counted(report.days, "day")) of \(report.placements.joined(separator: ", ")) (\(configPath)), seed \(report.seed), from \(report.startDate)", ""]
    }

    private static func figures(_ report: UsersReport) -> [String] {
        let percentiles = report.impressionsPerUserDayPercentiles
        let refused = report.refusedShows.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        let rules = report.violationsByRule.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        var lines = [
            "user-days \(report.userDays) (active \(report.activeUserDays)), sessions \(report.sessions), process launches \(report.processLaunches), relaunches \(report.relaunches), clock changes back \(report.clockJumpsBack) / forward \(report.clockJumpsForward)",
            "opportunities \(report.opportunities) (without an ad \(report.opportunitiesWithoutAd)), auctions \(report.auctions) (filled \(report.filledAuctions)), impressions \(report.impressions)",
            "revenue \(ReportFormat.money(report.revenueUSD, digits: 4)) USD; per user-day \(ReportFormat.ratio(report.impressionsPerUserDay, digits: 3)) impressions, \(ReportFormat.money(report.revenuePerUserDayUSD, digits: 5)) USD",
            "impressions per user-day p50 \(percentiles["p50"] ?? 0), p90 \(percentiles["p90"] ?? 0), p99 \(percentiles["p99"] ?? 0), max \(percentiles["max"] ?? 0)",
            "refused shows: \(refused.isEmpty ? "none" : refused)",
            "wasted loads (ads that could not be shown before they expired): \(report.wastedLoads); ads expired unshown: \(report.expiredLoads)",
            "violations (independent counter): \(report.violations)\(rules.isEmpty ? "" : " (\(rules))")",
        ]
        lines += report.violationExamples.map { "  \($0)" }
        return lines
    }

    private static func plain(_ value: Double?) -> String {
        value.map { ReportFormat.ratio($0, digits: 5) } ?? "-"
    }

    private static func signed(_ value: Double?) -> String {
        guard let value else { return "-" }
        return (value >= 0 ? "+" : "") + ReportFormat.ratio(value, digits: 5)
    }
}
