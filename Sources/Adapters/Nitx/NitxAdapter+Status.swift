import Mediation

extension NitxAdapter {
    /// Nitx's status: the SDK tag, the request mode (GET or POST, and whether it fell back to
    /// GET after a 404, 405 or 501), whether the source's config was loaded, consent and
    /// personalization.
    public func status(for template: RequestTemplate) async -> NetworkStatus {
        let state = await client.state()
        var mode = state.mode.rawValue.uppercased()
        if state.fellBackToGet {
            mode += " (fell back from POST after a 404, 405 or 501; for the rest of the process)"
        } else if !state.started {
            mode += " until the source's config is loaded (POST once it advertises the sdk block)"
        }
        mode += "; override \(state.modeOverride.rawValue)"
        var privacy = PrivacyStatus.entries(template)
        privacy["nitx_consent"] = state.consent.map { $0 ? "granted" : "refused" } ?? "not asked"
        privacy["personalization"] = state.personalization ? "on (visitor id and profile, hashed)" : "off"
        return NetworkStatus(
            version: client.options.sdkTag,
            mode: mode,
            initialization: state.started ? "config loaded (source \(state.sourceStatus ?? "status unknown"))" : "config not loaded yet (loaded with the first request)",
            privacy: privacy,
            notes: ["requests so far: \(state.counters.getRequests) GET, \(state.counters.postRequests) POST"]
        )
    }
}
