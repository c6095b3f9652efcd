import Foundation

/// How a network's adapter reaches its server, built once per network from the config's
/// `endpoint` (the one transport builder every network uses):
///
/// - `"endpoint": "sandbox"`: the network's in-process ``NetworkConnection/SandboxServer`` at its sandbox URL,
///   over the sandbox transport on the environment's clock with its sandbox latency;
/// - `"endpoint": "<URL>"`: the environment's transport (``MediationEnvironment/transport``), or
///   the shared ``HTTP/SystemTransport`` when the host gave none.
///
/// Either way the transport is instrumented for `mediate --debug` (the environment's exchange
/// recorder, attributed to the network) and locked to the base URL's origin (engine rule R17).
package struct NetworkConnection: Sendable {
    /// The base URL the network's requests resolve against: the sandbox URL or the endpoint.
    public let baseURL: URL
    /// Whether the endpoint is the in-process sandbox.
    public let isSandbox: Bool
    /// The network's transport: instrumented, and sending to ``baseURL``'s origin only. Use
    /// ``HTTP/OriginLockedTransport/reaching(_:)`` for the tracking URLs an answer carries.
    public let transport: HTTP.OriginLockedTransport

    /// Builds the connection of `network`.
    /// - Parameters:
    ///   - network: the network's configuration (its `id` and `endpoint`).
    ///   - environment: the host's environment (clock, sandbox latency, live transport,
    ///     exchange recorder).
    ///   - sandboxURL: the base URL of the network's sandbox, e.g. `https://sandbox.elo.test`;
    ///     its host names the sandbox server.
    ///   - sandboxServer: makes the sandbox server; called only for a `sandbox` endpoint.
    public init(
        for network: MediationConfiguration.Network,
        environment: MediationEnvironment,
        sandboxURL: URL,
        sandboxServer: () -> any NetworkConnection.SandboxServer
    ) {
        let raw: any HTTP.Transport
        switch network.endpoint {
        case .sandbox:
            baseURL = sandboxURL
            isSandbox = true
            raw = SandboxTransport(
                servers: [sandboxURL.host ?? "": sandboxServer()],
                clock: environment.clock,
                latency: environment.sandboxLatency
            )
        case .url(let url):
            baseURL = url
            isSandbox = false
            raw = environment.transport ?? HTTP.SystemTransport.shared
        }
        transport = HTTP.OriginLockedTransport(environment.instrumented(raw, networkID: network.id), endpoint: baseURL)
    }
}
