/// What a learner of fixed-price eCPMs sees at the end of a day: each line item's reported days
/// and current price, and the price an ad-ops person typed in.
public struct LearnerInput: Hashable, Sendable {
    /// The fixed-price line items, each with its current eCPM (``BayesianECPM/Input/configuredECPM``,
    /// USD CPM) and its reported days.
    public var lineItems: [BayesianECPM.Input]
    /// The hand-typed eCPM of each line item, USD CPM, in the order of ``lineItems``: the price
    /// the baselines fall back to when they have too little data.
    public var manualECPMs: [Double]
    /// The day the new prices are learned as of (the last reported day).
    public var asOf: UTCDay
    /// The hand-typed prices per country of each line item (its `ecpm_by_country`), USD CPM,
    /// in the order of ``lineItems``; empty, or an empty map, where there are none.
    public var manualCountryECPMs: [[String: Double]]

    /// Creates an input.
    /// - Parameters:
    ///   - lineItems: the line items with their current prices and reported days.
    ///   - manualECPMs: their hand-typed prices, USD CPM, in the same order.
    ///   - asOf: the last reported day.
    ///   - manualCountryECPMs: their hand-typed prices per country, USD CPM (default none).
    public init(lineItems: [BayesianECPM.Input], manualECPMs: [Double], asOf: UTCDay, manualCountryECPMs: [[String: Double]] = []) {
        self.lineItems = lineItems
        self.manualECPMs = manualECPMs
        self.asOf = asOf
        self.manualCountryECPMs = manualCountryECPMs
    }

    /// The hand-typed price of line item `index` in `country`: its `ecpm_by_country` entry, else
    /// its manual price.
    /// - Parameters:
    ///   - index: a line item's index in ``lineItems``.
    ///   - country: an ISO 3166-1 alpha-2 code.
    public func manualECPM(_ index: Int, country: String) -> Double {
        (index < manualCountryECPMs.count ? manualCountryECPMs[index][country] : nil) ?? manualECPMs[index]
    }

    /// The countries line item `index` has rows of (a code, not the unknown country), sorted,
    /// with their rows.
    /// - Parameter index: a line item's index in ``lineItems``.
    public func countries(of index: Int) -> [(country: String, observations: [BayesianECPM.Observation])] {
        var byCountry: [String: [BayesianECPM.Observation]] = [:]
        for observation in lineItems[index].observations {
            guard let code = observation.country, !code.isEmpty else { continue }
            byCountry[code, default: []].append(observation)
        }
        return byCountry.keys.sorted().map { ($0, byCountry[$0] ?? []) }
    }

    /// Each day's rows of `observations` summed (its countries together), in no given order.
    /// - Parameter observations: reported rows.
    public static func daily(_ observations: [BayesianECPM.Observation]) -> [BayesianECPM.Observation] {
        var byDay: [UTCDay: BayesianECPM.Observation] = [:]
        for observation in observations {
            byDay[observation.day, default: BayesianECPM.Observation(day: observation.day, impressions: 0, revenueUSD: 0)].impressions += observation.impressions
            byDay[observation.day, default: BayesianECPM.Observation(day: observation.day, impressions: 0, revenueUSD: 0)].revenueUSD += observation.revenueUSD
        }
        return Array(byDay.values)
    }
}

/// A rule that prices fixed-price line items from what their networks reported paying, run at
/// the end of each day (`mediate simulate --learner`, `docs/learning.md`).
public protocol ECPMLearner: Sendable {
    /// The learner's name on the command line and in reports, e.g. `bayes`.
    var name: String { get }

    /// The eCPM of each line item for the next day, USD CPM, in the order of
    /// `input.lineItems`; each positive and finite.
    /// - Parameter input: the reported days and current prices.
    func prices(for input: LearnerInput) -> [Double]

    /// Whether the learner's placement explores (Thompson sampling, `"exploration": "thompson"`):
    /// each auction values its fixed-price line items by a draw from their posteriors.
    var explores: Bool { get }

    /// The standard deviation of each new price, USD CPM (its `ecpm_sd`), in the order of
    /// `input.lineItems`; `nil` where the learner has none (an exploring engine then takes
    /// 30 % of the price).
    /// - Parameter input: the reported days and current prices.
    func standardDeviations(for input: LearnerInput) -> [Double?]

