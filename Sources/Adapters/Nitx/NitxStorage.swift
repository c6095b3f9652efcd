/// Where the Nitx client keeps its per-install state (Nitx seed, "Storage": UserDefaults with
/// the `nitx.` prefix on iOS). Values are strings; keys are ``NitxStorageKey`` raw values.
///
/// Contract for implementers: calls may come from any task; a value read right after a write
/// is the written value; failures to persist are swallowed (storage is best-effort and never
/// throws into the host).
package protocol NitxStorage: Sendable {
    /// The value under `key`, or `nil`.
    func value(forKey key: NitxStorageKey) -> String?
    /// Stores `value` under `key`; `nil` removes it.
    func setValue(_ value: String?, forKey key: NitxStorageKey)
}

/// The keys the client stores, all under the `nitx.` prefix.
package enum NitxStorageKey: String, Sendable, Hashable, CaseIterable {
    /// The visitor id.
    case visitorID = "nitx.visitor_id"
    /// The consent record (present only after consent(true)).
    case consent = "nitx.consent"
    /// The hashed profile as JSON (persisted only with a consent record).
    case profile = "nitx.profile"
    /// When the last app open ad was shown, seconds since 1970 (UTC).
    case appOpenLastShown = "nitx.app_open_last_shown"
}
