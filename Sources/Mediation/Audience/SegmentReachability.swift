/// What `mediate validate` (and ``MediationEngine/configurationWarnings``) says of a placement's
/// segments: a segment no audience can reach, and a line item no segment uses.
package enum SegmentReachability {
    /// The warnings of `placement`'s segments, each with its JSON path:
    /// - `segment_unreachable` at `placements.P.segments[i]`: every audience it matches is taken
    ///   by an earlier segment (whose predicate it implies, or which matches everyone), or its
    ///   predicate can match no audience. The check is sound but not complete: a segment that
    ///   only two earlier ones together cover is not reported.
    /// - `line_item_unused` at `placements.P.sources[j]`: every segment lists its `sources` and
    ///   none lists this one, so it is never asked.
    ///
    /// An experiment variant's own `segments` (at `experiments[e].variants[v].placements.P.segments`)
    /// are checked the same way through ``warnings(for:in:)``.
    package static func warnings(for placement: MediationConfiguration.Placement) -> [MediationConfiguration.Warning] {
        warnings(of: placement.segments, in: placement, owner: "")
    }

    /// The warnings of the variants' own segments for each placement of `configuration`
    /// (as ``warnings(for:)``; the line item's message names the variant).
    package static func warnings(for placement: MediationConfiguration.Placement, in configuration: MediationConfiguration) -> [MediationConfiguration.Warning] {
        var warnings: [MediationConfiguration.Warning] = []
        for experiment in configuration.experiments {
            for variant in experiment.variants {
                guard let segments = variant.placements[placement.id]?.segments else { continue }
                warnings += Self.warnings(of: segments, in: placement, owner: " of experiment \(ConfigurationText.quoted(experiment.id))'s variant \(ConfigurationText.quoted(variant.id))")
            }
        }
        return warnings
    }

    /// The most work the check of one list of segments may do, in value look-ups (an upper
    /// bound per pair of segments: tests × tests × the longest `in` list). Past it the
    /// remaining pairs are not compared, so no warning is given for them: the check is sound,
    /// not complete, and an engine build stays fast whatever the configuration.
    package static let workBudget = 5_000_000

    private static func warnings(of segments: [AudienceSegment], in placement: MediationConfiguration.Placement, owner: String) -> [MediationConfiguration.Warning] {
        guard !segments.isEmpty else { return [] }
        var warnings: [MediationConfiguration.Warning] = []
        let costs = segments.map { segment in segment.predicate.map { (tests: $0.testCount, list: max(1, $0.longestList)) } ?? (tests: 1, list: 1) }
        var work = 0
        for (index, segment) in segments.enumerated() {
            if let predicate = segment.predicate, predicate.isAlwaysFalse {
                warnings.append(MediationConfiguration.Warning(code: .segmentUnreachable, path: segment.path, message: "segment \(ConfigurationText.quoted(segment.id)) can never be chosen: its \"when\" matches no audience"))
                continue
            }
            for (earlierIndex, earlier) in segments[..<index].enumerated() {
                guard let earlierPredicate = earlier.predicate else { break }
                work += costs[index].tests * costs[earlierIndex].tests * max(costs[index].list, costs[earlierIndex].list)
                guard work <= workBudget else { break }
                let covered = earlierPredicate.isAlwaysTrue || (segment.predicate?.implies(earlierPredicate) ?? false)
                guard covered else { continue }
                let why = earlierPredicate.isAlwaysTrue ? "matches every audience" : "matches every audience this one does"
                warnings.append(MediationConfiguration.Warning(code: .segmentUnreachable, path: segment.path, message: "segment \(ConfigurationText.quoted(segment.id)) can never be chosen: the earlier segment \(ConfigurationText.quoted(earlier.id)) (\(earlier.path)) \(why)"))
                break
            }
        }
        if segments.allSatisfy({ $0.override.sources != nil }) {
            let used = Set(segments.flatMap { $0.override.sources ?? [] })
            for (index, lineItem) in placement.sources.enumerated() where !used.contains(lineItem.id) {
                warnings.append(MediationConfiguration.Warning(code: .lineItemUnused, path: placement.path(ofSourceAt: index), message: "line item \(ConfigurationText.quoted(lineItem.id)) is in no segment's \"sources\"\(owner), so it is never asked\(owner.isEmpty ? "" : " in that variant")"))
            }
        }
        return warnings
    }
}

extension AudiencePredicate {
    /// The most values of any one `in` / `not_in` list it holds (0 without one).
    var longestList: Int {
        switch self {
        case .test(let test):
            switch test.operation {
            case .isIn(let set), .notIn(let set): set.count
            default: 0
            }
        case .all(let predicates), .any(let predicates): predicates.map(\.longestList).max() ?? 0
        case .not(let predicate): predicate.longestList
        }
    }
}
