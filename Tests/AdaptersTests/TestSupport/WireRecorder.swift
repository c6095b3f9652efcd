import Foundation
import Mediation
import MediationTestKit
@testable import Adapters

/// The three networks' in-process sandbox servers behind one transport that records every
/// request sent to them: the bytes each network puts on the wire (ad requests, tracking pings,
/// event batches). Configure the networks with the sandbox hosts as URL endpoints
/// (``eloEndpoint`` …) and pass the recorder as ``MediationEnvironment/transport``.
final class WireRecorder: HTTP.Transport {
    static let eloEndpoint = "https://\(EloSandboxServer.host)"
    static let nitxEndpoint = "https://\(NitxAdapterFactory.sandboxHost)"
    static let qartveloEndpoint = "https://\(QartveloSandboxServer.host)"

    private let inner: SandboxTransport
    private let recorded = Locked<[HTTP.Request]>([])

    /// - Parameters:
    ///   - clock: the clock of the simulated latency (none).
    ///   - eloNoBidRate: the Elo sandbox's share of no-bid answers (default never).
    ///   - qartvelo: the Qartvelo sandbox's dashboard settings.
    init(clock: any MediationClock, eloNoBidRate: Double = 0, qartvelo: QartveloOptions = QartveloOptions()) {
        inner = SandboxTransport(servers: [
            EloSandboxServer.host: EloSandboxServer(seed: 1, noBidRate: eloNoBidRate),
            NitxAdapterFactory.sandboxHost: NitxSandboxServer(configuration: NitxSandboxServer.Configuration(sdkBlock: true)),
            QartveloSandboxServer.host: QartveloSandboxServer(options: qartvelo),
        ], clock: clock)
    }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        recorded.withLock { $0.append(request) }
        return try await inner.send(request)
    }

    /// Every request so far, in order.
    var requests: [HTTP.Request] { recorded.withLock { $0 } }

    /// The requests to `host`.
    func requests(to host: String) -> [HTTP.Request] {
        requests.filter { $0.url.host == host }
    }

    /// A request as text: method, URL, headers and body.
    static func text(of request: HTTP.Request) -> String {
        let headers = request.headers.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
        return "\(request.method) \(request.url.absoluteString)\n\(headers)\n\n\(String(decoding: request.body ?? Data(), as: UTF8.self))"
    }
}
