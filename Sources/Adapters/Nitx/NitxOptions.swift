import Foundation

/// Which way the Nitx client asks for ads (Nitx seed, "Request mode": `NitxOptions.ads`).
package enum NitxRequestModeOverride: String, Sendable, Hashable, CaseIterable {
    /// GET per slot until the source's config advertises the `sdk` block, then POST; a 404, 405
    /// or 501 from the POST endpoint falls back to GET for the rest of the process (the default).
    case auto
    /// Always GET `/api/ad-slots/show/{code}`, whatever the config advertises.
    case get
    /// POST whenever the config advertises an ads endpoint, with no fallback to GET: a 404, 405
    /// or 501 is reported as a server failure so the developer sees it. Without an advertised
    /// endpoint there is nothing to POST to, and the client uses GET with a warning.
    case post
}

/// The options a Nitx client starts with (Nitx seed, "Start": `NitxOptions`).
package struct NitxOptions: Sendable, Hashable {
    /// The SDK's own version tag, sent as `context.sdk` (Nitx seed: `ios-1.0.0`).
    public static let sdkTag = "ios-1.0.0"
    /// The production API base URL, `https://api.nitx.app`.
    public static let defaultAPIBaseURL = URL(string: "https://api.nitx.app") ?? URL(fileURLWithPath: "/")
    /// The default minimum interval between two app open ads, 4 hours (Nitx seed: `4 * 3600`).
    public static let defaultAppOpenMinimumInterval: Duration = .seconds(4 * 3600)

    /// The API base URL; relative endpoints resolve against it and must stay on its origin.
    public var apiBaseURL: URL
    /// Debug logging: request and mode decisions are logged at `debug` level.
    public var debug: Bool
    /// `false`: no storage, no visitor block, and reset does nothing.
    public var personalization: Bool
    /// A bridge tag set by the React Native or Flutter bridges, e.g. `"rn-1.0.0"`; `context.sdk`
    /// then reads `rn-1.0.0/ios-1.0.0`. `nil` or empty for none.
    public var bridge: String?
    /// The developer's request mode override.
    public var requestMode: NitxRequestModeOverride
    /// The shortest time between two shown app open ads (seconds in the seed's API).
    public var appOpenMinimumInterval: Duration

    /// Creates options; every default is the seed's.
    /// - Parameters:
    ///   - apiBaseURL: the API base URL (default `https://api.nitx.app`).
    ///   - debug: debug logging (default `false`).
    ///   - personalization: visitor storage and identity (default `true`).
    ///   - bridge: the bridge tag, e.g. `"rn-1.0.0"` (default none).
    ///   - requestMode: auto, get or post (default auto).
    ///   - appOpenMinimumInterval: the app open frequency cap (default 4 h).
    public init(
        apiBaseURL: URL = NitxOptions.defaultAPIBaseURL,
        debug: Bool = false,
        personalization: Bool = true,
        bridge: String? = nil,
        requestMode: NitxRequestModeOverride = .auto,
        appOpenMinimumInterval: Duration = NitxOptions.defaultAppOpenMinimumInterval
    ) {
        self.apiBaseURL = apiBaseURL
        self.debug = debug
        self.personalization = personalization
        self.bridge = bridge
        self.requestMode = requestMode
        self.appOpenMinimumInterval = appOpenMinimumInterval
    }

    /// The `context.sdk` value: `ios-1.0.0`, or `<bridge>/ios-1.0.0` when a bridge is set.
    package var sdkTag: String {
        guard let bridge = bridge?.trimmingCharacters(in: .whitespaces), !bridge.isEmpty else {
            return NitxOptions.sdkTag
        }
        return "\(bridge)/\(NitxOptions.sdkTag)"
    }
}
