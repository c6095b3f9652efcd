/// How the client asks for ads (Nitx seed, "Request mode").
package enum NitxRequestMode: String, Sendable, Hashable {
    /// `GET /api/ad-slots/show/{code}` per slot, no tracking.
    case get
    /// POST to the advertised ads endpoint with the visitor and app context blocks; impression
    /// and viewable events go to the events endpoint.
    case post

    /// The statuses of the POST endpoint that switch an `auto` client to GET for the rest of
    /// the process: 404, 405 and 501 (Nitx seed).
    package static let fallbackStatuses: Set<Int> = [404, 405, 501]

    /// The mode for the next request.
    /// - Parameters:
    ///   - override: the developer's override.
    ///   - adsEndpointAdvertised: whether the config advertised an on-origin ads endpoint.
    ///   - fellBack: whether the POST endpoint already answered 404, 405 or 501 in this process.
    package static func select(override: NitxRequestModeOverride, adsEndpointAdvertised: Bool, fellBack: Bool) -> NitxRequestMode {
        switch override {
        case .get: .get
        case .post: adsEndpointAdvertised ? .post : .get
        case .auto: adsEndpointAdvertised && !fellBack ? .post : .get
        }
    }

    /// Whether a POST answer with `status` makes the client fall back to GET (only under `auto`).
    package static func fallsBack(status: Int, override: NitxRequestModeOverride) -> Bool {
        override == .auto && fallbackStatuses.contains(status)
    }
}
