/// The audience signals of one auction, resolved from the host's ``RequestTemplate`` (the engine
/// never invents one): what a segment's predicate tests. A signal the host did not give, or gave
/// in a form the engine cannot read, is unknown (`nil`).
///
/// Resolved once per template change (``RequestTemplate/resolvedAudience``), not per auction.
package struct Audience: Hashable, Sendable {
    /// At most 20 custom keys are kept.
    package static let maximumCustomKeys = 20
    /// A custom key's longest form: 40 bytes, `[a-z][a-z0-9_]{0,39}`.
    package static let maximumKeyLength = 40
    /// A custom string value's longest form: 128 UTF-8 bytes.
    package static let maximumStringBytes = 128

    /// The country, upper-case ISO 3166-1 alpha-2 (``CountryCode``), or `nil` when unknown.
    package var country: String?
    /// Phone or tablet.
    package var deviceKind: AdRequest.Device.Kind?
    /// The OS version, or `nil` when it is not a dotted version.
    package var osVersion: Version?
    /// The app's marketing version, or `nil` when it is not a dotted version.
    package var appVersion: Version?
    /// The custom key-values within bounds.
    package var custom: [String: AudienceValue]
    /// Whether GDPR applies; `nil` when unknown.
    package var gdprApplies: Bool?
    /// The request falls under COPPA.
    package var coppa: Bool?
    /// The OS-level limit-ad-tracking signal.
    package var limitAdTracking: Bool?

    /// An audience of the given signals (tests; the engine resolves one from a template).
    package init(country: String? = nil, deviceKind: AdRequest.Device.Kind? = nil, osVersion: Version? = nil, appVersion: Version? = nil, custom: [String: AudienceValue] = [:], gdprApplies: Bool? = nil, coppa: Bool? = nil, limitAdTracking: Bool? = nil) {
        self.country = country
        self.deviceKind = deviceKind
        self.osVersion = osVersion
        self.appVersion = appVersion
        self.custom = custom
        self.gdprApplies = gdprApplies
        self.coppa = coppa
        self.limitAdTracking = limitAdTracking
    }

    /// The audience of the host's signals, and why each dropped custom key was dropped.
    /// - Parameters:
    ///   - device: the device signals (country, kind, OS version).
    ///   - app: the app (its marketing version).
    ///   - privacy: the privacy signals (GDPR, COPPA, limit ad tracking).
    ///   - custom: the host's custom key-values; out of bounds ones are dropped (never a crash).
    /// - Returns: the audience and one line per dropped key, for the engine's log.
    package static func resolve(device: AdRequest.Device, app: RequestTemplate.App, privacy: AdRequest.Privacy, custom: [String: AudienceValue]) -> (audience: Audience, dropped: [String]) {
        var kept: [String: AudienceValue] = [:]
        var dropped: [String] = []
        // Sorted, so which keys are kept past the 20th is the same on every run.
        for key in custom.keys.sorted() {
            guard let value = custom[key] else { continue }
            let shown = DisplayText.escaped(String(key.prefix(48)))
            guard isKey(key) else {
                dropped.append("audience key \"\(shown)\" dropped: a key is a lower-case letter then up to 39 of a-z, 0-9, _")
                continue
            }
            switch value {
            case .string(let text) where text.utf8.count > maximumStringBytes:
                dropped.append("audience key \"\(shown)\" dropped: its string is \(text.utf8.count) UTF-8 bytes, at most \(maximumStringBytes)")
                continue
            case .number(let number) where !number.isFinite:
                dropped.append("audience key \"\(shown)\" dropped: its number is not finite")
                continue
            default:
                break
            }
            guard kept.count < maximumCustomKeys else {
                dropped.append("audience key \"\(shown)\" dropped: at most \(maximumCustomKeys) custom keys are kept")
                continue
            }
            kept[key] = value
        }
        let audience = Audience(
            country: device.country.flatMap(CountryCode.alpha2),
            deviceKind: device.kind,
            osVersion: Version(device.osVersion),
            appVersion: Version(app.version),
            custom: kept,
            gdprApplies: privacy.gdprApplies,
            coppa: privacy.coppa,
            limitAdTracking: privacy.limitAdTracking
        )
        return (audience, dropped)
    }

    /// Whether `key` has the form `[a-z][a-z0-9_]{0,39}`.
    package static func isKey(_ key: String) -> Bool {
        let bytes = key.utf8
        guard let first = bytes.first, (1...maximumKeyLength).contains(bytes.count), first >= UInt8(ascii: "a"), first <= UInt8(ascii: "z") else { return false }
        return bytes.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") }
    }
}
