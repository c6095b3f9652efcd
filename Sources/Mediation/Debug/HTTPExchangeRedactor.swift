import Foundation

/// Removes user data and identifiers from recorded HTTP exchanges before they are shown
/// (`mediate --debug`): every value whose key or name is sensitive becomes `"[redacted]"`.
///
/// What counts as sensitive, compared case-insensitively with `_` and `-` ignored (so
/// `visitor_id`, `visitorId` and `Visitor-ID` are one name):
/// - device and advertising identifiers: `ifa`, `idfa`, `idfv`, `ifv`, `gaid`, `aaid`, `adid`,
///   `advertising_id`, `device_id`;
/// - user identifiers and contact data: `user_id`, `uid`, `buyeruid`, `visitor_id`, `email`
///   (and hashed forms), `phone`, `msisdn`, and any name ending in `visitor_id`, `user_id`,
///   `email`, `phone`, `device_id`, `advertising_id` or `ip_address`;
/// - network location: `ip`, `ipv6`, `ip_address`, `x-forwarded-for`;
/// - precise location: `lat`, `lon`, `lng`, `latitude`, `longitude`;
/// - consent strings: `consent`, `gdpr_consent`, `tc_string`, `gpp`, `us_privacy`;
/// - session credentials: the `Cookie`, `Set-Cookie` and `Authorization` headers;
/// - inside an object named `user` or `visitor`: its `id`, `data`, `keywords`, `yob`, `gender`
///   and `customdata`;
/// - chat content: `content` and `text` of the objects in a `messages` array.
///
/// JSON bodies are parsed and rewritten with sorted keys; form bodies and URLs have their
/// parameters redacted by name; other bodies are shown as text, unchanged. Privacy flags that
/// are not identifiers (`coppa`, `gdpr`, `lmt`, `dnt`, `tmax`) stay visible on purpose: they
/// show what was sent.
package enum HTTPExchangeRedactor {
    /// The text that replaces a redacted value.
    package static let placeholder = "[redacted]"

    /// Sensitive names, normalised (lowercased, without `_` and `-`).
    package static let sensitiveNames: Set<String> = [
        "ifa", "idfa", "idfv", "ifv", "gaid", "aaid", "adid", "advertisingid", "deviceid",
        "userid", "uid", "buyeruid", "visitorid", "email", "emailaddress", "hashedemail", "emailsha256", "emailhash",
        "phone", "phonenumber", "msisdn", "hashedphone",
        "ip", "ipv6", "ipaddress", "clientip", "xforwardedfor", "xrealip",
        "lat", "lon", "lng", "latitude", "longitude",
        "consent", "consentstring", "gdprconsent", "tcstring", "tcfconsent", "gpp", "gppstring", "usprivacy", "usp",
        "cookie", "setcookie", "authorization",
    ]

    /// Endings that make a name sensitive whatever comes before, e.g. `echo_visitor_id`,
    /// `hashed_user_id`, `contact_email`; normalised.
    package static let sensitiveSuffixes: [String] = ["visitorid", "userid", "email", "phone", "deviceid", "advertisingid", "ipaddress"]

    /// Names that are sensitive inside an object named `user` or `visitor`, normalised.
    package static let sensitiveUserFields: Set<String> = ["id", "data", "keywords", "yob", "gender", "customdata"]

    /// `name` lowercased without `_` and `-`.
    /// - Parameter name: a JSON key, header or parameter name.
    package static func normalized(_ name: String) -> String {
        String(name.lowercased().unicodeScalars.filter { $0 != "_" && $0 != "-" })
    }

    /// Whether a value under `name` is redacted; `parent` is the enclosing JSON object's key.
    /// - Parameters:
    ///   - name: the key or parameter name.
    ///   - parent: the key of the enclosing object, if any.
    package static func isSensitive(_ name: String, parent: String? = nil) -> Bool {
        let key = normalized(name)
        if sensitiveNames.contains(key) { return true }
        if sensitiveSuffixes.contains(where: { key.hasSuffix($0) }) { return true }
        guard let parent else { return false }
        switch normalized(parent) {
        case "user", "visitor": return sensitiveUserFields.contains(key)
        case "messages": return key == "content" || key == "text"
        default: return false
        }
    }

    /// The URL as text with its sensitive query parameters' values redacted, e.g.
    /// `https://t.example/ping?ad=7&visitor_id=[redacted]`.
    /// - Parameter url: a request URL.
    package static func url(_ url: URL) -> String {
        let text = url.absoluteString
        guard let question = text.firstIndex(of: "?") else { return text }
        let head = text[..<question]
        var rest = text[text.index(after: question)...]
        var fragment = ""
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[hash...])
            rest = rest[..<hash]
        }
        return head + "?" + redactedParameters(String(rest)) + fragment
    }

    /// `a=1&b=2` with the values of sensitive names replaced (names compared percent-decoded).
    private static func redactedParameters(_ query: String) -> String {
        query.split(separator: "&", omittingEmptySubsequences: false).map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            let name = String(pair[..<equals])
            return isSensitive(name.removingPercentEncoding ?? name) ? name + "=" + placeholder : String(pair)
        }.joined(separator: "&")
    }

    /// The headers with sensitive values redacted.
    /// - Parameter headers: header fields.
    package static func headers(_ headers: [String: String]) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in headers {
            result[name] = isSensitive(name) ? placeholder : value
        }
        return result
    }

    /// A body as text: JSON with sensitive keys' values redacted (rewritten with sorted keys), a
    /// form body (`a=1&b=2`) with sensitive parameters redacted, anything else as UTF-8 text
    /// (invalid bytes replaced).
    /// - Parameters:
    ///   - body: the body bytes.
    ///   - redact: whether to redact (`false` returns the text as it is).
    package static func bodyText(_ body: Data, redact: Bool = true) -> String {
        let text = String(decoding: body, as: UTF8.self)
        guard redact, !body.isEmpty else { return text }
        if let json = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) {
            let cleaned = redactJSON(json, key: nil, parent: nil)
            if let data = try? JSONSerialization.data(withJSONObject: cleaned, options: [.sortedKeys, .fragmentsAllowed, .withoutEscapingSlashes]) {
                return String(decoding: data, as: UTF8.self)
            }
            return placeholder
        }
        if looksLikeForm(text) {
            return redactedParameters(text)
        }
        return text
    }

    private static func looksLikeForm(_ text: String) -> Bool {
        !text.isEmpty && text.contains("=") && !text.contains(where: { $0 == " " || $0 == "\n" || $0 == "{" || $0 == "<" })
    }

    private static func redactJSON(_ value: Any, key: String?, parent: String?) -> Any {
        if let key, isSensitive(key, parent: parent), !(value is NSNull) {
            return placeholder
        }
        if let object = value as? [String: Any] {
            var result: [String: Any] = [:]
            for (name, child) in object {
                // An array's element takes the array's key as its own for its children.
                result[name] = redactJSON(child, key: name, parent: key ?? parent)
            }
            return result
        }
        if let array = value as? [Any] {
            return array.map { redactJSON($0, key: nil, parent: key) }
        }
        return value
    }
}
