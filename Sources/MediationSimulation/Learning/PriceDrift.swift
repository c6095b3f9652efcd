import Mediation

/// A change of a network's realised prices from a day of a learning run on: every price median
/// of the network (its own and its line items' overrides) is multiplied by ``factor`` from day
/// ``fromDay`` on (`mediate simulate --drift nitx:0.5@5`: Nitx's prices halve on day 5).
public struct PriceDrift: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The network id.
    public var network: String
    /// The multiplier of its price medians (positive, finite, at most 1000).
    public var factor: Double
    /// The first day it applies, from 1.
    public var fromDay: Int

    /// Creates a drift.
    /// - Parameters:
    ///   - network: the network id.
    ///   - factor: the multiplier of its prices.
    ///   - fromDay: the first day (from 1) it applies.
    public init(network: String, factor: Double, fromDay: Int) {
        self.network = network
        self.factor = factor
        self.fromDay = fromDay
    }

    /// Parses `NETWORK:FACTOR@DAY`, e.g. `nitx:0.5@5`.
    /// - Parameter text: the specification.
    /// - Throws: ``SimulationError`` (`invalid_options`) saying which part is wrong.
    public init(parsing text: String) throws(SimulationError) {
        func fail(_ message: String) -> SimulationError {
            SimulationError(code: .invalidOptions, message: "drift '\(text.prefix(80))': \(message); expected NETWORK:FACTOR@DAY, e.g. nitx:0.5@5")
        }
        guard let colon = text.lastIndex(of: ":"), let at = text.lastIndex(of: "@"), colon < at else { throw fail("missing ':' or '@'") }
        let network = String(text[..<colon])
        guard !network.isEmpty else { throw fail("no network") }
        guard let factor = NumberText.decimal(text[text.index(after: colon)..<at]), factor > 0, factor <= 1000 else {
            throw fail("the factor must be a plain decimal number above 0 and at most 1000")
        }
        guard let day = NumberText.whole(text[text.index(after: at)...], as: Int.self), day >= 1, day <= 10_000 else {
            throw fail("the day must be a whole number from 1 to 10000")
        }
        self.init(network: network, factor: factor, fromDay: day)
    }

    /// `NETWORK:FACTOR@DAY`, the factor in plain decimals (up to 9, trailing zeros dropped:
    /// `nitx:0.5@5`, `nitx:0.00001@2`, `nitx:1000@3`), never in exponent form.
    public var description: String { "\(network):\(DecimalText.trimmed(factor, minimumDigits: 0, maximumDigits: 9))@\(fromDay)" }
}

extension Market {
    /// The market of day `day` of a learning run: every drift that has begun by then applied,
    /// and, in a market with countries, its own daily drifts and shocks as of that day
    /// (``onDay(_:)``).
    /// - Parameters:
    ///   - drifts: the drifts.
    ///   - day: the day, from 1.
    /// - Returns: the market with those networks' price medians (and tiered base eCPMs)
    ///   multiplied.
    public func drifted(by drifts: [PriceDrift], onDay day: Int) -> Market {
        var result = onDay(day)
        for drift in drifts where drift.fromDay <= day {
            for index in result.networks.indices where result.networks[index].id == drift.network {
                result.networks[index].behaviour.price?.median *= drift.factor
                result.networks[index].tiered?.baseECPM *= drift.factor
                for key in result.networks[index].lineItems.keys {
                    result.networks[index].lineItems[key]?.price?.median *= drift.factor
                }
            }
        }
        return result
    }
}
