import Foundation

extension MediationConfiguration {
    /// Loads the engine's JSON configuration file at `url` (`Config/mediation.json`, described by
    /// `Config/mediation.schema.json`) strictly, by engine rule R15: the first mistake fails the
    /// whole load with a ``ConfigurationError`` that names its JSON path, and nothing is built.
    ///
    /// The format (snake_case keys; any other key is an error):
    /// ```json
    /// {
    ///   "$schema": "mediation.schema.json",
    ///   "networks": {
    ///     "admob": { "adapter": "fallback", "credentials": {}, "endpoint": "sandbox",
    ///                "timeout_ms": 2000, "options": { "fill_rate": 0.9 } }
    ///   },
    ///   "placements": {
    ///     "home_banner": {
    ///       "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
    ///       "refresh_seconds": 60, "deadline_ms": 3000, "floor": 0.1, "mode": "parallel",
    ///       "sources": [ { "id": "admob_home", "network": "admob", "ad_unit_id": "ca-app-pub-1/1",
    ///                      "ecpm": 0.8 } ]
    ///     }
    ///   },
    ///   "currency_rates": { "EUR": 1.08 }
    /// }
    /// ```
    /// - `config_version`, `issued_at`, `rollout`: the release fields a signed configuration
    ///   carries; all optional.
    /// - `networks`: an object keyed by network id. `adapter` (required) is an adapter kind;
    ///   `credentials` an object of strings without control characters; `endpoint` (required)
    ///   `"sandbox"` or an https URL (plain http for 127.0.0.1 or localhost only); `timeout_ms` a
    ///   whole number 1...3000; `options` any JSON the adapter validates.
    /// - `placements`: an object keyed by placement id, in file order. `format` (required) is
    ///   `banner`, `interstitial`, `app_open`, `native` or `rewarded`; `sizing` (`anchored` or
    ///   `inline`) is required on banners and forbidden elsewhere; an inline banner's
    ///   `slot.max_height` is at least 32 points and defaults to 250 (the Qartvelo document's
    ///   inline default); `slot` has `max_width` / `max_height` in points;
    ///   `refresh_seconds` (banners only) a whole number 30...86400, default 60 (R13);
    ///   `deadline_ms` a whole number 1...3000, default 3000 (R3); `floor` a positive USD CPM;
    ///   `mode` `parallel` (default) or `waterfall` (R1); `sources` a non-empty array.
    /// - A source: `id` (unique in its placement), `network` (a key of `networks`),
    ///   `ad_unit_id`, then `ecpm` (required for fixed-price networks, forbidden for bidders),
    ///   `floor` (bidders only), `timeout_ms` (1...3000), `currency` (default `"USD"`; any other
    ///   needs a rate in `currency_rates`, R9), `ecpm_sd` (a positive number in `currency` CPM) and
    ///   `ecpm_impressions` (a whole number 0...10^12): the uncertainty of a learned eCPM and the
    ///   impressions behind it, as `mediate optimize --write` records them (fixed-price sources
    ///   only); `ecpm_by_country` (fixed-price sources only) prices in `currency` by upper-case
    ///   ISO 3166-1 alpha-2 country, used when the auction's country is listed.
    /// - `segments` (per placement): an ordered array of audience segments, each an `id`, a
    ///   `when` predicate (all but the last, the default, which is required) and the fields of a
    ///   ``PlacementOverride`` (`sources`, `ecpm`, `floor`, `refresh_seconds`, `mode`); the
    ///   first whose `when` matches an auction's audience wins (`docs/audiences.md`).
    /// - `currency_rates`: USD per unit of each other currency, positive finite numbers.
    /// - `health` (top level, and per network over it): when a failing network is paused
    ///   (engine rule R24), e.g. `{"enabled": true, "failures_to_open": 7, "window": 10,
    ///   "backoff_ms": 30000, "max_backoff_ms": 600000, "probes": 1}` (the defaults);
    ///   `{"enabled": false}` turns it off.
    ///
    /// A source's pricing comes from its network's kind, as the kind's factory in the
    /// ``NetworkRegistry`` states it; a network whose `adapter` the registry does not know is an
    /// `unknown_adapter` error.
    /// - Parameters:
    ///   - url: a file URL.
    ///   - registry: the network kinds the build knows (e.g. `NetworkRegistry.standard`), with
    ///     their pricing.
    /// - Throws: ``ConfigurationError`` with code `unreadable_file` for a URL that is not a
    ///   file's (a configuration from a server is ``MediationEngine/RemoteConfiguration``'s
    ///   job), code `file_not_found` or `unreadable_file` when the file cannot be read,
    ///   otherwise as ``init(data:registry:)``.
    public init(contentsOf url: URL, registry: NetworkRegistry) throws(ConfigurationError) {
        self = try ConfigurationLoader(registry: registry).load(contentsOf: url)
    }

