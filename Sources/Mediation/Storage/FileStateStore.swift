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
/// Writes are atomic and durable (``DurableFile``): a crash or power loss leaves the old value
/// or the new one, never a mix. Temporary files left by a crash are removed when the store
/// opens.
///
/// Reads are bounded and untrusted (engine rule R21): only a regular file is read (no symbolic
/// link is followed), at most ``maximumValueBytes`` plus the record's framing; a file that is
/// larger, truncated, changed, another key's, another program's or a newer version's is
/// removed and reported as ``StateStoreError/Kind/discarded`` (a directory at a key's path is
/// reported too, but cannot be removed, and the message says so).
///
/// Writers are serialised across processes (two `mediate` runs sharing a `--state-dir`, an app
/// and its extension): every write, removal and read-modify-write (``exclusively(_:)``) holds
/// an exclusive `flock` on the lock file `.lock` in the directory (opened once, never read),
/// and within the process the store's own recursive lock. Reads take no lock: a rename is
/// atomic, so a reader sees a whole value.
public final class FileStateStore: StateStore {
    /// The default largest value: 8 MiB (a signed configuration envelope is at most 4 MiB).
    public static let defaultMaximumValueBytes = 8 << 20

    /// The directory holding the files.
    public let directory: URL
    /// The largest value accepted, in bytes.
    public let maximumValueBytes: Int
    /// Held (recursively) by the thread inside ``exclusively(_:)``.
    private let writers = NSRecursiveLock()
    /// How deep the thread holding ``writers`` is: the `flock` is taken at 0 and released back
    /// at 0.
    private let depth = Locked(0)
    /// The open lock file, `flock`ed by writers across processes; -1 for a read-only store.
    private let lockDescriptor: Int32
    /// Whether the store was opened with ``init(readingOnly:maximumValueBytes:)``: it creates,
    /// locks, writes and removes nothing in the directory.
    private let readOnly: Bool

    /// The name of the lock file in the directory.
    static let lockFileName = ".lock"
    /// The file name suffix of a value's file.
    static let suffix = ".state"
    /// The longest file name made from a key before it is hashed instead.
    static let longestEncodedName = 180

    /// Opens the store in `directory` (created when missing, mode 0700), holding values of at
    /// most ``defaultMaximumValueBytes``.
    /// - Parameter directory: the host's directory, e.g. `Application Support/mediation`.
    /// - Throws: an error (the engine's state store error, whose description says what and
    ///   where) when the directory cannot be created or is not a directory, or its lock file
    ///   cannot be opened or locked.
    public convenience init(directory: URL) throws {
        try self.init(opening: directory)
    }

    /// Opens (creating when missing, with mode 0700) the store in `directory`, opens its lock
    /// file and removes the temporary files an interrupted write left (under the lock, when no
    /// write of any process can be running).
    /// - Parameters:
    ///   - directory: the host's directory, e.g. `Application Support/mediation`.
    ///   - maximumValueBytes: the largest value accepted (default 8 MiB).
    /// - Throws: ``StateStoreError`` `unavailable` when the directory cannot be created or is not
    ///   a directory, or its lock file cannot be opened or locked.
    package init(opening directory: URL, maximumValueBytes: Int = FileStateStore.defaultMaximumValueBytes) throws(StateStoreError) {
        self.directory = directory.standardizedFileURL
        self.maximumValueBytes = max(0, maximumValueBytes)
        readOnly = false
        if let file = Self.fileInTheWay(of: self.directory) {
            throw StateStoreError(kind: .unavailable, key: "", message: file)
        }
        do {
            try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw StateStoreError(kind: .unavailable, key: "", message: "cannot create the state directory \(self.directory.path)")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: self.directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StateStoreError(kind: .unavailable, key: "", message: "\(self.directory.path) is not a directory")
        }
        let lockPath = self.directory.appendingPathComponent(Self.lockFileName).path
        // Never through a symbolic link, never blocking on a FIFO; never read.
        lockDescriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard lockDescriptor >= 0 else {
            throw StateStoreError(kind: .unavailable, key: "", message: "cannot open the lock file \(lockPath): \(Self.errorText())")
        }
        try exclusively { () throws(StateStoreError) in
            for name in (try? FileManager.default.contentsOfDirectory(atPath: self.directory.path)) ?? [] where DurableFile.isTemporary(name) {
                _ = unlink(self.directory.appendingPathComponent(name).path)
            }
        }
    }

