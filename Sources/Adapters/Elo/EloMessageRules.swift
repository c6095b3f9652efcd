import Foundation
import Mediation

/// The Elo seed's rules for the chat messages of a request ("ChatMessage & MessageRole" and
/// "loadAd parameters"): the latest 30 messages only; an id over 256 Unicode code points or with
/// non-printable characters, and a `createdAt` before 2020 or more than a day ahead, are left out
/// of the message with a warning (the message itself is kept). Warnings never carry content.
enum EloMessageRules {
    /// The number of latest messages forwarded.
    static let maximumMessages = 30
    /// The longest message id kept, in Unicode code points.
    static let maximumIDLength = 256
    /// 2020-01-01T00:00:00Z: earlier `createdAt` values are left out.
    static let earliestCreatedAt = Date(timeIntervalSince1970: 1_577_836_800)
    /// How far ahead of the wall clock a `createdAt` may be: one day.
    static let maximumFutureSkew: TimeInterval = 86_400

    /// The latest 30 messages, oldest first.
    static func latest(_ messages: [AdRequest.Context.Message]) -> [AdRequest.Context.Message] {
        Array(messages.suffix(maximumMessages))
    }

    /// Why a message id is left out, or `nil` when it is kept.
    static func idProblem(_ id: String) -> String? {
        if id.unicodeScalars.count > maximumIDLength { return "id longer than \(maximumIDLength) code points" }
        if id.unicodeScalars.contains(where: isNonPrintable) { return "id with non-printable characters" }
        return nil
    }

    /// Why a `createdAt` is left out, or `nil` when it is kept.
    static func createdAtProblem(_ date: Date, now: Date) -> String? {
        if date < earliestCreatedAt { return "createdAt before 2020" }
        if date.timeIntervalSince(now) > maximumFutureSkew { return "createdAt more than a day ahead" }
        return nil
    }

    /// Control, format, separator, private-use, surrogate and unassigned scalars.
    static func isNonPrintable(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .surrogate, .unassigned:
            return true
        default:
            return false
        }
    }

    /// The wire messages for `messages` (the latest 30), with one warning per field left out.
    /// - Parameters:
    ///   - messages: the conversation, oldest first.
    ///   - now: the wall-clock time for the "a day ahead" rule.
    /// - Returns: the wire messages and the warnings.
    static func wireMessages(_ messages: [AdRequest.Context.Message], now: Date) -> (messages: [EloWireMessage], warnings: [String]) {
        let latest = latest(messages)
        let offset = messages.count - latest.count
        var warnings: [String] = []
        var wire: [EloWireMessage] = []
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for (index, message) in latest.enumerated() {
            var id = message.id
            if let candidate = id, let problem = idProblem(candidate) {
                warnings.append("message \(offset + index): \(problem), left out of the request")
                id = nil
            }
            var createdAt: String?
            if let date = message.createdAt {
                if let problem = createdAtProblem(date, now: now) {
                    warnings.append("message \(offset + index): \(problem), left out of the request")
                } else {
                    createdAt = date.formatted(style)
                }
            }
            wire.append(EloWireMessage(role: message.role.rawValue, content: message.content, id: id, created_at: createdAt))
        }
        return (wire, warnings)
    }
}
