/// One segment of a placement (its `segments`, in file order): the audience it is for and what
/// it changes. The first segment whose predicate matches an auction's audience wins; the last
/// one has no predicate (the default) and takes everyone else.
package struct AudienceSegment: Hashable, Sendable {
    /// The segment id, unique in its placement, e.g. `"tier1"`.
    package var id: String
    /// Its `when`; `nil` for the default (the last segment).
    package var predicate: AudiencePredicate?
    /// What it changes in the placement.
    package var override: MediationConfiguration.PlacementOverride
    /// Its JSON path, e.g. `placements.level_end.segments[0]`.
    package var path: String

    /// A segment.
    package init(id: String, predicate: AudiencePredicate?, override: MediationConfiguration.PlacementOverride, path: String) {
        self.id = id
        self.predicate = predicate
        self.override = override
        self.path = path
    }

    /// The reason text of the default segment's choice.
    package static let defaultReason = "no earlier segment matched"
}

extension [AudienceSegment] {
    /// The index of the first segment `audience` matches (the default when no other does), and
    /// `nil` only for an empty list.
    package func firstMatch(_ audience: Audience) -> Int? {
        for index in indices {
            guard let predicate = self[index].predicate else { return index }
            if predicate.matches(audience) { return index }
        }
        return nil
    }

    /// Why segment `index` was chosen for `audience`: `tier1: country US in [US, CA, GB]`, or
    /// `default: no earlier segment matched`.
    package func reason(_ index: Int, for audience: Audience) -> String {
        let segment = self[index]
        guard let predicate = segment.predicate else { return "\(segment.id): \(AudienceSegment.defaultReason)" }
        return "\(segment.id): \(predicate.reason(for: audience))"
    }
}
