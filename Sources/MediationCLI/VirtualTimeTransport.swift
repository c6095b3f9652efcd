import Foundation
import Mediation

/// The HTTP transport of networks with a real endpoint in a `--watch --fast` run: it refuses
/// every request. Virtual time does not wait for a real server's answer, so such a request
/// would be timed out at a virtual deadline while the server is still answering, and the same
/// inputs would not give the same lines. The run refuses such a network at launch
/// (``refusal(of:)``); this covers one that a configuration applied during the run brings in.
/// The sandboxes run on the virtual clock and never reach it.
struct VirtualTimeTransport: HTTP.Transport {
    /// Refuses `request`.
    /// - Throws: always, ``HTTP/TransportError`` `invalidRequest` naming `--fast` and the origin.
    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        let origin = "\(request.url.scheme ?? "")://\(request.url.host ?? "")\(request.url.port.map { ":\($0)" } ?? "")"
        throw HTTP.TransportError(kind: .invalidRequest, message: "--fast refuses real endpoints (virtual time does not wait for a real network): \(DisplayText.escaped(origin))")
    }

    /// Why `configuration` cannot run under `--fast`: its first network with a real endpoint,
    /// named with the endpoint; `nil` when every network is a sandbox.
    /// - Parameter configuration: the configuration the engine launched with.
    static func refusal(of configuration: MediationConfiguration) -> String? {
        for network in configuration.networks {
            guard case .url(let url) = network.endpoint else { continue }
            return "--fast runs on virtual time, which does not wait for a real network: network \(DisplayText.escaped(network.id)) has the real endpoint \(DisplayText.escaped(url.absoluteString)); give it \"endpoint\": \"sandbox\", or run without --fast"
        }
        return nil
    }
}
