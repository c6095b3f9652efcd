import Mediation

extension QartveloAdapter {
    /// Qartvelo's status: banners only, fixed price; anchored adaptive or not; the advertising
    /// id is never sent when GDPR applies.
    public func status(for template: RequestTemplate) async -> NetworkStatus {
        NetworkStatus(
            version: nil,
            mode: "banners, one POST per request; anchored banners \(builder.adaptive ? "adaptive" : "not adaptive")",
            initialization: "ready (no start-up call)",
            privacy: PrivacyStatus.entries(template, idBlockedUnderGDPR: true)
        )
    }
}
