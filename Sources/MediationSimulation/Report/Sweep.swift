import Foundation
import Mediation

/// What a sweep varies in the simulated placement.
public enum SweepParameter: Hashable, Sendable, CustomStringConvertible {
    /// The placement's `floor`, USD CPM (0 removes it).
    case floor
    /// The placement's `deadline_ms`, whole milliseconds from 1 to 3000.
    case deadline
    /// A fixed-price line item's configured `ecpm`, in its currency (positive). Only what the
    /// engine believes changes: the market's realised prices stay as they are.
    case eCPM(lineItem: String)

    /// The name as written in a sweep: `floor`, `deadline_ms`, `ecpm[LINE_ITEM]`.
    public var description: String {
        switch self {
        case .floor: "floor"
        case .deadline: "deadline_ms"
        case .eCPM(let lineItem): "ecpm[\(lineItem)]"
        }
    }

    /// `configuration` with this parameter of `placementID` set to `value`.
    /// - Throws: ``SimulationError`` (`invalid_sweep`) when the value is out of range or the
    ///   line item is not a fixed-price line item of the placement.
    func apply(_ value: Double, to configuration: MediationConfiguration, placementID: String) throws(SimulationError) -> MediationConfiguration {
        guard let index = configuration.placements.firstIndex(where: { $0.id == placementID }) else {
            throw SimulationError(code: .unknownPlacement, message: "no placement \"\(placementID)\" in the configuration")
        }
        var result = configuration
        func invalid(_ message: String) -> SimulationError {
            SimulationError(code: .invalidSweep, message: "\(self)=\(value): \(message)")
        }
        switch self {
        case .floor:
            guard value.isFinite, value >= 0, value <= SourceDraw.maximumPrice else { throw invalid("a floor must be from 0 (none) to 1000000 USD CPM") }
            result.placements[index].floor = value == 0 ? nil : value
        case .deadline:
            guard value.isFinite, value == value.rounded(), value >= 1, value <= 3000 else { throw invalid("a deadline must be a whole number of milliseconds from 1 to 3000") }
            result.placements[index].deadline = .milliseconds(Int64(value))
        case .eCPM(let lineItem):
            guard let sourceIndex = result.placements[index].sources.firstIndex(where: { $0.id == lineItem }) else {
                throw invalid("no line item \"\(lineItem)\" in placement \(placementID)")
            }
            guard result.placements[index].sources[sourceIndex].pricing == .fixedPrice else {
                throw invalid("\(lineItem) is a bidder: it has no configured eCPM")
            }
            guard value.isFinite, value > 0, value <= SourceDraw.maximumPrice else { throw invalid("an eCPM must be from 0.000001 to 1000000 USD CPM (sweep values are rounded to millionths)") }
            result.placements[index].sources[sourceIndex].eCPM = value
        }
        return result
    }
}

/// A sweep as written: `PARAMETER=VALUES`, where PARAMETER is `floor`, `deadline_ms` or
/// `ecpm[LINE_ITEM]` and VALUES is `FROM:TO:STEP` (both ends included, e.g. `0.5:4.0:0.25`), a
/// list `A,B,C`, or one value.
public struct SweepSpecification: Hashable, Sendable, CustomStringConvertible {
    /// The most values a sweep takes.
    public static let maximumValues = 1000

    /// The parameter.
    public var parameter: SweepParameter
    /// The values, in order.
    public var values: [Double]

    /// Creates a sweep.
    public init(parameter: SweepParameter, values: [Double]) {
        self.parameter = parameter
        self.values = values
    }

