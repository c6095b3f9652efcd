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
    /// Run only this many engine auctions of the overhead benchmark's 4-source placement and
    /// stop (for instruction and allocation counts: run two counts, take the difference).
    var profileAuctions: Int?
    /// With ``profileAuctions``: adapters that hear no auction notices.
    var profileDeaf = false
    /// With ``profileAuctions``: bare races (the floor) instead of engine auctions.
    var profileRaces = false

    static let usage = """
        usage: mediation-bench [--json] [--quick] [--only NAME]... [--help]
               mediation-bench --profile-auctions N [--no-notices | --races]
          --json        print machine-readable results instead of the table
          --quick       fewer repetitions (smoke run; numbers are not for publishing)
          --only NAME   run only this benchmark (repeatable): \(BenchmarkName.allCases.map(\.rawValue).joined(separator: ", "))
          --profile-auctions N  run N engine auctions of the overhead benchmark and stop (no
                        timing: for callgrind or a malloc count; difference two values of N)
          --no-notices  with --profile-auctions: adapters that hear no auction notices
          --races       with --profile-auctions: N bare races (the floor) instead
        """

    enum ParseError: Error, CustomStringConvertible {
        case unknownOption(String)
        case unknownBenchmark(String)
        case missingValue(String)
        case badCount(String)

        var description: String {
            switch self {
            case .unknownOption(let option): "unknown option \(option)"
            case .unknownBenchmark(let name): "unknown benchmark \(name)"
            case .missingValue(let option): "\(option) needs a value"
            case .badCount(let value): "--profile-auctions needs a decimal count from 0 to 100000000, not \(value)"
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
            case "--no-notices": profileDeaf = true
            case "--races": profileRaces = true
            case "--profile-auctions":
                guard let value = iterator.next() else { throw .missingValue(argument) }
                guard value.allSatisfy(\.isASCII), value.allSatisfy(\.isNumber), let count = Int(value), count <= 100_000_000 else { throw .badCount(value) }
                profileAuctions = count
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
