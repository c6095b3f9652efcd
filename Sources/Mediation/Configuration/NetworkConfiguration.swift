import Foundation

extension MediationConfiguration.Network {
    /// Where a network's requests go.
    package enum Endpoint: Hashable, Sendable {
        /// The network's in-process simulated ad server (offline, deterministic with a seed).
        case sandbox
        /// The network's real server at this base URL.
        case url(URL)
    }
}

extension MediationConfiguration {
    /// One network of the configuration: which adapter speaks to it, with what credentials, where.
    public struct Network: Hashable, Sendable {
        /// The network id used by sources, e.g. `"elo"`.
        public var id: String
        /// The adapter kind, e.g. `"elo"`, `"nitx"`, `"qartvelo"`, `"fallback"`.
        public var adapter: String
        /// The network's credentials (publisher id, source code …), by the adapter's own names.
        public var credentials: [String: String]
        /// Sandbox or a base URL.
        package var endpoint: Endpoint
        /// The base URL of the network's real server (`"endpoint": "https://…"`), or `nil` when
        /// its endpoint is `"sandbox"` (an adapter then answers without leaving the process).
        public var endpointURL: URL? {
            if case .url(let url) = endpoint { return url }
            return nil
        }
        /// The network's `timeout_ms`: the engine gives each of its sources at most this long from
        /// the moment the source is asked, whatever the adapter does (R3a), if set.
        public var timeout: Duration?
        /// Adapter-specific options, validated by the adapter.
        package var options: [String: JSONValue]
        /// How the engine pauses it when it fails (engine rule R24): the configuration's top-level
        /// `health` with this network's own `health` over it (default
        /// ``NetworkHealthSettings/standard``).
        package var health: NetworkHealthSettings
        /// Its caps and pacing (`caps`, `pacing_seconds`; `docs/caps.md`), over every
        /// impression of its line items in every placement.
        package var caps = MediationConfiguration.CapSettings()

        /// Creates a network configuration.
        package init(
            id: String,
            adapter: String,
            credentials: [String: String] = [:],
            endpoint: Endpoint = .sandbox,
            timeout: Duration? = nil,
            options: [String: JSONValue] = [:]
        ) {
            self.init(id: id, adapter: adapter, credentials: credentials, endpoint: endpoint, timeout: timeout, options: options, health: .standard)
        }

        /// Creates a network configuration with its own health settings (R24).
        package init(
            id: String,
            adapter: String,
            credentials: [String: String] = [:],
            endpoint: Endpoint = .sandbox,
            timeout: Duration? = nil,
            options: [String: JSONValue] = [:],
            health: NetworkHealthSettings
        ) {
            self.health = health
            self.id = id
            self.adapter = adapter
            self.credentials = credentials
            self.endpoint = endpoint
            self.timeout = timeout
            self.options = options
        }

        /// The JSON path of this network, e.g. `networks.elo` (an id that is not a plain
        /// identifier is written `networks["a.b"]`).
        public var path: String {
            JSONPath.root.appending("networks").appending(id).description
        }

        /// The JSON path of `key` inside this network's entry, e.g.
        /// `networks.elo.options.share_geo` for `path(of: "options", "share_geo")`.
        /// - Parameter keys: the keys from the network's entry down.
        public func path(of keys: String...) -> String {
            var path = JSONPath.root.appending("networks").appending(id)
            for key in keys { path = path.appending(key) }
            return path.description
        }
    }
}

/// The whole engine configuration (the `Config/mediation.json` file, engine rule R15).
public struct MediationConfiguration: Hashable, Sendable {
    /// Networks by id, in file order.
    public var networks: [Network]
    /// Placements, in file order.
    public var placements: [Placement]
    /// USD per unit of each non-USD currency a source declares (R9).
    public var currencyRates: [String: Double]
    /// The file's `config_version`: 0 when it has none (an unsigned bundled configuration); a
    /// signed configuration's is at least 1 and only grows (engine rule R22).
    public var version: Int
    /// The file's `issued_at`, when it was signed, if given.
    package var issuedAt: WallClockTime?
    /// The file's staged `rollout`, if any (it applies to signed remote configurations).
    package var rollout: Rollout?
    /// The file's `experiments`, in file order (``Experiment``).
    package var experiments: [Experiment]
    /// The top-level `app` settings: app-wide caps and pacing, and the gap between two
    /// full-screen ads (`docs/caps.md`).
    package var app = AppSettings()

    /// Creates a configuration.
    package init(
        networks: [Network],
        placements: [Placement],
        currencyRates: [String: Double] = [:],
        version: Int = 0,
        issuedAt: WallClockTime? = nil,
        rollout: Rollout? = nil,
        experiments: [Experiment] = []
    ) {
        self.networks = networks
        self.placements = placements
        self.currencyRates = currencyRates
        self.version = version
        self.issuedAt = issuedAt
        self.rollout = rollout
        self.experiments = experiments
    }

    /// The network with `id`.
    public func network(_ id: String) -> Network? {
        networks.first { $0.id == id }
    }

    /// The placement with `id`.
    public func placement(_ id: String) -> Placement? {
        placements.first { $0.id == id }
    }

    /// The networks with more than one line item across the placements: their line items
    /// keep a health of their own beside the network's (engine rule R24).
    var networksWithLineItemHealth: Set<String> {
        var seen = Set<String>()
        var several = Set<String>()
        for placement in placements {
            for lineItem in placement.sources where !seen.insert(lineItem.network).inserted {
                several.insert(lineItem.network)
            }
        }
        return several
    }
}
