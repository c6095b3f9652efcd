import Foundation
import Mediation

/// A log-normal distribution given by its median and the standard deviation of its logarithm:
/// a draw is `median × e^(spread × z)` with `z` standard normal. A spread of 0 always gives the
/// median.
public struct LogNormal: Hashable, Sendable, Codable {
    /// The median (half the draws are below it); for prices USD CPM, for latencies milliseconds.
    public var median: Double
    /// σ of the natural logarithm (0 means no spread). 0.3 puts about 68 % of draws within
    /// ×/÷ 1.35 of the median; 0.7 within ×/÷ 2.
    public var spread: Double

    /// Creates a distribution.
    /// - Parameters:
    ///   - median: the median.
    ///   - spread: σ of the natural logarithm (0 for a fixed value).
    public init(median: Double, spread: Double = 0) {
        self.median = median
        self.spread = spread
    }

    /// The value at standard-normal quantile `z`: `median × e^(spread × z)`.
    /// - Parameter z: a standard normal draw.
    /// - Returns: the value.
    public func value(atStandardNormal z: Double) -> Double {
        spread == 0 ? median : median * (spread * z).exponential
    }

    /// The mean, `median × e^(spread² / 2)`.
    public var mean: Double { median * (spread * spread / 2).exponential }
}

/// What a network (or one of its line items) does with a request, each field optional so a line
/// item can override only some of its network's values (see ``SourceBehaviour`` for the
/// resolved form).
public struct MarketBehaviour: Hashable, Sendable {
    /// The probability that an answered, error-free request brings an ad (a bid or a fill).
    public var fillRate: Double?
    /// The price an ad actually earns, USD CPM: the bid for bidders; the *realised* eCPM for
    /// fixed-price sources (the engine only knows their configured eCPM).
    public var price: LogNormal?
    /// The time to answer, in milliseconds.
    public var latency: LogNormal?
    /// The probability that a request is never answered.
    public var neverAnswers: Double?
    /// The probability that an answered request fails with an error.
    public var error: Double?

    /// Creates a behaviour; `nil` fields come from the network (or are missing).
    public init(fillRate: Double? = nil, price: LogNormal? = nil, latency: LogNormal? = nil, neverAnswers: Double? = nil, error: Double? = nil) {
        self.fillRate = fillRate
        self.price = price
        self.latency = latency
        self.neverAnswers = neverAnswers
        self.error = error
    }

    /// This behaviour with every field `override` sets replaced.
    /// - Parameter override: the more specific values (a line item's).
    /// - Returns: the merged behaviour.
    public func overridden(by override: MarketBehaviour) -> MarketBehaviour {
        MarketBehaviour(
            fillRate: override.fillRate ?? fillRate,
            price: override.price ?? price,
            latency: override.latency ?? latency,
            neverAnswers: override.neverAnswers ?? neverAnswers,
            error: override.error ?? error
        )
    }
}

/// The resolved behaviour of one source: what every request to it draws from.
///
/// Per request, in this order (`docs/simulation.md`, "The market model"): with probability
/// ``neverAnswers`` no answer ever comes; otherwise the answer comes after a ``latency`` draw,
/// and is an error with probability ``errorRate``, else an ad with probability ``fillRate``
/// (a bid at a ``price`` draw, or a fill whose realised eCPM is a ``price`` draw), else a
/// no-fill.
public struct SourceBehaviour: Hashable, Sendable {
    /// P(ad | answered without error).
    public var fillRate: Double
    /// The bid, or the realised eCPM of a fill, in USD CPM.
    public var price: LogNormal
    /// The time to answer, in milliseconds (rounded to whole milliseconds when drawn).
    public var latency: LogNormal
    /// P(no answer at all).
    public var neverAnswers: Double
    /// P(error | answered).
    public var errorRate: Double

