import Foundation
import Mediation

/// Each exposed user's totals per experiment, added a user-day at a time from engine events or
/// from a warehouse's per-user CSV: memory grows with the users, not with the rows read.
package struct ExperimentUsers {
    /// One user's totals in one experiment.
    package struct User: Equatable, Sendable {
        /// Its variant, an index into the design's variants.
        package var variant: UInt16
        /// Ad requests (auctions started).
        package var requests: UInt32 = 0
        /// Impressions (`shown`).
        package var impressions: UInt32 = 0
        /// Revenue, USD.
        package var revenue: Double = 0

        /// Creates a user's totals.
        package init(variant: UInt16, requests: UInt32 = 0, impressions: UInt32 = 0, revenue: Double = 0) {
            self.variant = variant
            self.requests = requests
            self.impressions = impressions
            self.revenue = revenue
        }
    }

    /// The experiments read, as configured.
    package let designs: [ExperimentDesign]
    /// The last day counted; later rows are skipped (`nil`: every row).
    package let asOf: UTCDay?
    /// Per design, its users by unit (the unit's 16 hex digits as a number).
    package private(set) var users: [[UInt64: User]]
    /// The latest day among the rows counted.
    package private(set) var latestDay: UTCDay?
    /// Rows dated after ``asOf``, not counted.
    package private(set) var rowsAfterAsOf = 0
    /// Rows of experiments the config does not hold (not counted).
    package private(set) var unknownExperimentRows = 0
    /// The first ``maximumNamedUnknownExperiments`` distinct ids of those experiments, in the
    /// order read, each cut to 64 characters: memory stays bounded however many there are.
    package private(set) var unknownExperiments: [String] = []
    /// Whether rows of an experiment not in ``unknownExperiments`` were read too.
    package private(set) var moreUnknownExperiments = false
    /// The most unknown experiment ids kept by name: 10.
    package static let maximumNamedUnknownExperiments = 10
    private let index: [String: Int]
    private var variantLocation: [[UInt64: ReportLocation]]

    /// No users yet.
    package init(designs: [ExperimentDesign], asOf: UTCDay?) {
        self.designs = designs
        self.asOf = asOf
        users = Array(repeating: [:], count: designs.count)
        variantLocation = Array(repeating: [:], count: designs.count)
        index = Dictionary(designs.enumerated().map { ($0.element.id, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// The unit as a number: exactly 16 lower-case hex digits (8 bytes of SHA-256); `nil` else.
    package static func unitNumber(_ text: some StringProtocol) -> UInt64? {
        guard text.utf8.count == 16, text.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else { return nil }
        return UInt64(text, radix: 16)
    }

    /// Adds one row: a user's requests, impressions and revenue on `day`.
    /// - Throws: ``ReportError`` at `location` for a unit that is not 16 lower-case hex digits,
    ///   a variant the experiment does not have, a unit seen before in another variant, or counts
    ///   above 4,294,967,295 per user.
    package mutating func add(experiment: String, variant: String, unit: String, day: UTCDay, requests: Int, impressions: Int, revenue: Double, at location: @autoclosure () -> ReportLocation) throws(ReportError) {
        guard let designIndex = index[experiment] else {
            unknownExperimentRows += 1
            let name = String(experiment.prefix(64))
            if !unknownExperiments.contains(name) {
                if unknownExperiments.count < Self.maximumNamedUnknownExperiments {
                    unknownExperiments.append(name)
                } else {
                    moreUnknownExperiments = true
                }
            }
            return
        }
        let design = designs[designIndex]
        guard let variantIndex = design.variants.firstIndex(where: { $0.id == variant }) else {
            let known = design.variants.map(\.id).joined(separator: ", ")
            throw ReportError(location(), "the experiment \"\(DisplayText.escaped(experiment))\" has no variant \"\(DisplayText.escaped(String(variant.prefix(64))))\" (the config's are \(known))")
        }
        guard let key = Self.unitNumber(unit) else {
            throw ReportError(location(), "unit must be 16 lower-case hex digits (8 bytes of SHA-256), found \"\(DisplayText.escaped(String(unit.prefix(64))))\"")
        }
        if let asOf, asOf < day {
            rowsAfterAsOf += 1
            return
        }
        if let latest = latestDay, !(latest < day) {} else { latestDay = day }
        var user = users[designIndex][key] ?? User(variant: UInt16(variantIndex))
        guard user.variant == UInt16(variantIndex) else {
            let first = variantLocation[designIndex][key].map { " at \($0)" } ?? ""
            throw ReportError(location(), "unit \(unit) is in variant \"\(DisplayText.escaped(variant))\" here but in \"\(DisplayText.escaped(design.variants[Int(user.variant)].id))\"\(first); a user is in one variant of an experiment")
        }
        if users[designIndex][key] == nil, variantLocation[designIndex].count < 1000 {
            // Where the first few users were first seen, for the message above (bounded).
            variantLocation[designIndex][key] = location()
        }
        let newRequests = UInt64(user.requests) + UInt64(max(0, requests)), newImpressions = UInt64(user.impressions) + UInt64(max(0, impressions))
        guard newRequests <= UInt64(UInt32.max), newImpressions <= UInt64(UInt32.max) else {
            throw ReportError(location(), "unit \(unit) has more than \(UInt32.max) requests or impressions")
        }
        user.requests = UInt32(newRequests)
        user.impressions = UInt32(newImpressions)
        user.revenue += revenue
        users[designIndex][key] = user
    }
}
