/// One user's impressions and revenue by day, while the user runs.
struct UserTotals: Sendable {
    var impressions: [Int]
    var revenueMicros: [Int64]
    var active: [Bool]

    init(days: Int) {
        impressions = Array(repeating: 0, count: days)
        revenueMicros = Array(repeating: 0, count: days)
        active = Array(repeating: false, count: days)
    }

    mutating func sessionOn(day: Int) { active[day] = true }

    mutating func add(impressionMicros micros: Int64, day: Int) {
        impressions[day] += 1
        revenueMicros[day] += micros
    }
}

/// What a users run (or a shard of it) came to, for one configuration: exact integer sums,
/// so shards add up to the same totals in any order; the floating sums are added in user order.
struct UsersTotals: Sendable {
    /// The most impressions per user-day the distribution tells apart (more count here).
    static let histogramTop = 200
    /// How many violations are described in words.
    static let describedViolations = 10

    var users = 0
    var sessions = 0
    var processLaunches = 0
    var relaunches = 0
    var jumpsBack = 0
    var jumpsForward = 0
    var opportunities = 0
    var withoutAd = 0
    var auctions = 0
    var filledAuctions = 0
    var impressions = 0
    /// Σ realised price of every impression, USD CPM micros (÷ 10⁹ = USD).
    var revenueMicros: Int64 = 0
    var refused: [String: Int] = [:]
    var wastedLoads = 0
    var expiredLoads = 0
    var violations = 0
    var violationsByKind: [String: Int] = [:]
    var violationExamples: [String] = []
    var dayImpressions: [Int]
    var dayRevenueMicros: [Int64]
    var dayActiveUsers: [Int]
    /// User-days by impressions (index = impressions, the last = that many or more).
    var histogram = Array(repeating: 0, count: UsersTotals.histogramTop + 1)
    var decileUsers = Array(repeating: 0, count: 10)
    var decileImpressions = Array(repeating: 0, count: 10)
    var decileRevenueMicros = Array(repeating: Int64(0), count: 10)
    /// Each user's revenue over the run, USD, in user order (for paired differences); kept
    /// only while a shard runs.
    var perUserRevenue: [Double] = []
    var perUserImpressions: [Int] = []

    init(days: Int) {
        dayImpressions = Array(repeating: 0, count: days)
        dayRevenueMicros = Array(repeating: 0, count: days)
        dayActiveUsers = Array(repeating: 0, count: days)
    }

    mutating func count(_ broken: [CapCounter.Violation], user: Int, day: Int) {
        for violation in broken {
            violations += 1
            violationsByKind[violation.kind, default: 0] += 1
            if violationExamples.count < Self.describedViolations {
                violationExamples.append("user \(user), day \(day): \(violation.description)")
            }
        }
    }

    mutating func add(_ user: UserTotals, profile: UserProfile) {
        users += 1
        var total: Int64 = 0, shown = 0
        for day in user.impressions.indices {
            dayImpressions[day] += user.impressions[day]
            dayRevenueMicros[day] += user.revenueMicros[day]
            if user.active[day] { dayActiveUsers[day] += 1 }
            histogram[min(user.impressions[day], Self.histogramTop)] += 1
            total += user.revenueMicros[day]
            shown += user.impressions[day]
        }
        impressions += shown
        revenueMicros += total
        decileUsers[profile.decile] += 1
        decileImpressions[profile.decile] += shown
        decileRevenueMicros[profile.decile] += total
        perUserRevenue.append(Double(total) / 1e9)
        perUserImpressions.append(shown)
    }

    /// Adds a later shard's totals.
    mutating func add(_ other: UsersTotals) {
        users += other.users
        sessions += other.sessions
        processLaunches += other.processLaunches
        relaunches += other.relaunches
        jumpsBack += other.jumpsBack
        jumpsForward += other.jumpsForward
        opportunities += other.opportunities
        withoutAd += other.withoutAd
        auctions += other.auctions
        filledAuctions += other.filledAuctions
        impressions += other.impressions
        revenueMicros += other.revenueMicros
        refused.merge(other.refused, uniquingKeysWith: +)
        wastedLoads += other.wastedLoads
        expiredLoads += other.expiredLoads
        violations += other.violations
        violationsByKind.merge(other.violationsByKind, uniquingKeysWith: +)
        violationExamples.append(contentsOf: other.violationExamples.prefix(Self.describedViolations - violationExamples.count))
        for day in dayImpressions.indices {
            dayImpressions[day] += other.dayImpressions[day]
            dayRevenueMicros[day] += other.dayRevenueMicros[day]
            dayActiveUsers[day] += other.dayActiveUsers[day]
        }
        for index in histogram.indices { histogram[index] += other.histogram[index] }
        for decile in 0..<10 {
            decileUsers[decile] += other.decileUsers[decile]
            decileImpressions[decile] += other.decileImpressions[decile]
            decileRevenueMicros[decile] += other.decileRevenueMicros[decile]
        }
    }
}

/// Running mean and variance (Welford), for paired per-user differences.
struct RunningMoments: Sendable {
    var count = 0
    var mean = 0.0
    var squares = 0.0

    mutating func add(_ value: Double) {
        count += 1
        let delta = value - mean
        mean += delta / Double(count)
        squares += delta * (value - mean)
    }

    /// Adds another set of values (Chan's parallel formula).
    mutating func add(_ other: RunningMoments) {
        guard other.count > 0 else { return }
        let total = count + other.count
        let delta = other.mean - mean
        mean += delta * Double(other.count) / Double(total)
        squares += other.squares + delta * delta * Double(count) * Double(other.count) / Double(total)
        count = total
    }

    /// The half-width of the 95 % interval of the mean (normal), 0 with fewer than 2 values.
    var halfWidth95: Double {
        count < 2 ? 0 : 1.959964 * (squares / Double(count - 1) / Double(count)).squareRoot()
    }
}
