import Mediation

/// A logger that keeps every line in memory, for tests.
public final class RecordingLogger: MediationLogger {
    /// One recorded line.
    public struct Entry: Hashable, Sendable {
        /// Its severity.
        public var level: LogLevel
        /// The message.
        public var message: String
        /// Who said it.
        public var source: String
    }

    private let entries = Locked<[Entry]>([])

    /// Creates an empty recorder.
    public init() {}

    /// Records the line.
    public func log(_ level: LogLevel, _ message: String, source: String) {
        entries.withLock { $0.append(Entry(level: level, message: message, source: source)) }
    }

    /// Every line so far.
    public var lines: [Entry] { entries.withLock { $0 } }

    /// The messages of the warnings so far.
    public var warnings: [String] { lines.filter { $0.level == .warning }.map(\.message) }
}
