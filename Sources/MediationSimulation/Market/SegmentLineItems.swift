import Mediation

extension MediationConfiguration.Placement {
    /// The ids of the line items an auction of country `country` runs, its segment's when the
    /// placement has segments (the first whose predicate the simulator's request of that country
    /// matches, else the default), all the placement's otherwise. The request is the one the
    /// simulator sends (``SimulatedNetworks/template(country:)``): its country and the default
    /// template's other signals (a phone, OS 17.4, app 1.0.0, tracking limited), which a
    /// segment's predicate may test as the engine does.
    /// - Parameter country: an ISO 3166-1 alpha-2 code, e.g. `"IN"`.
    /// - Returns: the ids.
    func lineItemIDs(inCountry country: String) -> Set<String> {
        guard let index = segments.firstMatch(SimulatedNetworks.template(country: country).resolvedAudience) else { return Set(sources.map(\.id)) }
        return Set(segments[index].override.applied(to: self).sources.map(\.id))
    }
}
