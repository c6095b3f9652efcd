import Foundation
import Mediation

/// Nitx's records (Nitx seed, "Storage": `nitx.`-prefixed values) kept in the engine's state
/// store (``MediationEnvironment/stateStore``), each under `nitx.<network id>.<name>`, e.g.
/// `nitx.nitx.visitor_id`: the one store, written atomically under its lock.
///
/// A thin typed wrapper: values are strings by ``NitxStorageKey``. What is read back is
/// untrusted input (engine rule R21): a value the store discards (tampered with, truncated),
/// one over ``NitxStoredValues/maximumValueBytes`` or not UTF-8 is removed and reads as none,
/// with a warning naming the key, never the value; the client then checks each value it reads
/// (``NitxStoredValues``). Writes are best-effort: a failure is a warning and never throws into
/// the host.
package struct NitxRecords: Sendable {
    /// The store.
    package let store: any StateStore
    /// The network id in the keys.
    package let network: String
    private let logger: any MediationLogger

    /// Creates the records of `network` in `store`.
    /// - Parameters:
    ///   - store: the engine's state store (default: a new one in memory).
    ///   - network: the network id, default `"nitx"`.
    ///   - logger: where discarded values and failed writes are reported.
    package init(store: any StateStore = MemoryStateStore(), network: String = "nitx", logger: any MediationLogger = SilentLogger()) {
        self.store = store
        self.network = network
        self.logger = logger
    }

    /// The state-store key of `key`: `nitx.<network id>.<name>`.
    package func storeKey(_ key: NitxStorageKey) -> String {
        "nitx.\(network).\(key.name)"
    }

    /// The value under `key`, or `nil` (none stored, or one discarded with a warning).
    package func value(forKey key: NitxStorageKey) -> String? {
        let name = storeKey(key)
        let data: Data?
        do {
            data = try store.data(forKey: name)
        } catch {
            logger.warning("Nitx stored \(NetworkValueBounds.identifier(name)) not read (\(error.kind.rawValue)): treated as none", source: network)
            return nil
        }
        guard let data else { return nil }
        guard data.count <= NitxStoredValues.maximumValueBytes, let text = String(data: data, encoding: .utf8) else {
            logger.warning("Nitx stored \(NetworkValueBounds.identifier(name)) is not text of at most \(NitxStoredValues.maximumValueBytes / 1024) KiB: discarded", source: network)
            setValue(nil, forKey: key)
            return nil
        }
        return text
    }

    /// Stores `value` under `key`; `nil` removes it (best-effort: a failure is a warning).
    package func setValue(_ value: String?, forKey key: NitxStorageKey) {
        let name = storeKey(key)
        do {
            try store.setData(value.map { Data($0.utf8) }, forKey: name)
        } catch {
            logger.warning("Nitx stored \(NetworkValueBounds.identifier(name)) not written (\(error.kind.rawValue))", source: network)
        }
    }

    /// Every record held, by key (read as ``value(forKey:)`` reads).
    package var snapshot: [NitxStorageKey: String] {
        var values: [NitxStorageKey: String] = [:]
        for key in NitxStorageKey.allCases { values[key] = value(forKey: key) }
        return values
    }
}

/// The records the client keeps (Nitx seed, "Storage"), each named by its `nitx.`-prefixed
/// name in the document (the raw value, used in warnings).
package enum NitxStorageKey: String, Sendable, Hashable, CaseIterable {
    /// The visitor id.
    case visitorID = "nitx.visitor_id"
    /// The consent record (present only after consent(true)).
    case consent = "nitx.consent"
    /// The hashed profile as JSON (persisted only with a consent record).
    case profile = "nitx.profile"
    /// When the last app open ad was shown, seconds since 1970 (UTC).
    case appOpenLastShown = "nitx.app_open_last_shown"

    /// The name without the `nitx.` prefix, e.g. `visitor_id`.
    package var name: String { String(rawValue.dropFirst("nitx.".count)) }
}
