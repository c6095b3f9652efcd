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

    /// Creates an input.
    /// - Parameters:
    ///   - lineItems: the line items with their current prices and reported days.
    ///   - manualECPMs: their hand-typed prices, USD CPM, in the same order.
    ///   - asOf: the last reported day.
    public init(lineItems: [BayesianECPM.Input], manualECPMs: [Double], asOf: UTCDay) {
        self.lineItems = lineItems
        self.manualECPMs = manualECPMs
        self.asOf = asOf
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
}

extension ECPMLearner {
    /// `false`: the placement values each line item at its price.
    public var explores: Bool { false }

    /// None.
    /// - Parameter input: the line items.
    public func standardDeviations(for input: LearnerInput) -> [Double?] {
        input.lineItems.map { _ in nil }
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
}
