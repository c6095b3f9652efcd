import Foundation

/// What a configuration server's response says about caching and retrying (RFC 9111
/// `Cache-Control`, RFC 9110 `ETag`, `Retry-After` and `Date`, RFC 5861
/// `stale-while-revalidate`), read as untrusted input (R16): unknown directives are ignored,
/// numbers are bounded, an entity tag that is not short printable ASCII is dropped.
package struct HTTPCacheHeaders: Hashable, Sendable {
    /// `Cache-Control: max-age`, in seconds.
    package var maxAge: Int?
    /// `Cache-Control: stale-while-revalidate`, in seconds.
    package var staleWhileRevalidate: Int?
    /// `Cache-Control: no-cache`: check again as soon as the host's bounds allow.
    package var noCache = false
    /// `Cache-Control: no-store`: do not keep the configuration on disk.
    package var noStore = false
    /// `ETag`, as sent (`"v7"`, `W/"abc"`).
    package var entityTag: String?
    /// `Retry-After`, as a delay in seconds from the response (a number of seconds, or an
    /// HTTP date taken against the response's `Date`, else the device's clock).
    package var retryAfter: Int?

    /// The longest entity tag kept, in bytes.
    static let maximumEntityTagLength = 256
    /// The largest number of seconds read from a header (about 31 years); larger is this.
    static let maximumSeconds = 1_000_000_000

    /// Reads the headers of `response`.
    /// - Parameters:
    ///   - headers: the response's header fields (names compared without case).
    ///   - wallClock: the device's clock, for an HTTP-date `Retry-After` without a `Date`.
    package init(_ headers: [String: String], wallClock: WallClockTime) {
        func field(_ name: String) -> String? {
            headers.first { $0.key.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
        if let cacheControl = field("Cache-Control") {
            for directive in cacheControl.split(separator: ",") {
                let parts = directive.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard let name = parts.first?.lowercased() else { continue }
                let value = parts.count > 1 ? Self.seconds(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))) : nil
                switch name {
                case "max-age": maxAge = value
                case "stale-while-revalidate": staleWhileRevalidate = value
                case "no-cache": noCache = true
                case "no-store": noStore = true
                default: break
                }
            }
        }
        entityTag = Self.checkedEntityTag(field("ETag")?.trimmingCharacters(in: .whitespaces))
        if let retry = field("Retry-After")?.trimmingCharacters(in: .whitespaces) {
            if let seconds = Self.seconds(retry) {
                retryAfter = seconds
            } else if let date = Self.httpDate(retry) {
                let now = field("Date").flatMap(Self.httpDate) ?? wallClock
                let delta = (date.millisecondsSince1970 - now.millisecondsSince1970) / 1000
                retryAfter = Int(max(0, min(Int64(Self.maximumSeconds), delta)))
            }
        }
    }

    /// `tag` when it can go back as `If-None-Match`: 1 to ``maximumEntityTagLength`` bytes of
    /// printable ASCII without spaces (no CR or LF, so no header can be injected); else `nil`.
    /// A tag read back from the cache is checked the same way (R21).
    static func checkedEntityTag(_ tag: String?) -> String? {
        guard let tag, !tag.isEmpty, tag.utf8.count <= maximumEntityTagLength, tag.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return tag
    }

    /// A non-negative whole number of seconds, bounded; `nil` for anything else.
    static func seconds(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }), let value = Int(text) else { return nil }
        return min(value, maximumSeconds)
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`, RFC 9110), else `nil`.
    static func httpDate(_ text: String) -> WallClockTime? {
        let words = text.split(separator: " ")
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        guard words.count == 6, words[0].hasSuffix(","), words[5] == "GMT", words[1].count == 2, words[3].count == 4,
              let month = months.firstIndex(of: String(words[2]))
        else { return nil }
        let monthText = month + 1 < 10 ? "0\(month + 1)" : "\(month + 1)"
        return WallClockTime(rfc3339: "\(words[3])-\(monthText)-\(words[1])T\(words[4])Z")
    }
}
