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
    package static func warnings(for placement: MediationConfiguration.Placement) -> [MediationConfiguration.Warning] {
        let segments = placement.segments
        guard !segments.isEmpty else { return [] }
        var warnings: [MediationConfiguration.Warning] = []
        for (index, segment) in segments.enumerated() {
            if let predicate = segment.predicate, predicate.isAlwaysFalse {
                warnings.append(MediationConfiguration.Warning(code: .segmentUnreachable, path: segment.path, message: "segment \(ConfigurationText.quoted(segment.id)) can never be chosen: its \"when\" matches no audience"))
                continue
            }
            for earlier in segments[..<index] {
                guard let earlierPredicate = earlier.predicate else { break }
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
                warnings.append(MediationConfiguration.Warning(code: .lineItemUnused, path: placement.path(ofSourceAt: index), message: "line item \(ConfigurationText.quoted(lineItem.id)) is in no segment's \"sources\", so it is never asked"))
            }
        }
        return warnings
    }
}
