import Foundation
import Mediation

/// `mediate networks [--config FILE] [--json] [--state-dir DIR [--public-key FILE]]`: each configured network's adapter kind and
/// version, endpoint (and whether it is a sandbox), request mode, initialisation, effective
/// timeouts (the network's `timeout_ms`, each of its line items' `timeout_ms`, each placement's
/// deadline, and the effective limit: the earliest of the three, R3a) and the privacy that will
/// be applied with the host signals `mediate` uses (``RequestTemplate``'s defaults: no COPPA or
/// TFUA, GDPR unknown, limit ad tracking on, tracking not authorized). It builds the engine as
/// a run would, asks each adapter's ``AdNetworkAdapter/status(for:)`` and sends nothing. With
/// `--state-dir` each network's health is read from the stored state a run kept there (a pause
/// lasts until its back-off ends, R24); a damaged record is discarded with a warning. With
/// `--public-key` too, the engine launches as the run that kept the directory would (R22): on
/// the remote configuration stored there when it verifies and is the best local one, so what
/// is shown (caps included) is the configuration in force, and the output says which.
enum NetworksCommand {
    /// One network, as printed and encoded.
    struct Entry: Encodable {
        /// One line item of the network.
        struct LineItemTimeout: Encodable {
            var placement: String
            var lineItem: String
            var timeoutMilliseconds: Double?
            var deadlineMilliseconds: Double
            var effectiveMilliseconds: Double
            var limit: String
            /// Its own health (R24) when it is paused on its own (open or half-open), else
            /// absent: a closed line item is asked whenever its network is.
            var health: Health?
            /// The caps and pacing that apply to it (`docs/caps.md`), each with when it frees.
            var caps: [CapsReport.Row] = []

            enum CodingKeys: String, CodingKey {
                case placement
                case lineItem = "line_item"
                case timeoutMilliseconds = "timeout_ms"
                case deadlineMilliseconds = "deadline_ms"
                case effectiveMilliseconds = "effective_ms"
                case limit, health, caps
            }
        }

        var id: String
        var adapter: String
        var pricing: String
        var endpoint: String
        var sandbox: Bool
        var timeoutMilliseconds: Double?
        var lineItems: [LineItemTimeout]
        var status: NetworkStatus
        /// Its health (R24): `{"enabled", "state", "retry_at_ms"?, "recent_failures",
        /// "recent_outcomes", "failed_probes", "failures_to_open", "window", "backoff_ms",
        /// "max_backoff_ms", "probes"}`.
        var health: Health?

        enum CodingKeys: String, CodingKey {
            case id, adapter, pricing, endpoint, sandbox
            case timeoutMilliseconds = "timeout_ms"
            case lineItems = "line_items"
            case status, health
        }
    }

    /// A network's health and the rule it is held to.
    struct Health: Encodable {
        var enabled: Bool
        var state: MediationEngine.HealthStatus.State
        var retryAtMilliseconds: Double?
        var recentFailures: Int
        var recentOutcomes: Int
        var failedProbes: Int
        var failuresToOpen: Int
        var window: Int
        var backoffMilliseconds: Double
        var maxBackoffMilliseconds: Double
        var probes: Int

        enum CodingKeys: String, CodingKey {
            case enabled, state, window, probes
            case retryAtMilliseconds = "retry_at_ms"
            case recentFailures = "recent_failures"
            case recentOutcomes = "recent_outcomes"
            case failedProbes = "failed_probes"
            case failuresToOpen = "failures_to_open"
            case backoffMilliseconds = "backoff_ms"
            case maxBackoffMilliseconds = "max_backoff_ms"
        }

        init(_ status: MediationEngine.HealthStatus, settings: NetworkHealthSettings) {
            enabled = status.enabled
            state = status.state
            retryAtMilliseconds = status.retryAt?.milliseconds
            recentFailures = status.recentFailures
            recentOutcomes = status.recentOutcomes
            failedProbes = status.failedProbes
            failuresToOpen = settings.failuresToOpen
            window = settings.window
            backoffMilliseconds = settings.backoff.milliseconds
            maxBackoffMilliseconds = settings.maxBackoff.milliseconds
            probes = settings.probes
        }

        /// e.g. `closed (0 of 0 failed)` or `open, tried again at 30000 ms (0 failed probes)`.
        var stateText: String {
            switch state {
            case .closed: "closed (\(recentFailures) of \(recentOutcomes) failed)"
            case .open, .halfOpen: "\(state.rawValue), tried again at \(retryAtMilliseconds.map { ReportFormat.millis($0) } ?? "-") ms (\(failedProbes) failed probes)"
            }
        }