    /// Opens the store in `directory` to read only: nothing is created (neither the directory,
    /// which may be missing and then holds no value, nor its lock file), locked across
    /// processes, written or removed. A file that fails its checks is reported as `discarded`
    /// and left in place; a write throws.
    /// - Parameters:
    ///   - directory: the directory a writing store keeps its files in.
    ///   - maximumValueBytes: the largest value accepted (default 8 MiB).
    /// - Throws: ``StateStoreError`` `unavailable` when `directory` exists but is not a
    ///   directory.
    package init(readingOnly directory: URL, maximumValueBytes: Int = FileStateStore.defaultMaximumValueBytes) throws(StateStoreError) {
        self.directory = directory.standardizedFileURL
        self.maximumValueBytes = max(0, maximumValueBytes)
        readOnly = true
        lockDescriptor = -1
        if let file = Self.fileInTheWay(of: self.directory) {
            throw StateStoreError(kind: .unavailable, key: "", message: file)
        }
    }

    /// What stops `directory` from being a directory when it, or a folder above it, exists as
    /// something else (a regular file): "`/a/state` is a file, not a directory", or is a
    /// symbolic link to nothing: "`/a/state` is a symbolic link to `nowhere`, which does not
    /// exist"; `nil` when the nearest existing one is a directory.
    static func fileInTheWay(of directory: URL) -> String? {
        var path = directory
        while true {
            let what = path == directory ? "" : " (the state directory \(directory.path) would be inside it)"
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) {
                guard !isDirectory.boolValue else { return nil }
                return "\(path.path) is a file, not a directory\(what)"
            }
            // Missing when followed, yet there: a link whose target does not exist.
            if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: path.path) {
                return "\(path.path) is a symbolic link to \(target), which does not exist\(what)"
            }
            let parent = path.deletingLastPathComponent()
            guard parent.path != path.path else { return nil }
            path = parent
        }
    }

    deinit {
        if lockDescriptor >= 0 { close(lockDescriptor) }
    }

    // MARK: - StateStore

    /// Runs `body` holding the store's write lock: no other thread of this process, and no
    /// other process with a store on this directory, writes meanwhile. Reads and writes `body`
    /// makes through this store take the lock again (it is recursive).
    /// - Parameter body: the read-modify-write; it must not wait for anything but the store.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or ``StateStoreError`` `unavailable` when the lock file
    ///   cannot be locked. A read-only store takes the in-process lock alone.
    package func exclusively<T>(_ body: () throws(StateStoreError) -> T) throws(StateStoreError) -> T {
        writers.lock()
        defer { writers.unlock() }
        if readOnly { return try body() }
        if depth.withLock({ $0 }) == 0 {
            var result = flock(lockDescriptor, LOCK_EX)
            while result != 0, errno == EINTR { result = flock(lockDescriptor, LOCK_EX) }
            guard result == 0 else {
                throw StateStoreError(kind: .unavailable, key: "", message: "cannot lock \(directory.appendingPathComponent(Self.lockFileName).path): \(Self.errorText())")
            }
        }
        depth.withLock { $0 += 1 }
        defer {
            if depth.withLock({ $0 -= 1; return $0 }) == 0 { _ = flock(lockDescriptor, LOCK_UN) }
        }
        return try body()
    }

    /// The value stored under `key`. A file that fails its checks is looked at again under the
    /// write lock (another process may have just replaced it) and removed only if it still
    /// fails them.
    /// - Throws: ``StateStoreError``: `discarded` for a file that fails its checks (removed when
    ///   it can be; the message says which), `invalidKey`, or `unavailable` when the file
    ///   exists but cannot be read.
    package func data(forKey key: String) throws(StateStoreError) -> Data? {
        guard StateStoreKey.isValid(key) else { throw Self.invalidKey(key) }
        switch read(key) {
        case .success(let value):
            return value
        case .failure(let failure) where failure.kind != .discarded:
            throw failure
        case .failure:
            return try exclusively { () throws(StateStoreError) -> Data? in
                switch read(key) {
                case .success(let value): return value
                case .failure(let failure) where failure.kind != .discarded: throw failure
                case .failure(let failure) where readOnly:
                    throw StateStoreError(kind: .discarded, key: key, message: "\(failure.message); not removed: the store is read-only")
                case .failure(let failure):
                    let outcome = DurableFile.remove(Self.fileName(for: key) + Self.suffix, in: directory.path).map { "not removed: \($0)" } ?? "removed"
                    throw StateStoreError(kind: .discarded, key: key, message: "\(failure.message); \(outcome)")
                }
            }
        }
    }

    /// The value of `key` read once: `discarded` (without removing anything) names what is
    /// wrong with the file.
    private func read(_ key: String) -> Result<Data?, StateStoreError> {
        let path = self.path(for: key)
        let limit = maximumValueBytes + StateRecord.overhead + key.utf8.count
        switch UntrustedFile.contents(path, limit: limit) {
        case .success(nil):
            return .success(nil)
        case .success(let record?):
            return StateRecord.decode(record, key: key, maximumValueBytes: maximumValueBytes)
                .map { Optional($0) }
                .mapError { StateStoreError(kind: .discarded, key: key, message: $0.reason) }
        case .failure(.unreadable(let reason)):
            return .failure(StateStoreError(kind: .unavailable, key: key, message: "cannot read \(path): \(reason)"))
        case .failure(let failure):
            return .failure(StateStoreError(kind: .discarded, key: key, message: failure.reason))
        }
    }

    /// Stores (or, for `nil`, deletes) the value of `key`, atomically and durably
    /// (``DurableFile``), holding the write lock.
    /// - Throws: ``StateStoreError``: `tooLarge`, `invalidKey`, or `unavailable` when the file
    ///   cannot be written or the directory locked (the old value is kept), or the store is
    ///   read-only.
    package func setData(_ data: Data?, forKey key: String) throws(StateStoreError) {
        guard StateStoreKey.isValid(key) else { throw Self.invalidKey(key) }
        if readOnly { throw StateStoreError(kind: .unavailable, key: key, message: "cannot write \(path(for: key)): the store is read-only") }
        if let data, data.count > maximumValueBytes { throw Self.tooLarge(key, data.count, maximumValueBytes) }
        let name = Self.fileName(for: key) + Self.suffix
        try exclusively { () throws(StateStoreError) in
            if let data {
                if let failure = DurableFile.replace(name, in: directory.path, with: StateRecord.encode(data, key: key), mode: 0o600) {
                    throw StateStoreError(kind: .unavailable, key: key, message: "cannot write \(path(for: key)): \(failure)")
                }
            } else if let failure = DurableFile.remove(name, in: directory.path) {
                throw StateStoreError(kind: .unavailable, key: key, message: "cannot remove \(path(for: key)): \(failure)")
            }
        }
    }

    /// Every key holding a value, sorted (read from each file's header; a file whose header
    /// cannot be read is left for ``data(forKey:)`` of no key to find, and not listed).
    /// - Throws: ``StateStoreError`` `unavailable` when the directory cannot be listed.
    package func keys() throws(StateStoreError) -> [String] {
        let names: [String]
        if readOnly, !FileManager.default.fileExists(atPath: directory.path) { return [] }
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw StateStoreError(kind: .unavailable, key: "", message: "cannot list \(directory.path)")
        }
        var keys: [String] = []
        for name in names where name.hasSuffix(Self.suffix) && !name.hasPrefix(".") {
            let path = directory.appendingPathComponent(name).path
            let header = UntrustedFile.contents(path, limit: nil, prefix: StateRecord.magic.count + 3 + StateStoreKey.maximumLength)
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
