/// The segment an auction's audience fell in, kept so that its reason text is made only when
/// something reads it (the trace's description or JSON, an event, a report), not per auction:
/// the placement's segments (shared with the configuration, one reference), the index chosen,
/// and the audience (its resolved signals, one copy).
package struct SegmentChoice: Sendable {
    /// The placement's segments, in order.
    package let segments: [AudienceSegment]
    /// The index of the chosen one in ``segments``.
    package let index: Int
    /// The audience it was chosen for.
    package let audience: Audience

    /// A choice; `index` must be an index of `segments`.
    package init(segments: [AudienceSegment], index: Int, audience: Audience) {
        self.segments = segments
        self.index = index
        self.audience = audience
    }

    /// The chosen segment's id.
    package var id: String { segments[index].id }

    /// Why: `tier1: country US in [US, CA, GB]`, or `default: no earlier segment matched`
    /// (``Swift/Array/reason(_:for:)``, built on each read).
    package var reason: String { segments.reason(index, for: audience) }
}