        /// e.g. `on, closed (0 of 0 failed); pauses after 7 failures of the last 10, back-off
        /// 5000 ms to 600000 ms, 1 probe` or `off`.
        var text: String {
            guard enabled else { return "off" }
            return "on, \(stateText); pauses after \(failuresToOpen) failures of the last \(window), back-off \(ReportFormat.millis(backoffMilliseconds)) ms to \(ReportFormat.millis(maxBackoffMilliseconds)) ms, \(probes) \(probes == 1 ? "probe" : "probes")"
        }
    }

    /// The JSON document: `{"config", "config_in_force": {"version", "source"}, "host_privacy",
    /// "networks": [...]}`; `source` is `bundled`, or `cache` for the remote configuration
    /// stored in `--state-dir`.
    struct Document: Encodable {
        var config: String
        var inForce: JSONReport.Configuration
        var hostPrivacy: AdRequest.Privacy
        var networks: [Entry]

        enum CodingKeys: String, CodingKey {
            case config
            case inForce = "config_in_force"
            case hostPrivacy = "host_privacy"
            case networks
        }
    }

    /// Runs the command.
    static func run(_ options: NetworksOptions, environment: CommandEnvironment) async -> ExitCode {
        let path = options.configPath ?? MediateCommand.defaultConfigPath
        var store: (any StateStore)?
        if let directory = options.stateDirectory {
            do {
                // Read, never written: what the launch writes or removes stays in memory.
                let opened = try FileStateStore(readingOnly: environment.resolve(directory))
                store = ReadOnlyStateStore(over: opened)
                // Opened, so a directory or nothing: a typo must not pass for an empty state.
                if !FileManager.default.fileExists(atPath: opened.directory.path) {
                    environment.standardError.write("mediate: note: --state-dir \(DisplayText.escaped(directory)): no such directory (\(DisplayText.escaped(opened.directory.path)) does not exist); shown: the bundled configuration, every network closed\n")
                }
            } catch {
                return MediateCommand.fail(.cannotCreate, "--state-dir \(directory): \(error.message)", environment: environment)
            }
        }
        // With the keys a run trusted, the engine launches as that run would (R22): on the
        // remote configuration stored in the directory when it is the best local one.
        var remote: RemoteRun?
        if let store, let keyPath = options.publicKeyPath {
            switch ConfigCommand.readPublicKeys(keyPath, environment: environment) {
            case .failure(let exit): return exit.code
            case .success(let keys): remote = RemoteRun.launch(from: store, trustedKeys: keys)
            }
        } else if let store, let directory = options.stateDirectory, case .success(_?) = ConfigurationCache(store: store).read() {
            environment.standardError.write("mediate: note: --state-dir \(DisplayText.escaped(directory)) holds a stored remote configuration, which runs only if it verifies: give --public-key FILE (the keys it was signed with) to show it if it is in force; shown: the bundled \(DisplayText.escaped(path))\n")
        }
        let engine: MediationEngine
        switch MediateCommand.makeEngine(path, seed: MediateCommand.defaultSeed, logger: HealthWarningLogger(output: environment.standardError), remote: remote, stateStore: store, environment: environment) {
        case .failure(let failure):
            return MediateCommand.report(failure, environment: environment)
        case .success(let built):
            engine = built
        }
        for warning in engine.launchWarnings { RemoteRun.report(warning, environment: environment) }
        if !engine.launchWarnings.isEmpty {
            environment.standardError.write("mediate: note: a run launching with these keys would do what the warnings say; mediate networks changes nothing in --state-dir\n")
        }
        MediateCommand.reportWarnings(of: engine, environment: environment)
        var entries: [Entry] = []
        for network in engine.configuration.networks {
            let status = await engine.networkStatus(network.id) ?? NetworkStatus()
            var made = entry(network, configuration: engine.configuration, registry: environment.registry, status: status)
            made.health = engine.networkHealth(network.id).map { Health($0, settings: network.health) }
            for index in made.lineItems.indices {
                let item = made.lineItems[index]
                guard let status = engine.lineItemHealth(item.lineItem, placementID: item.placement), status.state != .closed else { continue }
                made.lineItems[index].health = Health(status, settings: network.health)
            }
            for index in made.lineItems.indices {
                let item = made.lineItems[index]
                made.lineItems[index].caps = CapsReport.rows(of: engine, lineItemID: item.lineItem, placementID: item.placement)
            }
            entries.append(made)
        }
        await engine.shutdown()
        let inForce = JSONReport.Configuration(version: engine.configurationVersion, source: engine.configurationSource, update: nil)
        let document = Document(config: path, inForce: inForce, hostPrivacy: RequestTemplate().privacy, networks: entries)
        if options.json {
            guard let text = try? ReportFormat.json(document) else {
                return MediateCommand.fail(.software, "cannot encode the networks as JSON", environment: environment)
            }
            environment.standardOutput.write(text)
        } else {
            environment.standardOutput.write(render(document))
        }
        return .success
    }

