extension AdRequest.Device {
    /// The network connection type, with AdCOM "Connection Types" raw values (OpenRTB 2.6
    /// `device.connectiontype`).
    public enum Connection: Int, Sendable, Hashable, Codable {
        /// Unknown (0).
        case unknown = 0
        /// Ethernet (1).
        case ethernet = 1
        /// Wi-Fi (2).
        case wifi = 2
        /// Cellular of unknown generation (3).
        case cellularUnknown = 3
        /// 2G (4).
        case cellular2G = 4
        /// 3G (5).
        case cellular3G = 5
        /// 4G (6).
        case cellular4G = 6
        /// 5G (7).
        case cellular5G = 7
    }
}

extension AdRequest.Device {
    /// Phone or tablet.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// A phone.
        case phone
        /// A tablet.
        case tablet
    }
}

extension AdRequest.Device {
    /// A location in degrees, as the host has it (OpenRTB `geo.lat` / `geo.lon`).
    public struct Location: Hashable, Sendable, Codable {
        /// Latitude in degrees, -90 to 90.
        public var latitude: Double
        /// Longitude in degrees, -180 to 180.
        public var longitude: Double

        /// Creates a location.
        public init(latitude: Double, longitude: Double) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }
}

extension AdRequest {
    /// The device signals the host passes with each request. Networks decide which they may send
    /// (each adapter follows its seed's rules: e.g. the advertising id only when tracking is
    /// authorized; Nitx never sends location).
    public struct Device: Hashable, Sendable {
        /// Manufacturer, e.g. `"Apple"`.
        public var make: String
        /// Model, e.g. `"iPhone15,2"`.
        public var model: String
        /// Hardware version, e.g. `"15,2"` (OpenRTB `device.hwv`), if the host has it.
        public var hardwareVersion: String?
        /// OS name, e.g. `"iOS"`.
        public var osName: String
        /// OS version, e.g. `"17.4"`.
        public var osVersion: String
        /// Phone or tablet.
        public var kind: Kind
        /// Language, ISO 639-1 alpha-2, e.g. `"en"`.
        public var language: String
        /// The time zone identifier, e.g. `"Europe/Tbilisi"`.
        public var timeZone: String
        /// Local time minus UTC, in minutes.
        public var utcOffsetMinutes: Int
        /// Country, ISO 3166-1 alpha-3 (OpenRTB `geo.country`), e.g. `"USA"`.
        public var country: String?
        /// The connection type.
        public var connectionType: Connection
        /// The device's location at full precision, if the host has it and may share it.
        public var location: Location?
        /// The advertising id (IDFA); sent only when ``trackingAuthorized`` is `true` and the
        /// privacy signals allow it (not limited, not child-directed, consent not withdrawn).
        public var advertisingID: String?
        /// The vendor id (IDFV), sent in place of the advertising id when tracking is not allowed.
        public var vendorID: String?
        /// Whether the user authorized tracking (App Tracking Transparency).
        public var trackingAuthorized: Bool

        /// Creates device info.
        public init(
            make: String = "Apple",
            model: String = "iPhone15,2",
            hardwareVersion: String? = nil,
            osName: String = "iOS",
            osVersion: String = "17.4",
            kind: Kind = .phone,
            language: String = "en",
            timeZone: String = "UTC",
            utcOffsetMinutes: Int = 0,
            country: String? = nil,
            connectionType: Connection = .wifi,
            location: Location? = nil,
            advertisingID: String? = nil,
            vendorID: String? = nil,
            trackingAuthorized: Bool = false
        ) {
            self.make = make
            self.model = model
            self.hardwareVersion = hardwareVersion
            self.osName = osName
            self.osVersion = osVersion
            self.kind = kind
            self.language = language
            self.timeZone = timeZone
            self.utcOffsetMinutes = utcOffsetMinutes
            self.country = country
            self.connectionType = connectionType
            self.location = location
            self.advertisingID = advertisingID
            self.vendorID = vendorID
            self.trackingAuthorized = trackingAuthorized
        }
    }
}

extension RequestTemplate {
    /// The host app.
    public struct App: Hashable, Sendable {
        /// The bundle id, e.g. `"com.example.chat"`.
        public var bundleID: String
        /// The marketing version, e.g. `"2.4.0"`.
        public var version: String
        /// The build number, e.g. `"812"`.
        public var build: String

        /// Creates app info.
        public init(bundleID: String = "com.example.app", version: String = "1.0.0", build: String = "1") {
            self.bundleID = bundleID
            self.version = version
            self.build = build
        }
    }
}
