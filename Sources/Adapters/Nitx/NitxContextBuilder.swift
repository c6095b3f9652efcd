import Mediation

/// Builds the app context block of a POST request (Nitx seed, "Request mode" and "App Tracking
/// Transparency"): bundle id, app version and build, the screen name, OS name and version,
/// phone or tablet, language, time zone, screen size and the SDK tag. Never the IP address,
/// the user agent or a location; the advertising id only when the host says tracking is
/// authorized (Nitx document) and the privacy signals allow it (``PrivacyRules``: not limited,
/// not COPPA or TFUA, consent not withdrawn; and not under a US-privacy opt-out of sale or GDPR
/// without consent, signals the Nitx document does not define), and never the all-zero id iOS
/// returns otherwise.
package enum NitxContextBuilder {
    /// The all-zero advertising id iOS reports when tracking is not authorized.
    package static let zeroAdvertisingID = PrivacyRules.zeroAdvertisingID

    /// The context block for `request`.
    /// - Parameters:
    ///   - request: the engine's request (app, device, screen, host context).
    ///   - sdkTag: `ios-1.0.0`, or `<bridge>/ios-1.0.0`.
    package static func context(for request: AdRequest, sdkTag: String) -> NitxWireContext {
        let device = request.device
        let privacy = request.privacy
        // The Nitx document defines no US-privacy or GDPR signal: under an opt-out of sale or
        // GDPR without consent the advertising id (personal data) stays on the device.
        let adID = PrivacyRules.withholdsPersonalDataWithoutASignalOfItsOwn(privacy)
            ? nil
            : PrivacyRules.advertisingID(device: device, privacy: privacy, coppa: privacy.coppa, underAgeOfConsent: privacy.underAgeOfConsent)
        return NitxWireContext(
            app: NitxWireAppContext(
                bundleID: request.app.bundleID,
                version: request.app.version,
                build: request.app.build,
                screen: request.context.screenName
            ),
            os: NitxWireOSContext(name: device.osName, version: device.osVersion),
            device: NitxWireDeviceContext(
                type: device.kind.rawValue,
                screenWidth: request.screen.width,
                screenHeight: request.screen.height,
                screenScale: request.screen.scale
            ),
            language: device.language,
            timeZone: device.timeZone,
            sdk: sdkTag,
            adID: adID
        )
    }
}
