import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A ``StateStore`` of small files in a directory the host gives (on iOS a folder in
/// Application Support, excluded from backups if the host likes): one file per key, named from
/// the key (`config.cache.state`), created with mode 0600 in a directory of mode 0700.
///
/// Writes are atomic and durable: the record goes to a temporary file in the same directory,
/// which is flushed to disk (`fsync`), renamed over the old file (`rename`, atomic on POSIX
/// file systems) and the directory flushed, so a crash or power loss leaves the old value or
/// the new one, never a mix. Temporary files left by a crash (of this process, or of one that no
/// longer runs) are removed when the store opens.
///
/// Reads are bounded and untrusted (engine rule R21): only a regular file is read (no symbolic
/// link is followed), at most ``maximumValueBytes`` plus the record's framing; a file that is
/// larger, truncated, changed, another key's, another program's or a newer version's is
/// removed and reported as ``StateStoreError/Kind/discarded`` (a directory at a key's path is
/// reported too, but cannot be removed, and the message says so).
///
/// One store object serialises its own reads and writes; use one per directory.
public final class FileStateStore: StateStore {
    /// The default largest value: 8 MiB (a signed configuration envelope is at most 4 MiB).
    public static let defaultMaximumValueBytes = 8 << 20

    /// The directory holding the files.
    public let directory: URL
    /// The largest value accepted, in bytes.
    public let maximumValueBytes: Int
    /// Serialises this store's file operations.
    private let lock = Locked(0)

    /// The file name suffix of a value's file.
    static let suffix = ".state"
    /// The longest file name made from a key before it is hashed instead.
    static let longestEncodedName = 180

    /// Opens (creating when missing, with mode 0700) the store in `directory`, and removes the
    /// temporary files an interrupted write may have left.
    /// - Parameters:
    ///   - directory: the host's directory, e.g. `Application Support/mediation`.
    ///   - maximumValueBytes: the largest value accepted (default 8 MiB).
    /// - Throws: ``StateStoreError`` `unavailable` when the directory cannot be created or is not
    ///   a directory.
    public init(directory: URL, maximumValueBytes: Int = FileStateStore.defaultMaximumValueBytes) throws(StateStoreError) {
        self.directory = directory.standardizedFileURL
        self.maximumValueBytes = max(0, maximumValueBytes)
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StateStoreError(kind: .unavailable, key: "", message: "cannot create the state directory \(self.directory.path)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StateStoreError(kind: .unavailable, key: "", message: "\(self.directory.path) is not a directory")
        }
        for name in (try? FileManager.default.contentsOfDirectory(atPath: self.directory.path)) ?? [] where name.hasPrefix(".") && name.hasSuffix(".tmp") && Self.isLeftOver(name) {
            _ = unlink(self.directory.appendingPathComponent(name).path)
        }
    }

    /// Whether the temporary file `name` (`.<file>.<pid>.<counter>.tmp`) was left by a write
    /// that cannot finish: one of this process (one store per directory, so none is running) or
    /// of a process that no longer exists. Another live process's file is a write in progress
    /// (two `mediate` runs sharing a `--state-dir`): removing it would fail that write's rename.
    static func isLeftOver(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        guard parts.count >= 4, let pid = pid_t(parts[parts.count - 3]), pid > 0 else { return true }
        if pid == getpid() { return true }
        return kill(pid, 0) != 0 && errno == ESRCH
    }

    // MARK: - StateStore

    /// The value stored under `key`.
    /// - Throws: ``StateStoreError``: `discarded` for a file that fails its checks (removed when
    ///   it can be; the message says which),
    ///   `invalidKey`, or `unavailable` when the file exists but cannot be read.
    public func data(forKey key: String) throws(StateStoreError) -> Data? {
        guard StateStoreKey.isValid(key) else { throw Self.invalidKey(key) }
        let path = self.path(for: key)
        let limit = maximumValueBytes + StateRecord.overhead + key.utf8.count
        let read: Result<Data?, UntrustedFile.Failure> = lock.withLock { _ in UntrustedFile.contents(path, limit: limit) }
        let record: Data
        switch read {
        case .success(nil):
            return nil
        case .success(let bytes?):
            record = bytes
        case .failure(.unreadable(let reason)):
            throw StateStoreError(kind: .unavailable, key: key, message: "cannot read \(path): \(reason)")
        case .failure(let failure):
            throw StateStoreError(kind: .discarded, key: key, message: "\(failure.reason); \(remove(path))")
        }
        switch StateRecord.decode(record, key: key, maximumValueBytes: maximumValueBytes) {
        case .success(let value):
            return value
        case .failure(let refusal):
            throw StateStoreError(kind: .discarded, key: key, message: "\(refusal.reason); \(remove(path))")
        }
    }

    /// Stores (or, for `nil`, deletes) the value of `key`, atomically and durably.
    /// - Throws: ``StateStoreError``: `tooLarge`, `invalidKey`, or `unavailable` when the file
    ///   cannot be written (the old value is kept).
    public func setData(_ data: Data?, forKey key: String) throws(StateStoreError) {
        guard StateStoreKey.isValid(key) else { throw Self.invalidKey(key) }
        let path = self.path(for: key)
        guard let data else {
            let failure: String? = lock.withLock { _ in
                guard unlink(path) == 0 || errno == ENOENT else { return Self.errorText() }
                Self.syncDirectory(directory.path)
                return nil
            }
            if let failure { throw StateStoreError(kind: .unavailable, key: key, message: "cannot remove \(path): \(failure)") }
            return
        }
        guard data.count <= maximumValueBytes else { throw Self.tooLarge(key, data.count, maximumValueBytes) }
        let record = StateRecord.encode(data, key: key)
        let failure: String? = lock.withLock { counter in
            counter += 1
            let temporary = directory.appendingPathComponent(".\(Self.fileName(for: key)).\(getpid()).\(counter).tmp").path
            if let failure = Self.writeDurably(record, to: temporary) {
                _ = unlink(temporary)
                return failure
            }
            guard rename(temporary, path) == 0 else {
                let failure = Self.errorText()
                _ = unlink(temporary)
                return failure
            }
            Self.syncDirectory(directory.path)
            return nil
        }
        if let failure { throw StateStoreError(kind: .unavailable, key: key, message: "cannot write \(path): \(failure)") }
    }

    /// Every key holding a value, sorted (read from each file's header; a file whose header
    /// cannot be read is left for ``data(forKey:)`` of no key to find, and not listed).
    /// - Throws: ``StateStoreError`` `unavailable` when the directory cannot be listed.
    public func keys() throws(StateStoreError) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw StateStoreError(kind: .unavailable, key: "", message: "cannot list \(directory.path)")
        }
        var keys: [String] = []
        for name in names where name.hasSuffix(Self.suffix) && !name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name).path
            let header: Result<Data?, UntrustedFile.Failure> = lock.withLock { _ in UntrustedFile.contents(path, limit: nil, prefix: StateRecord.magic.count + 3 + StateStoreKey.maximumLength) }
            guard case .success(let bytes?) = header, let key = StateRecord.key(inHeader: bytes), path == self.path(for: key) else { continue }
            keys.append(key)
        }
        return keys.sorted()
    }

    // MARK: - Files

    /// The file of `key`.
    func path(for key: String) -> String {
        directory.appendingPathComponent(Self.fileName(for: key) + Self.suffix).path
    }

    /// The file name of `key` without its suffix: the key with every byte outside `a-z`, `0-9`,
    /// `_`, `-` and a non-leading `.` written `%xx` (so case-insensitive file systems never merge
    /// two keys), or `~` and the key's SHA-256 when that would be longer than 180 characters.
    static func fileName(for key: String) -> String {
        var name = ""
        for (index, byte) in key.utf8.enumerated() {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                name.append(Character(Unicode.Scalar(byte)))
            case UInt8(ascii: ".") where index > 0:
                name.append(".")
            default:
                name += "%" + SHA256Digest.hex([byte])
            }
        }
        return name.count <= longestEncodedName ? name : "~" + SHA256Digest.hex(SHA256Digest.hash(Array(key.utf8)))
    }

    /// Removes the discarded entry at `path` and says so: `removed`, or `not removed:` and the
    /// system's reason when it stays (a directory at a key's path cannot be unlinked).
    private func remove(_ path: String) -> String {
        lock.withLock { _ in
            guard unlink(path) == 0 || errno == ENOENT else { return "not removed: \(Self.errorText())" }
            Self.syncDirectory(directory.path)
            return "removed"
        }
    }

    /// Writes `bytes` to a new file at `path` (mode 0600) and flushes it to disk; the reason on
    /// failure.
    private static func writeDurably(_ bytes: Data, to path: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard descriptor >= 0 else { return errorText() }
        defer { close(descriptor) }
        let failure: String? = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errorText() : "short write"
                }
            }
            return nil
        }
        if let failure { return failure }
        guard fsync(descriptor) == 0 else { return errorText() }
        return nil
    }

    /// Flushes the directory entry changes (a rename, an unlink) to disk; best effort.
    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }

    // MARK: - Errors shared with the memory store

    static func invalidKey(_ key: String) -> StateStoreError {
        StateStoreError(kind: .invalidKey, key: String(key.prefix(40)), message: "a key must be 1 to \(StateStoreKey.maximumLength) bytes of UTF-8")
    }

    static func tooLarge(_ key: String, _ count: Int, _ limit: Int) -> StateStoreError {
        StateStoreError(kind: .tooLarge, key: key, message: "the value of \(count) bytes is over the store's limit of \(limit)")
    }
}
