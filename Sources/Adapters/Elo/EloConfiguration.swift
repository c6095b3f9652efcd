import Foundation

/// The Elo client's logging threshold (Elo seed, `EloLogLevel`): lines below it are dropped.
package enum EloLogLevel: Int, Comparable, Sendable, Hashable {
    /// Everything.
    case verbose
    /// Debugging detail.
    case debug
    /// Information.
    case info
    /// Warnings (the default threshold).
    case warn
    /// Errors only.
    case error
    /// Nothing.
    case none

    /// Orders by severity.
    public static func < (lhs: EloLogLevel, rhs: EloLogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Whether a line at `level` passes this threshold: the line's level is at or above it
    /// (`verbose` < `debug` < `info` < `warn` < `error`); the threshold `none` passes nothing,
    /// and no line is logged at `none`.
    /// - Parameter level: the line's level.
    /// - Returns: `true` when the line is logged.
    package func admits(_ level: EloLogLevel) -> Bool {
        level != .none && self != .none && level >= self
    }

    /// Reads a config spelling: `verbose`, `debug`, `info`, `warn`, `error`, `none`.
    /// - Parameter name: the spelling.
    /// - Returns: the level, or `nil` for an unknown spelling.
    package init?(name: String) {
        switch name {
        case "verbose": self = .verbose
        case "debug": self = .debug
        case "info": self = .info
        case "warn": self = .warn
        case "error": self = .error
        case "none": self = .none
        default: return nil
        }
    }
}

/// The full configuration of an ``EloClient`` (Elo seed, `EloConfiguration` and
/// `configure(publisherId:adUnitId:shareGeoLocation:geoLocationPrecision:)`).
package struct EloConfiguration: Sendable, Hashable {
    /// The production API endpoint (requests go to `<base>/v1/bid`, analytics to `<base>/v1/events`).
    public static let defaultBaseURL: URL = URL(string: "https://api.elo.example") ?? URL(fileURLWithPath: "/")
    /// The seed's request deadline: 3 seconds.
    public static let maximumRequestTimeout: Duration = .seconds(3)
    /// The default rounding of shared coordinates: 2 decimal places (~1.1 km).
    public static let defaultGeoPrecision = 2
    /// Precision is clamped to 0 ... 6 decimal places.
    public static let geoPrecisionRange: ClosedRange<Int> = 0...6

    /// The publisher id from Elo.
    public var publisherID: String
    /// The default ad unit id; a request's own non-empty ``Mediation/AdRequest/adUnitID`` (the
    /// line item's `ad_unit_id`) takes precedence.
    public var adUnitID: String
    /// COPPA child-directed treatment (`regs.coppa = 1`); default `false`.
    public var coppa: Bool
    /// Under-age treatment, TFUA (`regs.ext.tfua = 1`); default `false`.
    public var tfua: Bool
    /// Logging threshold; default ``EloLogLevel/warn``.
    public var logLevel: EloLogLevel
    /// The API base URL; default ``defaultBaseURL``.
    public var baseURL: URL
    /// Passive geo sharing; on by default (Elo seed, "shareGeoLocation").
    public var shareGeoLocation: Bool
    /// Decimal places shared coordinates are rounded to, clamped to 0 ... 6; `nil` keeps full
    /// precision. Only applies when ``shareGeoLocation`` is on.
    public var geoLocationPrecision: Int? {
        get { storedPrecision }
        set { storedPrecision = newValue.map { Self.clampPrecision($0) } }
    }
    /// The client's own request timeout, never more than the seed's 3 s (each request also
    /// stops at its own deadline, whichever is earlier).
    public var requestTimeout: Duration {
        get { storedTimeout }
        set { storedTimeout = min(max(newValue, .zero), Self.maximumRequestTimeout) }
    }

    private var storedPrecision: Int?
    private var storedTimeout: Duration

    /// Creates a configuration with the seed's defaults.
    /// - Parameters:
    ///   - publisherID: the publisher id.
    ///   - adUnitID: the default ad unit id (may be empty when every request carries one).
    ///   - coppa: COPPA flag, default `false`.
    ///   - tfua: TFUA flag, default `false`.
    ///   - logLevel: threshold, default `.warn`.
    ///   - baseURL: API endpoint, default production.
    ///   - shareGeoLocation: passive geo sharing, default `true`.
    ///   - geoLocationPrecision: decimal places, default 2, clamped to 0 ... 6; `nil` = full precision.
    ///   - requestTimeout: at most 3 s (larger values are lowered to 3 s), default 3 s.
    public init(
        publisherID: String,
        adUnitID: String = "",
        coppa: Bool = false,
        tfua: Bool = false,
        logLevel: EloLogLevel = .warn,
        baseURL: URL = EloConfiguration.defaultBaseURL,
        shareGeoLocation: Bool = true,
        geoLocationPrecision: Int? = EloConfiguration.defaultGeoPrecision,
        requestTimeout: Duration = EloConfiguration.maximumRequestTimeout
    ) {
        self.publisherID = publisherID
        self.adUnitID = adUnitID
        self.coppa = coppa
        self.tfua = tfua
        self.logLevel = logLevel
        self.baseURL = baseURL
        self.shareGeoLocation = shareGeoLocation
        self.storedPrecision = geoLocationPrecision.map { Self.clampPrecision($0) }
        self.storedTimeout = min(max(requestTimeout, .zero), Self.maximumRequestTimeout)
    }

    /// Clamps a precision to 0 ... 6 decimal places.
    static func clampPrecision(_ value: Int) -> Int {
        min(max(value, geoPrecisionRange.lowerBound), geoPrecisionRange.upperBound)
    }

    /// What looks wrong in this configuration (logged as warnings when the client is created;
    /// an empty list for a clean integration).
    var validationIssues: [String] {
        var issues: [String] = []
        if publisherID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            issues.append("publisher id is blank")
        }
        if adUnitID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            issues.append("ad unit id is blank: every request must carry its own")
        }
        if baseURL.scheme?.lowercased() != "https" {
            issues.append("base URL is not HTTPS")
        }
        return issues
    }
}
