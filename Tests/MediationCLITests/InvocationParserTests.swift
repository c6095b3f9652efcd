import Testing
@testable import MediationCLI

@Suite("mediate argument parser")
struct InvocationParserTests {
    struct Accepted: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var expected: Invocation
        var testDescription: String { arguments.isEmpty ? "(none)" : arguments.joined(separator: " ") }
    }

    static let accepted: [Accepted] = [
        Accepted(arguments: ["--placement", "home_banner"], expected: .run(RunOptions(placementID: "home_banner"))),
        Accepted(arguments: ["--placement=home_banner", "--json"], expected: .run(RunOptions(placementID: "home_banner", json: true))),
        Accepted(
            arguments: ["--json", "--config", "other.json", "--seed", "42", "--messages", "chat.json", "--placement", "chat_strip"],
            expected: .run(RunOptions(placementID: "chat_strip", configPath: "other.json", json: true, seed: 42, messagesPath: "chat.json"))
        ),
        Accepted(arguments: ["--placement", "p", "--seed=18446744073709551615"], expected: .run(RunOptions(placementID: "p", seed: UInt64.max))),
        Accepted(
            arguments: ["--placement", "home_banner", "--watch", "--duration", "300", "--fast"],
            expected: .run(RunOptions(placementID: "home_banner", watch: true, duration: .seconds(300), fast: true))
        ),
        Accepted(arguments: ["--placement", "p", "--watch", "--duration", "0.5"], expected: .run(RunOptions(placementID: "p", watch: true, duration: .milliseconds(500)))),
        // The units of `mediate simulate --duration`.
        Accepted(arguments: ["--placement", "p", "--watch", "--duration", "5m"], expected: .run(RunOptions(placementID: "p", watch: true, duration: .seconds(300)))),
        Accepted(arguments: ["--placement", "p", "--watch", "--duration", "1.5h"], expected: .run(RunOptions(placementID: "p", watch: true, duration: .seconds(5400)))),
        Accepted(arguments: ["--placement", "p", "--watch", "--duration=250ms"], expected: .run(RunOptions(placementID: "p", watch: true, duration: .milliseconds(250)))),
        Accepted(arguments: ["--placement", "p", "--watch", "--duration", "7d"], expected: .run(RunOptions(placementID: "p", watch: true, duration: .seconds(604_800)))),
        Accepted(arguments: ["--placement", "p", "--debug"], expected: .run(RunOptions(placementID: "p", debug: .redacted))),
        Accepted(arguments: ["--placement", "p", "--debug=unredacted", "--report", "r.html"], expected: .run(RunOptions(placementID: "p", debug: .unredacted, reportPath: "r.html"))),
        Accepted(arguments: ["--placement", "p", "--watch", "--json"], expected: .run(RunOptions(placementID: "p", json: true, watch: true))),
        Accepted(arguments: ["networks"], expected: .networks(NetworksOptions(configPath: nil, json: false))),
        Accepted(arguments: ["networks", "--json", "--config", "x.json"], expected: .networks(NetworksOptions(configPath: "x.json", json: true))),
        Accepted(arguments: ["validate"], expected: .validate(ValidateOptions(configPath: nil))),
        Accepted(arguments: ["validate", "--config", "x.json"], expected: .validate(ValidateOptions(configPath: "x.json"))),
        Accepted(arguments: ["--help"], expected: .help),
        Accepted(arguments: ["-h"], expected: .help),
        Accepted(arguments: ["--placement", "p", "--bogus", "--help"], expected: .help),
        Accepted(arguments: ["validate", "--help"], expected: .help),
        Accepted(arguments: ["--version"], expected: .version),
        Accepted(arguments: ["-V"], expected: .version),
    ]

    @Test(arguments: accepted)
    func parses(_ accepted: Accepted) throws {
        #expect(try InvocationParser.parse(accepted.arguments) == accepted.expected)
    }

    struct Rejected: Sendable, CustomTestStringConvertible {
        var arguments: [String]
        var message: String
        var testDescription: String { arguments.isEmpty ? "(none)" : arguments.joined(separator: " ") }
    }

    static let rejected: [Rejected] = [
        Rejected(arguments: [], message: "missing --placement ID"),
        Rejected(arguments: ["--json"], message: "missing --placement ID"),
        Rejected(arguments: ["--placement"], message: "--placement needs a value"),
        Rejected(arguments: ["--placement", "--json"], message: "--placement needs a value"),
        Rejected(arguments: ["--placement="], message: "--placement needs a non-empty value"),
        Rejected(arguments: ["--palcement", "x"], message: "unknown option --palcement"),
        Rejected(arguments: ["-p", "x"], message: "unknown option -p"),
        Rejected(arguments: ["--placement", "a", "--placement", "b"], message: "--placement given more than once"),
        Rejected(arguments: ["--placement", "a", "extra"], message: "unexpected argument 'extra'"),
        Rejected(arguments: ["run", "--placement", "a"], message: "unknown command 'run'"),
        Rejected(arguments: ["--placement", "a", "--json=yes"], message: "--json takes no value"),
        Rejected(arguments: ["--placement", "a", "--seed", "-1"], message: "--seed needs a whole number from 0 to 18446744073709551615, got '-1'"),
        Rejected(arguments: ["--placement", "a", "--seed", "1.5"], message: "--seed needs a whole number from 0 to 18446744073709551615, got '1.5'"),
        Rejected(arguments: ["--placement", "a", "--seed", "18446744073709551616"], message: "--seed needs a whole number from 0 to 18446744073709551615, got '18446744073709551616'"),
        Rejected(arguments: ["--placement", "a", "--duration", "10"], message: "--duration applies to --watch only"),
        Rejected(arguments: ["--placement", "a", "--fast"], message: "--fast applies to --watch only"),
        Rejected(arguments: ["--placement", "a", "--duration", "0"], message: "--duration needs a positive number of seconds, or a number and a unit (90s, 5m, 1h, 1d), at most a week (604800 s), got '0'"),
        Rejected(arguments: ["--placement", "a", "--duration", "nan"], message: "--duration needs a positive number of seconds, or a number and a unit (90s, 5m, 1h, 1d), at most a week (604800 s), got 'nan'"),
        Rejected(arguments: ["--placement", "a", "--watch", "--duration", "8d"], message: "--duration needs a positive number of seconds, or a number and a unit (90s, 5m, 1h, 1d), at most a week (604800 s), got '8d'"),
        Rejected(arguments: ["--placement", "a", "--watch", "--duration", "5x"], message: "--duration needs a positive number of seconds, or a number and a unit (90s, 5m, 1h, 1d), at most a week (604800 s), got '5x'"),
        Rejected(arguments: ["validate", "--placement", "a"], message: "--placement does not apply to mediate validate"),
        Rejected(arguments: ["validate", "--json"], message: "--json does not apply to mediate validate"),
        Rejected(arguments: ["--placement", "a", "--debug=all"], message: "--debug takes no value or =unredacted, got 'all'"),
        Rejected(arguments: ["--placement", "a", "--report"], message: "--report needs a value"),
        Rejected(arguments: ["networks", "--debug"], message: "--debug does not apply to mediate networks"),
        Rejected(arguments: ["--config", "x.json", "validate"], message: "'validate' must come first: mediate validate [--config FILE]"),
    ]

    @Test(arguments: rejected)
    func rejects(_ rejected: Rejected) {
        #expect(throws: UsageError(message: rejected.message)) {
            _ = try InvocationParser.parse(rejected.arguments)
        }
    }

    @Test func watchOptionsMarkWatchMode() throws {
        for arguments in [["--watch"], ["--watch", "--fast"], ["--watch", "--duration", "10"]] {
            guard case .run(let options) = try InvocationParser.parse(["--placement", "p"] + arguments) else {
                Issue.record("not a run")
                continue
            }
            #expect(options.usesWatchMode)
        }
        guard case .run(let plain) = try InvocationParser.parse(["--placement", "p"]) else { return }
        #expect(!plain.usesWatchMode)
    }
}
