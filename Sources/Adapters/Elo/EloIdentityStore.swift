import Foundation
import Mediation

/// A storage failure of an ``EloIdentityStore`` (the client then keeps the record in memory).
public struct EloStorageError: Error, Sendable, Hashable, CustomStringConvertible {
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
public protocol EloIdentityStore: Sendable {
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
public final class InMemoryEloIdentityStore: EloIdentityStore {
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

/// A store that keeps the record as one JSON file, replaced atomically on each write and
/// readable by the owner only (0600). The iOS SDK's Keychain record has no Linux equivalent;
/// the file lives in the host's storage directory.
public struct FileEloIdentityStore: EloIdentityStore {
    /// The file.
    public let fileURL: URL

    /// Creates a store at `fileURL` (created on first write).
    public init(fileURL: URL) {
        self.fileURL = fileURL
    }

    /// Reads and decodes the file; an absent file is an empty record.
    /// - Throws: ``EloStorageError`` when the file cannot be read or decoded.
    public func read() throws(EloStorageError) -> EloIdentityRecord {
        guard FileManager.default.fileExists(atPath: fileURL.path) else { return EloIdentityRecord() }
        do {
            let data = try Data(contentsOf: fileURL)
            return try JSONDecoder().decode(EloIdentityRecord.self, from: data)
        } catch {
            throw EloStorageError(message: "cannot read the identity record: \(error)")
        }
    }

    /// Encodes the record and replaces the file atomically.
    /// - Throws: ``EloStorageError`` when the file cannot be written.
    public func write(_ record: EloIdentityRecord) throws(EloStorageError) {
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(record)
            try FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: fileURL, options: [.atomic])
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: fileURL.path)
        } catch {
            throw EloStorageError(message: "cannot write the identity record: \(error)")
        }
    }
}
