import Foundation

/// The documented bounds on every value a network sends (engine rule R16: network values are
/// untrusted). The engine checks the values an ad carries into it (size, price, time to live,
/// refresh interval) here, and adapters check the values of their own wire formats (durations,
/// sizes, pixel densities, counts, text) with the same functions, so that no value a network
/// sends can crash the host, stop a placement's refresh for good, or grow memory without bound.
public enum NetworkValueBounds {
    // MARK: - Sizes

    /// The largest ad dimension accepted, in points (a size beyond it is an invalid answer).
    public static let maximumAdDimension: Double = 10_000

    /// Whether `size` is a usable ad size: both dimensions finite, positive and at most
    /// ``maximumAdDimension`` points. An ad whose size is not is an invalid answer (loss
    /// reason 3, engine rule R8a).
    /// - Parameter size: the size in points.
    public static func isValidAdSize(_ size: AdSize) -> Bool {
        isValidDimension(size.width) && isValidDimension(size.height)
    }

    /// Whether `points` is finite, positive and at most ``maximumAdDimension``.
    /// - Parameter points: a length in points.
    public static func isValidDimension(_ points: Double) -> Bool {
        points.isFinite && points > 0 && points <= maximumAdDimension
    }

    /// The pixel densities (pixels per point) accepted from a network.
    public static let pixelDensity: ClosedRange<Double> = 0.5...8

    /// Whether `density` is in ``pixelDensity``.
    /// - Parameter density: pixels per point, as a network sent it.
    public static func isValidPixelDensity(_ density: Double) -> Bool {
        density.isFinite && pixelDensity.contains(density)
    }

    // MARK: - Durations

    /// The longest duration a network value may express: one day. Longer values are clamped.
    public static let maximumDuration: Duration = .seconds(86_400)

    /// A duration a network sent in seconds, bounded: `nil` when it is not a finite number,
    /// zero when negative, at most ``maximumDuration``.
    /// - Parameter seconds: the value as sent (e.g. a TTL or an `exp`), in seconds.
    /// - Returns: the bounded duration, or `nil` for NaN or infinity.
    public static func duration(seconds: Double) -> Duration? {
        guard seconds.isFinite else { return nil }
        let bounded = min(max(seconds, 0), 86_400)
        return .milliseconds(Int64((bounded * 1000).rounded(.down)))
    }

    /// A duration a network sent in whole seconds, bounded to 0 ... ``maximumDuration``.
    /// - Parameter seconds: the value as sent, in seconds.
    public static func duration(wholeSeconds seconds: Int) -> Duration {
        .seconds(min(max(seconds, 0), 86_400))
    }

    /// An ad's time to live as the engine uses it (R14, R16): the network's value at most the
    /// format's default; zero or less means expired on arrival; `nil` keeps the default.
    /// - Parameters:
    ///   - timeToLive: the network's TTL, if any.
    ///   - format: the ad's format.
    /// - Returns: the bounded TTL.
    public static func timeToLive(_ timeToLive: Duration?, format: AdFormat) -> Duration {
        guard let timeToLive else { return format.defaultTimeToLive }
        return min(max(timeToLive, .zero), format.defaultTimeToLive)
    }

    /// The refresh intervals a network may ask for, in whole seconds (R13, R16): at least 30,
    /// at most one day (the configuration's own maximum).
    public static let refreshSeconds: ClosedRange<Int> = 30...86_400

    /// A refresh interval a network asked for, clamped to ``refreshSeconds``.
    /// - Parameter seconds: the value as sent.
    /// - Returns: the clamped value, and whether it was changed.
    public static func refreshSeconds(_ seconds: Int) -> (seconds: Int, clamped: Bool) {
        let clamped = min(max(seconds, refreshSeconds.lowerBound), refreshSeconds.upperBound)
        return (clamped, clamped != seconds)
    }

    // MARK: - Counts and text

    /// The most items accepted in any list a network sends (bids, creatives, trackers,
    /// assets); items beyond it are dropped.
    public static let maximumCount = 64

    /// The longest identifier accepted (creative, bid, ad, request ids), in characters; longer
    /// ones are cut.
    public static let maximumIdentifierLength = 128

    /// The longest free text accepted (no-fill reasons, error messages), in characters; longer
    /// text is cut and marked with `…`.
    public static let maximumTextLength = 256

    /// `text` cut to `limit` characters (with `…` when cut). Control characters are kept: the
    /// engine escapes them where it writes to a terminal.
    /// - Parameters:
    ///   - text: a string a network sent.
    ///   - limit: the most characters kept (default ``maximumTextLength``).
    public static func text(_ text: String, limit: Int = maximumTextLength) -> String {
        guard !fits(text, limit: limit) else { return text }
        return String(text.prefix(max(0, limit - 1))) + "…"
    }

    /// Whether `text` has at most `limit` characters, in time proportional to `limit`, not to
    /// the text (a network may send megabytes).
    /// - Parameters:
    ///   - text: a string a network sent.
    ///   - limit: the most characters allowed.
    public static func fits(_ text: String, limit: Int) -> Bool {
        if text.utf8.count <= limit { return true }
        guard let end = text.index(text.startIndex, offsetBy: max(0, limit), limitedBy: text.endIndex) else { return true }
        return end == text.endIndex
    }

    /// An identifier cut to ``maximumIdentifierLength`` characters.
    /// - Parameter identifier: an id a network sent.
    public static func identifier(_ identifier: String) -> String {
        text(identifier, limit: maximumIdentifierLength)
    }
}

extension NetworkValueBounds {
    // MARK: - Prices

    /// The highest price a network may send, in USD per 1000 impressions: 1,000,000, the
    /// auction's own maximum (R2). A higher price is an invalid answer.
    public static let maximumPrice: Double = 1_000_000

    /// Whether `price` is a price a network may send: finite, not negative and at most
    /// ``maximumPrice``. Zero passes here (a network may document it as valid); the auction
    /// then rejects it (R2).
    /// - Parameter price: the price as sent, in the network's currency per 1000 impressions.
    public static func isValidPrice(_ price: Double) -> Bool {
        price.isFinite && price >= 0 && price <= maximumPrice
    }

    // MARK: - URLs

    /// The longest URL (or URL path) accepted from a network, in characters: 2048. Unlike an
    /// identifier, a longer URL is never cut (a cut URL points elsewhere): it is refused.
    public static let maximumURLLength = 2048

    /// `text` as an http(s) URL with a host, no user info and at most ``maximumURLLength``
    /// characters, or `nil`.
    /// - Parameter text: a URL a network sent.
    public static func webURL(_ text: String) -> URL? {
        guard fits(text, limit: maximumURLLength), let url = URL(string: text) else { return nil }
        return isWebURL(url) ? url : nil
    }

    /// Whether `url` is http(s) with a host, has no user info and is at most
    /// ``maximumURLLength`` characters long.
    /// - Parameter url: a URL a network sent.
    public static func isWebURL(_ url: URL) -> Bool {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { return false }
        return fits(url.absoluteString, limit: maximumURLLength)
    }

    /// The first ``maximumCount`` items of a list a network sent; the rest are dropped.
    /// - Parameter items: the list as sent.
    public static func prefix<Item>(_ items: [Item]) -> [Item] {
        items.count > maximumCount ? Array(items.prefix(maximumCount)) : items
    }
}
