import Mediation

extension EloAdapter {
    /// Elo's status: the SDK version, bidder mode, whether the client is configured, and the
    /// COPPA / TFUA flags (host signal or network option), geo sharing and identity rules.
    public func status(for template: RequestTemplate) async -> NetworkStatus {
        let configuration = await client.currentConfiguration
        var privacy = PrivacyStatus.entries(template, coppa: configuration?.coppa ?? false, tfua: configuration?.tfua ?? false)
        let restricted = template.privacy.restrictsUserData || (configuration?.coppa ?? false) || (configuration?.tfua ?? false)
        privacy["user_data"] = restricted || !PrivacyRules.allowsIdentity(template.privacy) ? "not sent (COPPA, TFUA, GDPR or consent refused)" : "sent when set"
        privacy["geo"] = configuration.map { $0.shareGeoLocation ? "shared, \($0.geoLocationPrecision.map { "\($0) decimals" } ?? "full precision")" : "not shared" } ?? "unknown"
        return NetworkStatus(
            version: EloClient.sdkVersion,
            mode: "bidder: one OpenRTB-style POST per request, its answer priced",
            initialization: configuration == nil ? "not configured" : "configured",
            privacy: privacy
        )
    }
}
