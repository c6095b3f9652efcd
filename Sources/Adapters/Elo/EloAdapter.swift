import Mediation

/// Elo in the engine: a bidder whose answers carry the server's eCPM (Elo seed, `AdResult`).
///
/// Answers: a fill is `.bid(ad, eCPM:)` (USD CPM, finite, >= 0); no fill keeps the seed's reason
/// as the code (`noBids`, `timeout`, `notConfigured`, `other`); a failure to
/// reach the server, which Elo's SDK calls `.noFill(.networkError)`, is the `.failure` it is,
/// classified like every network's (``EloErrorCode`` 10 to 16, message `networkError: …`); a
/// decoding failure is `.failure` with kind `invalidResponse` (code 1); a cancelled request
/// `cancelled` (code 2); a missing ad unit id `configuration` (code 3); a placement format other
/// than banner or native `unsupported` (code 4), without a request.
package struct EloAdapter: AdNetworkAdapter {
    /// The network id, e.g. `"elo"`.
    package let network: String
    /// The client the adapter owns.
    package let client: EloClient


    /// Creates an adapter around a client.
    /// - Parameters:
    ///   - network: the network id from the configuration.
    ///   - client: a configured client.
    package init(network: String = "elo", client: EloClient) {
        self.network = network
        self.client = client
    }

    /// `false`: Elo's SDK takes no win or loss notice, so auctions build none for it.
    package var receivesAuctionNotices: Bool { false }

    /// Loads one ad through the client.
    package func loadAd(for request: AdRequest) async -> AdLoadResult {
        guard request.format == .banner || request.format == .native else {
            return .failure(EloErrorCode.unsupportedFormat.error("Elo serves banner and native placements only, not \(request.format)"))
        }
        switch await client.loadAd(for: request) {
        case .loaded(let ad, let eCPM): return .bid(ad, eCPM: eCPM)
        case .noFill(let reason): return .noFill(reason.engineReason)
        case .networkError(_, let failure): return .failure(failure)
        case .error(let error): return .failure(error.adapterError)
        }
    }

    /// The host's signals changed: after a consent withdrawal (`privacy.userConsent == false`)
    /// the stored user identifier and user data are erased at once
    /// (``EloClient/hostPrivacyDidChange(_:)``); each request applies the same rule.
    package func requestTemplateDidChange(_ template: RequestTemplate) {
        client.hostPrivacyDidChange(template.privacy)
    }

    /// The host asked to forget the user (``MediationEngine/forgetUser()``): the client erases
    /// the identifier, the user data and the install id (a new one is made), starts a new
    /// session id; earlier ads' pings carry no old id
    /// (``EloClient/forgetUser()``).
    package func forgetUser() async {
        await client.forgetUser()
    }

    /// The engine is shutting down (engine rule R18): the client cancels its requests in flight,
    /// erases the stored user identity (Elo document, `shutdown()`) and
    /// stops every ad it handed out from sending anything.
    package func shutdown() async {
        await client.shutdown()
    }
}
