import Foundation
import Mediation

/// A ``NitxStorage`` backed by one JSON file (`{"nitx.visitor_id": "…", …}`), rewritten
/// atomically on every change. An unreadable or malformed file reads as empty.
public final class NitxFileStorage: NitxStorage {
    /// The file.
    public let fileURL: URL
    private let values: Locked<[String: String]>

    /// Opens (or will create) the file at `fileURL`; the directory is created on first write.
    public init(fileURL: URL) {
        self.fileURL = fileURL
        var loaded: [String: String] = [:]
        if let data = try? Data(contentsOf: fileURL),
           let decoded = try? JSONDecoder().decode([String: String].self, from: data) {
            loaded = decoded.filter { $0.key.hasPrefix("nitx.") }
        }
        values = Locked(loaded)
    }

    /// The storage file of the Nitx network `networkID` in `directory`: `nitx-<id>.json`.
    public convenience init(directory: URL, networkID: String) {
        let safe = String(networkID.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" })
        self.init(fileURL: directory.appendingPathComponent("nitx-\(safe).json"))
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
