import Mediation

/// The HTTP transports `mediate` sends through: the system's, saying `mediate/<version>` (the
/// version `mediate --version` prints) as the `User-Agent` of every request that sets none.
enum MediateTransport {
    /// `mediate/0.1.0`.
    static let userAgent = "mediate/\(HelpText.version)"

    /// The networks' transport (their 8 MiB bodies), one for the process.
    static let networks = HTTP.SystemTransport(userAgent: userAgent)

    /// The configuration server's transport: bodies up to the loader's limit.
    static let configuration = HTTP.SystemTransport(maximumResponseBytes: MediationEngine.RemoteConfiguration.maximumBodyBytes, userAgent: userAgent)
}
