/// The Bayesian estimator with exploration (R23): the prices of ``BayesianLearner``, each with
/// its posterior standard deviation (`ecpm_sd`; none for a line item kept for too little data),
/// on a placement that explores (`"exploration": "thompson"`), so an uncertain line item
/// sometimes wins and is learned.
public struct ThompsonLearner: ECPMLearner {
    /// `thompson`.
    public let name = "thompson"
    /// The estimator.
    public var estimator: BayesianECPM

    /// Creates the learner.
    /// - Parameter estimator: the estimator (default: its default parameters).
    public init(estimator: BayesianECPM = BayesianECPM()) {
        self.estimator = estimator
    }

    /// `true`.
    public var explores: Bool { true }

    /// The estimates' new eCPMs.
    /// - Parameter input: the line items with their current prices and reported days.
    public func prices(for input: LearnerInput) -> [Double] {
        estimator.estimate(input.lineItems, asOf: input.asOf).map(\.newECPM)
    }

    /// The estimates' standard deviations, `nil` where the configured price was kept.
    /// - Parameter input: the line items with their current prices and reported days.
    public func standardDeviations(for input: LearnerInput) -> [Double?] {
        estimator.estimate(input.lineItems, asOf: input.asOf).map { $0.decision == .keptTooLittleData ? nil : $0.standardDeviation }
    }

    /// The countries whose interval excludes their line item's estimate, as ``BayesianLearner``.
    /// - Parameter input: the line items with their reported days per country.
    public func countryPrices(for input: LearnerInput) -> [[String: Double]] {
        BayesianLearner.countryPrices(estimator.estimate(input.lineItems, asOf: input.asOf))
    }
}
