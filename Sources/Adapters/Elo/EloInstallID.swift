import Foundation
import Mediation

/// Elo's anonymous per-install id, kept in the engine's state store
/// (``MediationEnvironment/stateStore``) under `elo.<network id>.install_id`: per install, it
/// goes with the app (the app's own storage).
enum EloInstallID {
    /// The longest install id kept, in characters (the client makes UUIDs).
    static let maximumLength = 128
    /// The key of a network's install id: `elo.<network id>.install_id`.
    static func key(forNetwork network: String) -> String {
        "elo.\(network).install_id"
    }

    /// The stored install id, or a new one from `makeID` stored in its place (none stored, or
    /// one this client could not have made: untrusted input, engine rule R21), read and written
    /// under the store's lock. A failure to store keeps the new id in memory.
    /// - Returns: the id and the warnings (naming the key, never the value).
    static func load(from store: any StateStore, network: String, makeID: () -> String) -> (id: String, warnings: [String]) {
        let key = key(forNetwork: network)
        var warnings: [String] = []
        var made: String?
        do {
            let stored = try store.update(key) { current -> Data? in
                if let current {
                    if let text = String(data: current, encoding: .utf8), isInstallID(text) { return current }
                    warnings.append("stored \(key) discarded (not a value this client writes): a new install id is made")
                }
                let id = makeID()
                made = id
                return Data(id.utf8)
            }
            if let stored, let text = String(data: stored, encoding: .utf8), isInstallID(text) { return (text, warnings) }
        } catch {
            warnings.append("install id not stored, kept in memory: \(error)")
        }
        return (made ?? makeID(), warnings)
    }

    /// Stores `id` as the network's install id.
    /// - Throws: ``StateStoreError`` when it cannot be written.
    static func store(_ id: String, in store: any StateStore, network: String) throws(StateStoreError) {
        try store.setData(Data(id.utf8), forKey: key(forNetwork: network))
    }

    /// Whether a stored install id is one the client could have made: 1 to 128 characters of
    /// `A-Z a-z 0-9 . _ : -`.
    static func isInstallID(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= maximumLength && text.unicodeScalars.allSatisfy(isInstallIDCharacter)
    }

    private static func isInstallIDCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", ".", "_", ":", "-": true
        default: false
        }
    }
}