    /// Creates a behaviour.
    /// - Parameters:
    ///   - fillRate: P(ad | answered without error), 0...1.
    ///   - price: the bid or realised eCPM, USD CPM.
    ///   - latency: milliseconds.
    ///   - neverAnswers: P(no answer), 0...1 (default 0).
    ///   - errorRate: P(error | answered), 0...1 (default 0).
    public init(fillRate: Double, price: LogNormal, latency: LogNormal, neverAnswers: Double = 0, errorRate: Double = 0) {
        self.fillRate = fillRate
        self.price = price
        self.latency = latency
        self.neverAnswers = neverAnswers
        self.errorRate = errorRate
    }

    /// The one answer of this source in one auction, from its own random stream.
    /// - Parameters:
    ///   - seed: the run's seed.
    ///   - auction: the auction's index in the run.
    ///   - lineItemKey: `SplitMix64.key(ofLineItem:)` of the line item id.
    /// - Returns: the draw.
    public func draw(seed: UInt64, auction: UInt64, lineItemKey: UInt64) -> SourceDraw {
        var random = SplitMix64.forSource(seed: seed, auction: auction, lineItemKey: lineItemKey)
        // Five uniforms, always all drawn and always in this order, so that changing one
        // parameter (a fill rate, say) leaves every other draw of the source as it was.
        let never = random.nextUnitInterval()
        let error = random.nextUnitInterval()
        let fill = random.nextUnitInterval()
        let priceQuantile = random.nextUnitInterval()
        let latencyQuantile = random.nextUnitInterval()
        let answer: SourceDraw.Answer
        if never < neverAnswers {
            answer = .never
        } else if error < errorRate {
            answer = .error
        } else if fill < fillRate {
            answer = .ad
        } else {
            answer = .noFill
        }
        let price = self.price.value(atStandardNormal: StandardNormal.quantile(priceQuantile))
        let latency = self.latency.value(atStandardNormal: StandardNormal.quantile(latencyQuantile))
        return SourceDraw(
            answer: answer,
            priceMicros: SourceDraw.micros(ofPrice: price),
            latencyMilliseconds: SourceDraw.wholeMilliseconds(latency)
        )
    }
}

/// One source's drawn answer in one auction.
public struct SourceDraw: Hashable, Sendable {
    /// What the source answers.
    public enum Answer: String, Hashable, Sendable, Codable {
        /// No answer, ever.
        case never
        /// An error, after the latency.
        case error
        /// A no-fill, after the latency.
        case noFill = "no_fill"
        /// A bid, or a fill, after the latency.
        case ad
    }

    /// The largest price a draw takes, USD CPM (the engine's own maximum, above which a price is
    /// invalid).
    public static let maximumPrice: Double = 1_000_000
    /// The longest latency a draw takes, in milliseconds (an hour: far past any deadline).
    public static let maximumLatencyMilliseconds: Int64 = 3_600_000

    /// What it answers.
    public var answer: Answer
    /// The price (the bid, or the fill's realised eCPM) in USD CPM micros; drawn whatever the
    /// answer, so that it is the same when only the fill rate changes.
    public var priceMicros: Int64
    /// The latency in whole milliseconds.
    public var latencyMilliseconds: Int64

    /// Creates a draw.
    public init(answer: Answer, priceMicros: Int64, latencyMilliseconds: Int64) {
        self.answer = answer
        self.priceMicros = priceMicros
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// The price in USD CPM.
    public var price: Double { Double(priceMicros) / 1_000_000 }

    /// A price in micros: rounded half away from zero (as the engine rounds, R2), at least 1,
    /// at most ``maximumPrice``.
    static func micros(ofPrice price: Double) -> Int64 {
        guard price.isFinite else { return price > 0 ? Int64(maximumPrice * 1_000_000) : 1 }
        let clamped = min(max(price, 0), maximumPrice)
        return max(1, Int64((clamped * 1_000_000).rounded(.toNearestOrAwayFromZero)))
    }

    /// A latency rounded to whole milliseconds, from 0 to ``maximumLatencyMilliseconds``.
    static func wholeMilliseconds(_ latency: Double) -> Int64 {
        guard latency.isFinite else { return latency > 0 ? maximumLatencyMilliseconds : 0 }
        let clamped = min(max(latency, 0), Double(maximumLatencyMilliseconds))
        return Int64(clamped.rounded(.toNearestOrAwayFromZero))
    }
}

/// One network's part of the market: its default behaviour and its line items' overrides.
public struct NetworkMarket: Hashable, Sendable {
    /// The network id, as the configuration's `networks` names it.
    public var id: String
    /// The behaviour of every line item of the network, unless overridden.
    public var behaviour: MarketBehaviour
    /// Overrides by line item id.
    public var lineItems: [String: MarketBehaviour]
    /// Its outages, in time order and not overlapping: during each, every request to any of its
    /// line items hangs, errors or is slow (see ``Outage``).
    public var outages: [Outage]
    /// In a market with countries, how it bids (its line items are tiers tested against one bid
    /// per auction); `nil`: each line item draws its price on its own, as ``behaviour`` says.
    public var tiered: TieredBid?

