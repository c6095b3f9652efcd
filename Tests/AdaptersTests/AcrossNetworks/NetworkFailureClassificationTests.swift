import Adapters
import Foundation
import Mediation
import MediationTestKit
import Testing

/// A failure to reach a network is classified the same way for every
/// network (the engine's one classification), while each network keeps its own numbered codes
/// and result names in the error's detail.
@Suite struct NetworkFailureClassificationTests {
    /// A transport that refuses every connection or answers every request with `status`.
    struct FailingTransport: HTTP.Transport {
        var status: Int?

        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            guard let status else { throw HTTP.TransportError(kind: .connection, message: "connection refused") }
            return HTTP.Response(statusCode: status, headers: ["Content-Type": "application/json"], body: Data(#"{"error":"unavailable"}"#.utf8))
        }
    }

    enum Network: String, CaseIterable, Sendable {
        case elo, nitx, qartvelo

        var network: String {
            switch self {
            case .elo: #"{"adapter":"elo","credentials":{"publisher_id":"pub-1"},"endpoint":"https://ads.example.test","options":{"share_geo":false,"log_level":"none"}}"#
            case .nitx: #"{"adapter":"nitx","credentials":{"source_code":"SDK-AM-1"},"endpoint":"https://ads.example.test","options":{"personalization":false,"request_mode":"get"}}"#
            case .qartvelo: #"{"adapter":"qartvelo","credentials":{"app_id":"qv-1"},"endpoint":"https://ads.example.test"}"#
            }
        }

        var source: String {
            switch self {
            case .elo: #"{"id":"s","network":"net","ad_unit_id":"elo-unit"}"#
            case .nitx: #"{"id":"s","network":"net","ad_unit_id":"SLOT-1","ecpm":2.0}"#
            case .qartvelo: #"{"id":"s","network":"net","ad_unit_id":"qv-unit","ecpm":2.0}"#
            }
        }

        /// The network's own code for a refused connection and for a server error status.
        var codes: (network: Int, server: Int) {
            switch self {
            case .elo: (EloErrorCode.network.rawValue, EloErrorCode.serverStatus.rawValue)
            case .nitx: (NitxErrorCode.network.rawValue, NitxErrorCode.server.rawValue)
            case .qartvelo: (QartveloErrorCode.network.rawValue, QartveloErrorCode.serverStatus.rawValue)
            }
        }

        var configuration: String {
            #"""
            {
              "networks": {"net": \#(network)},
              "placements": {
                "home_banner": {"format": "banner", "sizing": "anchored", "slot": {"max_height": 90},
                                "deadline_ms": 800, "sources": [\#(source)]}
              }
            }
            """#
        }
    }

    /// The trace line of the network's one source after one auction over `transport`.
    static func outcome(_ network: Network, _ transport: FailingTransport) async throws -> SourceOutcome {
        let clock = ManualClock()
        let configuration = try MediationConfiguration(json: network.configuration, registry: .standard)
        let engine = try MediationEngine(configuration: configuration, registry: .standard, environment: MediationEnvironment(clock: clock, seed: 1, transport: transport))
        let auction = clock.startTask { await engine.runAuction(placementID: "home_banner") }
        let outcome = try #require(await auction.value)
        outcome.winner?.ad.releaseResources()
        await engine.shutdown()
        return try #require(outcome.trace.source("s")).outcome
    }

    @Test(arguments: Network.allCases)
    func aRefusedConnectionIsANetworkErrorForEveryNetwork(_ network: Network) async throws {
        let outcome = try await Self.outcome(network, FailingTransport(status: nil))
        guard case .error(let error) = outcome else { Issue.record("\(network): expected an error, got \(outcome)"); return }
        #expect(error.kind == .network)
        #expect(error.httpStatus == nil)
        #expect(error.code == network.codes.network, "the network's own code")
        #expect(error.message.contains("connection: connection refused"))
        if network == .elo { #expect(error.message.hasPrefix("networkError: "), "Elo's own result name") }
    }

    @Test(arguments: Network.allCases)
    func anHTTP503IsAServerErrorForEveryNetwork(_ network: Network) async throws {
        let outcome = try await Self.outcome(network, FailingTransport(status: 503))
        guard case .error(let error) = outcome else { Issue.record("\(network): expected an error, got \(outcome)"); return }
        #expect(error.kind == .server)
        #expect(error.httpStatus == 503)
        #expect(error.code == network.codes.server, "the network's own code")
        #expect(error.message.contains("503"))
        if network == .elo { #expect(error.message.hasPrefix("networkError: "), "Elo's own result name") }
    }

    @Test func everyNetworksTransportCodesFollowTheOneClassification() {
        for failure in HTTP.TransportError.Kind.allCases {
            let kind = AdLoadResult.Error.Kind(failure)
            #expect(EloErrorCode.transport(failure).kind == kind, "elo \(failure)")
            #expect(NitxErrorCode.transport(failure).kind == kind, "nitx \(failure)")
            #expect(QartveloErrorCode.transport(failure).kind == kind, "qartvelo \(failure)")
        }
        for status in [300, 302, 400, 401, 403, 404, 418, 500, 503] {
            #expect(EloErrorCode.status(status).kind == AdLoadResult.Error.Kind(httpStatus: status), "elo \(status)")
        }
    }
}
