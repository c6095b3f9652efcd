import Mediation

/// The Qartvelo network's `options` in the configuration, validated.
///
/// | key | type | default | meaning |
/// | --- | --- | --- | --- |
/// | `adaptive` | bool | `true` | anchored adaptive sizing; `false` sends no `banner_height` (the server's widest-fit rule) |
/// | `banner_refresh_seconds` | int >= 1 | 60 | the sandbox dashboard's refresh interval, returned to the client (values under 30 are allowed here so the placement's raise to 30 can be exercised) |
/// | `sandbox_html5` | bool | `false` | the sandbox serves HTML5 ads instead of images |
/// | `sandbox_html5_bundle_bytes` | int >= 1 | 180000 | the size of the sandbox's HTML5 bundles, in bytes |
public struct QartveloOptions: Hashable, Sendable {
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

    /// Validates a network's `options`.
    /// - Parameters:
    ///   - options: the configuration's `options` object.
    ///   - path: the JSON path of that object, e.g. `networks.qartvelo.options`.
    /// - Throws: ``ConfigurationError`` naming the key's path for an unknown key, a
    ///   wrong type or an out-of-range value.
    package init(parsing options: [String: JSONValue], path: String) throws(ConfigurationError) {
        self.init()
        for key in options.keys.sorted() {
            let value = options[key] ?? .null
            let keyPath = "\(path).\(key)"
            switch key {
            case "adaptive":
                adaptive = try Self.bool(value, path: keyPath)
            case "banner_refresh_seconds":
                bannerRefreshSeconds = try Self.positiveInt(value, path: keyPath)
            case "sandbox_html5":
                sandboxHTML5 = try Self.bool(value, path: keyPath)
            case "sandbox_html5_bundle_bytes":
                sandboxHTML5BundleBytes = try Self.positiveInt(value, path: keyPath)
            default:
                throw ConfigurationError(code: .unknownKey, path: keyPath, message: "unknown Qartvelo option")
            }
        }
    }

    private static func bool(_ value: JSONValue, path: String) throws(ConfigurationError) -> Bool {
        guard let bool = value.boolValue else {
            throw ConfigurationError(code: .wrongType, path: path, message: "must be true or false")
        }
        return bool
    }

    private static func positiveInt(_ value: JSONValue, path: String) throws(ConfigurationError) -> Int {
        guard let int = value.intValue, int >= 1 else {
            throw ConfigurationError(code: .invalidValue, path: path, message: "must be a whole number of at least 1")
        }
        return int
    }
}
