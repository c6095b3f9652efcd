import Mediation

/// The Nitx network as an engine ad source: a fixed-price source (Nitx answers carry no price,
/// so the line item's eCPM prices each fill). It owns one ``NitxClient``.
///
/// Formats: banner (320x50, 300x250 or adaptive, from the request's slot and sizing),
/// interstitial, app open, native, and rewarded (always a failure, "Rewarded ads are not
/// available in v1").
package struct NitxAdapter: AdNetworkAdapter {
    /// The config's network id, e.g. `"nitx"`.
    package let network: String
    /// The client: loads, privacy signals, forget and state go through it.
    package let client: NitxClient

    /// Creates an adapter over `client`.
    package init(network: String, client: NitxClient) {
        self.network = network
        self.client = client
    }

    /// `false`: Nitx's document has no win or loss notice, so auctions build none for it.
    package var receivesAuctionNotices: Bool { false }

    /// Loads one ad for the line item's slot code (`request.adUnitID`).
    /// - Returns: `.fill(ad)`, a no-fill, or a failure (never throws).
    package func loadAd(for request: AdRequest) async -> AdLoadResult {
        switch NitxFormatChoice.resolve(for: request) {
        case .failure(let error):
            return .failure(error)
        case .success(let choice):
            return await client.loadAd(slot: request.adUnitID, choice: choice, request: request)
        }
    }

    /// The app went to the background (engine rule R18): queued impression and viewable events
    /// are sent now (Nitx document, "Request mode").
    package func didEnterBackground() async {
        await client.applicationDidEnterBackground()
    }

    /// The app is about to resign active (R18; it also comes before termination): queued events
    /// are sent now (Nitx document: flushed when the app resigns active or enters the background).
    package func willResignActive() async {
        await client.applicationWillResignActive()
    }

    /// The host's signals changed: a consent withdrawal (`privacy.userConsent == false`) is
    /// Nitx's `consent(false)` at once (profile and consent record deleted, visitor id kept;
    /// ``NitxClient/hostPrivacyDidChange(_:)``). Each request applies the same rule.
    package func requestTemplateDidChange(_ template: RequestTemplate) {
        client.hostPrivacyDidChange(template.privacy)
    }

    /// The host asked to forget the user (``MediationEngine/forgetUser()``): Nitx's own
    /// `reset()` (new visitor id; profile and consent record deleted; the forget request when
    /// advertised), or after a shutdown the same erasure without a request
    /// (``NitxClient/forgetUser()``).
    package func forgetUser() async {
        await client.forgetUser()
    }

    /// The engine is shutting down (R18): the client drops its queued events, stops its 2 s batch
    /// timer and sends nothing afterwards, not even for ads handed out earlier.
    package func shutdown() async {
        await client.shutdown()
    }
}
