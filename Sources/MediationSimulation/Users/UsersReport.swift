import Foundation

/// What a users run came to (`mediate simulate --users N --days D`): impressions and revenue
/// per user per day, shows refused by reason, wasted loads, and the independent counter's
/// violations.
package struct UsersReport: Hashable, Sendable, Codable {
    /// One day of the run.
    package struct Day: Hashable, Sendable, Codable {
        package var day: Int
        package var date: String
        package var activeUsers: Int
        package var impressions: Int
        package var revenueUSD: Double
        package var impressionsPerUser: Double
        package var revenuePerUserUSD: Double

        enum CodingKeys: String, CodingKey {
            case day, date, impressions
            case activeUsers = "active_users"
            case revenueUSD = "revenue_usd"
            case impressionsPerUser = "impressions_per_user"
            case revenuePerUserUSD = "revenue_per_user_usd"
        }
    }

    /// The users whose value is in one tenth of the value distribution.
    package struct Decile: Hashable, Sendable, Codable {
        package var decile: Int
        package var users: Int
        package var impressions: Int
        package var revenueUSD: Double
        package var revenueShare: Double

        enum CodingKeys: String, CodingKey {
            case decile, users, impressions
            case revenueUSD = "revenue_usd"
            case revenueShare = "revenue_share"
        }
    }

    package var placements: [String]
    package var users: Int
    package var days: Int
    package var seed: UInt64
    package var startDate: String
    package var userDays: Int
    package var activeUserDays: Int
    package var sessions: Int
    package var processLaunches: Int
    package var relaunches: Int
    package var clockJumpsBack: Int
    package var clockJumpsForward: Int
    package var opportunities: Int
    package var opportunitiesWithoutAd: Int
    package var auctions: Int
    package var filledAuctions: Int
    package var impressions: Int
    package var revenueUSD: Double
    package var impressionsPerUserDay: Double
    package var revenuePerUserDayUSD: Double
    /// User-days by impressions: p50, p90, p99 and max (the max shows 200 for 200 or more).
    package var impressionsPerUserDayPercentiles: [String: Int]
    package var refusedShows: [String: Int]
    package var wastedLoads: Int
    /// Ads that expired before any show (whatever kept them unshown: caps, or no opportunity).
    package var expiredLoads: Int
    package var violations: Int
    package var violationsByRule: [String: Int]
    package var violationExamples: [String]
    package var byDay: [Day]
    package var byValueDecile: [Decile]
    package var valueSpread: Double

    enum CodingKeys: String, CodingKey {
        case placements, users, days, seed, sessions, relaunches, opportunities, auctions, impressions, violations
        case startDate = "start_date"
        case userDays = "user_days"
        case activeUserDays = "active_user_days"
        case processLaunches = "process_launches"
        case clockJumpsBack = "clock_jumps_back"
        case clockJumpsForward = "clock_jumps_forward"
        case opportunitiesWithoutAd = "opportunities_without_ad"
        case filledAuctions = "filled_auctions"
        case revenueUSD = "revenue_usd"
        case impressionsPerUserDay = "impressions_per_user_day"
        case revenuePerUserDayUSD = "revenue_per_user_day_usd"
        case impressionsPerUserDayPercentiles = "impressions_per_user_day_percentiles"
        case refusedShows = "refused_shows"
        case wastedLoads = "wasted_loads"
        case expiredLoads = "expired_loads"
        case violationsByRule = "violations_by_rule"
        case violationExamples = "violation_examples"
        case byDay = "by_day"
        case byValueDecile = "by_value_decile"
        case valueSpread = "value_spread"
    }

    init(_ totals: UsersTotals, setup: UsersRunSetup, users: Int) {
        placements = setup.appOpenPlacements + setup.levelEndPlacements
        self.users = users
        days = setup.days
        seed = setup.seed
        startDate = UsersReport.date(setup.start, plusDays: 0)
        userDays = users * setup.days
        activeUserDays = totals.dayActiveUsers.reduce(0, +)
        sessions = totals.sessions
        processLaunches = totals.processLaunches
        relaunches = totals.relaunches
        clockJumpsBack = totals.jumpsBack
        clockJumpsForward = totals.jumpsForward
        opportunities = totals.opportunities
        opportunitiesWithoutAd = totals.withoutAd
        auctions = totals.auctions
        filledAuctions = totals.filledAuctions
        impressions = totals.impressions
        revenueUSD = Double(totals.revenueMicros) / 1e9
        impressionsPerUserDay = userDays > 0 ? Double(totals.impressions) / Double(userDays) : 0
        revenuePerUserDayUSD = userDays > 0 ? revenueUSD / Double(userDays) : 0
        impressionsPerUserDayPercentiles = UsersReport.percentiles(totals.histogram)
        refusedShows = totals.refused
        wastedLoads = totals.wastedLoads
        expiredLoads = totals.expiredLoads
        violations = totals.violations
        violationsByRule = totals.violationsByKind
        violationExamples = totals.violationExamples
        byDay = totals.dayImpressions.indices.map { day in
            let active = totals.dayActiveUsers[day]
            let revenue = Double(totals.dayRevenueMicros[day]) / 1e9
            return Day(
                day: day,
                date: UsersReport.date(setup.start, plusDays: day),
                activeUsers: active,
                impressions: totals.dayImpressions[day],
                revenueUSD: revenue,
                impressionsPerUser: active > 0 ? Double(totals.dayImpressions[day]) / Double(active) : 0,
                revenuePerUserUSD: active > 0 ? revenue / Double(active) : 0
            )
        }
        let revenue = revenueUSD
        byValueDecile = (0..<10).map { decile in
            let usd = Double(totals.decileRevenueMicros[decile]) / 1e9
            return Decile(decile: decile + 1, users: totals.decileUsers[decile], impressions: totals.decileImpressions[decile], revenueUSD: usd, revenueShare: revenue > 0 ? usd / revenue : 0)
        }
        valueSpread = setup.model.valueSpread
    }

    /// `yyyy-MM-dd` (UTC) of `start` plus `days` days.
    static func date(_ start: Date, plusDays days: Int) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? .current
        let date = start.addingTimeInterval(Double(days) * 86_400)
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

    /// p50, p90, p99 and max of a histogram of small counts.
    static func percentiles(_ histogram: [Int]) -> [String: Int] {
        let total = histogram.reduce(0, +)
        guard total > 0 else { return ["p50": 0, "p90": 0, "p99": 0, "max": 0] }
        func quantile(_ q: Double) -> Int {
            let rank = Int((q * Double(total)).rounded(.up))
            var seen = 0
            for (value, count) in histogram.enumerated() {
                seen += count
                if seen >= max(1, rank) { return value }
            }
            return histogram.count - 1
        }
        return ["p50": quantile(0.5), "p90": quantile(0.9), "p99": quantile(0.99), "max": histogram.lastIndex { $0 > 0 } ?? 0]
    }
}

/// The same users run under two configurations (their sessions, level ends, relaunches, clock
/// changes and values are the same in both), with per-user paired differences B − A.
package struct UsersComparison: Hashable, Sendable, Codable {
    /// Run A.
    package var a: UsersReport
    /// Run B.
    package var b: UsersReport
    /// `impressions_per_user` and `revenue_per_user_usd` over the whole run: A, B, B − A and
    /// the 95 % interval of the paired per-user differences.
    package var differences: [FigureDifference]
}