    /// Creates a network's market.
    /// - Parameters:
    ///   - id: the network id.
    ///   - behaviour: its default behaviour.
    ///   - lineItems: overrides by line item id.
    ///   - outages: its outages, in time order and not overlapping (default none).
    ///   - tiered: how it bids in a market with countries (default `nil`).
    public init(id: String, behaviour: MarketBehaviour, lineItems: [String: MarketBehaviour] = [:], outages: [Outage] = [], tiered: TieredBid? = nil) {
        self.id = id
        self.behaviour = behaviour
        self.lineItems = lineItems
        self.outages = outages
        self.tiered = tiered
    }
}

/// The market model: how each network (and optionally each line item) answers requests. Read
/// from a strict JSON file (`Config/market.json`, schema `Config/market.schema.json`) by
/// ``load(contentsOf:)``, or built in code.
public struct Market: Hashable, Sendable {
    /// The networks, in file order.
    public var networks: [NetworkMarket]
    /// The countries, the user value and the shocks; `nil` for the one-country market (no
    /// country reaches the engine, every draw as in a market file without `countries`).
    public var countries: CountryMarket?
    /// The tiers' floors pinned by ``pinningFloors(to:)``, USD CPM by line item id and country
    /// code; `nil`: each run's configuration gives its own floors (its eCPMs).
    public var pinnedFloors: [String: [String: Double]]?

    /// Creates a market.
    /// - Parameters:
    ///   - networks: the networks (ids unique).
    ///   - countries: the countries (default `nil`: one country).
    public init(networks: [NetworkMarket], countries: CountryMarket? = nil) {
        self.networks = networks
        self.countries = countries
    }

    /// Whether any network has an outage (such a market needs a timed run,
    /// ``SimulationOptions/rate``).
    public var hasOutages: Bool { networks.contains { !$0.outages.isEmpty } }

    /// The network with `id`.
    /// - Parameter id: a network id.
    /// - Returns: its market, if any.
    public func network(_ id: String) -> NetworkMarket? {
        networks.first { $0.id == id }
    }

    /// The resolved behaviour of `lineItem`: its network's values, overridden by its own.
    /// - Parameter lineItem: a line item of the configuration.
    /// - Returns: the behaviour.
    /// - Throws: ``ConfigurationError`` naming the market path that should hold the missing
    ///   value: `networks.<id>` (code `missing_field`) when the network is absent, or
    ///   `networks.<id>.<field>` when neither the network nor the line item sets a required
    ///   field (`fill_rate`, `price`, `latency`).
    public func behaviour(of lineItem: LineItem) throws(ConfigurationError) -> SourceBehaviour {
        let path = MarketPaths.network(lineItem.network)
        guard let network = network(lineItem.network) else {
            throw ConfigurationError(code: .missingField, path: path, message: "the market has no network \"\(lineItem.network)\", which line item \"\(lineItem.id)\" uses")
        }
        var merged = network.behaviour.overridden(by: network.lineItems[lineItem.id] ?? MarketBehaviour())
        if let tiered = network.tiered {
            // A tier's fill and price come from its network's bid (``TierModel``): its own
            // fill draw always passes and its own price draw is not used.
            merged.fillRate = 1
            merged.price = LogNormal(median: tiered.baseECPM)
        }
        func missing(_ field: String) -> ConfigurationError {
            ConfigurationError(code: .missingField, path: MarketPaths.field(field, network: lineItem.network), message: "missing \"\(field)\", which line item \"\(lineItem.id)\" needs (set it here or in line_items.\(lineItem.id))")
        }
        guard let fillRate = merged.fillRate else { throw missing("fill_rate") }
        guard let price = merged.price else { throw missing("price") }
        guard let latency = merged.latency else { throw missing("latency") }
        return SourceBehaviour(
            fillRate: fillRate,
            price: price,
            latency: latency,
            neverAnswers: merged.neverAnswers ?? 0,
            errorRate: merged.error ?? 0
        )
    }

