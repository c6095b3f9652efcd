import Mediation

extension FallbackAdapter {
    /// The fallback stub's status: no HTTP, its fill rate and simulated latency.
    public func status(for template: RequestTemplate) async -> NetworkStatus {
        NetworkStatus(
            mode: "stub without HTTP: fill rate \(options.fillRate), latency \(Int(options.latency.milliseconds)) ms ± \(Int(options.latencyJitter.milliseconds)) ms",
            initialization: "ready",
            notes: ["sends nothing over the network; no user data leaves the device"]
        )
    }
}
