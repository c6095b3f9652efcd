import Testing
@testable import MediationCLI

/// Every number on `mediate`'s command line is read by one reader: plain decimal, no
/// hexadecimal, exponent or sign unless the option takes one, finite, in range, and the error
/// names the option.
@Suite("mediate option numbers")
struct OptionNumberTests {
    struct Refused: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        /// What the error must contain (the option's name, and what is wrong).
        var says: [String]
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let refused: [Refused] = [
        Refused(arguments: ["config", "sign", "--key", "k", "--version", "1", "--rollout", "0x10", "c.json"], says: ["--rollout", "0x10"]),
        Refused(arguments: ["config", "sign", "--key", "k", "--version", "1", "--rollout", "1e-400", "c.json"], says: ["--rollout", "1e-400"]),
        Refused(arguments: ["config", "sign", "--key", "k", "--version", "1", "--rollout", "0." + String(repeating: "0", count: 400) + "1", "c.json"], says: ["--rollout"]),
        Refused(arguments: ["config", "sign", "--key", "k", "--version", "+2", "c.json"], says: ["--version", "+2"]),
        Refused(arguments: ["simulate", "--placement", "p", "--duration", "60", "--rate", "0x10"], says: ["--rate", "0x10"]),
        Refused(arguments: ["simulate", "--placement", "p", "--duration", "60", "--rate", "1e1"], says: ["--rate", "1e1"]),
        Refused(arguments: ["simulate", "--placement", "p", "--days", "3", "--drift", "nitx:0x10@2"], says: ["--drift", "factor"]),
        Refused(arguments: ["simulate", "--placement", "p", "--days", "3", "--drift", "nitx:2@+2"], says: ["--drift", "day"]),
        Refused(arguments: ["simulate", "--placement", "p", "--auctions", "+5"], says: ["--auctions", "+5"]),
        Refused(arguments: ["simulate", "--placement", "p", "--jobs", "0x2"], says: ["--jobs", "0x2"]),
        Refused(arguments: ["simulate", "--placement", "p", "--seed", "+1"], says: ["--seed", "+1"]),
        Refused(arguments: ["simulate", "--placement", "p", "--days", "0x10"], says: ["--days", "0x10"]),
        Refused(arguments: ["simulate", "--placement", "p", "--sweep", "floor=0x10"], says: ["--sweep"]),
        Refused(arguments: ["simulate", "--placement", "p", "--duration", "1e3"], says: ["--duration", "1e3"]),
        Refused(arguments: ["simulate", "--placement", "p", "--days", "366", "--auctions", "1000000000"], says: ["--days × --auctions", "366 × 1000000000"]),
        Refused(arguments: ["simulate", "--placement", "p", "--days", "3", "--drift", "nitx:0.5@4"], says: ["--drift", "day 4 is after the last day", "--days 3"]),
        Refused(arguments: ["--placement", "p", "--seed", "-1"], says: ["--seed", "-1"]),
    ]

    @Test(arguments: refused)
    func refuses(_ refused: Refused) {
        do {
            _ = try InvocationParser.parse(refused.arguments)
            Issue.record("accepted \(refused.arguments)")
        } catch {
            for part in refused.says { #expect(error.message.contains(part), "\(error.message)") }
        }
    }

    @Test func acceptsPlainDecimals() throws {
        guard case .config(.sign(let sign)) = try InvocationParser.parse(["config", "sign", "--key", "k", "--version", "0012", "--rollout", "12.5", "c.json"]) else {
            Issue.record("not a sign")
            return
        }
        #expect(sign.version == 12 && sign.rolloutPercent == 12.5)
        guard case .simulate(let simulate) = try InvocationParser.parse(["simulate", "--placement", "p", "--duration", "60", "--rate", "0.5"]) else {
            Issue.record("not a simulation")
            return
        }
        #expect(simulate.rate == 0.5)
        guard case .simulate(let learning) = try InvocationParser.parse(["simulate", "--placement", "p", "--days", "3", "--auctions", "1000", "--drift", "nitx:0.5@3"]),
              case .learn(let mode) = learning.mode
        else {
            Issue.record("not a learning loop")
            return
        }
        #expect(mode.drifts.first?.fromDay == 3 && mode.drifts.first?.factor == 0.5)
        guard case .simulate(let sweep) = try InvocationParser.parse(["simulate", "--placement", "p", "--sweep", "floor=-1:1:0.5"]), case .sweep(let spec) = sweep.mode else {
            Issue.record("not a sweep")
            return
        }
        #expect(spec.values == [-1, -0.5, 0, 0.5, 1])
    }
}