    /// Checks that the market describes every line item of `placementIDs` in each of
    /// `configurations`, and that every line item it overrides exists in one of them.
    /// - Parameters:
    ///   - configurations: the configurations the market will be used with (two for a
    ///     comparison).
    ///   - placementIDs: the placements to cover; `nil` for every placement.
    /// - Throws: ``ConfigurationError`` with the market path of the first gap: a missing
    ///   network or field (as ``behaviour(of:)``), or `networks.<id>.line_items.<line item>`
    ///   (code `invalid_value`) for an override of a line item no configuration has.
    public func check(against configurations: [MediationConfiguration], placements placementIDs: [String]? = nil) throws(ConfigurationError) {
        var lineItemsByNetwork: [String: Set<String>] = [:]
        for configuration in configurations {
            for placement in configuration.placements {
                for lineItem in placement.sources {
                    lineItemsByNetwork[lineItem.network, default: []].insert(lineItem.id)
                }
                guard placementIDs.map({ $0.contains(placement.id) }) ?? true else { continue }
                for lineItem in placement.sources {
                    _ = try behaviour(of: lineItem)
                }
            }
        }
        for network in networks {
            for lineItemID in network.lineItems.keys.sorted() where !(lineItemsByNetwork[network.id]?.contains(lineItemID) ?? false) {
                throw ConfigurationError(code: .invalidValue, path: MarketPaths.lineItem(lineItemID, network: network.id), message: "no line item \"\(lineItemID)\" of network \"\(network.id)\" in the configuration")
            }
        }
    }
}

/// The JSON paths of the market file, written as ``ConfigurationError/path`` names them.
enum MarketPaths {
    static func network(_ id: String) -> String {
        JSONPath.root.appending("networks").appending(id).description
    }

    static func field(_ field: String, network: String) -> String {
        JSONPath.root.appending("networks").appending(network).appending(field).description
    }

    static func lineItem(_ lineItem: String, network: String) -> String {
        JSONPath.root.appending("networks").appending(network).appending("line_items").appending(lineItem).description
    }
}

/// The standard normal distribution's quantile function.
enum StandardNormal {
    /// Φ⁻¹(p) for p in (0, 1), by Acklam's rational approximation (relative error under
    /// 1.2 × 10⁻⁹): the same arithmetic, and so the same value, on every run.
    static func quantile(_ p: Double) -> Double {
        let a = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
        let b = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01, -1.328068155288572e+01)
        let c = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00)
        let d = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00)
        let low = 0.02425
        if p < low {
            let q = (-2 * p.logarithm).squareRoot()
            return (((((c.0 * q + c.1) * q + c.2) * q + c.3) * q + c.4) * q + c.5) / ((((d.0 * q + d.1) * q + d.2) * q + d.3) * q + 1)
        }
        if p > 1 - low {
            let q = (-2 * (1 - p).logarithm).squareRoot()
            return -(((((c.0 * q + c.1) * q + c.2) * q + c.3) * q + c.4) * q + c.5) / ((((d.0 * q + d.1) * q + d.2) * q + d.3) * q + 1)
        }
        let q = p - 0.5
        let r = q * q
        return (((((a.0 * r + a.1) * r + a.2) * r + a.3) * r + a.4) * r + a.5) * q / (((((b.0 * r + b.1) * r + b.2) * r + b.3) * r + b.4) * r + 1)
    }
}

extension Double {
    /// e^self (Foundation's `exp`).
    var exponential: Double { Foundation.exp(self) }
    /// ln(self) (Foundation's `log`).
    var logarithm: Double { Foundation.log(self) }
}
