/// How serious a log line is.
public enum LogLevel: Int, Sendable, Comparable, Codable, CustomStringConvertible {
    /// Detail for debugging.
    case debug
    /// Something worth knowing.
    case info
    /// Something was wrong and the engine worked around it (a value raised, a field dropped).
    case warning
    /// Something failed.
    case error

    /// Orders by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `debug`, `info`, `warning` or `error`.
    public var description: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }
}

/// Where the engine and adapters send their log lines. The library never prints; the host
/// decides. Messages never contain chat content or user data.
public protocol MediationLogger: Sendable {
    /// Records one line.
    /// - Parameters:
    ///   - level: its severity.
    ///   - message: what happened.
    ///   - source: who says it, e.g. `"elo"`, `"placement.home_banner"`.
    func log(_ level: LogLevel, _ message: String, source: String)
}

extension MediationLogger {
    /// Logs a warning.
    public func warning(_ message: String, source: String) { log(.warning, message, source: source) }
    /// Logs an info line.
    public func info(_ message: String, source: String) { log(.info, message, source: source) }
    /// Logs a debug line.
    public func debug(_ message: String, source: String) { log(.debug, message, source: source) }
}

/// A logger that drops everything: the default of every `logger:` argument (usable from the
/// default arguments of public initialisers, so a host simply leaves the logger out).
@usableFromInline
package struct SilentLogger: MediationLogger {
    /// Creates a silent logger.
    @usableFromInline
    package init() {}
    /// Drops the line.
    @usableFromInline
    package func log(_ level: LogLevel, _ message: String, source: String) {}
}
