import Foundation
import Mediation

/// A storage failure of an ``EloIdentityStore`` (the client then keeps the record in memory).
package struct EloStorageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What failed.
    public var message: String
    /// Creates an error.
    public init(message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// Where the Elo identity record lives. The record is always read and written whole, so the
/// user identifier and the user data can never be stored from two different calls.
///
/// Contract: ``write(_:)`` replaces the stored record atomically (a reader sees the old record
/// or the new one, never a mix); ``read()`` returns an empty record when nothing is stored.
package protocol EloIdentityStore: Sendable {
    /// Reads the stored record.
    /// - Returns: the record, empty when none is stored.
    /// - Throws: ``EloStorageError`` when the store cannot be read or holds a damaged record.
    func read() throws(EloStorageError) -> EloIdentityRecord
    /// Replaces the stored record in one write.
    /// - Parameter record: the new record.
    /// - Throws: ``EloStorageError`` when it cannot be written.
    func write(_ record: EloIdentityRecord) throws(EloStorageError)
}

/// A store that keeps the record in memory for the life of the process.
package final class InMemoryEloIdentityStore: EloIdentityStore {
    private let record: Locked<EloIdentityRecord>

    /// Creates a store holding `initial`.
    public init(_ initial: EloIdentityRecord = EloIdentityRecord()) {
        record = Locked(initial)
    }

    /// The stored record.
    /// - Returns: the record held in memory (empty until the first write).
    /// - Throws: never; the typed throw is ``EloIdentityStore``'s requirement.
    public func read() throws(EloStorageError) -> EloIdentityRecord {
        record.withLock { $0 }
    }

    /// Replaces the record.
    /// - Parameter newRecord: the record to hold.
    /// - Throws: never; the typed throw is ``EloIdentityStore``'s requirement.
    public func write(_ newRecord: EloIdentityRecord) throws(EloStorageError) {
        record.withLock { $0 = newRecord }
    }
}

/// A store that keeps the record in the host's ``SecureStore`` (the platform Keychain: encrypted
/// at rest, this device only), as one value under one key, so the identifier and the user data
/// are always written together (Elo document, "Persisted on the device, encrypted at rest").
/// The record is never written anywhere else.
package struct SecureEloIdentityStore: EloIdentityStore {
    /// The host's secure store.
    public let store: any SecureStore
    /// The key of the record, e.g. `elo.identity.elo`.
    public let key: String

    /// Creates a store.
    /// - Parameters:
    ///   - store: the host's secure store.
    ///   - key: the key of the record.
    public init(store: any SecureStore, key: String) {
        self.store = store
        self.key = key
    }

    /// The key of a network's record: `elo.identity.<network id>`.
    /// - Parameter network: the network id.
    /// - Returns: the key.
    public static func key(forNetwork network: String) -> String {
        "elo.identity.\(network)"
    }

    /// Reads and decodes the record; none stored is an empty record. The stored bytes are
    /// untrusted (engine rule R21): more than ``EloIdentityRules/maximumStoredRecordBytes`` or
    /// anything but the record's JSON is a damaged record (the client then starts a new one,
    /// with a warning), and the client checks each field of a record that decodes
    /// (``EloIdentityRules/checkedStoredRecord(_:)``).
    /// - Returns: the record.
    /// - Throws: ``EloStorageError`` when the store cannot be read or holds a damaged record.
    public func read() throws(EloStorageError) -> EloIdentityRecord {
        let data: Data?
        do {
            data = try store.data(forKey: key)
        } catch {
            throw EloStorageError(message: "cannot read the identity record: \(error.message)")
        }
        guard let data else { return EloIdentityRecord() }
        guard data.count <= EloIdentityRules.maximumStoredRecordBytes else {
            throw EloStorageError(message: "the stored identity record is over \(EloIdentityRules.maximumStoredRecordBytes / 1024) KiB")
        }
        // Untrusted (R21): strict JSON first (a key given twice is refused, not resolved by
        // whichever value the decoder keeps).
        guard StoredJSON.strictnessProblem(of: data) == nil else {
            throw EloStorageError(message: "the stored identity record is damaged")
        }
        do {
            return try JSONDecoder().decode(EloIdentityRecord.self, from: data)
        } catch {
            throw EloStorageError(message: "the stored identity record is damaged")
        }
    }

    /// Encodes the record and replaces the stored one in one write.
    /// - Parameter record: the record.
    /// - Throws: ``EloStorageError`` when it cannot be written.
    public func write(_ record: EloIdentityRecord) throws(EloStorageError) {
        let data: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            data = try encoder.encode(record)
        } catch {
            throw EloStorageError(message: "cannot encode the identity record")
        }
        do {
            try store.setData(data, forKey: key)
        } catch {
            throw EloStorageError(message: "cannot write the identity record: \(error.message)")
        }
    }
}

/// The plaintext identity file that earlier versions wrote to the storage directory
/// (`<storage>/elo/<network id>-identity.json`). It is never written any more: building the
/// adapter moves its record into the identity store in use (when that store holds none) and
/// deletes the file.
enum EloLegacyIdentityFile {
    /// The file's location for `network` under `directory`.
    static func url(in directory: URL, network: String) -> URL {
        directory.appendingPathComponent("elo").appendingPathComponent("\(network)-identity.json")
    }

    /// Moves the legacy file's record into `store` when the store is empty, then deletes the
    /// file (also when it is damaged). A failure is logged without any value.
    static func migrate(from directory: URL, network: String, into store: any EloIdentityStore, logger: any MediationLogger) {
        let file = url(in: directory, network: network)
        // `attributesOfItem` does not follow a final symbolic link: a dangling one is found too.
        guard (try? FileManager.default.attributesOfItem(atPath: file.path)) != nil else { return }
        do {
            // Untrusted (R21): a file over the record's bound is not read; the client checks
            // each field of what is moved (``EloIdentityRules/checkedStoredRecord(_:)``).
            // Bounded whatever sits at the path: a symbolic link (to a larger file, to /dev/zero)
            // or a FIFO is refused, never followed or read.
            guard case .success(let data?) = UntrustedFile.contents(file.path, limit: EloIdentityRules.maximumStoredRecordBytes) else {
                throw EloStorageError(message: "not a regular file of at most the record's bound")
            }
            guard StoredJSON.strictnessProblem(of: data) == nil else {
                throw EloStorageError(message: "the plaintext identity file is not strict JSON")
            }
            let legacy = try JSONDecoder().decode(EloIdentityRecord.self, from: data)
            if try store.read() == EloIdentityRecord() { try store.write(legacy) }
        } catch {
            logger.warning("the plaintext identity file of an earlier version could not be moved; it is deleted", source: network)
        }
        do {
            try FileManager.default.removeItem(at: file)
        } catch {
            logger.warning("the plaintext identity file of an earlier version could not be deleted", source: network)
        }
    }
}
