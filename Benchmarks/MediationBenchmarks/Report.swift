import Foundation

/// One figure of a benchmark: a summary over repeated runs, in `unit`.
struct Figure: Encodable {
    var name: String
    var unit: String
    var summary: Summary
}

/// One target of the benchmark (see docs/performance.md) and whether this run met it.
struct TargetCheck: Encodable {
    var target: String
    var measured: String
    var met: Bool
}

/// What one benchmark produced.
struct BenchmarkResult: Encodable {
    var name: String
    var title: String
    var figures: [Figure] = []
    var targets: [TargetCheck] = []
    var notes: [String] = []
    /// A correctness failure (an ad unaccounted for): the run exits non-zero.
    var failures: [String] = []
}

/// The machine and build a run came from.
struct MachineInfo: Encodable {
    var cpuModel: String
    var cores: Int
    var affinity: String
    var swiftVersion: String
    var date: String

    static func current() -> MachineInfo {
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n")
            .first { $0.hasPrefix("model name") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let affinity = status.split(separator: "\n")
            .first { $0.hasPrefix("Cpus_allowed_list:") }
            .flatMap { $0.split(separator: ":", maxSplits: 1).last }
            .map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown"
        #if compiler(>=6.4)
        let swift = "6.4 or later"
        #elseif compiler(>=6.3.1)
        let swift = "6.3.1"
        #elseif compiler(>=6.3)
        let swift = "6.3"
        #elseif compiler(>=6.2)
        let swift = "6.2"
        #else
        let swift = "6.1 or earlier"
        #endif
        let formatter = ISO8601DateFormatter()
        return MachineInfo(
            cpuModel: model,
            cores: ProcessInfo.processInfo.activeProcessorCount,
            affinity: affinity,
            swiftVersion: swift,
            date: formatter.string(from: Date())
        )
    }
}

/// The whole run, as `--json` prints it.
struct RunReport: Encodable {
    var machine: MachineInfo
    var mode: String
    var benchmarks: [BenchmarkResult]
    var allTargetsMet: Bool
    var failures: [String]
}

/// Prints results as a table for a person.
enum TablePrinter {
    static func header(_ machine: MachineInfo, mode: String) -> String {
        "mediation-bench (\(mode)): \(machine.cpuModel), \(machine.cores) cores online, CPUs allowed \(machine.affinity), Swift \(machine.swiftVersion), \(machine.date)"
    }

    static func render(_ result: BenchmarkResult) -> String {
        var lines: [String] = []
        lines.append("")
        lines.append("== \(result.name): \(result.title)")
        if !result.figures.isEmpty {
            let nameWidth = max(6, result.figures.map(\.name.count).max() ?? 0)
            lines.append(pad("figure", nameWidth) + "  " + lpad("median", 12) + "  " + lpad("p99", 12) + "  " + lpad("n", 7) + "  unit")
            for figure in result.figures {
                lines.append(
                    pad(figure.name, nameWidth) + "  "
                        + lpad(format(figure.summary.median), 12) + "  "
                        + lpad(format(figure.summary.p99), 12) + "  "
                        + lpad(String(figure.summary.count), 7) + "  " + figure.unit
                )
            }
        }
        for check in result.targets {
            lines.append("  [\(check.met ? "met " : "MISS")] \(check.target): \(check.measured)")
        }
        for note in result.notes {
            lines.append("  note: \(note)")
        }
        for failure in result.failures {
            lines.append("  !!!!!!!! FAILURE: \(failure) !!!!!!!!")
        }
        return lines.joined(separator: "\n")
    }

    static func format(_ value: Double) -> String {
        if value == 0 { return "0" }
        let magnitude = abs(value)
        if magnitude >= 100_000 { return String(format: "%.0f", value) }
        if magnitude >= 100 { return String(format: "%.1f", value) }
        if magnitude >= 1 { return String(format: "%.2f", value) }
        return String(format: "%.4f", value)
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    private static func lpad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }
}

/// Prints the run as JSON for a program.
enum JSONPrinter {
    static func render(_ report: RunReport) -> String {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        guard let data = try? encoder.encode(report) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
