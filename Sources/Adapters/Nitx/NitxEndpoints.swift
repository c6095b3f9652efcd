import Foundation

/// The POST-mode endpoints a source advertises in its config's `sdk` block, resolved against
/// the API base URL. An off-origin path (another scheme, host or port, or a protocol-relative
/// `//host/…`) is ignored (Nitx seed, "Request mode").
package struct NitxEndpoints: Sendable, Hashable {
    /// The POST ads endpoint; `nil` means GET mode.
    package var ads: URL?
    /// The events endpoint; `nil` means no event is sent.
    package var events: URL?
    /// The forget endpoint; `nil` means reset sends nothing.
    package var forget: URL?

    /// Creates endpoints.
    package init(ads: URL? = nil, events: URL? = nil, forget: URL? = nil) {
        self.ads = ads
        self.events = events
        self.forget = forget
    }

    /// No POST-mode endpoint.
    package static let none = NitxEndpoints()

    /// Resolves the `sdk` block's paths against `base`.
    /// - Parameters:
    ///   - block: the config's `sdk` block, or `nil`.
    ///   - base: the API base URL.
    /// - Returns: the endpoints on `base`'s origin, and the names of the ignored ones.
    package static func resolve(_ block: NitxWireSDKBlock?, base: URL) -> (endpoints: NitxEndpoints, ignored: [String]) {
        guard let block else { return (.none, []) }
        var ignored: [String] = []
        func resolve(_ path: String?, name: String) -> URL? {
            guard let path else { return nil }
            if let url = sameOriginURL(path, base: base) { return url }
            ignored.append(name)
            return nil
        }
        let endpoints = NitxEndpoints(
            ads: resolve(block.adsEndpoint, name: "ads_endpoint"),
            events: resolve(block.eventsEndpoint, name: "events_endpoint"),
            forget: resolve(block.forgetEndpoint, name: "forget_endpoint")
        )
        return (endpoints, ignored)
    }

    /// `path` on `base`'s origin: a path starting with one `/`, or an absolute URL with
    /// `base`'s scheme, host and port. Anything else (another origin, `//host`, a relative
    /// path without `/`, an empty string) gives `nil`.
    package static func sameOriginURL(_ path: String, base: URL) -> URL? {
        let trimmed = path.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.contains("\\") else { return nil }
        if trimmed.hasPrefix("/") {
            guard !trimmed.hasPrefix("//"), let url = URL(string: trimmed, relativeTo: base)?.absoluteURL else { return nil }
            return origin(of: url) == origin(of: base) ? url : nil
        }
        guard let url = URL(string: trimmed), url.scheme != nil else { return nil }
        return origin(of: url) == origin(of: base) ? url : nil
    }

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let host = url.host?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(host):\(port)"
    }
}
