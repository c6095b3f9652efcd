import Mediation

/// The fallback network's `options` in the configuration (all optional):
///
/// ```json
/// "options": {
///   "fill_rate": 0.8,              // 0...1, the share of requests that fill (default 1)
///   "latency_ms": 120,             // milliseconds before each answer (default 100)
///   "latency_jitter_ms": 40,       // up to this much more, drawn per request (default 0)
///   "seed": 7,                     // a whole number mixed into the engine's seed (default 0)
///   "creatives": 3,                // distinct creatives per ad unit, 1...100 (default 3)
///   "creative_sizes": { "banner": ["320x50", "300x250"], "interstitial": ["screen"] }
/// }
/// ```
/// `creative_sizes` lists, per format, the sizes in points (`"WIDTHxHEIGHT"`, or `"screen"` for
/// the device's screen) the network can serve; see ``FallbackAdapter`` for how one is chosen.
package struct FallbackOptions: Hashable, Sendable {
    /// The share of requests that fill, 0...1.
    public var fillRate: Double
    /// The time before each answer.
    public var latency: Duration
    /// The most extra time added to ``latency``, drawn uniformly per request.
    public var latencyJitter: Duration
    /// Mixed into the engine's seed.
    public var seed: UInt64
    /// How many distinct creatives each ad unit rotates through.
    public var creatives: Int
    /// The sizes the network serves, per format; a format absent here uses ``defaultSizes``.
    public var creativeSizes: [AdFormat: [FallbackCreativeSize]]

    /// The sizes served when `creative_sizes` does not name the format: banners the IAB strip
    /// and rectangle sizes, native strip and card sizes, full-screen formats the screen.
    public static let defaultSizes: [AdFormat: [FallbackCreativeSize]] = [
        .banner: [.points(AdSize(width: 320, height: 50)), .points(AdSize(width: 320, height: 100)), .points(AdSize(width: 300, height: 250)), .points(AdSize(width: 468, height: 60)), .points(AdSize(width: 728, height: 90))],
        .native: [.points(AdSize(width: 320, height: 50)), .points(AdSize(width: 320, height: 100)), .points(AdSize(width: 300, height: 250))],
        .interstitial: [.screen],
        .appOpen: [.screen],
        .rewarded: [.screen],
    ]

    /// Creates options; the defaults are those of an empty `options` object.
    public init(
        fillRate: Double = 1,
        latency: Duration = .milliseconds(100),
        latencyJitter: Duration = .zero,
        seed: UInt64 = 0,
        creatives: Int = 3,
        creativeSizes: [AdFormat: [FallbackCreativeSize]] = [:]
    ) {
        self.fillRate = fillRate
        self.latency = latency
        self.latencyJitter = latencyJitter
        self.seed = seed
        self.creatives = creatives
        self.creativeSizes = creativeSizes
    }

    /// The sizes served for `format`.
    package func sizes(for format: AdFormat) -> [FallbackCreativeSize] {
        creativeSizes[format] ?? FallbackOptions.defaultSizes[format] ?? [.screen]
    }

    /// The option keys.
    static let keys: Set<String> = ["fill_rate", "latency_ms", "latency_jitter_ms", "seed", "creatives", "creative_sizes"]

    /// Reads the options of the network `networkID`.
    /// - Parameters:
    ///   - options: the network's `options` object.
    ///   - networkID: the network id, for error paths.
    /// - Throws: ``ConfigurationError`` naming e.g. `networks.admob.options.fill_rate`
    ///   for an unknown key, a wrong type or a value out of range.
    package init(parsing options: [String: JSONValue], networkID: String) throws(ConfigurationError) {
        self.init()
        let optionsPath = JSONPath.root.appending("networks").appending(networkID).appending("options")
        let base = optionsPath.description
        if let unknown = options.keys.sorted().first(where: { !Self.keys.contains($0) }) {
            throw ConfigurationError(code: .unknownKey, path: optionsPath.appending(unknown).description, message: "unknown option for fallback; known: \(Self.keys.sorted().joined(separator: ", "))")
        }
        if let value = options["fill_rate"] {
            guard let rate = value.doubleValue, rate.isFinite, (0...1).contains(rate) else {
                throw ConfigurationError(code: .invalidValue, path: "\(base).fill_rate", message: "expected a number from 0 to 1")
            }
            fillRate = rate
        }
        if let value = options["latency_ms"] {
            latency = try Self.milliseconds(value, path: "\(base).latency_ms")
        }
        if let value = options["latency_jitter_ms"] {
            latencyJitter = try Self.milliseconds(value, path: "\(base).latency_jitter_ms")
        }
        if let value = options["seed"] {
            guard let seed = value.intValue else {
                throw ConfigurationError(code: .invalidValue, path: "\(base).seed", message: "expected a whole number")
            }
            self.seed = UInt64(bitPattern: Int64(seed))
        }
        if let value = options["creatives"] {
            guard let count = value.intValue, (1...100).contains(count) else {
                throw ConfigurationError(code: .invalidValue, path: "\(base).creatives", message: "expected a whole number from 1 to 100")
            }
            creatives = count
        }
        if let value = options["creative_sizes"] {
            creativeSizes = try Self.sizes(value, path: optionsPath.appending("creative_sizes"))
        }
    }

    private static func milliseconds(_ value: JSONValue, path: String) throws(ConfigurationError) -> Duration {
        guard let millis = value.doubleValue, millis.isFinite, (0...60_000).contains(millis) else {
            throw ConfigurationError(code: .invalidValue, path: path, message: "expected milliseconds from 0 to 60000")
        }
        return .microseconds(Int64((millis * 1000).rounded()))
    }

    private static func sizes(_ value: JSONValue, path jsonPath: JSONPath) throws(ConfigurationError) -> [AdFormat: [FallbackCreativeSize]] {
        let path = jsonPath.description
        guard case .object(let byFormat) = value else {
            throw ConfigurationError(code: .invalidValue, path: path, message: "expected an object keyed by format")
        }
        var result: [AdFormat: [FallbackCreativeSize]] = [:]
        for (key, list) in byFormat.sorted(by: { $0.key < $1.key }) {
            guard let format = AdFormat(rawValue: key) else {
                throw ConfigurationError(code: .invalidValue, path: jsonPath.appending(key).description, message: "unknown format; expected one of \(AdFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard case .array(let entries) = list, !entries.isEmpty else {
                throw ConfigurationError(code: .invalidValue, path: jsonPath.appending(key).description, message: "expected a non-empty array of sizes such as \"320x50\"")
            }
            var sizes: [FallbackCreativeSize] = []
            for (index, entry) in entries.enumerated() {
                guard let text = entry.stringValue, let size = FallbackCreativeSize(text) else {
                    throw ConfigurationError(code: .invalidValue, path: jsonPath.appending(key).appending(index: index).description, message: "expected \"WIDTHxHEIGHT\" in points (e.g. \"320x50\") or \"screen\"")
                }
                sizes.append(size)
            }
            result[format] = sizes
        }
        return result
    }
}

/// A size the fallback network can serve.
package enum FallbackCreativeSize: Hashable, Sendable, CustomStringConvertible {
    /// A fixed size in points.
    case points(AdSize)
    /// The device's screen (full-screen formats).
    case screen

    /// Parses `"320x50"` (points: plain decimals, positive, at most 10000) or `"screen"`.
    package init?(_ text: String) {
        if text == "screen" {
            self = .screen
            return
        }
        let parts = text.split(separator: "x", omittingEmptySubsequences: false)
        // Plain decimals (``NumberText``), as the schema's pattern: not `1e-300x1e-300`.
        guard parts.count == 2, let width = NumberText.decimal(parts[0]), let height = NumberText.decimal(parts[1]),
              width > 0, height > 0, width <= 10_000, height <= 10_000
        else { return nil }
        self = .points(AdSize(width: width, height: height))
    }

    /// The size in points on `screen`.
    package func resolved(on screen: AdRequest.Device.Screen) -> AdSize {
        switch self {
        case .points(let size): size
        case .screen: AdSize(width: screen.width, height: screen.height)
        }
    }

    /// `320x50` or `screen`.
    public var description: String {
        switch self {
        case .points(let size): size.description
        case .screen: "screen"
        }
    }
}