    /// Parses `floor=0.1:1.0:0.1`, `deadline_ms=500,1000,3000`, `ecpm[home_banner_nitx]=0.5:4.0:0.25`.
    /// Range values are exact to the micro: `FROM + k × STEP` computed in integer millionths.
    /// - Parameter text: the sweep.
    /// - Throws: ``SimulationError`` (`invalid_sweep`) saying what is malformed.
    public init(parsing text: String) throws(SimulationError) {
        func invalid(_ message: String) -> SimulationError {
            SimulationError(code: .invalidSweep, message: "\(text.prefix(120)): \(message)")
        }
        guard let equals = text.firstIndex(of: "=") else { throw invalid("expected PARAMETER=VALUES, e.g. floor=0.1:1.0:0.1") }
        let name = String(text[..<equals]).trimmingCharacters(in: .whitespaces)
        let valuesText = String(text[text.index(after: equals)...]).trimmingCharacters(in: .whitespaces)
        switch name {
        case "floor": parameter = .floor
        case "deadline_ms": parameter = .deadline
        default:
            guard name.hasPrefix("ecpm["), name.hasSuffix("]"), name.count > "ecpm[]".count else {
                throw invalid("unknown parameter \"\(name.prefix(60))\"; expected floor, deadline_ms or ecpm[LINE_ITEM]")
            }
            parameter = .eCPM(lineItem: String(name.dropFirst("ecpm[".count).dropLast()))
        }
        let parts = valuesText.split(separator: ":", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if parts.count == 3 {
            guard let from = SweepSpecification.micros(parts[0]), let to = SweepSpecification.micros(parts[1]), let step = SweepSpecification.micros(parts[2]) else {
                throw invalid("FROM:TO:STEP must be three numbers from -1000000000000 to 1000000000000")
            }
            guard step > 0 else {
                // A positive step under half a millionth rounds to 0: say so, not that it is not positive.
                let positive = NumberText.decimal(parts[2]).map { $0 > 0 } ?? false
                throw invalid(positive ? "the step must be at least 0.000001 (sweep values are exact to the millionth)" : "the step must be positive")
            }
            guard to >= from else { throw invalid("TO must not be less than FROM") }
            let count = (to - from) / step + 1
            guard count <= SweepSpecification.maximumValues else { throw invalid("at most \(SweepSpecification.maximumValues) values, found \(count)") }
            values = (0..<count).map { Double(from + $0 * step) / 1_000_000 }
        } else if parts.count == 1 {
            var values: [Double] = []
            for item in valuesText.split(separator: ",", omittingEmptySubsequences: false) {
                guard let micros = SweepSpecification.micros(item.trimmingCharacters(in: .whitespaces)) else {
                    throw invalid("\"\(item.prefix(30))\" is not a number from -1000000000000 to 1000000000000")
                }
                values.append(Double(micros) / 1_000_000)
            }
            guard values.count <= SweepSpecification.maximumValues else { throw invalid("at most \(SweepSpecification.maximumValues) values") }
            self.values = values
        } else {
            throw invalid("expected FROM:TO:STEP, a list A,B,C or one value")
        }
    }

    /// `parameter=v1,v2,…`.
    public var description: String {
        "\(parameter)=" + values.map { String($0) }.joined(separator: ",")
    }

    /// A decimal number in integer millionths (rounded), or `nil` when it is not a plain decimal
    /// (``NumberText``, a `-` allowed) from -10^12 to 10^12.
    private static func micros(_ text: String) -> Int64? {
        guard let value = NumberText.decimal(text, signed: true), abs(value) <= 1e12 else { return nil }
        return Int64((value * 1_000_000).rounded(.toNearestOrAwayFromZero))
    }
}

/// One value of a sweep and the run at it.
public struct SweepPoint: Hashable, Sendable, Codable {
    /// The parameter's value.
    public var value: Double
    /// The run.
    public var report: SimulationReport

    /// Creates a point.
    public init(value: Double, report: SimulationReport) {
        self.value = value
        self.report = report
    }
}

/// A sweep: the placement run at every value of one parameter on the same draws, the curve of
/// its figures, and the value with the highest realised revenue per 1000 requests.
public struct SweepResult: Hashable, Sendable, Codable {
    /// The parameter, as written (`floor`, `deadline_ms`, `ecpm[LINE_ITEM]`).
    public var parameter: String
    /// The figure the best value maximises: `revenue_per_1000_requests` (realised).
    public var objective: String
    /// The configuration as given, on the same draws.
    public var baseline: SimulationReport
    /// The runs, in the order of the values.
    public var points: [SweepPoint]
    /// The index in ``points`` of the best value (the first of equals).
    public var bestIndex: Int
    /// Best − baseline, every compared figure, with paired intervals.
    public var bestVersusBaseline: [FigureDifference]
    /// Best − the second best, with paired intervals (empty with one value): whether the best
    /// is better than the runner-up beyond noise.
    public var bestVersusRunnerUp: [FigureDifference]

    private enum CodingKeys: String, CodingKey {
        case parameter
        case objective
        case baseline
        case points
        case bestIndex = "best_index"
        case bestVersusBaseline = "best_versus_baseline"
        case bestVersusRunnerUp = "best_versus_runner_up"
    }

    /// Creates a result.
    public init(parameter: String, objective: String, baseline: SimulationReport, points: [SweepPoint], bestIndex: Int, bestVersusBaseline: [FigureDifference], bestVersusRunnerUp: [FigureDifference]) {
        self.parameter = parameter
        self.objective = objective
        self.baseline = baseline
        self.points = points
        self.bestIndex = bestIndex
        self.bestVersusBaseline = bestVersusBaseline
        self.bestVersusRunnerUp = bestVersusRunnerUp
    }

    /// The best point.
    public var best: SweepPoint { points[bestIndex] }
}
