import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import MediationCLI

/// `Config/mediation.schema.json` and the loader (``ConfigurationLoader`` then the engine's
/// build with the standard networks) agree on a seeded corpus of mutants of the shipped
/// configuration, except where a JSON Schema cannot express a rule (listed below); and no
/// mutant crashes `mediate validate`.
@Suite("Schema and loader agree; config mutation fuzz")
struct SchemaAgreementTests {
    /// A loader error a schema cannot reproduce, with the reason. A mutant that the loader
    /// rejects with one of these codes while the schema accepts it is not a disagreement.
    static let rulesTheSchemaCannotExpress: [ConfigurationError.Code: String] = [
        .unknownNetwork: "a source's network must be a key of `networks` (a reference between two parts of the document)",
        .pricingMismatch: "`ecpm` or `floor` by the pricing of the source's network's adapter (a reference, then a rule on its kind)",
        .duplicateID: "source ids are unique within a placement (uniqueness of a property across array items)",
        .duplicateKey: "a key appears once per object (a schema validator sees the parsed object, where the last value won)",
        .unknownCurrency: "a non-USD currency needs a rate in `currency_rates` (a reference)",
        .unfillable: "R19: the line item's network must be able to fill the placement's format and slot, and a placement without a bidder needs a reachable floor (references, then each network's rules)",
    ]

    /// Mutation kinds whose verdict a schema cannot match, with the reason (see
    /// ``ConfigMutant/Tag``).
    static let mutationsTheSchemaCannotSee: [ConfigMutant.Tag: String] = [
        .lexicalInteger: "whole numbers must be written without a fraction or exponent; a schema sees only the value (60.0 == 60)",
        .nonFinite: "1e400 is not a finite number for the loader; Python's JSON parser reads it as infinity, which passes `exclusiveMinimum: 0` where the schema has no maximum (currency rates)",
    ]

    static var shippedText: String {
        get throws { try String(contentsOf: Workspace.repositoryRoot.appendingPathComponent("Config/mediation.json"), encoding: .utf8) }
    }

