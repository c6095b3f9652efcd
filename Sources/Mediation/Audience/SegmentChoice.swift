/// The segment an auction's audience fell in, kept so that its reason text is made only when
/// something reads it (the trace's description or JSON, an event, a report), not per auction:
/// the placement's segments (shared with the configuration, one reference), the index chosen,
/// and the signals it was chosen for (the request's template, one reference).
package struct SegmentChoice: Sendable {
    /// The placement's segments, in order.
    package let segments: [AudienceSegment]
    /// The index of the chosen one in ``segments``.
    package let index: Int
    /// Where the audience comes from.
    private let signals: Signals

    private enum Signals: Sendable {
        /// The request's template (its resolved audience).
        case template(RequestTemplate)
        /// An audience given as it is (tests).
        indirect case audience(Audience)
    }

    /// The choice of an auction under `signals`; `index` must be an index of `segments`.
    package init(segments: [AudienceSegment], index: Int, signals: RequestTemplate) {
        self.segments = segments
        self.index = index
        self.signals = .template(signals)
    }

    /// A choice for `audience`; `index` must be an index of `segments`.
    package init(segments: [AudienceSegment], index: Int, audience: Audience) {
        self.segments = segments
        self.index = index
        signals = .audience(audience)
    }

    /// The audience it was chosen for.
    package var audience: Audience {
        switch signals {
        case .template(let template): template.resolvedAudience
        case .audience(let audience): audience
        }
    }

    /// The chosen segment's id.
    package var id: String { segments[index].id }

    /// Why: `tier1: country US in [US, CA, GB]`, or `default: no earlier segment matched`
    /// (``Swift/Array/reason(_:for:)``, built on each read).
    package var reason: String { segments.reason(index, for: audience) }
}
