/// How a source's ads are priced (engine rules, "Words").
public enum AdSourcePricing: String, Sendable, Hashable, Codable {
    /// The network's answer carries the price (Elo): it always could still win while outstanding.
    case bidder
    /// The line item's configured eCPM prices every fill (Nitx, Qartvelo, the fallback).
    case fixedPrice = "fixed_price"
}

/// The seam every ad network implements: load one ad for one request.
///
/// Contract for implementers:
/// - Answer exactly once per call with one ``AdLoadResult``: a bid, a fill, a no-fill with the
///   network's reason, or a failure. Never throw into the engine.
/// - Honour cancellation promptly: when the calling task is cancelled (the auction ended or the
///   deadline passed) stop work and release anything loaded. The engine never waits for an
///   adapter past the deadline, so an adapter that ignores cancellation only wastes its own work.
/// - Never block the calling thread; do I/O through an ``HTTPTransport``-style async seam.
/// - Treat everything from the network as untrusted: a malformed answer is a
///   ``AdapterError/Kind/invalidResponse`` failure, never a crash.
/// - Never put chat content or user data into errors or reasons.
public protocol AdNetworkAdapter: Sendable {
    /// The network id as the config names it, e.g. `"elo"`.
    var network: String { get }
    /// How this network's ads are priced.
    var pricing: AdSourcePricing { get }
    /// Loads one ad.
    /// - Parameter request: the request, with this line item's ad unit id and deadline.
    /// - Returns: the network's one answer.
    func loadAd(for request: AdRequest) async -> AdLoadResult
}
