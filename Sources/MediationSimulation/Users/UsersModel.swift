import Foundation
import Mediation

/// How simulated users use the app: sessions a day, their length, the full-screen
/// opportunities (level ends) inside them, relaunches, wall-clock changes, and each user's
/// value (`docs/simulation.md`, "Users"). Every draw is a pure function of the run's seed, the
/// user's index and the day, so a user's days are the same whatever runs beside them and
/// whatever configuration they run under (common random numbers for `--compare`).
package struct UsersModel: Hashable, Sendable {
    /// The mean number of sessions a user starts per day (Poisson; a day with none is a day the
    /// user does not open the app).
    package var sessionsPerDay: Double = 3
    /// Session length, seconds: log-normal with this median and ``sessionSpread`` (σ of the
    /// logarithm), cut to 30 s … 2 h and to the start of the user's next session.
    package var sessionMedianSeconds: Double = 480
    /// σ of the logarithm of the session length.
    package var sessionSpread: Double = 0.8
    /// The mean time between two level ends inside a session, seconds (exponential gaps; the
    /// first comes one gap after the session starts).
    package var levelEndMeanSeconds: Double = 90
    /// How long a full-screen ad stays on screen once shown, seconds: uniform from
    /// ``adShortestSeconds`` to ``adLongestSeconds``, whole milliseconds.
    package var adShortestSeconds: Double = 5
    /// See ``adShortestSeconds``.
    package var adLongestSeconds: Double = 30
    /// The probability that a session starts a new process (the system killed the app in the
    /// background); otherwise the app comes back from the background (a warm start). A user's
    /// first session is always a new process.
    package var coldStartProbability: Double = 0.5
    /// The probability that the app dies during a session (a crash, or the user swipes it
    /// away) at a uniform instant of it, and is launched again 2 s later; the session goes on.
    package var relaunchProbability: Double = 0.1
    /// The probability, per user-day with a session, that the user changes the device's wall
    /// clock just before the day's first session, by a uniform 1 h … 48 h, back or forward
    /// with equal odds. The change stays (later changes add to it).
    package var clockJumpProbability: Double = 0.05
    /// σ of the logarithm of a user's value (log-normal with mean 1: `e^(σz − σ²/2)`), which
    /// multiplies every price the user's auctions see. 1.0 gives the top 1 % of users about
    /// 9 % of the revenue and a median user 0.61 of the mean.
    package var valueSpread: Double = 1.0

    /// The model with the documented defaults.
    package init() {}

    /// The milliseconds in a day.
    static let day: Int64 = 86_400_000
    /// The time from a process's death to its relaunch, ms.
    static let relaunchDelay: Int64 = 2000

    /// The fixed traits of user `index` of a run seeded `seed`.
    func profile(seed: UInt64, user index: Int) -> UserProfile {
        var random = Self.stream(seed: seed, user: index, purpose: 0x5553_4552) // "USER"
        let p = random.nextUnitInterval()
        let z = StandardNormal.quantile(p)
        let value = (valueSpread * z - valueSpread * valueSpread / 2).exponential
        let high = random.next(), low = random.next()
        let installID = String(format: "%016llx%016llx", high, low)
        return UserProfile(index: index, installID: installID, value: value, decile: min(9, Int(p * 10)))
    }

    /// The sessions of user `index` on day `day` (0-based), in time order; times are
    /// milliseconds from the run's start.
    func sessions(seed: UInt64, user index: Int, day: Int) -> [UserSession] {
        var random = Self.stream(seed: seed, user: index, purpose: 0x4441_5900 &+ UInt64(day)) // "DAY" + day
        let count = Self.poisson(mean: sessionsPerDay, &random)
        let dayStart = Int64(day) * Self.day
        var starts = (0..<count).map { _ in dayStart + Int64(random.nextUnitInterval() * Double(Self.day - 1)) }
        starts.sort()
        var jump: Int64 = 0
        if count > 0, random.nextUnitInterval() < clockJumpProbability {
            let size = 3_600_000 + Int64(random.nextUnitInterval() * Double(47 * 3_600_000))
            jump = random.nextUnitInterval() < 0.5 ? -size : size
        }
        var sessions: [UserSession] = []
        for (position, start) in starts.enumerated() {
            let limit = position + 1 < starts.count ? starts[position + 1] : dayStart + Self.day
            let drawn = sessionMedianSeconds * (sessionSpread * StandardNormal.quantile(random.nextUnitInterval())).exponential
            let length = Int64(min(max(drawn, 30), 7200) * 1000)
            let end = min(start + length, limit - 1)
            var levelEnds: [Int64] = []
            var at = start
            while true {
                at += max(1, Int64(-levelEndMeanSeconds * 1000 * random.nextUnitInterval().logarithm))
                guard at < end else { break }
                levelEnds.append(at)
            }
            let cold = random.nextUnitInterval() < coldStartProbability
            let relaunch = random.nextUnitInterval() < relaunchProbability
            let relaunchAt = start + Int64(random.nextUnitInterval() * Double(max(1, end - start)))
            sessions.append(UserSession(
                start: start,
                end: end,
                levelEnds: levelEnds,
                coldStart: cold || (day == 0 && position == 0),
                relaunchAt: relaunch && relaunchAt + Self.relaunchDelay < end ? relaunchAt : nil,
                clockJump: position == 0 ? jump : 0
            ))
        }
        return sessions
    }

    /// How long the full-screen ad shown at `instant` (ms from the run's start) of user `index`
    /// stays on screen, ms.
    func adDuration(seed: UInt64, user index: Int, at instant: Int64) -> Int64 {
        var random = Self.stream(seed: seed, user: index, purpose: 0x4144_0000_0000_0000 ^ UInt64(bitPattern: instant))
        let shortest = adShortestSeconds * 1000
        return Int64(shortest + random.nextUnitInterval() * (adLongestSeconds * 1000 - shortest))
    }

    /// The random stream of one user and one purpose.
    static func stream(seed: UInt64, user: Int, purpose: UInt64) -> SplitMix64 {
        SplitMix64.forSource(seed: seed ^ 0x7573_6572_735F_7631, auction: UInt64(user), lineItemKey: SplitMix64.mix(purpose))
    }

    /// A Poisson draw by inversion (Knuth's product of uniforms), for small means.
    static func poisson(mean: Double, _ random: inout SplitMix64) -> Int {
        guard mean > 0 else { return 0 }
        let limit = (-mean).exponential
        var count = 0
        var product = random.nextUnitInterval()
        while product > limit, count < 1000 {
            count += 1
            product *= random.nextUnitInterval()
        }
        return count
    }
}

/// One simulated user's fixed traits.
struct UserProfile: Hashable, Sendable {
    /// The user's index in the run, from 0.
    var index: Int
    /// The install id the user's engine keeps in its state store (32 lowercase hex digits).
    var installID: String
    /// What multiplies every price the user's auctions see (log-normal, mean 1).
    var value: Double
    /// The value's decile among all users, 0 (lowest tenth) … 9 (highest tenth).
    var decile: Int
}

/// One session of a user: times in milliseconds from the run's start.
struct UserSession: Hashable, Sendable {
    /// When the app comes to the foreground.
    var start: Int64
    /// When it goes to the background.
    var end: Int64
    /// The level ends: the full-screen opportunities, in time order, inside the session.
    var levelEnds: [Int64]
    /// Whether the session starts a new process (else the app comes back from the background).
    var coldStart: Bool
    /// When the process dies during the session (relaunched ``UsersModel/relaunchDelay`` later).
    var relaunchAt: Int64?
    /// How far the user moves the device's wall clock just before the session, ms (0: not at
    /// all; negative: back).
    var clockJump: Int64
}
