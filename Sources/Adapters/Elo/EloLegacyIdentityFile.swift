import Foundation
import Mediation

/// The plaintext identity file that earlier versions wrote to the storage directory
/// (`<storage>/elo/<network id>-identity.json`). The engine offers no user identity, so it is
/// never read: building the adapter deletes it (a symbolic link is deleted, never followed).
enum EloLegacyIdentityFile {
    /// The file's location for `network` under `directory`.
    static func url(in directory: URL, network: String) -> URL {
        directory.appendingPathComponent("elo").appendingPathComponent("\(network)-identity.json")
    }

    /// Deletes the legacy file, unread, when anything sits at its path. A failure is logged
    /// without any value.
    static func delete(in directory: URL, network: String, logger: any MediationLogger) {
        let file = url(in: directory, network: network)
        // `attributesOfItem` does not follow a final symbolic link: a dangling one is found too.
        guard (try? FileManager.default.attributesOfItem(atPath: file.path)) != nil else { return }
        do {
            try FileManager.default.removeItem(at: file)
        } catch {
            logger.warning("the plaintext identity file of an earlier version could not be deleted", source: network)
        }
    }
}
