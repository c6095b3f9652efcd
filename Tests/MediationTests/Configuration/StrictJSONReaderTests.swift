import Foundation
import Testing
@testable import Mediation

@Suite("Strict JSON reader")
struct StrictJSONReaderTests {
    private func syntaxError(_ bytes: [UInt8]) -> ConfigurationError? {
        do {
            _ = try StrictJSONReader.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        ("", "the file is empty"),
        ("  \n\t ", "the file is empty"),
        ("{", "expected a quoted key"),
        ("{\"a\": 1,}", "expected a quoted key"),
        ("[1, 2,]", "unexpected character ']'"),
        ("{\"a\": 01}", "leading zero"),
        ("{\"a\": 1.}", "expected a digit after '.'"),
        ("{\"a\": 1e}", "expected a digit in the exponent"),
        ("{\"a\": \"x}", "unterminated string"),
        ("{\"a\": \"\u{01}\"}", "control character"),
        ("{\"a\": \"\\ud800\"}", "high surrogate"),
        ("{\"a\": \"\\q\"}", "invalid escape"),
        ("{\"a\": tru}", "invalid literal"),
        ("{\"a\": NaN}", "unexpected character 'N'"),
        ("// comment\n{}", "unexpected character '/'"),
        ("{} {}", "unexpected text after the end"),
    ])
    func rejectsMalformedText(_ text: String, _ fragment: String) throws {
        let error = try #require(syntaxError(Array(text.utf8)))
        #expect(error.code == .syntax)
        #expect(error.message.contains(fragment), "\(error.message)")
    }

    @Test func syntaxErrorsNameThePathAndLine() throws {
        let error = try #require(syntaxError(Array("{\n  \"placements\": {\n    \"home\": { \"sources\": [1, 2 3] }\n  }\n}".utf8)))
        #expect(error.path == "placements.home.sources")
        #expect(error.message == "expected ',' or ']' (line 3, column 32)")
    }

    @Test func invalidUTF8IsASyntaxErrorAtTheRoot() throws {
        let error = try #require(syntaxError([UInt8]("{\"a\": \"".utf8) + [0xFF, 0xFE] + [UInt8]("\"}".utf8)))
        #expect(error == ConfigurationError(code: .syntax, path: "$", message: "the file is not valid UTF-8 (byte 7)"))
        #expect(syntaxError([0xC0, 0x80]) != nil, "overlong encoding")
        #expect(syntaxError([0xED, 0xA0, 0x80]) != nil, "encoded surrogate")
        #expect(syntaxError([0xE2, 0x82]) != nil, "truncated sequence")
    }

    @Test func deepNestingFailsWithoutCrashing() throws {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000)
        let error = try #require(syntaxError(deep))
        #expect(error.message.hasPrefix("nested deeper than 64 levels"))
        let justDeepEnough = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        #expect(syntaxError(Array(justDeepEnough.utf8)) == nil)
    }

    @Test func hugeNumbersKeepTheirText() throws {
        guard case .array(let values) = try StrictJSONReader.parse(Array("[99999999999999999999999, 1e400, -0, 2.5E-3]".utf8)) else {
            Issue.record("not an array")
            return
        }
        let numbers = values.compactMap { value -> JSONNumberLiteral? in
            if case .number(let number) = value { return number }
            return nil
        }
        #expect(numbers.map(\.text) == ["99999999999999999999999", "1e400", "-0", "2.5E-3"])
        #expect(numbers[0].isWhole && numbers[0].intValue == nil)
        #expect(numbers[1].doubleValue == .infinity && !numbers[1].isWhole)
        #expect(numbers[2].intValue == 0)
        #expect(numbers[3].doubleValue == 0.0025)
    }

    @Test func decodesEscapesAndSkipsAByteOrderMark() throws {
        let text = [0xEF, 0xBB, 0xBF] + Array(#"{"k\"ey": "a\u00e9\ud83d\ude00\n\/"}"#.utf8)
        guard case .object(let members) = try StrictJSONReader.parse(text), case .string(let value) = members.first?.value else {
            Issue.record("not an object of a string")
            return
        }
        #expect(members.first?.key == "k\"ey")
        #expect(value == "a\u{e9}\u{1F600}\n/")
    }

    @Test func keepsDuplicateKeysInOrder() throws {
        guard case .object(let members) = try StrictJSONReader.parse(Array(#"{"b": 1, "a": 2, "b": 3}"#.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == ["b", "a", "b"])
    }

    @Test func oversizedInputIsRejected() throws {
        let error = try #require(syntaxError([UInt8](repeating: 0x20, count: StrictJSONReader.maximumSize + 1)))
        #expect(error.message == "the JSON document is larger than 4 MiB")
    }

    /// Random edits of a valid config: every one loads or fails with a ConfigurationError,
    /// never a crash (deterministic: a fixed linear congruential sequence).
    @Test func randomCorruptionNeverCrashes() {
        let base = Array(ConfigurationFixture.base.utf8)
        let alphabet = Array("{}[]:,\"\\0123456789.eE-+ntfaslx \u{7F}".utf8) + [0xFF, 0xC3]
        var state: UInt64 = 42
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let loader = ConfigurationLoader(registry: ConfigurationFixture.registry)
        var failures = 0
        for _ in 0..<1500 {
            var bytes = base
            for _ in 0..<(1 + next(4)) {
                let index = next(bytes.count)
                switch next(3) {
                case 0: bytes[index] = alphabet[next(alphabet.count)]
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet[next(alphabet.count)], at: index)
                }
            }
            do {
                _ = try loader.load(data: Data(bytes))
            } catch {
                failures += 1
                #expect(!error.path.isEmpty && !error.message.isEmpty)
            }
        }
        #expect(failures > 1000)
    }

    @Test(arguments: [
        (JSONPath.root, "$"),
        (JSONPath.root.appending("placements").appending("home_banner").appending("sources").appending(index: 2).appending("ecpm"), "placements.home_banner.sources[2].ecpm"),
        (JSONPath.root.appending("$schema"), "$schema"),
        (JSONPath.root.appending("currency_rates").appending("a.b"), #"currency_rates["a.b"]"#),
        (JSONPath.root.appending(#"q"u"#), #"["q\"u"]"#),
    ])
    func pathsReadLikeTheConfig(_ path: JSONPath, _ text: String) {
        #expect(path.description == text)
    }
}
