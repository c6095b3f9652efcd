import Foundation
import Mediation

/// `mediate networks [--config FILE] [--json]`: each configured network's adapter kind and
/// version, endpoint (and whether it is a sandbox), request mode, initialisation, effective
/// timeouts (the network's `timeout_ms`, each of its line items' `timeout_ms`, each placement's
/// deadline, and the effective limit: the earliest of the three, R3a) and the privacy that will
/// be applied with the host signals `mediate` uses (``RequestTemplate``'s defaults: no COPPA or
/// TFUA, GDPR unknown, limit ad tracking on, tracking not authorized). It builds the engine as
/// a run would, asks each adapter's ``AdNetworkAdapter/status(for:)`` and sends nothing.
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

            enum CodingKeys: String, CodingKey {
                case placement
                case lineItem = "line_item"
                case timeoutMilliseconds = "timeout_ms"
                case deadlineMilliseconds = "deadline_ms"
                case effectiveMilliseconds = "effective_ms"
                case limit
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

        enum CodingKeys: String, CodingKey {
            case id, adapter, pricing, endpoint, sandbox
            case timeoutMilliseconds = "timeout_ms"
            case lineItems = "line_items"
            case status
        }
    }

    /// The JSON document: `{"config", "host_privacy", "networks": [...]}`.
    struct Document: Encodable {
        var config: String
        var hostPrivacy: PrivacySignals
        var networks: [Entry]

        enum CodingKeys: String, CodingKey {
            case config
            case hostPrivacy = "host_privacy"
            case networks
        }
    }

    /// Runs the command.
    static func run(_ options: NetworksOptions, environment: CommandEnvironment) async -> ExitCode {
        let path = options.configPath ?? MediateCommand.defaultConfigPath
        let engine: MediationEngine
        switch MediateCommand.makeEngine(path, seed: MediateCommand.defaultSeed, environment: environment) {
        case .failure(let failure):
            return MediateCommand.report(failure, environment: environment)
        case .success(let built):
            engine = built
        }
        MediateCommand.reportWarnings(of: engine, environment: environment)
        var entries: [Entry] = []
        for network in engine.configuration.networks {
            let status = await engine.networkStatus(network.id) ?? NetworkStatus()
            entries.append(entry(network, configuration: engine.configuration, registry: environment.registry, status: status))
        }
        await engine.shutdown()
        let document = Document(config: path, hostPrivacy: RequestTemplate().privacy, networks: entries)
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
            guard let data = try? encoder.encode(document) else {
                return MediateCommand.fail(.software, "cannot encode the networks as JSON", environment: environment)
            }
            environment.standardOutput.write(String(decoding: data, as: UTF8.self) + "\n")
        } else {
            environment.standardOutput.write(render(document))
        }
        return .success
    }

    static func entry(_ network: NetworkConfiguration, configuration: MediationConfiguration, registry: NetworkRegistry, status: NetworkStatus) -> Entry {
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
        for entry in document.networks {
            lines.append("")
            lines.append("\(safe(entry.id)): adapter \(safe(entry.adapter))\(entry.status.version.map { " \(safe($0))" } ?? ""), \(entry.pricing)")
            lines.append("  endpoint:  \(safe(entry.endpoint))\(entry.sandbox ? "" : " (live)")")
            if let mode = entry.status.mode { lines.append("  mode:      \(safe(mode))") }
            if let initialization = entry.status.initialization { lines.append("  init:      \(safe(initialization))") }
            lines.append("  timeout:   network timeout_ms \(entry.timeoutMilliseconds.map { "\(DebugReport.millis($0)) ms" } ?? "none")")
            for item in entry.lineItems {
                let own = item.timeoutMilliseconds.map { "\(DebugReport.millis($0)) ms" } ?? "none"
                lines.append("    \(safe(item.placement)) / \(safe(item.lineItem)): line item timeout_ms \(own), deadline \(DebugReport.millis(item.deadlineMilliseconds)) ms -> effective \(DebugReport.millis(item.effectiveMilliseconds)) ms (\(item.limit))")
            }
            if !entry.status.privacy.isEmpty {
                let text = entry.status.privacy.sorted { $0.key < $1.key }.map { "\(safe($0.key)) \(safe($0.value))" }.joined(separator: "; ")
                lines.append("  privacy:   \(text)")
            }
            for note in entry.status.notes { lines.append("  note:      \(safe(note))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
