import Foundation

/// How cap state sits in the state store (`docs/caps.md`): under `caps.clock` the timeline's
/// last instant with the wall time it was written at (and the end of the last full-screen ad),
/// and, per scope, its ring of instants in chunks of ``chunkSize`` slots under
/// `caps.<16 hex digits of the scope's SHA-256>.<chunk>`. An impression rewrites the chunk its
/// slot is in and the clock: O(1) bytes per impression, whatever the cap.
///
/// Read back as untrusted input: a value that is not strict JSON, does not decode, has another
/// version, names another scope, holds more than a chunk, or an instant after the stored clock
/// or before zero is discarded with a warning, and with it the scope's whole ring (fail open:
/// see `docs/caps.md`). A clock that cannot be read discards every ring.
package enum StoredCaps {
    /// The slots of one chunk.
    package static let chunkSize = 32
    /// The format.
    package static let version = 1
    /// The key of the clock.
    package static let clockKey = "caps.clock"
    /// The prefix of every cap key.
    package static let prefix = "caps."
    /// The latest cap time a stored value may hold, in ms: 10^13 (about 317 years of use). A
    /// larger one can only be tampered with, and arithmetic on it could overflow.
    package static let maximumTime: Int64 = 10_000_000_000_000

    /// The stored clock.
    package struct Clock: Codable, Hashable, Sendable {
        /// The format: 1.
        var version: Int
        /// The cap time when written, ms.
        var timeMilliseconds: Int64
        /// The wall clock when written, ms since 1970.
        var wallMilliseconds: Int64
        /// When the last full-screen ad ended, cap time in ms, if one did.
        var fullScreenEndMilliseconds: Int64?
        /// Whether a full-screen ad was on screen when written: a process that ends then (the
        /// system kills the app) takes the ad with it, so the next launch counts the gap from
        /// its own start.
        var presenting: Bool?

        private enum CodingKeys: String, CodingKey {
            case version
            case timeMilliseconds = "cap_ms"
            case wallMilliseconds = "wall_ms"
            case fullScreenEndMilliseconds = "full_screen_end_ms"
            case presenting
        }

        init(time: Int64, wall: Int64, fullScreenEnd: Int64?, presenting: Bool = false) {
            version = StoredCaps.version
            timeMilliseconds = time
            wallMilliseconds = wall
            fullScreenEndMilliseconds = fullScreenEnd
            self.presenting = presenting ? true : nil
        }

        /// Why it is refused, or `nil`.
        var problem: String? {
            if version != StoredCaps.version { return "version \(version) is not \(StoredCaps.version)" }
            if timeMilliseconds < 0 { return "cap_ms is negative" }
            if timeMilliseconds > StoredCaps.maximumTime { return "cap_ms is after \(StoredCaps.maximumTime) ms" }
            if let end = fullScreenEndMilliseconds, end < 0 || end > timeMilliseconds { return "full_screen_end_ms is after cap_ms" }
            return nil
        }
    }

    /// One chunk of a scope's ring.
    package struct Chunk: Codable, Hashable, Sendable {
        /// The format: 1.
        var version: Int
        /// The scope it belongs to (``identity(of:)``).
        var scope: String
        /// Its instants, cap time in ms.
        var instants: [Int64]

        init(scope: String, instants: [Int64]) {
            version = StoredCaps.version
            self.scope = scope
            self.instants = instants
        }

        /// Why it is refused as a chunk of `scope` against a clock at `time`, or `nil`.
        func problem(scope expected: String, time: Int64) -> String? {
            if version != StoredCaps.version { return "version \(version) is not \(StoredCaps.version)" }
            if scope != expected { return "it names another scope" }
            if instants.count > StoredCaps.chunkSize { return "it holds \(instants.count) instants, more than a chunk's \(StoredCaps.chunkSize)" }
            if instants.contains(where: { $0 < 0 || $0 > time }) { return "an instant is after the stored clock or before zero" }
            return nil
        }
    }

    /// A stable text naming `scope` in stored values.
    package static func identity(of scope: CapScope) -> String {
        switch scope {
        case .app: "app"
        case .placement(let id): "placement\u{1F}\(id)"
        case .network(let id): "network\u{1F}\(id)"
        case .lineItem(let placement, let id): "line_item\u{1F}\(placement)\u{1F}\(id)"
        }
    }

    /// The key prefix of `scope`'s chunks: `caps.<16 hex digits>.`.
    package static func keyPrefix(of scope: CapScope) -> String {
        let digest = SHA256Digest.hash(Array(identity(of: scope).utf8))
        return prefix + digest.prefix(8).map { String(format: "%02x", $0) }.joined() + "."
    }

    /// The key of chunk `chunk` of `scope`.
    package static func key(of scope: CapScope, chunk: Int) -> String {
        keyPrefix(of: scope) + String(chunk)
    }
}