    /// What the loader says: `nil` when the configuration loads and the engine builds, else the error.
    static func loaderVerdict(_ json: String) -> ConfigurationError? {
        do {
            let configuration = try MediationConfiguration(json: json, registry: .standard)
            _ = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: ManualClock()))
            return nil
        } catch {
            return error
        }
    }

    /// Runs `work` on a thread of its own (``onOwnThread(_:)``).
    static func offThePool<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
        await onOwnThread(work)
    }

    /// Runs the schema check over every `.json` file of `directory`; the verdict per file name.
    /// The process is awaited on threads of their own (``onOwnThread(_:)``).
    static func schemaVerdicts(in directory: URL) async throws -> [String: String] {
        let script = Workspace.repositoryRoot.appendingPathComponent("Tests/MediationCLITests/Schema/check_schema.py")
        let schema = Workspace.repositoryRoot.appendingPathComponent("Config/mediation.schema.json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // At the lowest priority: thousands of validations must not starve the real-clock tests.
        process.arguments = ["nice", "-n", "19", "python3", script.path, schema.path, directory.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        do {
            try process.run()
        } catch {
            Issue.record("python3 is not available to run the schema check (\(error)); install python3 and `python3 -m pip install jsonschema` (.ci/run does)")
            throw error
        }
        let errorReading = Task { await onOwnThread { errors.fileHandleForReading.readDataToEndOfFile() } }
        let data = await onOwnThread {
            let data = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return data
        }
        let errorText = String(decoding: await errorReading.value, as: UTF8.self)
        try #require(process.terminationStatus == 0, "the schema check failed (exit \(process.terminationStatus)): \(errorText)")
        var verdicts: [String: String] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 2)
            guard parts.count >= 2 else { continue }
            verdicts[String(parts[1]).trimmingCharacters(in: CharacterSet(charactersIn: ":"))] = String(line)
        }
        return verdicts
    }

    @Test("the schema and the loader agree on the shipped config and on 2000 seeded mutants, except for the listed rules")
    func schemaAndLoaderAgree() async throws {
        try await TestGate.shared.with(exclusive: true) { try await Self.checkSchemaAndLoaderAgree() }
    }

    /// Fixed `health` objects (R24), valid and not, at the top level and in the first network.
    static let healthValues = [
        #"{}"#, #"{"enabled": false}"#, #"{"enabled": true, "failures_to_open": 5, "window": 10, "backoff_ms": 30000, "max_backoff_ms": 600000, "probes": 1}"#,
        #"{"failures_to_open": 64, "window": 1}"#, #"{"backoff_ms": 86400000, "max_backoff_ms": 1000}"#, #"{"failures_to_open": 0}"#,
        #"{"window": 65}"#, #"{"backoff_ms": 999}"#, #"{"max_backoff_ms": 86400001}"#, #"{"probes": 0}"#, #"{"probes": 11}"#,
        #"{"enabled": "false"}"#, #"{"probes": 1.5}"#, #"{"extra": 1}"#, #"[]"#, #"null"#,
    ]

    /// The shipped configuration with each of ``healthValues`` at the top level and in its first
    /// network.
    static func healthCases(_ base: ConfigTree) -> [ConfigMutant] {
        var cases: [ConfigMutant] = []
        for (number, text) in healthValues.enumerated() {
            guard let value = try? ConfigTree.parse(text) else { continue }
            if case .object(var members) = base {
                members.append(("health", value))
                cases.append(ConfigMutant(name: "health_top_\(number)", json: ConfigTree.object(members).json, steps: ["$.health = \(text)"], tags: []))
            }
            if case .object(let root) = base, let networks = root.first(where: { $0.key == "networks" })?.value,
               case .object(let list) = networks, let first = list.first,
               let changed = base.replacing(at: [.key("networks"), .key(first.key)], { node in
                   guard case .object(var members) = node else { return node }
                   members.append(("health", value))
                   return .object(members)
               }) {
                cases.append(ConfigMutant(name: "health_net_\(number)", json: changed.json, steps: ["networks.\(first.key).health = \(text)"], tags: []))
            }
        }
        return cases
    }

    /// Numbers at the edge of the two readers: prices around one micro (`5e-7` once rounded up
    /// to one by the loader) and the fallback's `creative_sizes` written with an exponent
    /// (`1e-300x1e-300`, which the schema's pattern refuses).
    static let edgeNumbers: [(path: [ConfigTree.Step], value: ConfigTree)] = [
        ([.key("placements"), .key("home_banner"), .key("sources"), .index(1), .key("ecpm")], .number("5e-7")),
        ([.key("placements"), .key("home_banner"), .key("sources"), .index(1), .key("ecpm")], .number("0.0000005")),
        ([.key("placements"), .key("home_banner"), .key("sources"), .index(1), .key("ecpm")], .number("0.0000009999")),
        ([.key("placements"), .key("home_banner"), .key("sources"), .index(1), .key("ecpm")], .number("0.000001")),
        ([.key("placements"), .key("home_banner"), .key("sources"), .index(1), .key("ecpm")], .number("1e-6")),
        ([.key("networks"), .key("admob_premium"), .key("options"), .key("creative_sizes")], .object([("banner", .array([.string("1e-300x1e-300")]))])),
        ([.key("networks"), .key("admob_premium"), .key("options"), .key("creative_sizes")], .object([("banner", .array([.string("3.2e2x50")]))])),
        ([.key("networks"), .key("admob_premium"), .key("options"), .key("creative_sizes")], .object([("banner", .array([.string("0x10x50")]))])),
        ([.key("networks"), .key("admob_premium"), .key("options"), .key("creative_sizes")], .object([("banner", .array([.string("320x50"), .string("300x250")]))])),
        ([.key("networks"), .key("admob_premium"), .key("options"), .key("creative_sizes")], .object([("banner", .array([.string("320.5x50.25")]))])),
    ]

    /// The shipped configuration with each of ``edgeNumbers`` set (an object member added
    /// where it is missing).
    static func edgeNumberCases(_ base: ConfigTree) -> [ConfigMutant] {
        edgeNumbers.enumerated().compactMap { number, edge in
            guard case .key(let key)? = edge.path.last,
                  let changed = base.replacing(at: Array(edge.path.dropLast()), { node in
                      guard case .object(var members) = node else { return node }
                      members.removeAll { $0.key == key }
                      members.append((key, edge.value))
                      return .object(members)
                  })
            else { return nil }
            return ConfigMutant(name: "edge_number_\(number)", json: changed.json, steps: ["\(edge.path) = \(edge.value.json)"], tags: [])
        }
    }

    static func checkSchemaAndLoaderAgree() async throws {
        let shipped = try Self.shippedText
        let base = try ConfigTree.parse(shipped)
        // Seconds of CPU work (making and writing the corpus, the loader's verdicts) run on a
        // thread of their own: the pool's threads stay free for the other tests, some of which
        // run auctions on the real clock.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("schema-corpus-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let mutants = await Self.offThePool { () -> [ConfigMutant] in
            var mutants = ConfigMutator(base: base).mutants(count: 2000, seed: 0x5EED_0009)
            mutants.append(ConfigMutant(name: "shipped", json: shipped, steps: [], tags: []))
            mutants += Self.healthCases(base)
            mutants += Self.edgeNumberCases(base)
            for mutant in mutants {
                try? Data(mutant.json.utf8).write(to: directory.appendingPathComponent(mutant.name + ".json"))
            }
            return mutants
        }
        let verdicts = try await Self.schemaVerdicts(in: directory)
        var disagreements: [String] = []
        var excused: [String: Int] = [:]
        var loaderInvalid = 0
        let corpus = mutants
        let loaderVerdicts = await Self.offThePool { corpus.map { Self.loaderVerdict($0.json) } }
        for (mutant, loaderError) in zip(mutants, loaderVerdicts) {
            let schemaLine = try #require(verdicts[mutant.name + ".json"], "no schema verdict for \(mutant.name)")
            let schemaValid = schemaLine.hasPrefix("valid ")
            if loaderError != nil { loaderInvalid += 1 }
            guard schemaValid != (loaderError == nil) else { continue }
            if let loaderError, schemaValid, Self.rulesTheSchemaCannotExpress[loaderError.code] != nil {
                excused[loaderError.code.rawValue, default: 0] += 1
                continue
            }
            if let tag = mutant.tags.first(where: { Self.mutationsTheSchemaCannotSee[$0] != nil }) {
                excused[tag.rawValue, default: 0] += 1
                continue
            }
            disagreements.append("\(mutant.name) [\(mutant.steps.joined(separator: "; "))]: loader \(loaderError.map { "\($0.code) \($0)" } ?? "valid"); schema \(schemaLine)")
        }
        #expect(verdicts["shipped.json"]?.hasPrefix("valid ") == true)
        #expect(await Self.offThePool { Self.loaderVerdict(shipped) } == nil)
        // The corpus exercises both verdicts.
        #expect(loaderInvalid > mutants.count / 4)
        #expect(loaderInvalid < mutants.count * 9 / 10)
        #expect(disagreements.isEmpty, "\(disagreements.count) disagreements (excused: \(excused)):\n\(disagreements.prefix(25).joined(separator: "\n"))")
    }

    @Test("fuzz: 2000 seeded mutants of the shipped config each either validate (exit 0) or exit 65 with one short line naming a JSON path; none crashes")
    func mutantsNeverCrashValidate() async throws {
        try await TestGate.shared.with(exclusive: true) { try await Self.checkMutantsNeverCrashValidate() }
    }

    static func checkMutantsNeverCrashValidate() async throws {
        let base = try ConfigTree.parse(try Self.shippedText)
        let mutants = await Self.offThePool { ConfigMutator(base: base).mutants(count: 2000, seed: 0xF0_22ED) }
        let workspace = try Workspace()
        var valid = 0
        var invalid = 0
        for mutant in mutants {
            await Task.yield() // other tests share the two threads
            try workspace.write(mutant.json, to: "Config/mediation.json")
            let result = await workspace.run(["validate"], gated: false)
            switch result.code {
            case .success:
                valid += 1
                #expect(result.output.hasPrefix("Config/mediation.json: valid ("), "\(mutant.name)")
            case .dataError:
                invalid += 1
                let prefix = "mediate: invalid config Config/mediation.json: "
                #expect(result.error.hasPrefix(prefix), "\(mutant.name): \(result.error)")
                let rest = result.error.dropFirst(prefix.count)
                // `PATH: message`, PATH a JSON path: `$`, a key, or `["key"]`, then keys and indices.
                let path = rest.hasPrefix("[\"") ? rest.prefix { $0 != "]" } : rest.prefix { $0 != ":" && $0 != " " }
                let startsAsAPath = path.first.map { $0 == "$" || $0 == "[" || $0.isLetter || $0 == "_" } ?? false
                #expect(startsAsAPath, "\(mutant.name): no JSON path in \(result.error)")
                #expect(rest.contains(": "), "\(mutant.name): no message in \(result.error)")
                // One short line a terminal shows as it is: no raw control character.
                #expect(result.error.split(separator: "\n").count == 1, "\(mutant.name): one line")
                #expect(result.error.count < 1200, "\(mutant.name): a short line, not \(result.error.count) characters")
                #expect(!result.error.dropLast().unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(mutant.name): a raw control character")
            default:
                Issue.record("\(mutant.name) [\(mutant.steps.joined(separator: "; "))]: exit \(result.code): \(result.error)")
            }
        }
        #expect(valid > 100)
        #expect(invalid > 700)
    }
}
