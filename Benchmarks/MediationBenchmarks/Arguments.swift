/// The command line: `mediation-bench [--json] [--quick] [--only NAME]...`.
struct Arguments {
    /// Print JSON instead of the table.
    var json = false
    /// Fewer repetitions (a smoke run, not for publishing).
    var quick = false
    /// Benchmarks to run (all when empty).
    var only: Set<String> = []
    /// Print the usage and stop.
    var help = false

    static let usage = """
        usage: mediation-bench [--json] [--quick] [--only NAME]... [--help]
          --json        print machine-readable results instead of the table
          --quick       fewer repetitions (smoke run; numbers are not for publishing)
          --only NAME   run only this benchmark (repeatable): \(BenchmarkName.allCases.map(\.rawValue).joined(separator: ", "))
        """

    enum ParseError: Error, CustomStringConvertible {
        case unknownOption(String)
        case unknownBenchmark(String)
        case missingValue(String)

        var description: String {
            switch self {
            case .unknownOption(let option): "unknown option \(option)"
            case .unknownBenchmark(let name): "unknown benchmark \(name)"
            case .missingValue(let option): "\(option) needs a value"
            }
        }
    }

    init(_ arguments: [String]) throws(ParseError) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            switch argument {
            case "--json": json = true
            case "--quick": quick = true
            case "--help", "-h": help = true
            case "--only":
                guard let name = iterator.next() else { throw .missingValue(argument) }
                guard BenchmarkName(rawValue: name) != nil else { throw .unknownBenchmark(name) }
                only.insert(name)
            default:
                throw .unknownOption(argument)
            }
        }
    }

    /// Whether `name` is selected.
    func runs(_ name: BenchmarkName) -> Bool {
        only.isEmpty || only.contains(name.rawValue)
    }
}

/// The benchmarks, in the order they run (memory before placements, so the 10,000
/// placements' resident set does not sit under the memory figures).
enum BenchmarkName: String, CaseIterable {
    case overhead
    case scale
    case deadline
    case memory
    case placements
    case http
    case revenue
    case simulation
    case learning
}