    /// Loads a configuration from JSON bytes, strictly (engine rule R15; the format is
    /// ``init(contentsOf:registry:)``'s).
    /// - Parameters:
    ///   - data: UTF-8 JSON.
    ///   - registry: the network kinds the build knows, with their pricing.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake (R15).
    public init(data: Data, registry: NetworkRegistry) throws(ConfigurationError) {
        self = try ConfigurationLoader(registry: registry).load(data: data)
    }

    /// Loads a configuration from JSON text, strictly (engine rule R15; the format is
    /// ``init(contentsOf:registry:)``'s).
    /// - Parameters:
    ///   - json: the JSON document.
    ///   - registry: the network kinds the build knows, with their pricing.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake (R15).
    public init(json: String, registry: NetworkRegistry) throws(ConfigurationError) {
        self = try ConfigurationLoader(registry: registry).load(json: json)
    }
}

/// Loads the engine's JSON configuration strictly, by engine rule R15: the first mistake fails
/// the whole load with a ``ConfigurationError`` that names its JSON path, and nothing is built.
/// Hosts call ``MediationConfiguration/init(contentsOf:registry:)`` (whose documentation
/// describes the format), ``MediationConfiguration/init(data:registry:)`` or
/// ``MediationConfiguration/init(json:registry:)``.
///
/// The release fields are read by ``decodeRelease(_:)``, a `health` object by
/// ``decodeHealth(_:at:over:)``; an inline banner's `slot.max_height` defaults to
/// ``inlineDefaultMaxHeight``.
package struct ConfigurationLoader: Sendable {
    /// The network kinds this loader accepts, with their pricing.
    package var registry: NetworkRegistry

    /// The deadline bounds in milliseconds (R3).
    static let deadlineRange = 1...3000
    /// An inline banner's `slot.max_height` when the configuration gives none: 250 points (the
    /// Qartvelo document's `inlineMaxHeight` default).
    package static let inlineDefaultMaxHeight: Double = 250
    /// The smallest `slot.max_height` of an inline banner: 32 points.
    package static let inlineMinimumMaxHeight: Double = 32
    /// The refresh bounds in seconds (R13: at least 30; at most one day).
    static let refreshRange = MediationConfiguration.Placement.minimumRefreshSeconds...86_400
    /// The bounds of a source's `ecpm_impressions`: 0 to 10^12.
    static let learnedImpressionsRange = 0...1_000_000_000_000

    /// Creates a loader.
    /// - Parameter registry: the network kinds the build knows (e.g. `NetworkRegistry.standard`).
    package init(registry: NetworkRegistry) {
        self.registry = registry
    }

    /// Loads the configuration file at `url`.
    /// - Parameter url: a file URL.
    /// - Returns: the configuration.
    /// - Throws: ``ConfigurationError`` with code `unreadable_file` for a URL that is not a
    ///   file's (a configuration from a server is the remote configuration's job), code
    ///   `file_not_found` or `unreadable_file` when the file cannot be read, otherwise as
    ///   ``load(data:)``.
    package func load(contentsOf url: URL) throws(ConfigurationError) -> MediationConfiguration {
        guard url.isFileURL else {
            // Not the URL itself: it may carry credentials.
            throw ConfigurationError(code: .unreadableFile, path: "$", message: "not a file URL (scheme \(url.scheme.map { ConfigurationText.quoted($0) } ?? "none")): a configuration from a server is loaded by MediationEngine.RemoteConfiguration, which checks its signature")
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw ConfigurationError(code: .fileNotFound, path: "$", message: "no such file: \(url.path)")
        }
        guard !isDirectory.boolValue else {
            throw ConfigurationError(code: .unreadableFile, path: "$", message: "\(url.path) is a directory")
        }
        // Only a regular file is read (a device such as /dev/zero never ends, a FIFO blocks), and
        // at most one byte past the size limit: a 50 MB file costs 4 MiB, not 50 MB, to refuse.
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        guard (attributes?[.type] as? FileAttributeType) == .typeRegular else {
            throw ConfigurationError(code: .unreadableFile, path: "$", message: "cannot read \(url.path)")
        }
        let data: Data
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            data = try handle.read(upToCount: StrictJSONReader.maximumSize + 1) ?? Data()
        } catch {
            throw ConfigurationError(code: .unreadableFile, path: "$", message: "cannot read \(url.path)")
        }
        return try load(data: data)
    }

    /// Loads a configuration from JSON bytes.
    /// - Parameter data: UTF-8 JSON.
    /// - Returns: the configuration.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake (R15).
    package func load(data: Data) throws(ConfigurationError) -> MediationConfiguration {
        let root = try StrictJSONReader.parse([UInt8](data))
        return try decodeRoot(root)
    }

    /// Loads a configuration from JSON text.
    /// - Parameter json: the JSON document.
    /// - Returns: the configuration.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake (R15).
    package func load(json: String) throws(ConfigurationError) -> MediationConfiguration {
        try load(data: Data(json.utf8))
    }

    // MARK: - Root

    private func decodeRoot(_ root: JSONNode) throws(ConfigurationError) -> MediationConfiguration {
        // A signed envelope (`mediate config sign`) given where a plain configuration is read:
        // say what it is rather than `format: unknown key` (R22: it is read with trusted keys).
        if case .object(let members) = root, members.contains(where: { member in
            guard member.key == "format", case .string(let format) = member.value else { return false }
            return format == SignedConfiguration.format
        }) {
            throw ConfigurationError(code: .unknownKey, path: "format", message: "this is a signed configuration (\(SignedConfiguration.format)), not a plain one: it is read with the keys it was signed with (mediate --config-url URL --public-key KEY.pub runs it as the bundled configuration; mediate config verify checks it)")
        }
        let object = try ConfigurationObject(root, at: .root, allowed: ["$schema", "config_version", "issued_at", "rollout", "networks", "placements", "currency_rates", "health", "experiments", "app"])
        if let schema = object["$schema"] {
            _ = try ConfigurationReading.string(schema, at: JSONPath.root.appending("$schema"))
        }
        let release = try decodeRelease(object)
        let currencyRates = try decodeCurrencyRates(object["currency_rates"])
        let health = try ConfigurationLoader.decodeHealth(object["health"], at: JSONPath.root.appending("health"), over: .standard)
        let networks = try decodeNetworks(try object.required("networks"), health: health)
        var networksByID: [String: MediationConfiguration.Network] = [:]
        networksByID.reserveCapacity(networks.count)
        for network in networks { networksByID[network.id] = network }
        let placements = try decodePlacements(try object.required("placements"), networks: Networks(list: networks, byID: networksByID), currencyRates: currencyRates)
        let experiments = try decodeExperiments(object["experiments"], placements: placements)
        var configuration = MediationConfiguration(networks: networks, placements: placements, currencyRates: currencyRates, version: release.version, issuedAt: release.issuedAt, rollout: release.rollout, experiments: experiments)
        configuration.app = try ConfigurationLoader.decodeApp(object["app"])
        return configuration
    }

    private func decodeCurrencyRates(_ node: JSONNode?) throws(ConfigurationError) -> [String: Double] {
        guard let node else { return [:] }
        let path = JSONPath.root.appending("currency_rates")
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an object", at: path)
        }
        var rates: [String: Double] = [:]
        for member in members {
            let memberPath = path.appending(member.key)
            try ConfigurationReading.checkCurrencyCode(member.key, at: memberPath)
            guard member.key != "USD" else {
                throw ConfigurationError(code: .invalidValue, path: memberPath.description, message: "USD is the engine's currency and takes no rate")
            }
            guard rates[member.key] == nil else {
                throw ConfigurationError(code: .duplicateKey, path: memberPath.description, message: "the currency \(ConfigurationText.quoted(member.key)) appears twice")
            }
            rates[member.key] = try ConfigurationReading.positiveNumber(member.value, at: memberPath)
        }
        return rates
    }

    // MARK: - Networks

    private func decodeNetworks(_ node: JSONNode, health: NetworkHealthSettings) throws(ConfigurationError) -> [MediationConfiguration.Network] {
        let path = JSONPath.root.appending("networks")
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an object keyed by network id", at: path)
        }
        var networks: [MediationConfiguration.Network] = []
        var ids = Set<String>()
        for member in members {
            let networkPath = path.appending(member.key)
            guard !member.key.isEmpty else {
                throw ConfigurationError(code: .invalidValue, path: networkPath.description, message: "a network id must not be empty")
            }
            guard ids.insert(member.key).inserted else {
                throw ConfigurationError(code: .duplicateID, path: networkPath.description, message: "the network id \(ConfigurationText.quoted(member.key)) appears twice")
            }
            networks.append(try decodeNetwork(id: member.key, member.value, at: networkPath, health: health))
        }
        return networks
    }

    private func decodeNetwork(id: String, _ node: JSONNode, at path: JSONPath, health: NetworkHealthSettings) throws(ConfigurationError) -> MediationConfiguration.Network {
        let object = try ConfigurationObject(node, at: path, allowed: ["adapter", "credentials", "endpoint", "timeout_ms", "options", "health", "caps", "pacing_seconds"])
        let adapterPath = path.appending("adapter")
        let adapter = try ConfigurationReading.string(try object.required("adapter"), at: adapterPath)
        guard registry.pricing(forKind: adapter) != nil else {
            let known = registry.kinds.map { "\"\($0)\"" }.joined(separator: ", ")
            throw ConfigurationError(code: .unknownAdapter, path: adapterPath.description, message: "unknown adapter kind \(ConfigurationText.quoted(adapter)); known kinds: \(known)")
        }
        var credentials: [String: String] = [:]
        if let node = object["credentials"] {
            let credentialsPath = path.appending("credentials")
            guard case .object(let members) = node else {
                throw ConfigurationReading.wrongType(node, expected: "an object of strings", at: credentialsPath)
            }
            for member in members {
                let memberPath = credentialsPath.appending(member.key)
                guard credentials[member.key] == nil else {
                    throw ConfigurationError(code: .duplicateKey, path: memberPath.description, message: "the key \(ConfigurationText.quoted(member.key)) appears twice")
                }
                let value = try ConfigurationReading.string(member.value, at: memberPath, nonEmpty: false)
                // A credential goes into URLs, headers and bodies: a control character (a NUL, a
                // line break) would end or split one (header injection), so none is accepted.
                if let control = value.unicodeScalars.first(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                    throw ConfigurationError(code: .invalidValue, path: memberPath.description, message: "must not contain control characters (found \(DisplayText.escaped(String(control))))")
                }
                credentials[member.key] = value
            }
        }
        let endpoint = try decodeEndpoint(try object.required("endpoint"), at: path.appending("endpoint"))
        let timeout = try object["timeout_ms"].map { (node) throws(ConfigurationError) -> Duration in
            .milliseconds(try ConfigurationReading.wholeNumber(node, at: path.appending("timeout_ms"), in: ConfigurationLoader.deadlineRange, unit: "milliseconds", rangeCode: .invalidDeadline))
        }
        var options: [String: JSONValue] = [:]
        if let node = object["options"] {
            let optionsPath = path.appending("options")
            guard case .object = node, case .object(let values) = try ConfigurationReading.jsonValue(node, at: optionsPath) else {
                throw ConfigurationReading.wrongType(node, expected: "an object", at: optionsPath)
            }
            options = values
        }
        let networkHealth = try ConfigurationLoader.decodeHealth(object["health"], at: path.appending("health"), over: health)
        var network = MediationConfiguration.Network(id: id, adapter: adapter, credentials: credentials, endpoint: endpoint, timeout: timeout, options: options, health: networkHealth)
        network.caps = try ConfigurationLoader.decodeCapSettings(object)
        return network
    }

    /// Reads a network's `endpoint` (required, R15): `"sandbox"` said explicitly, or an
    /// `http://` or `https://` URL (the scheme in lower case) whose host is letters, digits,
    /// dots and hyphens, with an optional port of 1 to 5 digits and an optional path of
    /// printable ASCII without spaces (``endpointURL(_:)``; the schema's pattern is the same).
    private func decodeEndpoint(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> MediationConfiguration.Network.Endpoint {
        let text = try ConfigurationReading.string(node, at: path)
        if text == "sandbox" { return .sandbox }
        guard let url = ConfigurationLoader.endpointURL(text) else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected \"sandbox\" or an http(s) URL such as \"https://ads.example.com/v1\", found \(ConfigurationText.quoted(ConfigurationText.withoutUserInfo(text)))")
        }
        // Requests carry credentials and user signals: in clear text only to this device.
        if url.scheme == "http", !["127.0.0.1", "localhost"].contains(url.host ?? "") {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "plain http is allowed for a loopback host only (127.0.0.1, localhost): requests carry credentials and user signals; use https, found \(ConfigurationText.quoted(ConfigurationText.withoutUserInfo(text)))")
        }
        return .url(url)
    }

    /// `text` as an endpoint URL when it has the form
    /// `^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?$` with a port from 1 to 65535, else `nil`.
    /// - Parameter text: the configured endpoint.
    static func endpointURL(_ text: String) -> URL? {
        let bytes = Array(text.utf8)
        let prefix: [UInt8]
        if bytes.starts(with: Array("https://".utf8)) {
            prefix = Array("https://".utf8)
        } else if bytes.starts(with: Array("http://".utf8)) {
            prefix = Array("http://".utf8)
        } else {
            return nil
        }
        var index = prefix.count
        let hostStart = index
        while index < bytes.count, isHostByte(bytes[index]) { index += 1 }
        guard index > hostStart else { return nil }
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            index += 1
            let portStart = index
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard (1...5).contains(index - portStart) else { return nil }
            // A TCP port: 1 to 65535 (`:0` and `:99999` would fail only at the first request).
            guard let port = Int(String(decoding: bytes[portStart..<index], as: UTF8.self)), (1...65_535).contains(port) else { return nil }
        }
        if index < bytes.count {
            guard bytes[index] == UInt8(ascii: "/") else { return nil }
            guard bytes[index...].allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        }
        guard let url = URL(string: text), url.host?.isEmpty == false else { return nil }
        return url
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    // MARK: - Placements

    /// The networks, in file order and by id.
    private struct Networks {
        var list: [MediationConfiguration.Network]
        var byID: [String: MediationConfiguration.Network]
    }

    private func decodePlacements(_ node: JSONNode, networks: Networks, currencyRates: [String: Double]) throws(ConfigurationError) -> [MediationConfiguration.Placement] {
        let path = JSONPath.root.appending("placements")
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an object keyed by placement id", at: path)
        }
        var placements: [MediationConfiguration.Placement] = []
        var ids = Set<String>()
        for member in members {
            let placementPath = path.appending(member.key)
            guard !member.key.isEmpty else {
                throw ConfigurationError(code: .invalidValue, path: placementPath.description, message: "a placement id must not be empty")
            }
            guard ids.insert(member.key).inserted else {
                throw ConfigurationError(code: .duplicateID, path: placementPath.description, message: "the placement id \(ConfigurationText.quoted(member.key)) appears twice")
            }
            placements.append(try decodePlacement(id: member.key, member.value, at: placementPath, networks: networks, currencyRates: currencyRates))
        }
        return placements
    }

    private func decodePlacement(id: String, _ node: JSONNode, at path: JSONPath, networks: Networks, currencyRates: [String: Double]) throws(ConfigurationError) -> MediationConfiguration.Placement {
        let object = try ConfigurationObject(node, at: path, allowed: ["format", "sizing", "slot", "refresh_seconds", "deadline_ms", "floor", "mode", "exploration", "sources", "segments", "caps", "pacing_seconds"])
        let format = try ConfigurationReading.choice(try object.required("format"), at: path.appending("format"), [
            "banner": AdFormat.banner, "interstitial": .interstitial, "app_open": .appOpen, "native": .native, "rewarded": .rewarded,
        ])
        var slot = try decodeSlot(object["slot"], at: path.appending("slot"))

        var sizing: MediationConfiguration.Placement.BannerSizing?
        let sizingPath = path.appending("sizing")
        if format == .banner {
            guard let node = object["sizing"] else {
                throw ConfigurationError(code: .invalidSizing, path: sizingPath.description, message: "a banner needs \"sizing\": \"anchored\" or \"inline\"")
            }
            sizing = try ConfigurationReading.choice(node, at: sizingPath, ["anchored": MediationConfiguration.Placement.BannerSizing.anchored, "inline": .inline])
            if sizing == .inline {
                let maxHeight = slot.maxHeight ?? Self.inlineDefaultMaxHeight
                guard maxHeight >= Self.inlineMinimumMaxHeight else {
                    throw ConfigurationError(code: .invalidSizing, path: path.appending("slot").appending("max_height").description, message: "an inline banner's slot.max_height must be at least 32 points")
                }
                slot.maxHeight = maxHeight
            }
        } else if object["sizing"] != nil {
            throw ConfigurationError(code: .invalidSizing, path: sizingPath.description, message: "\"sizing\" applies to banners only; this placement is \(format)")
        }

        var refreshSeconds: Int?
        let refreshPath = path.appending("refresh_seconds")
        if let node = object["refresh_seconds"] {
            guard format == .banner else {
                throw ConfigurationError(code: .invalidRefresh, path: refreshPath.description, message: "\"refresh_seconds\" applies to banners only; this placement is \(format)")
            }
            refreshSeconds = try ConfigurationReading.wholeNumber(node, at: refreshPath, in: ConfigurationLoader.refreshRange, unit: "seconds", rangeCode: .invalidRefresh)
        } else if format == .banner {
            refreshSeconds = MediationConfiguration.Placement.defaultRefreshSeconds
        }

        var deadline = MediationConfiguration.Placement.defaultDeadline
        if let node = object["deadline_ms"] {
            deadline = .milliseconds(try ConfigurationReading.wholeNumber(node, at: path.appending("deadline_ms"), in: ConfigurationLoader.deadlineRange, unit: "milliseconds", rangeCode: .invalidDeadline))
        }
        let floor = try object["floor"].map { (node) throws(ConfigurationError) -> Double in
            let floor = try ConfigurationReading.positiveNumber(node, at: path.appending("floor"))
            try ConfigurationLoader.checkPriceRange(floor, usdRate: 1, currency: "USD", at: path.appending("floor"))
            return floor
        }
        var mode = MediationConfiguration.Placement.AuctionMode.parallel
        if let node = object["mode"] {
            mode = try ConfigurationReading.choice(node, at: path.appending("mode"), ["parallel": MediationConfiguration.Placement.AuctionMode.parallel, "waterfall": .waterfall])
        }
        let sources = try decodeSources(try object.required("sources"), at: path.appending("sources"), networks: networks, currencyRates: currencyRates)
        if let floor { try ConfigurationLoader.checkFloorCanBeMet(floor, sources: sources, at: path.appending("floor")) }
        var placement = MediationConfiguration.Placement(id: id, format: format, bannerSizing: sizing, slot: slot, refreshSeconds: refreshSeconds, deadline: deadline, floor: floor, mode: mode, sources: sources)
        if let node = object["exploration"] {
            placement.exploration = try ConfigurationReading.choice(node, at: path.appending("exploration"), ["off": MediationConfiguration.Placement.Exploration.off, "thompson": .thompson])
        }
        placement.caps = try ConfigurationLoader.decodeCapSettings(object)
        if let node = object["segments"] {
            placement.segments = try ConfigurationLoader.decodeSegments(node, at: path.appending("segments"), for: placement)
        }
        return placement
    }

    private func decodeSlot(_ node: JSONNode?, at path: JSONPath) throws(ConfigurationError) -> SlotSize {
        guard let node else { return SlotSize() }
        let object = try ConfigurationObject(node, at: path, allowed: ["max_width", "max_height"])
        let maxWidth = try object["max_width"].map { (node) throws(ConfigurationError) -> Double in
            try ConfigurationLoader.slotBound(node, at: path.appending("max_width"))
        }
        let maxHeight = try object["max_height"].map { (node) throws(ConfigurationError) -> Double in
            try ConfigurationLoader.slotBound(node, at: path.appending("max_height"))
        }
        return SlotSize(maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// A slot bound: a positive number of points, at most ``NetworkValueBounds/maximumAdDimension``
    /// (10,000; no ad is larger).
    private static func slotBound(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> Double {
        let value = try ConfigurationReading.positiveNumber(node, at: path, code: .invalidValue)
        guard value <= NetworkValueBounds.maximumAdDimension else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be at most \(Int(NetworkValueBounds.maximumAdDimension)) points, found \(DisplayText.number(value))")
        }
        return value
    }

    // MARK: - Sources

    private func decodeSources(_ node: JSONNode, at path: JSONPath, networks: Networks, currencyRates: [String: Double]) throws(ConfigurationError) -> [LineItem] {
        guard case .array(let elements) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an array of sources", at: path)
        }
        guard !elements.isEmpty else {
            throw ConfigurationError(code: .emptySources, path: path.description, message: "a placement needs at least one source")
        }
        var sources: [LineItem] = []
        sources.reserveCapacity(elements.count)
        var ids = Set<String>()
        ids.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let source = try decodeSource(element, at: path.appending(index: index), networks: networks, currencyRates: currencyRates)
            guard ids.insert(source.id).inserted else {
                throw ConfigurationError(code: .duplicateID, path: path.appending(index: index).appending("id").description, message: "the source id \(ConfigurationText.quoted(source.id)) appears twice in this placement")
            }
            sources.append(source)
        }
        return sources
    }

    private func decodeSource(_ node: JSONNode, at path: JSONPath, networks: Networks, currencyRates: [String: Double]) throws(ConfigurationError) -> LineItem {
        let object = try ConfigurationObject(node, at: path, allowed: ["id", "network", "ad_unit_id", "ecpm", "ecpm_by_country", "ecpm_sd", "ecpm_impressions", "floor", "timeout_ms", "currency", "caps", "pacing_seconds"])
        let id = try ConfigurationReading.string(try object.required("id"), at: path.appending("id"))
        let networkPath = path.appending("network")
        let networkID = try ConfigurationReading.string(try object.required("network"), at: networkPath)
        guard let network = networks.byID[networkID] else {
            let defined = ConfigurationText.excerpt(networks.list.map(\.id).joined(separator: ", "), limit: 200)
            throw ConfigurationError(code: .unknownNetwork, path: networkPath.description, message: "unknown network \(ConfigurationText.quoted(networkID)); \"networks\" defines: \(defined)")
        }
        let adUnitID = try ConfigurationReading.nonBlankString(try object.required("ad_unit_id"), at: path.appending("ad_unit_id"))
        let pricing = registry.pricing(forKind: network.adapter) ?? .fixedPrice

        let eCPMPath = path.appending("ecpm")
        var eCPM: Double?
        switch (pricing, object["ecpm"]) {
        case (.fixedPrice, let node?):
            eCPM = try ConfigurationReading.positiveNumber(node, at: eCPMPath)
        case (.fixedPrice, nil):
            throw ConfigurationError(code: .pricingMismatch, path: eCPMPath.description, message: "missing \"ecpm\": the network \(ConfigurationText.quoted(networkID)) (\(network.adapter)) is fixed-price, so each of its sources needs an eCPM")
        case (.bidder, _?):
            throw ConfigurationError(code: .pricingMismatch, path: eCPMPath.description, message: "the network \(ConfigurationText.quoted(networkID)) (\(network.adapter)) is a bidder: its price comes with each bid, so its sources take no \"ecpm\"")
        case (.bidder, nil):
            eCPM = nil
        }

        // What `mediate optimize --write` records of a learned eCPM: its uncertainty and the
        // impressions behind it (fixed-price sources only, like `ecpm`).
        let sdPath = path.appending("ecpm_sd")
        let eCPMSD = try object["ecpm_sd"].map { (node) throws(ConfigurationError) -> Double in
            try ConfigurationReading.positiveNumber(node, at: sdPath)
        }
        let impressionsPath = path.appending("ecpm_impressions")
        let eCPMImpressions = try object["ecpm_impressions"].map { (node) throws(ConfigurationError) -> Int in
            try ConfigurationReading.wholeNumber(node, at: impressionsPath, in: ConfigurationLoader.learnedImpressionsRange, unit: "impressions", rangeCode: .invalidValue)
        }
        if let eCPMSD, let eCPM, eCPMSD > eCPM {
            // A price's uncertainty beyond the price itself is no estimate: an exploring
            // placement would value the line item at anything (R23).
            throw ConfigurationError(code: .invalidValue, path: sdPath.description, message: "must be at most the source's ecpm (\(DecimalText.trimmed(eCPM))), found \(DecimalText.trimmed(eCPMSD))")
        }
        if pricing == .bidder, let stray = eCPMSD != nil ? sdPath : eCPMImpressions != nil ? impressionsPath : nil {
            throw ConfigurationError(code: .pricingMismatch, path: stray.description, message: "the network \(ConfigurationText.quoted(networkID)) (\(network.adapter)) is a bidder: a learned eCPM's \"ecpm_sd\" and \"ecpm_impressions\" apply to fixed-price sources only")
        }

        let floorPath = path.appending("floor")
        let floor = try object["floor"].map { (node) throws(ConfigurationError) -> Double in
            try ConfigurationReading.positiveNumber(node, at: floorPath)
        }
        if floor != nil, pricing == .fixedPrice {
            throw ConfigurationError(code: .pricingMismatch, path: floorPath.description, message: "a source floor applies to bidders only; a fixed-price source is worth its \"ecpm\"")
        }
        let timeout = try object["timeout_ms"].map { (node) throws(ConfigurationError) -> Duration in
            .milliseconds(try ConfigurationReading.wholeNumber(node, at: path.appending("timeout_ms"), in: ConfigurationLoader.deadlineRange, unit: "milliseconds", rangeCode: .invalidDeadline))
        }

        var currency = "USD"
        var usdRate = 1.0
        if let node = object["currency"] {
            let currencyPath = path.appending("currency")
            currency = try ConfigurationReading.currencyCode(node, at: currencyPath)
            if currency != "USD" {
                guard let rate = currencyRates[currency] else {
                    throw ConfigurationError(code: .unknownCurrency, path: currencyPath.description, message: "prices in \(currency) need a rate: add \"\(currency)\" to \"currency_rates\" (USD per \(currency))")
                }
                usdRate = rate
            }
        }
        if let eCPM { try ConfigurationLoader.checkPriceRange(eCPM, usdRate: usdRate, currency: currency, at: eCPMPath) }
        if let floor { try ConfigurationLoader.checkPriceRange(floor, usdRate: usdRate, currency: currency, at: floorPath) }
        var lineItem = LineItem(id: id, network: networkID, adUnitID: adUnitID, pricing: pricing, eCPM: eCPM, floor: floor, timeout: timeout, currency: currency, usdRate: usdRate, eCPMSD: eCPMSD, eCPMImpressions: eCPMImpressions)
        lineItem.caps = try ConfigurationLoader.decodeCapSettings(object)
        if let node = object["ecpm_by_country"] {
            let byCountryPath = path.appending("ecpm_by_country")
            guard pricing == .fixedPrice else {
                throw ConfigurationError(code: .pricingMismatch, path: byCountryPath.description, message: "the network \(ConfigurationText.quoted(networkID)) (\(network.adapter)) is a bidder: its price comes with each bid, so its sources take no \"ecpm_by_country\"")
            }
            lineItem.eCPMByCountry = try ConfigurationLoader.decodeECPMByCountry(node, at: byCountryPath, usdRate: usdRate, currency: currency)
        }
        return lineItem
    }

    /// A placement's floor must be reachable (engine rule R19): with no bidder among its
    /// sources, some fixed eCPM (in USD) must be at least the floor, or no source could ever
    /// win (each would be `lost` 100 without being asked). A source's `ecpm_by_country` prices
    /// count too: each is its eCPM in the auctions of that country.
    static func checkFloorCanBeMet(_ floor: Double, sources: [LineItem], at path: JSONPath) throws(ConfigurationError) {
        guard let floorValue = AuctionValue(price: floor, usdRate: 1) else { return }
        var best: AuctionValue?
        for source in sources {
            guard source.pricing == .fixedPrice else { return } // a bidder may bid over any floor
            for price in [source.eCPM].compactMap({ $0 }) + source.eCPMByCountry.values {
                if let value = AuctionValue(price: price, usdRate: source.usdRate), best.map({ value > $0 }) ?? true {
                    best = value
                }
            }
        }
        guard let best, best < floorValue else { return }
        throw ConfigurationError(
            code: .unfillable,
            path: path.description,
            message: "the floor \(floor) USD CPM is above every source's eCPM, country prices included (the highest is \(best.eCPM)) and no source is a bidder, so no source could ever win"
        )
    }

    /// A price or floor must be one the auction can compare: once in USD, from one micro
    /// (0.000001) to ``AuctionValue/maximumECPM`` CPM (R2); otherwise it could never win, or a
    /// floor could never be met, silently.
    static func checkPriceRange(_ price: Double, usdRate: Double, currency: String, at path: JSONPath) throws(ConfigurationError) {
        // At least one micro before rounding (5e-7 would round up to one), as the schema's minimum.
        guard AuctionValue(price: price, usdRate: usdRate) == nil || price * usdRate < 0.000001 else { return }
        let converted = currency == "USD" ? "" : " once converted from \(currency) at \(usdRate)"
        throw ConfigurationError(
            code: .invalidPrice,
            path: path.description,
            message: "must be from 0.000001 to \(Int(AuctionValue.maximumECPM)) USD CPM\(converted), found \(price)"
        )
    }
}
