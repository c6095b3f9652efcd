import Foundation
import Mediation

/// Reads `--messages FILE`: a JSON array of `{"role", "content", "id"?, "created_at"?}`
/// (role `user`, `assistant` or `summary`; `created_at` ISO 8601, e.g.
/// `"2026-05-02T09:14:03Z"`), oldest first, read as strictly as the config
/// (`StrictJSONReader`). See `Config/sample-conversation.json`.
enum ConversationFile {
    /// Why the file was not read.
    enum Failure: Error, Equatable {
        /// It does not exist or cannot be read (exit 66).
        case missing(String)
        /// It is not a valid conversation (exit 65); the message names the element, e.g. `[2].role`.
        case invalid(String)
    }

    private struct Entry: Decodable {
        var role: String
        var content: String
        var id: String?
        var createdAt: String?

        enum CodingKeys: String, CodingKey {
            case role, content, id
            case createdAt = "created_at"
        }
    }

    /// The largest messages file read, 1 MiB: a conversation's latest messages are all any
    /// network uses (Elo sends the latest 30).
    static let maximumBytes = 1 << 20

    /// Loads the messages at `url`.
    /// - Parameter url: the file.
    /// - Returns: the messages, oldest first.
    /// - Throws: ``Failure``.
    static func load(_ url: URL) throws(Failure) -> [AdRequest.Context.Message] {
        let data: Data
        switch BoundedFile.read(url, limit: maximumBytes) {
        case .success(let read): data = read
        case .failure(.notFound): throw .missing("no such file: \(url.path)")
        case .failure(.tooLarge(let limit)): throw .invalid("the file is larger than \(limit) bytes (\(BoundedFile.mebibytes(limit)))")
        case .failure(let failure): throw .missing("cannot read \(url.path): \(failure.reason)")
        }
        if data.allSatisfy({ [0x20, 0x09, 0x0A, 0x0D].contains($0) }) {
            throw .invalid("$: the file is empty; expected a JSON array of messages")
        }
        // The configuration's strict reader first, so the file is held to the same JSON as the
        // config (no trailing comma, which Foundation's decoder lets through; no comment, no
        // leading zero, no repeated key) and a syntax error says where: its path, line and
        // column.
        do {
            _ = try ConfigurationReading.jsonValue(StrictJSONReader.parse(Array(data)), at: .root)
        } catch {
            throw .invalid(error.description)
        }
        let entries: [Entry]
        do {
            entries = try JSONDecoder().decode([Entry].self, from: data)
        } catch let error as DecodingError {
            throw .invalid(describe(error))
        } catch {
            throw .invalid("not a JSON array of messages")
        }
        var messages: [AdRequest.Context.Message] = []
        for (index, entry) in entries.enumerated() {
            guard let role = AdRequest.Context.Role(rawValue: entry.role) else {
                throw .invalid("[\(index)].role: expected \"user\", \"assistant\" or \"summary\"")
            }
            var createdAt: Date?
            if let text = entry.createdAt {
                // UTC with up to three decimals (`2026-01-02T10:00:00.000Z`, ``WallClockTime``),
                // or whole seconds with an offset (`2026-01-02T11:00:00+01:00`).
                if let time = WallClockTime(rfc3339: text) {
                    createdAt = Date(timeIntervalSince1970: Double(time.millisecondsSince1970) / 1000)
                } else if let date = ISO8601DateFormatter().date(from: text) {
                    createdAt = date
                } else {
                    throw .invalid("[\(index)].created_at: expected an ISO 8601 time such as \"2026-05-02T09:14:03Z\" or \"2026-05-02T09:14:03.250Z\"")
                }
            }
            messages.append(AdRequest.Context.Message(role: role, content: entry.content, id: entry.id, createdAt: createdAt))
        }
        return messages
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ codingPath: [any CodingKey]) -> String {
            let text = codingPath.map { key in key.intValue.map { "[\($0)]" } ?? ".\(key.stringValue)" }.joined()
            let trimmed = text.hasPrefix(".") ? String(text.dropFirst()) : text
            return trimmed.isEmpty ? "$" : trimmed
        }
        switch error {
        case .typeMismatch(_, let context):
            return "\(path(context.codingPath)): wrong type"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)): missing value"
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])): missing required field"
        case .dataCorrupted(let context):
            return "\(path(context.codingPath)): not valid JSON"
        @unknown default:
            return "$: not a JSON array of messages"
        }
    }
}
