import Mediation

extension MediationConfiguration.Placement {
    /// The ids of the line items an auction of country `country` runs (and of nothing else: the
    /// simulator's requests carry a country only), its segment's when the placement has segments
    /// (the first whose predicate a user of that country matches, else the default), all the
    /// placement's otherwise.
    /// - Parameter country: an ISO 3166-1 alpha-2 code, e.g. `"IN"`.
    /// - Returns: the ids.
    func lineItemIDs(inCountry country: String) -> Set<String> {
        guard let index = segments.firstMatch(Audience(country: country)) else { return Set(sources.map(\.id)) }
        return Set(segments[index].override.applied(to: self).sources.map(\.id))
    }
}
