import Mediation
import Testing

@Suite("RefreshSchedule (R13)")
struct RefreshScheduleTests {
    /// One change at an instant.
    enum Step: Sendable, CustomStringConvertible {
        case start(Double)
        case stop(Double)
        case visible(Bool, Double)
        case foreground(Bool, Double)

        func apply(to schedule: inout RefreshSchedule) {
            switch self {
            case .start(let t): schedule.start(at: at(t))
            case .stop(let t): schedule.stop(at: at(t))
            case .visible(let value, let t): schedule.setVisible(value, at: at(t))
            case .foreground(let value, let t): schedule.setForeground(value, at: at(t))
            }
        }

        var description: String {
            switch self {
            case .start(let t): "start@\(t)"
            case .stop(let t): "stop@\(t)"
            case .visible(let value, let t): "visible(\(value))@\(t)"
            case .foreground(let value, let t): "foreground(\(value))@\(t)"
            }
        }
    }

    /// Steps applied to a schedule created hidden and in the foreground, and the due instant
    /// afterwards (nil: no refresh can become due).
    static let cases: [(name: String, interval: Int, steps: [Step], due: Double?)] = [
        ("scenario 7: hidden 20.1 to 200.1", 60, [.visible(true, 0), .start(0.1), .visible(false, 20.1), .visible(true, 200.1)], 240.1),
        ("scenario 7 while still hidden", 60, [.visible(true, 0), .start(0.1), .visible(false, 20.1)], nil),
        ("scenario 8: ad current in the background", 30, [.visible(true, 0), .foreground(false, 31.0), .start(32.1), .foreground(true, 600.0)], 630.0),
        ("scenario 9: second cycle", 30, [.visible(true, 0), .start(0.1), .stop(30.1), .start(30.2)], 60.2),
        ("scenario 11: view gone 10.0 to 10.5", 30, [.visible(true, 0), .start(0.1), .visible(false, 10.0), .visible(true, 10.5)], 30.6),
        ("scenario 12: absent gives 60", 60, [.visible(true, 0), .start(0.1)], 60.1),
        ("not started: nothing due", 30, [.visible(true, 0)], nil),
        ("start while hidden counts from visibility", 30, [.start(5), .visible(true, 12)], 42),
        ("background and hidden overlap", 30, [.visible(true, 0), .start(0), .foreground(false, 10), .visible(false, 15), .foreground(true, 20), .visible(true, 25)], 45),
        ("repeated visible true does not reset", 30, [.visible(true, 0), .start(0), .visible(true, 10), .visible(true, 20)], 30),
        ("stop then paused start stays frozen", 30, [.visible(true, 0), .start(0), .stop(30), .visible(false, 31), .start(33)], nil),
        ("a failed refresh restarts the count", 30, [.visible(true, 0), .start(0), .stop(30), .start(33)], 63),
        ("stopped: nothing due", 30, [.visible(true, 0), .start(0), .stop(1)], nil),
    ]

    @Test("due instant", arguments: cases)
    func dueInstant(_ example: (name: String, interval: Int, steps: [Step], due: Double?)) {
        var schedule = RefreshSchedule(interval: .seconds(example.interval))
        for step in example.steps { step.apply(to: &schedule) }
        #expect(schedule.dueInstant == example.due.map(at), "\(example.name)")
    }

    @Test("counted time freezes while paused and is not reset")
    func countedFreezes() {
        var schedule = RefreshSchedule(interval: .seconds(60), visible: true)
        schedule.start(at: at(0.1))
        #expect(schedule.counted(at: at(10.1)) == .seconds(10))
        schedule.setVisible(false, at: at(20.1))
        #expect(schedule.counted(at: at(100)) == .seconds(20))
        #expect(!schedule.isCounting)
        #expect(!schedule.isDue(at: at(1000)))
        schedule.setVisible(true, at: at(200.1))
        #expect(schedule.counted(at: at(210.1)) == .seconds(30))
        #expect(!schedule.isDue(at: at(240.099)))
        #expect(schedule.isDue(at: at(240.1)))
    }

    @Test("a new interval applies from the next start")
    func newInterval() {
        var schedule = RefreshSchedule(interval: .seconds(60), visible: true)
        schedule.start(at: at(0), interval: .seconds(90))
        #expect(schedule.interval == .seconds(90))
        #expect(schedule.dueInstant == at(90))
    }
}

@Suite("RefreshInterval (R13)")
struct RefreshIntervalTests {
    @Test("resolution", arguments: [
        (nil as Int?, nil as Int?, 60, false),
        (30, nil, 30, false),
        (300, nil, 300, false),
        (60, 45, 45, false),
        (60, 15, 30, true),
        (nil, 29, 30, true),
        (nil, 0, 30, true),
        (nil, -5, 30, true),
        (60, 30, 30, false),
    ])
    func resolution(configured: Int?, server: Int?, expected: Int, warns: Bool) {
        let interval = RefreshInterval(configuredSeconds: configured, serverSeconds: server)
        #expect(interval.seconds == expected)
        #expect(interval.duration == .seconds(expected))
        #expect((interval.warning != nil) == warns)
    }
}

@Suite("Placement.Ad.Expiry (R14)")
struct AdExpiryTests {
    @Test("usable strictly before the expiry instant", arguments: [
        (AdFormat.banner, nil as Int?, 3600),
        (.interstitial, nil, 3600),
        (.appOpen, nil, 4 * 3600),
        (.native, nil, 3600),
        (.banner, 120, 120),
        (.appOpen, 900, 900),
    ])
    func usable(format: AdFormat, ttlSeconds: Int?, lifetime: Int) {
        let loaded = at(0.1)
        let expiry = Placement.Ad.Expiry(loadedAt: loaded, timeToLive: ttlSeconds.map { .seconds($0) }, format: format)
        #expect(expiry.expiresAt == loaded + .seconds(lifetime))
        #expect(expiry.isUsable(at: loaded))
        #expect(expiry.isUsable(at: loaded + .seconds(lifetime) - .milliseconds(1)))
        #expect(expiry.isUsable(at: loaded + .seconds(lifetime) - .nanoseconds(1)))
        #expect(!expiry.isUsable(at: loaded + .seconds(lifetime)))
        #expect(!expiry.isUsable(at: loaded + .seconds(lifetime + 1)))
    }

    @Test("a TTL of zero or less expires on arrival", arguments: [0, -10])
    func nonPositive(ttl: Int) {
        let expiry = Placement.Ad.Expiry(loadedAt: at(5), timeToLive: .seconds(ttl), format: .banner)
        #expect(!expiry.isUsable(at: at(5)))
    }
}
