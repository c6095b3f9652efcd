import Mediation

/// The Qartvelo network's `options` in the configuration, validated.
///
/// | key | type | default | meaning |
/// | --- | --- | --- | --- |
/// | `adaptive` | bool | `true` | anchored adaptive sizing; `false` sends no `banner_height` (the server's widest-fit rule) |
/// | `banner_refresh_seconds` | int >= 1 | 60 | the sandbox dashboard's refresh interval, returned to the client (values under 30 are allowed here so the placement's raise to 30 can be exercised) |
/// | `sandbox_html5` | bool | `false` | the sandbox serves HTML5 ads instead of images |
/// | `sandbox_html5_bundle_bytes` | int >= 1 | 180000 | the size of the sandbox's HTML5 bundles, in bytes |
package struct QartveloOptions: Hashable, Sendable {
    /// Anchored adaptive sizing on (the default) or off.
    public var adaptive: Bool
    /// The sandbox dashboard's `banner_refresh_seconds`, in whole seconds.
    public var bannerRefreshSeconds: Int
    /// Whether the sandbox serves HTML5 ads.
    public var sandboxHTML5: Bool
    /// The size of the sandbox's HTML5 bundles, in bytes.
    public var sandboxHTML5BundleBytes: Int

    /// Creates options; the defaults are the seed's.
    public init(adaptive: Bool = true, bannerRefreshSeconds: Int = 60, sandboxHTML5: Bool = false, sandboxHTML5BundleBytes: Int = 180_000) {
        self.adaptive = adaptive
        self.bannerRefreshSeconds = bannerRefreshSeconds
        self.sandboxHTML5 = sandboxHTML5
        self.sandboxHTML5BundleBytes = sandboxHTML5BundleBytes
    }

    /// The option keys.
    static let keys: Set<String> = ["adaptive", "banner_refresh_seconds", "sandbox_html5", "sandbox_html5_bundle_bytes"]

    /// Reads a network's validated `options` (unknown keys were refused by `settings`).
    /// - Throws: ``ConfigurationError`` naming the key's path for a wrong type or an
    ///   out-of-range value.
    package init(_ settings: NetworkSettings) throws(ConfigurationError) {
        self.init()
        adaptive = try settings.bool("adaptive") ?? adaptive
        bannerRefreshSeconds = try settings.integer("banner_refresh_seconds", in: 1...Int.max) ?? bannerRefreshSeconds
        sandboxHTML5 = try settings.bool("sandbox_html5") ?? sandboxHTML5
        sandboxHTML5BundleBytes = try settings.integer("sandbox_html5_bundle_bytes", in: 1...Int.max) ?? sandboxHTML5BundleBytes
    }
}
