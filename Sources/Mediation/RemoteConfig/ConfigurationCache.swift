import Foundation

/// The last verified remote configuration, kept in the host's state store (engine rule R22:
/// bundled, then cached, then remote), with what the HTTP rules need across launches: its
/// entity tag, when it was fetched and its `max-age` and `stale-while-revalidate`. Also the
/// highest version this install ever applied, so that an old signed file is refused even after
/// the cache was lost.
///
/// Stored under `config.cache` as one line of JSON (`{"format": 1, "etag", "fetched_at_ms",
/// "max_age_s", "stale_while_revalidate_s"}`), a newline, then the envelope's bytes as they were
/// received; under `config.applied_version` as the version's decimal digits. Both are read back
/// as untrusted input (R21): a record that does not parse (the metadata line is read as
/// strictly as a configuration: no key twice, nothing after the object; the version is plain
/// digits, no sign, no leading zero), or of a newer format, is removed with a warning, and the
/// envelope is verified again like a download.
package struct ConfigurationCache: Sendable {
    /// The store key of the cached configuration.
    package static let key = "config.cache"
    /// The store key of the highest version applied.
    package static let appliedVersionKey = "config.applied_version"
    /// The format this version writes and reads.
    package static let format = 1

    /// What the cache record says besides the envelope.
    package struct Metadata: Codable, Hashable, Sendable {
        /// The record's format.
        package var format: Int
        /// The entity tag the server sent with it.
        package var entityTag: String?
        /// When it was fetched (or last revalidated), milliseconds since 1970 on the device's clock.
        package var fetchedAtMilliseconds: Int64
        /// The `max-age` in force, seconds.
        package var maxAgeSeconds: Int
        /// The `stale-while-revalidate` in force, seconds.
        package var staleSeconds: Int

        enum CodingKeys: String, CodingKey {
            case format
            case entityTag = "etag"
            case fetchedAtMilliseconds = "fetched_at_ms"
            case maxAgeSeconds = "max_age_s"
            case staleSeconds = "stale_while_revalidate_s"
        }

        package init(entityTag: String?, fetchedAt: WallClockTime, maxAgeSeconds: Int, staleSeconds: Int) {
            format = ConfigurationCache.format
            self.entityTag = entityTag
            fetchedAtMilliseconds = fetchedAt.millisecondsSince1970
            self.maxAgeSeconds = maxAgeSeconds
            self.staleSeconds = staleSeconds
        }
    }

    /// A cache record read back (not yet verified).
    package struct Entry: Sendable {
        package var metadata: Metadata
        package var envelope: Data
    }

    /// The longest metadata line, in bytes.
    static let maximumMetadataBytes = 4096

    let store: any StateStore

    package init(store: any StateStore) {
        self.store = store
    }

    /// The cached record, `nil` when there is none, or why it was discarded (it is removed).
    package func read() -> Result<Entry?, StateStoreError> {
        let data: Data?
        do {
            data = try store.data(forKey: Self.key)
        } catch {
            return .failure(error)
        }
        guard let data else { return .success(nil) }
        let bytes = [UInt8](data)
        guard let newline = bytes.prefix(Self.maximumMetadataBytes).firstIndex(of: UInt8(ascii: "\n")) else {
            return .failure(discard("the cache record has no metadata line"))
        }
        let metadata: Metadata
        switch StoredJSON.decode(Metadata.self, from: Data(bytes[0..<newline])) {
        case .success(let decoded):
            metadata = decoded
        case .failure(let refusal):
            return .failure(discard("the cache record's metadata does not parse: \(refusal.reason)"))
        }
        guard metadata.format == Self.format else {
            return .failure(discard(metadata.format > Self.format
                ? "the cache was written by a newer version of the engine (format \(metadata.format); this version reads format \(Self.format))"
                : "the cache has an unknown format \(metadata.format)"))
        }
        return .success(Entry(metadata: metadata, envelope: Data(bytes[(newline + 1)...])))
    }

    /// Stores `envelope` with `metadata` (atomically, replacing the old record), whatever the
    /// floor: the engine writes through ``raiseAppliedVersion(to:caching:)``, which compares
    /// with the floor under the lock; tests plant records with this.
    /// - Throws: the store's error.
    package func write(_ envelope: Data, metadata: Metadata) throws(StateStoreError) {
        let line: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            line = try encoder.encode(metadata)
        } catch {
            throw StateStoreError(kind: .unavailable, key: Self.key, message: "the cache metadata cannot be encoded")
        }
        try store.setData(line + Data("\n".utf8) + envelope, forKey: Self.key)
    }

    /// Removes the cached record.
    package func remove() {
        try? store.setData(nil, forKey: Self.key)
    }

    /// The highest version applied on this install (0 when none, or when the record is bad: it
    /// is removed, under the write lock unless another writer has just replaced it, and the
    /// failure returned).
    package func appliedVersion() -> (version: Int, failure: StateStoreError?) {
        do {
            guard let data = try store.data(forKey: Self.appliedVersionKey) else { return (0, nil) }
            if let version = Self.version(data) { return (version, nil) }
            let kept = try store.update(Self.appliedVersionKey) { current in current.flatMap(Self.version) == nil ? nil : current }
            if let version = kept.flatMap(Self.version) { return (version, nil) }
            return (0, StateStoreError(kind: .discarded, key: Self.appliedVersionKey, message: "not a version number; removed"))
        } catch {
            return (0, error)
        }
    }

    /// The version `data` holds, or `nil` when it is not one as written here.
    private static func version(_ data: Data) -> Int? {
        let text = String(decoding: data, as: UTF8.self)
        guard isCanonicalDecimal(text), let version = Int(text), (0...ConfigurationLoader.maximumConfigVersion).contains(version) else { return nil }
        return version
    }

    /// Whether `text` is a version as ``raiseAppliedVersion(to:caching:)`` writes it: 1 to 16 ASCII digits,
    /// no sign, no leading zero (`Int` alone would also take `+4` or `004`).
    static func isCanonicalDecimal(_ text: String) -> Bool {
        let digits = Array(text.utf8)
        guard (1...16).contains(digits.count), digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return false }
        return digits.count == 1 || digits[0] != UInt8(ascii: "0")
    }

    /// Raises the highest version applied to `version` unless it is already higher, and
    /// writes `envelope` as the cache record only when its version is not below the floor: both
    /// under the store's write lock (``StateStore/exclusively(_:)``), read, compared and
    /// written there, so that no process lowers the floor, nor leaves a cache older than it,
    /// whatever the order in which runs sharing the store finish.
    /// - Parameters:
    ///   - version: the version applied (or running).
    ///   - envelope: the cache record to keep with it, if any.
    /// - Returns: the floor when done (at least `version`).
    /// - Throws: the store's error (the floor is never lowered).
    @discardableResult
    package func raiseAppliedVersion(to version: Int, caching envelope: (data: Data, metadata: Metadata)? = nil) throws(StateStoreError) -> Int {
        try store.exclusively { () throws(StateStoreError) -> Int in
            let (floor, _) = appliedVersion()
            if version > floor {
                try store.setData(Data(String(version).utf8), forKey: Self.appliedVersionKey)
            }
            if let envelope, version >= floor {
                try write(envelope.data, metadata: envelope.metadata)
            }
            return max(floor, version)
        }
    }

    private func discard(_ reason: String) -> StateStoreError {
        remove()
        return StateStoreError(kind: .discarded, key: Self.key, message: "\(reason); removed")
    }
}
