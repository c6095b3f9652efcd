import Foundation
@testable import MediationSimulation
import Testing

/// The users model at exact seeded values: the same seed, user and day give the same profile
/// and sessions on every run and platform (SplitMix64 streams, Acklam's quantile).
@Suite("Users model")
struct UsersModelTests {
    let model = UsersModel()

    @Test func profilesAtExactSeededValues() {
        let first = model.profile(seed: 7, user: 0)
        #expect(first.installID == "4672246b353b059fb0c5c79b8d8e7d1c")
        #expect(first.value == 0.3260285852224009)
        #expect(first.decile == 2)
        let second = model.profile(seed: 7, user: 1)
        #expect(second.installID == "f6c105b4d229a41aa9b4d9302e25c4d6")
        #expect(second.value == 0.5609844117297433)
        #expect(model.profile(seed: 8, user: 0).installID != first.installID)
    }

    @Test func sessionsAtExactSeededValues() {
        let day0 = model.sessions(seed: 7, user: 0, day: 0)
        #expect(day0.map(\.start) == [32_942_625, 73_565_426])
        #expect(day0.map(\.end) == [34_464_845, 74_161_328])
        #expect(day0.map(\.levelEnds.count) == [17, 11])
        #expect(day0[0].levelEnds.first == 32_980_694)
        #expect(day0[0].coldStart) // a user's first session is always a new process
        // Day 1 of user 0: the wall clock set back 21,679.558 s before the first session.
        let day1 = model.sessions(seed: 7, user: 0, day: 1)
        #expect(day1.map(\.start) == [101_643_594, 108_576_264, 163_292_106])
        #expect(day1.map(\.clockJump) == [-21_679_558, 0, 0])
        #expect(day1.map(\.coldStart) == [false, false, false])
        // User 1 dies in its first session and is relaunched.
        #expect(model.sessions(seed: 7, user: 1, day: 0).map(\.relaunchAt) == [4_019_776, nil, nil])
        #expect(model.adDuration(seed: 7, user: 0, at: 1000) == 9783)
        // Sessions lie inside their day, in order, level ends inside their session.
        for user in 0..<50 {
            for day in 0..<3 {
                let sessions = model.sessions(seed: 3, user: user, day: day)
                for (index, session) in sessions.enumerated() {
                    #expect(session.start >= Int64(day) * UsersModel.day && session.end < Int64(day + 1) * UsersModel.day)
                    #expect(session.levelEnds.allSatisfy { $0 > session.start && $0 < session.end })
                    if index > 0 { #expect(sessions[index - 1].end < session.start) }
                }
            }
        }
    }

    @Test func userValueIsLogNormalWithMeanOne() {
        let values = (0..<20_000).map { model.profile(seed: 11, user: $0).value }
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(mean - 1) < 0.05, "mean \(mean)")
        let sorted = values.sorted()
        let median = sorted[sorted.count / 2]
        #expect(abs(median - (-0.5).exponential) < 0.03, "median \(median)") // e^(−σ²/2), σ = 1
        let top = sorted.suffix(sorted.count / 10).reduce(0, +) / values.reduce(0, +)
        #expect(abs(top - 0.389) < 0.03, "top tenth's share \(top)") // 1 − Φ(Φ⁻¹(0.9) − σ)
    }
}