    /// The eCPM of each line item per country for the next day, USD CPM, in the order of
    /// `input.lineItems` (its `ecpm_by_country`); a country not listed takes the line item's
    /// price. Each positive and finite.
    /// - Parameter input: the reported days (rows per country) and current prices.
    func countryPrices(for input: LearnerInput) -> [[String: Double]]
}

extension ECPMLearner {
    /// `false`: the placement values each line item at its price.
    public var explores: Bool { false }

    /// None.
    /// - Parameter input: the line items.
    public func standardDeviations(for input: LearnerInput) -> [Double?] {
        input.lineItems.map { _ in nil }
    }

    /// None: every country takes the line item's price.
    /// - Parameter input: the line items.
    public func countryPrices(for input: LearnerInput) -> [[String: Double]] {
        input.lineItems.map { _ in [:] }
    }
}

/// The learners `mediate simulate --learner` knows.
public enum ECPMLearners {
    /// Their names, in order: `--learner all` runs the first four; `thompson` is named on its own.
    public static let names = ["static", "auto-cpm", "smoothing", "bayes", "thompson"]
    /// What `--learner all` runs: the estimator and the baselines.
    public static let all = ["static", "auto-cpm", "smoothing", "bayes"]

    /// The learner called `name`, or `nil` for an unknown name.
    /// - Parameter name: one of ``names``.
    public static func named(_ name: String) -> (any ECPMLearner)? {
        switch name {
        case "static": StaticLearner()
        case "auto-cpm": AutoCPMLearner()
        case "smoothing": SmoothingLearner()
        case "bayes": BayesianLearner()
        case "thompson": ThompsonLearner()
        default: nil
        }
    }
}

/// The hand-typed prices, never changed: today's engine.
public struct StaticLearner: ECPMLearner {
    /// `static`.
    public let name = "static"

    /// Creates the learner.
    public init() {}

    /// The manual prices.
    /// - Parameter input: the line items.
    public func prices(for input: LearnerInput) -> [Double] {
        input.manualECPMs
    }
}

/// The Bayesian estimator of ``BayesianECPM`` (what `mediate optimize` does): each line item
/// gets the estimate's ``BayesianECPM/Estimate/newECPM`` (kept, changed, or capped).
public struct BayesianLearner: ECPMLearner {
    /// `bayes`.
    public let name = "bayes"
    /// The estimator.
    public var estimator: BayesianECPM

    /// Creates the learner.
    /// - Parameter estimator: the estimator (default: its default parameters).
    public init(estimator: BayesianECPM = BayesianECPM()) {
        self.estimator = estimator
    }

    /// The estimates' new eCPMs.
    /// - Parameter input: the line items with their current prices and reported days.
    public func prices(for input: LearnerInput) -> [Double] {
        estimator.estimate(input.lineItems, asOf: input.asOf).map(\.newECPM)
    }

    /// Each country with data at its posterior mean (its own eCPM shrunk towards the line
    /// item's by the estimated between-country variance): the price an auction of that country
    /// should run. Writing a config keeps only the countries that differ
    /// (``countryPrices(_:)``, `mediate optimize --write`).
    /// - Parameter input: the line items with their reported days per country.
    public func countryPrices(for input: LearnerInput) -> [[String: Double]] {
        estimator.estimate(input.lineItems, asOf: input.asOf).map { estimate in
            var prices: [String: Double] = [:]
            for country in estimate.countries where country.mean.isFinite && country.mean > 0 {
                prices[country.country] = country.mean
            }
            return prices
        }
    }

    /// The countries of `estimates` whose interval excludes their line item's estimate, at
    /// their means.
    /// - Parameter estimates: line items' estimates.
    public static func countryPrices(_ estimates: [BayesianECPM.Estimate]) -> [[String: Double]] {
        estimates.map { estimate in
            var prices: [String: Double] = [:]
            for country in estimate.countries where country.differs(from: estimate.mean) && country.mean > 0 {
                prices[country.country] = country.mean
            }
            return prices
        }
    }
}
