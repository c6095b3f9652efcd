/// A path into a JSON document, written the way configuration errors name it:
/// `placements.home_banner.sources[2].ecpm`; the document itself is `$`.
package struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    /// One step: an object key or an array index.
    package enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    /// The steps from the document's root.
    package var components: [Component] = []

    /// The document itself.
    package static let root = JSONPath()

    /// The path of `key` inside this object.
    package func appending(_ key: String) -> JSONPath {
        JSONPath(components: components + [.key(key)])
    }

    /// The path of element `index` inside this array.
    package func appending(index: Int) -> JSONPath {
        JSONPath(components: components + [.index(index)])
    }

    /// Dotted keys and bracketed indices; a key that is not a plain identifier is written
    /// `["key"]` so a path can always be read back.
    package var description: String {
        if components.isEmpty { return "$" }
        var text = ""
        for component in components {
            switch component {
            case .key(let key):
                if JSONPath.isPlain(key) {
                    if !text.isEmpty { text += "." }
                    text += key
                } else {
                    // A long key is cut to an excerpt, so a path stays short whatever the file holds.
                    let escaped = key.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    text += "[\"\(ConfigurationText.excerpt(escaped))\"]"
                }
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    private static func isPlain(_ key: String) -> Bool {
        guard !key.isEmpty, key.utf8.count <= 64 else { return false }
        return key.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                || byte == 0x5F || byte == 0x2D || byte == 0x24
        }
    }
}
