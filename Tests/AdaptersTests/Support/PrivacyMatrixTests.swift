import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// One combination of the host's privacy signals (and Nitx's personalization switch).
struct PrivacyCell: Sendable, Hashable, CustomTestStringConvertible {
    /// Whether GDPR applies, and with which TCF consent string.
    enum GDPR: String, Sendable, Hashable, CaseIterable {
        /// Not applicable (unknown: `regs.gdpr` omitted).
        case notApplicable
        /// Applies, no consent string.
        case appliesWithoutConsentString
        /// Applies, with a consent string.
        case appliesWithConsentString
    }

    var coppa: Bool
    var tfua: Bool
    var gdpr: GDPR
    /// A US privacy string that opts out of the sale (`1YYN`), or none.
    var usPrivacy: Bool
    var limitAdTracking: Bool
    var trackingNotAuthorized: Bool
    var consentWithdrawn: Bool
    /// Nitx's `personalization: false` (the only network with such a switch).
    var personalizationOff: Bool

    /// Every combination: 2 x 2 x 3 x 2 x 2 x 2 x 2 x 2 = 384 cells.
    static let all: [PrivacyCell] = {
        var cells: [PrivacyCell] = []
        for coppa in [false, true] {
            for tfua in [false, true] {
                for gdpr in GDPR.allCases {
                    for usPrivacy in [false, true] {
                        for lmt in [false, true] {
                            for notAuthorized in [false, true] {
                                for withdrawn in [false, true] {
                                    for personalizationOff in [false, true] {
                                        cells.append(PrivacyCell(coppa: coppa, tfua: tfua, gdpr: gdpr, usPrivacy: usPrivacy, limitAdTracking: lmt, trackingNotAuthorized: notAuthorized, consentWithdrawn: withdrawn, personalizationOff: personalizationOff))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return cells
    }()

    var testDescription: String {
        var parts: [String] = []
        if coppa { parts.append("COPPA") }
        if tfua { parts.append("TFUA") }
        if gdpr != .notApplicable { parts.append("GDPR \(gdpr == .appliesWithConsentString ? "with" : "without") string") }
        if usPrivacy { parts.append("US privacy") }
        if limitAdTracking { parts.append("LMT") }
        if trackingNotAuthorized { parts.append("ATT denied") }
        if consentWithdrawn { parts.append("consent withdrawn") }
        if personalizationOff { parts.append("personalization off") }
        return parts.isEmpty ? "no restriction" : parts.joined(separator: ", ")
    }

    var privacy: AdRequest.Privacy {
        AdRequest.Privacy(
            coppa: coppa,
            underAgeOfConsent: tfua,
            gdprApplies: gdpr == .notApplicable ? nil : true,
            tcfConsentString: gdpr == .appliesWithConsentString ? PrivacyMatrix.tcf : nil,
            usPrivacyString: usPrivacy ? "1YYN" : nil,
            userConsent: consentWithdrawn ? false : true,
            limitAdTracking: limitAdTracking
        )
    }

    var device: AdRequest.Device {
        AdRequest.Device(advertisingID: PrivacyMatrix.idfa, vendorID: PrivacyMatrix.idfv, trackingAuthorized: !trackingNotAuthorized)
    }

    /// What every document (and the engine's `PrivacyRules`) allows for the advertising id.
    var allowsAdvertisingID: Bool { !trackingNotAuthorized && !limitAdTracking && !coppa && !tfua && !consentWithdrawn }
    /// Elo's anonymous install id: not where the user said no (COPPA, TFUA, limit-ad-tracking,
    /// a withdrawal).
    var allowsEloInstallID: Bool { !coppa && !tfua && !limitAdTracking && !consentWithdrawn }
    /// The Nitx document: the profile only with a consent record (stored in every cell) and with
    /// personalization on; the engine: never after consent is withdrawn, nor for COPPA / TFUA.
    var allowsNitxProfile: Bool { !personalizationOff && !consentWithdrawn && !coppa && !tfua && !nitxWithholdsPersonalData }
    /// The Nitx document defines no US-privacy or GDPR signal: under an opt-out of sale or GDPR
    /// without a consent string the profile and the advertising id stay on the device.
    var nitxWithholdsPersonalData: Bool { usPrivacy || gdpr == .appliesWithoutConsentString }
}

/// The networks of the matrix.
enum MatrixNetwork: String, Sendable, CaseIterable {
    case elo, nitx, qartvelo, fallback
}

enum PrivacyMatrix {
    static let chat = "MATRIX-CHAT meet me at the blue door"
    static let email = "matrix.alice@example.com"
    static let phone = "+15557654321"
    static let identifier = "matrix-user-7f3a"
    static let idfa = "6D92078A-8246-4BA4-AE5B-76104861E7DC"
    static let idfv = "IDFV-MATRIX-1"
    static let tcf = "CPMATRIX-TCF"
    /// The cell with no restriction at all: consent given, tracking authorized.
    static let consentingCell = PrivacyCell(coppa: false, tfua: false, gdpr: .notApplicable, usPrivacy: false, limitAdTracking: false, trackingNotAuthorized: false, consentWithdrawn: false, personalizationOff: false)

    /// Builds every kind through the standard factories and keeps each built adapter.
    final class CapturingRegistry: Sendable {
        private let built = Locked<[String: any AdNetworkAdapter]>([:])

        var registry: NetworkRegistry {
            NetworkRegistry(standardNetworks).wrappingAdapters { network, adapter, _ in
                self.keep(adapter, as: network)
                return adapter
            }
        }

        func adapter(_ id: String) -> (any AdNetworkAdapter)? { built.withLock { $0[id] } }

        fileprivate func keep(_ adapter: any AdNetworkAdapter, as id: String) {
            built.withLock { $0[id] = adapter }
        }
    }

    static func configuration(_ network: MatrixNetwork, _ cell: PrivacyCell) throws -> MediationConfiguration {
        let networks: String
        let placement: String
        switch network {
        case .elo:
            networks = #""elo": { "adapter": "elo", "credentials": { "publisher_id": "pub-matrix" }, "endpoint": "\#(WireRecorder.eloEndpoint)" }"#
            placement = #""matrix": { "format": "native", "slot": { "max_height": 100 }, "sources": [ { "id": "m_elo", "network": "elo", "ad_unit_id": "elo-matrix" } ] }"#
        case .nitx:
            networks = #""nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\#(WireRecorder.nitxEndpoint)", "options": { "personalization": \#(!cell.personalizationOff) } }"#
            placement = #""matrix": { "format": "banner", "sizing": "inline", "slot": { "max_width": 320, "max_height": 50 }, "sources": [ { "id": "m_nitx", "network": "nitx", "ad_unit_id": "SLOT-MATRIX", "ecpm": 1.0 } ] }"#
        case .qartvelo:
            networks = #""qartvelo": { "adapter": "qartvelo", "credentials": { "app_id": "qv-matrix" }, "endpoint": "\#(WireRecorder.qartveloEndpoint)" }"#
            placement = #""matrix": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "sources": [ { "id": "m_qv", "network": "qartvelo", "ad_unit_id": "qv-matrix", "ecpm": 1.0 } ] }"#
        case .fallback:
            networks = #""admob": { "adapter": "fallback", "endpoint": "sandbox", "options": { "latency_ms": 10 } }"#
            placement = #""matrix": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "sources": [ { "id": "m_admob", "network": "admob", "ad_unit_id": "admob-matrix", "ecpm": 1.0 } ] }"#
        }
        return try MediationConfiguration(json: #"{ "networks": { \#(networks) }, "placements": { \#(placement) } }"#, registry: .standard)
    }

    /// What one cell put on the wire, into events and into logs, and the identifiers that had
    /// to stay off them.
    struct Run {
        var requests: [HTTP.Request]
        var events: [MediationEvent]
        var logs: [RecordingLogger.Entry]
        var shown: Bool
        /// Identifiers of this run (install id, Nitx visitor id) that events and logs must not carry.
        var identifiers: [String]
    }

    /// Runs one cell: the network's identity is stored as an earlier version stored it (Nitx
    /// consent record and hashed profile; the engine offers no setter), a visible view loads the placement, the host reports the ad shown and
    /// clicked (and, for Elo, its own browser), the app resigns active and goes to the
    /// background (queued events flush), and the engine shuts down.
    static func run(_ network: MatrixNetwork, _ cell: PrivacyCell) async throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try StoredIdentity.nitx([NitxProfile.Key.email: email, NitxProfile.Key.phone: phone, NitxProfile.Key.gender: "f", NitxProfile.Key.birthYear: "1990", NitxProfile.Key.city: "tbilisi", NitxProfile.Key.country: "ge"], in: directory)
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let events = EventRecorder()
        let capturing = CapturingRegistry()
        let template = RequestTemplate(device: cell.device, app: RequestTemplate.App(bundleID: "com.example.app"), privacy: cell.privacy)
        let engine = try MediationEngine(
            configuration: configuration(network, cell),
            registry: capturing.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, storageDirectory: directory, requestTemplate: template, stateStore: try FileStateStore(directory: directory.appendingPathComponent("state"))),
            hostContext: { _ in AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: chat, id: "m-1")], screenName: "Chat") },
            onEvent: events.handler
        )
        var identifiers: [String] = []
        switch network {
        case .elo:
            identifiers.append(try #require(await (capturing.adapter("elo") as? EloAdapter)?.client.installID)) // the install id
        case .nitx:
            let nitx = try #require(capturing.adapter("nitx") as? NitxAdapter)
            if let visitor = await nitx.client.state().visitorID { identifiers.append(visitor) }
        case .qartvelo, .fallback:
            break
        }
        let placement = try #require(engine.placement("matrix"))
        let shown = await clock.run { () -> Bool in
            _ = await placement.attachView(visible: true)
            guard let current = await placement.load().ad?.ad else { return false }
            guard case .impression = await placement.reportShown(current) else { return false }
            await placement.reportClick(current)
            if let elo = current as? EloAd {
                elo.recordBrowserOpened()
                elo.recordBrowserClosed()
                await elo.tracker?.drain()
            }
            return true
        }
        await clock.runUntilIdle()
        await clock.perform {
            await engine.willResignActive()
            await engine.setForeground(false)
            await engine.shutdown()
        }
        await clock.advance(by: .seconds(10))
        return Run(requests: wire.requests, events: events.events, logs: logger.lines, shown: shown == true, identifiers: identifiers)
    }

    static func json(_ request: HTTP.Request) -> [String: Any] {
        request.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }
}

/// The privacy matrix: for every network and every combination of the host's privacy signals,
/// the bytes each network puts on the wire (ad requests, tracking pings, event batches) carry
/// only what its document (and the engine's shared `PrivacyRules`) allows, and the engine's
/// events and log lines never carry chat content, user data or identifiers.
/// The 1536 cases run one at a time (`.serialized`): in parallel they would take both cores
/// from the suites that run on the system clock.
@Suite("Privacy matrix", .serialized)
struct PrivacyMatrixTests {
    @Test("every cell has its 384 combinations")
    func theMatrixIsTheFullProduct() {
        #expect(PrivacyCell.all.count == 384)
        #expect(Set(PrivacyCell.all).count == 384)
    }

    @Test(arguments: MatrixNetwork.allCases, PrivacyCell.all)
    func eachNetworkSendsOnlyWhatItsDocumentAllows(network: MatrixNetwork, cell: PrivacyCell) async throws {
        let run = try await PrivacyMatrix.run(network, cell)
        #expect(run.shown, "the cell's ad was shown")
        switch network {
        case .elo: try checkElo(run, cell)
        case .nitx: try checkNitx(run, cell)
        case .qartvelo: checkQartvelo(run, cell)
        case .fallback: #expect(run.requests.isEmpty, "the fallback network sends nothing over HTTP")
        }
        checkEventsAndLogs(run)
    }

    private func checkElo(_ run: PrivacyMatrix.Run, _ cell: PrivacyCell) throws {
        let bids = run.requests.filter { $0.url.path == "/v1/bid" }
        try #require(bids.count == 1)
        let bid = try JSONDecoder().decode(EloWireBidRequest.self, from: try #require(bids[0].body))
        let bidText = WireRecorder.text(of: bids[0])
        // No user data: the engine offers none to send.
        #expect(!bidText.contains(PrivacyMatrix.email))
        // The device identifier (ATT and limit-ad-tracking, OpenRTB lmt; engine: COPPA, TFUA, consent).
        if cell.allowsAdvertisingID {
            #expect(bid.device.ifa == PrivacyMatrix.idfa)
            #expect(bid.device.lmt == 0)
            #expect(bid.device.ext?.ifv == nil)
        } else {
            #expect(bid.device.ifa == nil)
            #expect(bid.device.lmt == 1)
            #expect(bid.device.ext?.ifv == PrivacyMatrix.idfv)
        }
        // The install id: the visitor id only where it may be sent, else none.
        let installID = try #require(run.identifiers.first)
        #expect(bid.user.id == (cell.allowsEloInstallID ? installID : nil))
        if !cell.allowsEloInstallID {
            #expect(!run.requests.contains { WireRecorder.text(of: $0).contains(installID) }, "the install id was sent")
        }
        // The regulations' flags as the host gave them.
        #expect(bid.regs.coppa == (cell.coppa ? 1 : 0))
        #expect(bid.regs.ext.tfua == (cell.tfua ? 1 : 0))
        #expect(bid.regs.gdpr == (cell.gdpr == .notApplicable ? nil : 1))
        #expect(bid.regs.us_privacy == (cell.usPrivacy ? "1YYN" : nil))
        #expect(bid.user.consent == (cell.gdpr == .appliesWithConsentString ? PrivacyMatrix.tcf : nil))
        // Tracking pings and browser analytics: never user data, chat, or the advertising id.
        let pings = run.requests.filter { $0.url.path != "/v1/bid" }
        #expect(pings.map(\.url.path) == ["/t/render", "/t/impression", "/v1/events", "/v1/events"])
        for ping in pings {
            let text = WireRecorder.text(of: ping)
            for forbidden in [PrivacyMatrix.email, "15557654321", PrivacyMatrix.chat, PrivacyMatrix.idfa, "\"age\"", "female"] {
                #expect(!text.contains(forbidden), "\(forbidden) in \(ping.url.path)")
            }
        }
        if !cell.allowsAdvertisingID {
            #expect(!run.requests.contains { WireRecorder.text(of: $0).contains(PrivacyMatrix.idfa) })
        }
    }

    private func checkNitx(_ run: PrivacyMatrix.Run, _ cell: PrivacyCell) throws {
        let all = run.requests.map(WireRecorder.text(of:)).joined(separator: "\n")
        // Identify normalises and hashes at once: the raw values never leave the device.
        for forbidden in [PrivacyMatrix.email, "15557654321", "Tbilisi", PrivacyMatrix.chat] {
            #expect(!all.contains(forbidden), "\(forbidden)")
        }
        let ads = run.requests.filter { $0.url.path == "/api/sdk/ads" }
        try #require(ads.count == 1)
        let body = PrivacyMatrix.json(ads[0])
        let context = try #require(body["context"] as? [String: Any])
        // context.ad_id: ATT authorized (Nitx document), not limited, not COPPA / TFUA, consent not withdrawn.
        if cell.allowsAdvertisingID && !cell.nitxWithholdsPersonalData {
            #expect(context["ad_id"] as? String == PrivacyMatrix.idfa)
        } else {
            #expect(context["ad_id"] is NSNull)
            #expect(!all.contains(PrivacyMatrix.idfa))
        }
        // Never the IP address, the user agent or a location (Nitx document).
        for key in ["ip", "ua", "user_agent", "geo", "lat", "lon", "location"] {
            #expect(context[key] == nil, "\(key)")
        }
        #expect(ads[0].headers["User-Agent"] == "NitxPublisher/ios-1.0.0")
        let emailHash = SHA256Digest.hex(SHA256Digest.hash(Data(PrivacyMatrix.email.utf8)))
        if cell.personalizationOff {
            // personalization false: no visitor block (and no visitor id on event batches).
            #expect(body["visitor"] is NSNull)
        } else {
            let visitor = try #require(body["visitor"] as? [String: Any])
            #expect(visitor["consent"] as? Bool == !cell.consentWithdrawn)
            if cell.allowsNitxProfile {
                #expect((visitor["profile"] as? [String: String])?["email"] == emailHash)
            } else {
                #expect(visitor["profile"] is NSNull)
            }
        }
        if !cell.allowsNitxProfile { #expect(!all.contains(emailHash)) }
        let batches = run.requests.filter { $0.url.path == "/api/sdk/events" }
        #expect(batches.count == 1, "the impression and viewable flushed on resign active")
        for batch in batches {
            let json = PrivacyMatrix.json(batch)
            #expect(Set(json.keys).isSubset(of: ["visitor_id", "events"]))
            #expect((json["visitor_id"] == nil || json["visitor_id"] is NSNull) == cell.personalizationOff)
        }
    }

    private func checkQartvelo(_ run: PrivacyMatrix.Run, _ cell: PrivacyCell) {
        let banners = run.requests.filter { $0.url.path == "/v1/banner" }
        #expect(banners.count == 1)
        guard let banner = banners.first else { return }
        let body = PrivacyMatrix.json(banner)
        let device = body["device"] as? [String: Any] ?? [:]
        let regs = body["regs"] as? [String: Any] ?? [:]
        let user = body["user"] as? [String: Any]
        // The advertising id: PrivacyRules, and never where GDPR applies.
        if cell.allowsAdvertisingID && cell.gdpr == .notApplicable {
            #expect(device["ifa"] as? String == PrivacyMatrix.idfa)
        } else {
            #expect(device["ifa"] == nil)
        }
        #expect(device["lmt"] as? Int == (cell.limitAdTracking ? 1 : 0))
        #expect(regs["coppa"] as? Int == (cell.coppa ? 1 : 0))
        #expect(regs["tfua"] as? Int == (cell.tfua ? 1 : nil))
        #expect(regs["gdpr"] as? Int == (cell.gdpr == .notApplicable ? nil : 1))
        #expect(regs["us_privacy"] as? String == (cell.usPrivacy ? "1YYN" : nil))
        #expect(user?["consent"] as? String == (cell.gdpr == .appliesWithConsentString ? PrivacyMatrix.tcf : nil))
        // No user data of any kind goes to Qartvelo; the pings carry nothing but the ad.
        let all = run.requests.map(WireRecorder.text(of:)).joined(separator: "\n")
        for forbidden in [PrivacyMatrix.email, "15557654321", PrivacyMatrix.identifier, PrivacyMatrix.chat, PrivacyMatrix.idfv] {
            #expect(!all.contains(forbidden), "\(forbidden)")
        }
        if !(cell.allowsAdvertisingID && cell.gdpr == .notApplicable) { #expect(!all.contains(PrivacyMatrix.idfa)) }
        #expect(run.requests.filter { $0.url.path.hasPrefix("/v1/events/") }.map(\.url.path) == ["/v1/events/impression", "/v1/events/click"])
    }

    /// Events and log lines: never the conversation, user data, identifiers or device ids.
    private func checkEventsAndLogs(_ run: PrivacyMatrix.Run) {
        let forbidden = [PrivacyMatrix.chat, PrivacyMatrix.email, "15557654321", PrivacyMatrix.identifier, PrivacyMatrix.idfa, PrivacyMatrix.idfv, PrivacyMatrix.tcf] + run.identifiers
        // Every nested value of every event (traces, ad summaries, reasons), not just its line.
        var eventText = ""
        for event in run.events { dump(event, to: &eventText) }
        let logText = run.logs.map { "\($0.source) \($0.message)" }.joined(separator: "\n")
        for value in forbidden where !value.isEmpty {
            #expect(!eventText.contains(value), "an event carries \(value)")
            #expect(!logText.contains(value), "a log line carries \(value)")
        }
        #expect(run.events.contains { $0.name == "shown" })
    }
}

/// How the user's withdrawal reaches the engine before the relaunch.
enum WithdrawalPath: String, Sendable, CaseIterable {
    /// While the app runs: the host updates its request template (`userConsent: false`).
    case templateUpdate
    /// At the next launch: the engine is built with the withdrawn signal in its template.
    case launch
}

/// The privacy matrix's withdrawal column: for every network, the user gives consent and an
/// identity, withdraws, and the app is killed and relaunched with the signal unset (the host
/// did not keep the answer). No identity the user withdrew leaves the device afterwards (Nitx:
/// the profile; Elo keeps none); the anonymous ids (Nitx's
/// visitor id, Elo's install id) stay, and the advertising id follows each launch's own OS
/// signals.
@Suite("Privacy matrix: withdraw, then relaunch with the signal unset", .serialized)
struct PrivacyMatrixWithdrawalTests {
    /// One launch of the app: an engine over persistent storage (a directory), its wire, and
    /// the adapters it built.
    struct Launch {
        let clock: ManualClock
        let wire: WireRecorder
        let engine: MediationEngine
        let capturing: PrivacyMatrix.CapturingRegistry

        init(_ network: MatrixNetwork, userConsent: Bool?, directory: URL) throws {
            clock = ManualClock()
            wire = WireRecorder(clock: clock)
            capturing = PrivacyMatrix.CapturingRegistry()
            var privacy = PrivacyMatrix.consentingCell.privacy
            privacy.userConsent = userConsent
            let template = RequestTemplate(device: PrivacyMatrix.consentingCell.device, app: RequestTemplate.App(bundleID: "com.example.app"), privacy: privacy)
            engine = try MediationEngine(
                configuration: PrivacyMatrix.configuration(network, PrivacyMatrix.consentingCell),
                registry: capturing.registry,
                environment: MediationEnvironment(clock: clock, transport: wire, storageDirectory: directory, requestTemplate: template, stateStore: try FileStateStore(directory: directory.appendingPathComponent("state"))),
                hostContext: { _ in AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: PrivacyMatrix.chat)]) }
            )
        }

        /// Loads, shows and reports the placement's ad, then flushes queued events.
        func showOnce() async throws {
            let placement = try #require(engine.placement("matrix"))
            let shown = await placement.showOnce(on: clock) { await ($0 as? EloAd)?.tracker?.drain() }
            #expect(shown != nil, "the launch's ad was shown")
            await clock.runUntilIdle()
            await clock.perform { await engine.willResignActive() }
            await clock.advance(by: .seconds(3))
            // The next showing needs a new auction: a new controller for the placement.
            await clock.perform { await placement.destroy() }
        }

        /// Everything this launch sent, as text.
        var sent: String { wire.requests.map(WireRecorder.text(of:)).joined(separator: "\n") }
    }

    static let emailHash = SHA256Digest.hex(SHA256Digest.hash(Data(PrivacyMatrix.email.utf8)))
    /// What the user withdrew, in every form it could take on the wire.
    static let withdrawnIdentity = [PrivacyMatrix.identifier, PrivacyMatrix.email, "15557654321", emailHash, "\"female\"", "\"age\""]

    @Test(arguments: MatrixNetwork.allCases, WithdrawalPath.allCases)
    func noIdentityTheUserWithdrewLeavesTheDevice(network: MatrixNetwork, path: WithdrawalPath) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("matrix-withdraw-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // The identity as an earlier version stored it (the engine offers no setter).
        if network == .nitx {
            try StoredIdentity.nitx([NitxProfile.Key.email: PrivacyMatrix.email, NitxProfile.Key.phone: PrivacyMatrix.phone, NitxProfile.Key.gender: "f"], in: directory)
        }

        // Launch 1: consent given, the identity stored; it goes out as the documents allow.
        let first = try Launch(network, userConsent: true, directory: directory)
        var anonymousID: String?
        switch network {
        case .elo:
            anonymousID = await (first.capturing.adapter("elo") as? EloAdapter)?.client.installID
        case .nitx:
            let nitx = try #require(first.capturing.adapter("nitx") as? NitxAdapter)
            anonymousID = await nitx.client.state().visitorID
        case .qartvelo, .fallback:
            break
        }
        try await first.showOnce()
        switch network {
        case .nitx: #expect(first.sent.contains(Self.emailHash), "the profile went out before the withdrawal")
        case .elo, .qartvelo, .fallback: break
        }

        // The withdrawal, then an auction under it (launch 2 for the launch path).
        let underWithdrawal: Launch
        switch path {
        case .templateUpdate:
            var privacy = PrivacyMatrix.consentingCell.privacy
            privacy.userConsent = false
            first.engine.updateRequestTemplate(RequestTemplate(device: PrivacyMatrix.consentingCell.device, app: RequestTemplate.App(bundleID: "com.example.app"), privacy: privacy))
            underWithdrawal = first
        case .launch:
            underWithdrawal = try Launch(network, userConsent: false, directory: directory)
        }
        // At once, before any request: nothing the user withdrew is left in storage.
        try Self.expectNothingWithdrawnStored(directory: directory)
        let sentBefore = underWithdrawal.wire.requests.count
        try await underWithdrawal.showOnce()
        let sentUnderWithdrawal = underWithdrawal.wire.requests.dropFirst(sentBefore).map(WireRecorder.text(of:)).joined(separator: "\n")
        for value in Self.withdrawnIdentity {
            #expect(!sentUnderWithdrawal.contains(value), "\(value) sent after the withdrawal")
        }

        // The app is killed (no shutdown) and relaunched with the signal unset.
        let relaunch = try Launch(network, userConsent: nil, directory: directory)
        try await relaunch.showOnce()
        let sent = relaunch.sent
        for value in Self.withdrawnIdentity {
            #expect(!sent.contains(value), "\(value) sent after the relaunch")
        }
        try Self.expectNothingWithdrawnStored(directory: directory)
        switch network {
        case .elo:
            // The install id stays the visitor id; the OS still authorizes the advertising id.
            let bid = try JSONDecoder().decode(EloWireBidRequest.self, from: try #require(relaunch.wire.requests.first { $0.url.path == "/v1/bid" }?.body))
            #expect(bid.user.id == anonymousID)
            #expect(bid.device.ifa == PrivacyMatrix.idfa)
        case .nitx:
            let ads = try #require(relaunch.wire.requests.first { $0.url.path == "/api/sdk/ads" })
            let visitor = try #require(PrivacyMatrix.json(ads)["visitor"] as? [String: Any])
            #expect(visitor["id"] as? String == anonymousID)
            #expect(visitor["consent"] is NSNull)
            #expect(visitor["profile"] is NSNull)
        case .qartvelo:
            // Qartvelo never carries identity: nothing to withdraw, and nothing leaks.
            #expect(!sent.contains(PrivacyMatrix.idfv))
        case .fallback:
            #expect(relaunch.wire.requests.isEmpty)
        }
        await relaunch.clock.perform { await relaunch.engine.shutdown() }
    }

    /// No file of the storage directory holds the withdrawn identity.
    static func expectNothingWithdrawnStored(directory: URL) throws {
        var stored = ""
        if let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) {
            for case let url as URL in files where !url.hasDirectoryPath {
                stored += String(decoding: (try? Data(contentsOf: url)) ?? Data(), as: UTF8.self)
            }
        }
        for value in withdrawnIdentity + ["nitx.consent", "nitx.profile"] {
            #expect(!stored.contains(value), "\(value) still stored")
        }
    }
}
