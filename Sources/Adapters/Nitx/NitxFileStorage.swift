import Foundation
import Mediation

/// A ``NitxStorage`` backed by one JSON file (`{"nitx.visitor_id": "…", …}`), rewritten
/// atomically on every change. The file is untrusted input (engine rule R21): a file over
/// ``maximumFileBytes``, anything at the path but a regular file (a symbolic link is never
/// followed, a FIFO never opened for a blocking read), one that is not a JSON object, and any entry whose key lacks the `nitx.`
/// prefix or whose value is not a string or is over ``NitxStoredValues/maximumValueBytes`` are
/// discarded, with a warning naming the file or the key (never a value) when a logger is given;
/// the client then checks each value it reads (``NitxStoredValues``).
package final class NitxFileStorage: NitxStorage {
    /// The largest file read, 256 KiB (the client's four values need a few kilobytes).
    public static let maximumFileBytes = 256 * 1024

    /// The file.
    public let fileURL: URL
    private let values: Locked<[String: String]>

    /// Opens (or will create) the file at `fileURL`; the directory is created on first write.
    /// - Parameters:
    ///   - fileURL: the file.
    ///   - logger: where discarded content is reported (default: nowhere).
    ///   - logSource: the source of those log lines, e.g. the network id.
    public init(fileURL: URL, logger: (any MediationLogger)? = nil, logSource: String = "nitx") {
        self.fileURL = fileURL
        var warnings: [String] = []
        let loaded = Self.load(fileURL, warnings: &warnings)
        for warning in warnings { logger?.warning(warning, source: logSource) }
        values = Locked(loaded)
    }

    /// The `nitx.` entries of the file whose values are strings of a usable length; anything
    /// else is dropped, with a warning.
    private static func load(_ fileURL: URL, warnings: inout [String]) -> [String: String] {
        let name = fileURL.lastPathComponent
        // Bounded whatever sits at the path: a symbolic link (to a larger file, to /dev/zero), a
        // FIFO (whose open would block) or a directory is refused, never followed or read.
        let data: Data
        switch UntrustedFile.contents(fileURL.path, limit: maximumFileBytes) {
        case .success(nil):
            return [:]  // no file yet
        case .success(let bytes?):
            data = bytes
        case .failure(.tooLarge):
            warnings.append("Nitx storage file \(name) is over \(maximumFileBytes / 1024) KiB: discarded")
            return [:]
        case .failure(let failure):
            warnings.append("Nitx storage file \(name) cannot be used (\(failure.reason)): discarded")
            return [:]
        }
        guard !data.isEmpty else { return [:] }
        guard StoredJSON.strictnessProblem(of: data) == nil, let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            warnings.append("Nitx storage file \(name) is not a strict JSON object (one value, no key twice): discarded")
            return [:]
        }
        var loaded: [String: String] = [:]
        for key in object.keys.sorted() where key.hasPrefix("nitx.") {
            guard let value = object[key] as? String, value.utf8.count <= NitxStoredValues.maximumValueBytes else {
                warnings.append("Nitx storage file \(name): \(NetworkValueBounds.identifier(key)) is not a string of at most \(NitxStoredValues.maximumValueBytes / 1024) KiB: discarded")
                continue
            }
            loaded[key] = value
        }
        return loaded
    }

    /// The storage file of the Nitx network `networkID` in `directory`: `nitx-<id>.json`.
    /// - Parameters:
    ///   - directory: the environment's storage directory.
    ///   - networkID: the network id.
    ///   - logger: where discarded content is reported (default: nowhere).
    public convenience init(directory: URL, networkID: String, logger: (any MediationLogger)? = nil) {
        let safe = String(networkID.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        self.init(fileURL: directory.appendingPathComponent("nitx-\(safe).json"), logger: logger, logSource: networkID)
    }

    /// The value under `key`.
    public func value(forKey key: NitxStorageKey) -> String? {
        values.withLock { $0[key.rawValue] }
    }

    /// Stores or removes the value under `key` and rewrites the file (best-effort).
    public func setValue(_ value: String?, forKey key: NitxStorageKey) {
        values.withLock { values in
            guard values[key.rawValue] != value else { return }
            values[key.rawValue] = value
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            guard let data = try? encoder.encode(values) else { return }
            try? FileManager.default.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? data.write(to: fileURL, options: .atomic)
        }
    }
}