    static func entry(_ network: MediationConfiguration.Network, configuration: MediationConfiguration, registry: NetworkRegistry, status: NetworkStatus) -> Entry {
        let endpoint: String
        let sandbox: Bool
        switch network.endpoint {
        case .sandbox:
            endpoint = "sandbox (in-process simulated server)"
            sandbox = true
        case .url(let url):
            endpoint = url.absoluteString
            sandbox = false
        }
        var lineItems: [Entry.LineItemTimeout] = []
        for placement in configuration.placements {
            for lineItem in placement.sources where lineItem.network == network.id {
                let deadline = placement.deadline.milliseconds
                // R3a: the earliest limit; on a tie the deadline is named first, then the line item's.
                var limits: [(String, Double)] = [("deadline", deadline)]
                if let own = lineItem.timeout?.milliseconds { limits.append(("line item timeout_ms", own)) }
                if let net = network.timeout?.milliseconds { limits.append(("network timeout_ms", net)) }
                let effective = limits.min { $0.1 < $1.1 } ?? ("deadline", deadline)
                lineItems.append(Entry.LineItemTimeout(
                    placement: placement.id, lineItem: lineItem.id, timeoutMilliseconds: lineItem.timeout?.milliseconds,
                    deadlineMilliseconds: deadline, effectiveMilliseconds: effective.1, limit: effective.0
                ))
            }
        }
        return Entry(
            id: network.id,
            adapter: network.adapter,
            pricing: registry.pricing(forKind: network.adapter)?.rawValue ?? "unknown",
            endpoint: endpoint,
            sandbox: sandbox,
            timeoutMilliseconds: network.timeout?.milliseconds,
            lineItems: lineItems,
            status: status
        )
    }

    /// The human form: one block per network.
    static func render(_ document: Document) -> String {
        let safe: (String) -> String = DisplayText.escaped
        let privacy = document.hostPrivacy
        var lines: [String] = []
        lines.append("Networks of \(safe(document.config)) (\(document.networks.count)); host privacy signals: coppa \(privacy.coppa ? 1 : 0), tfua \(privacy.underAgeOfConsent ? 1 : 0), gdpr \(privacy.gdprApplies.map { $0 ? "1" : "0" } ?? "unknown"), limit ad tracking \(privacy.limitAdTracking ? "on" : "off")")
        switch document.inForce.source {
        case .bundled: lines.append("In force: the bundled configuration, version \(document.inForce.version)")
        case .cache: lines.append("In force: the remote configuration stored in --state-dir, version \(document.inForce.version) (not the bundled one)")
        case .remote: lines.append("In force: the remote configuration from the server, version \(document.inForce.version) (not the bundled one)")
        }
        for entry in document.networks {
            lines.append("")
            lines.append("\(safe(entry.id)): adapter \(safe(entry.adapter))\(entry.status.version.map { " \(safe($0))" } ?? ""), \(entry.pricing)")
            lines.append("  endpoint:  \(safe(entry.endpoint))\(entry.sandbox ? "" : " (live)")")
            if let mode = entry.status.mode { lines.append("  mode:      \(safe(mode))") }
            if let initialization = entry.status.initialization { lines.append("  init:      \(safe(initialization))") }
            lines.append("  timeout:   network timeout_ms \(entry.timeoutMilliseconds.map { "\(ReportFormat.millis($0)) ms" } ?? "none")")
            for item in entry.lineItems {
                let own = item.timeoutMilliseconds.map { "\(ReportFormat.millis($0)) ms" } ?? "none"
                lines.append("    \(safe(item.placement)) / \(safe(item.lineItem)): line item timeout_ms \(own), deadline \(ReportFormat.millis(item.deadlineMilliseconds)) ms -> effective \(ReportFormat.millis(item.effectiveMilliseconds)) ms (\(item.limit))")
            }
            if !entry.status.privacy.isEmpty {
                let text = entry.status.privacy.sorted { $0.key < $1.key }.map { "\(safe($0.key)) \(safe($0.value))" }.joined(separator: "; ")
                lines.append("  privacy:   \(text)")
            }
            if let health = entry.health { lines.append("  health:    \(health.text)") }
            for item in entry.lineItems {
                guard let health = item.health else { continue }
                lines.append("    \(safe(item.placement)) / \(safe(item.lineItem)): line item \(health.stateText)")
            }
            for item in entry.lineItems where !item.caps.isEmpty {
                let caps = item.caps.map(CapsReport.text).joined(separator: "; ")
                lines.append("    \(safe(item.placement)) / \(safe(item.lineItem)): caps \(caps)")
            }
            for note in entry.status.notes { lines.append("  note:      \(safe(note))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
