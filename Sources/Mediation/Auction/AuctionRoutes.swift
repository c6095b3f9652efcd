/// What one auction of a placement runs under: the placement as its audience's segment and
/// country make it, its sources, and the prepared state machine every such auction starts from.
/// A shared, immutable box: each auction's choice passes one reference, not a copy of the
/// placement, the machine and the plan.
final class AuctionRoute: Sendable {
    /// The placement, with the segment's override and the country's prices applied.
    let placement: MediationConfiguration.Placement
    /// Its sources, in the placement's order.
    let sources: [AuctionSource]
    /// A machine for every source, not yet started.
    let machine: AuctionStateMachine
    /// The sources' networks for health, each once (R24).
    let healthPlan: NetworkHealthMonitor.Plan?
    /// Whether some source's adapter hears notices.
    let sendsNotices: Bool

    init(placement: MediationConfiguration.Placement, sources: [AuctionSource], machine: AuctionStateMachine, healthPlan: NetworkHealthMonitor.Plan?, sendsNotices: Bool) {
        self.placement = placement
        self.sources = sources
        self.machine = machine
        self.healthPlan = healthPlan
        self.sendsNotices = sendsNotices
    }
}

/// A placement's routes, chosen per auction from its audience (segments, `ecpm_by_country`).
/// Built once per configuration (every predicate compiled, every priced form prepared), so the
/// choice parses nothing: it tests the segments' predicates in order and looks the country up.
struct AuctionRoutes: Sendable {
    /// One segment's routes: the segment's placement, and its forms for the countries some of
    /// its line items price by country.
    struct SegmentRoutes: Sendable {
        var route: AuctionRoute
        var byCountry: [String: AuctionRoute]
    }

    /// The placement as configured (all its sources at their configured prices).
    var base: AuctionRoute
    /// The segments, in order (empty when the placement has none): the variant's when its
    /// override has its own.
    let segments: [AudienceSegment]
    /// The segments compiled for the per-auction choice.
    private let matcher: SegmentMatcher
    /// Per segment (one, the placement's own, when it has none), its routes.
    private let perSegment: [SegmentRoutes]
    /// Whether the choice needs the audience at all (segments, or prices by country).
    let dependsOnAudience: Bool

    /// The routes of `placement` over `sources` (its line items' sources, in order).
    /// - Parameters:
    ///   - variantOverride: an experiment variant's override, applied after each segment's.
    ///   - make: builds one route from a placement and its sources.
    init(placement: MediationConfiguration.Placement, sources: [AuctionSource], variantOverride: MediationConfiguration.PlacementOverride? = nil, make: (MediationConfiguration.Placement, [AuctionSource]) -> AuctionRoute) {
        let configured = variantOverride.map { $0.applied(to: placement) } ?? placement
        base = variantOverride == nil ? make(placement, sources) : make(configured, AuctionRoutes.sources(of: configured, from: sources))
        // A variant with segments of its own chooses from them instead of the placement's.
        segments = configured.segments
        matcher = SegmentMatcher(segments)
        let overrides = segments.isEmpty ? [MediationConfiguration.PlacementOverride()] : segments.map(\.override)
        var perSegment: [SegmentRoutes] = []
        var priced = false
        for override in overrides {
            let segmentForm = override.isEmpty ? placement : override.applied(to: placement)
            let variant = variantOverride.map { $0.applied(to: segmentForm) } ?? segmentForm
            let variantSources = AuctionRoutes.sources(of: variant, from: sources)
            let route = override.isEmpty ? base : make(variant, variantSources)
            var byCountry: [String: AuctionRoute] = [:]
            let countries = Set(variant.sources.flatMap(\.eCPMByCountry.keys))
            for country in countries.sorted() {
                let local = AuctionRoutes.priced(variant, in: country)
                byCountry[country] = make(local, AuctionRoutes.sources(of: local, from: sources))
            }
            priced = priced || !byCountry.isEmpty
            perSegment.append(SegmentRoutes(route: route, byCountry: byCountry))
        }
        self.perSegment = perSegment
        dependsOnAudience = !segments.isEmpty || priced
    }

    /// The route of an auction whose audience is `audience`, with the segment it fell in and
    /// why (`nil` for a placement without segments).
    func route(for audience: Audience) -> (route: AuctionRoute, segment: Int?) {
        guard dependsOnAudience else { return (base, nil) }
        let segment = matcher.firstMatch(audience)
        let index = segment ?? 0
        // Read in place (copying the segment's routes retained each of their references), and
        // no country look-up in a segment without country prices.
        if let country = audience.country, !perSegment[index].byCountry.isEmpty, let local = perSegment[index].byCountry[country] {
            return (local, segment)
        }
        return (perSegment[index].route, segment)
    }

    /// The placement's form in the segment with id `segment` (its caps and pacing are the
    /// country forms' too); the configured form when `segment` is `nil` or no longer one of the
    /// placement's segments.
    func placement(segment: String?) -> MediationConfiguration.Placement {
        guard let segment, let index = segments.firstIndex(where: { $0.id == segment }), index < perSegment.count else { return base.placement }
        return perSegment[index].route.placement
    }

    /// `placement`'s line items priced for `country`: those with a price for it in
    /// `ecpm_by_country` take it as their eCPM (their learned spread and count, which were the
    /// global price's, go).
    static func priced(_ placement: MediationConfiguration.Placement, in country: String) -> MediationConfiguration.Placement {
        var result = placement
        for index in result.sources.indices {
            guard let price = result.sources[index].eCPMByCountry[country] else { continue }
            result.sources[index].eCPM = price
            result.sources[index].eCPMSD = nil
            result.sources[index].eCPMImpressions = nil
        }
        return result
    }

    /// The auction sources of `placement`'s line items, in its order, each with its line item
    /// as `placement` has it.
    private static func sources(of placement: MediationConfiguration.Placement, from sources: [AuctionSource]) -> [AuctionSource] {
        var byID: [String: AuctionSource] = [:]
        for source in sources { byID[source.lineItem.id] = source }
        return placement.sources.compactMap { lineItem in
            guard var source = byID[lineItem.id] else { return nil }
            source.lineItem = lineItem
            return source
        }
    }
}
