import Foundation
import Mediation
import MediationTestKit
import Testing
@testable import Adapters

/// Red-team attacks on the wire across the life cycle (R18) and on privacy signals that change
/// mid-session: the three HTTP networks behind one recording transport, on virtual time.
@Suite("Hostile life cycle and privacy on the wire (R18)")
struct HostileLifeCycleWireTests {
    static let configuration = #"""
    {
      "networks": {
        "elo": { "adapter": "elo", "credentials": { "publisher_id": "pub-red" }, "endpoint": "\#(WireRecorder.eloEndpoint)" },
        "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\#(WireRecorder.nitxEndpoint)" },
        "qartvelo": { "adapter": "qartvelo", "credentials": { "app_id": "qv-red" }, "endpoint": "\#(WireRecorder.qartveloEndpoint)" }
      },
      "placements": {
        "home_banner": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "refresh_seconds": 30, "sources": [
          { "id": "e", "network": "elo", "ad_unit_id": "elo-red" },
          { "id": "n", "network": "nitx", "ad_unit_id": "SLOT-RED", "ecpm": 2.0 },
          { "id": "q", "network": "qartvelo", "ad_unit_id": "qv-red", "ecpm": 1.0 } ] },
        "chat_strip": { "format": "native", "slot": { "max_height": 100 }, "sources": [
          { "id": "e2", "network": "elo", "ad_unit_id": "elo-red-2" },
          { "id": "n2", "network": "nitx", "ad_unit_id": "SLOT-RED-2", "ecpm": 0.5 } ] }
      }
    }
    """#

    static let chat = "RED-TEAM-CHAT the vault code is 4711"
    static let email = "red.team@example.com"
    static let phone = "+15550001111"
    static let identifier = "red-user-99"
    static let idfa = "AAAAAAAA-BBBB-4CCC-8DDD-EEEEEEEEEEEE"

    struct Setup {
        let clock: ManualClock
        let wire: WireRecorder
        let logger: RecordingLogger
        let events: EventRecorder
        let engine: MediationEngine
    }

    /// The engine on `directory`, with the user's identity stored as an earlier version stored
    /// it (the engine offers no identity or consent setter): Nitx's consent record and hashed
    /// profile in `directory`.
    static func setUp(directory: URL, privacy: AdRequest.Privacy, trackingAuthorized: Bool = true, configuration: String = configuration) async throws -> Setup {
        try StoredIdentity.nitx([NitxProfile.Key.email: email, NitxProfile.Key.phone: phone, NitxProfile.Key.gender: "m", NitxProfile.Key.birthYear: "1985", NitxProfile.Key.city: "kutaisi", NitxProfile.Key.country: "ge"], in: directory)
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let logger = RecordingLogger()
        let events = EventRecorder()
        let capturing = PrivacyMatrix.CapturingRegistry()
        let template = RequestTemplate(device: AdRequest.Device(advertisingID: idfa, trackingAuthorized: trackingAuthorized), app: RequestTemplate.App(bundleID: "com.example.red"), privacy: privacy)
        let engine = try MediationEngine(
            configuration: MediationConfiguration(json: configuration, registry: .standard),
            registry: capturing.registry,
            environment: MediationEnvironment(clock: clock, logger: logger, transport: wire, storageDirectory: directory, requestTemplate: template, stateStore: try FileStateStore(directory: directory.appendingPathComponent("state"))),
            hostContext: { _ in AdRequest.Context(messages: [AdRequest.Context.Message(role: .user, content: chat, id: "m-1")], screenName: "Chat") },
            onEvent: events.handler
        )
        return Setup(clock: clock, wire: wire, logger: logger, events: events, engine: engine)
    }

    static func text(_ requests: some Sequence<HTTP.Request>) -> String {
        requests.map { WireRecorder.text(of: $0) }.joined(separator: "\n----\n")
    }

    @Test("consent withdrawn with COPPA and limit-ad-tracking mid-session: no id, user data or chat on the wire from the next request, none in events or logs ever")
    func consentWithdrawnMidSession() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await Self.setUp(directory: directory, privacy: AdRequest.Privacy(userConsent: true, limitAdTracking: false))
        // Before: everything allowed; the ads handed out are released by the caller.
        for placement in ["home_banner", "chat_strip"] {
            let outcome = try await setup.engine.runAuction(placementID: placement, on: setup.clock)
            outcome.winner?.ad.releaseResources()
        }
        let before = setup.wire.requests.count
        #expect(before > 0)
        setup.engine.updateRequestTemplate(RequestTemplate(
            device: AdRequest.Device(advertisingID: Self.idfa, trackingAuthorized: true),
            app: RequestTemplate.App(bundleID: "com.example.red"),
            privacy: AdRequest.Privacy(coppa: true, userConsent: false, limitAdTracking: true)
        ))
        for _ in 0..<3 {
            for placement in ["home_banner", "chat_strip"] {
                let outcome = try await setup.engine.runAuction(placementID: placement, on: setup.clock)
                if let ad = outcome.winner?.ad {
                    ad.recordRender()
                    ad.recordImpression()
                    ad.recordClick()
                }
            }
            await setup.clock.advance(by: .seconds(5))
        }
        await setup.clock.perform {
            await setup.engine.willResignActive()
            await setup.engine.setForeground(false)
        }
        await setup.clock.advance(by: .seconds(10))
        let after = Array(setup.wire.requests.dropFirst(before))
        #expect(!after.isEmpty)
        let wire = Self.text(after)
        for forbidden in [Self.idfa, Self.email, Self.phone, "15550001111", Self.identifier, "Kutaisi"] {
            #expect(!wire.contains(forbidden), "\(forbidden) on the wire after consent was withdrawn")
        }
        // The conversation is Elo's targeting context (its document forwards it; no rule of the
        // three documents stops it under COPPA or withdrawn consent): it reaches Elo's bid
        // endpoint and nothing else, no tracking ping, no other network.
        let carryingChat = after.filter { WireRecorder.text(of: $0).contains("vault") }
        #expect(carryingChat.allSatisfy { $0.url.host == EloSandboxServer.host && $0.url.path == "/v1/bid" }, "\(carryingChat.map(\.url))")
        let logs = setup.logger.lines.map { "\($0)" }.joined(separator: "\n")
        let events = setup.events.events.map { "\($0)" }.joined(separator: "\n")
        for forbidden in [Self.idfa, Self.email, Self.phone, Self.identifier, Self.chat, "vault"] {
            #expect(!logs.contains(forbidden), "\(forbidden) in a log line")
            #expect(!events.contains(forbidden), "\(forbidden) in an event")
        }
        await setup.clock.perform { await setup.engine.shutdown() }
    }

    @Test("after shutdown nothing goes on the wire: not for ads handed out earlier (render, impression, click), not on flush, not later")
    func nothingAfterShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await Self.setUp(directory: directory, privacy: AdRequest.Privacy(userConsent: true, limitAdTracking: false))
        var kept: [any LoadedAd] = []
        for placement in ["home_banner", "chat_strip", "home_banner"] {
            let outcome = try await setup.engine.runAuction(placementID: placement, on: setup.clock)
            if let ad = outcome.winner?.ad { kept.append(ad) }
        }
        #expect(!kept.isEmpty)
        // A placement with a rendered, shown ad and a refresh pending.
        let banner = try #require(setup.engine.placement("home_banner"))
        let shown = await setup.clock.run { () -> Bool in
            _ = await banner.attachView(visible: true)
            guard let ad = await banner.load().ad?.ad else { return false }
            guard case .impression = await banner.reportShown(ad) else { return false }
            return await banner.reportClick(ad)
        }
        #expect(shown == true)
        // Events queue up (Nitx batches every 2 s): shutdown comes before the batch is due.
        await setup.clock.advance(by: .milliseconds(500))
        await setup.clock.perform {
            await setup.engine.shutdown()
            await setup.engine.shutdown()
        }
        await setup.clock.runUntilIdle()
        let atShutdown = setup.wire.requests.count
        // The host keeps using the ads it was handed before shutdown, and the app life cycle goes on.
        for ad in kept {
            ad.recordRender()
            ad.recordImpression()
            ad.recordClick()
        }
        await setup.clock.perform {
            await setup.engine.willResignActive()
            await setup.engine.setForeground(false)
            await setup.engine.setForeground(true)
            _ = await banner.load()
            _ = await setup.engine.runAuction(placementID: "chat_strip")
        }
        await setup.clock.advance(by: .seconds(3600))
        let late = Array(setup.wire.requests.dropFirst(atShutdown))
        #expect(late.isEmpty, "sent after shutdown:\n\(Self.text(late))")
        for ad in kept { ad.releaseResources() }
        await setup.clock.advance(by: .seconds(10))
        #expect(setup.wire.requests.count == atShutdown, "releasing after shutdown sends nothing")
    }

    static let hostileScreens: [AdRequest.Device.Screen] = [
        AdRequest.Device.Screen(width: .nan, height: .nan, scale: .nan),
        AdRequest.Device.Screen(width: 0, height: 0, scale: 0),
        AdRequest.Device.Screen(width: -390, height: -844, scale: -3),
        AdRequest.Device.Screen(width: .infinity, height: .infinity, scale: .infinity),
        AdRequest.Device.Screen(width: 1e308, height: 1e308, scale: 1e308),
        AdRequest.Device.Screen(width: 390, height: 844, scale: 1e-300),
    ]

    @Test("a host that reports a NaN, zero, negative or infinite screen and geo crashes no network; every answer is a bounded ad or a clean no fill", arguments: hostileScreens)
    func hostileHostSignals(_ screen: AdRequest.Device.Screen) async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let device = AdRequest.Device(utcOffsetMinutes: Int.min, location: AdRequest.Device.Location(latitude: .nan, longitude: -.infinity), advertisingID: "\u{1B}[31m", trackingAuthorized: true)
        let engine = try MediationEngine(
            configuration: MediationConfiguration(json: Self.configuration, registry: .standard),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, transport: wire, requestTemplate: RequestTemplate(screen: screen, device: device, privacy: AdRequest.Privacy(userConsent: true, limitAdTracking: false)))
        )
        for placement in ["home_banner", "chat_strip"] {
            let outcome = try await engine.runAuction(placementID: placement, on: clock)
            if let winner = outcome.winner {
                #expect(NetworkValueBounds.isValidAdSize(winner.ad.size), "\(winner.ad.size)")
                winner.ad.releaseResources()
            }
            #expect(!outcome.trace.description.contains("\u{1B}"))
            // A slot the host resizes to nonsense stays within the declared slot.
            let controller = try #require(engine.placement(placement))
            let resized: Void? = await clock.run {
                _ = await controller.attachView(visible: true)
                _ = await controller.load()
                for slot in [SlotSize(maxWidth: .nan, maxHeight: .nan), SlotSize(maxWidth: -1, maxHeight: 0), SlotSize(maxWidth: .infinity, maxHeight: 1e308)] {
                    if let size = await controller.slotDidResize(slot) {
                        #expect(NetworkValueBounds.isValidAdSize(size))
                    }
                }
            }
            #expect(resized != nil, "the placement stalled")
        }
        await clock.perform { await engine.shutdown() }
    }

    /// The recorder's sandboxes, with Nitx's event batches held `hold` on the clock before they
    /// are answered (a slow network), so a call waiting on one can meet a shutdown.
    final class SlowEventsTransport: HTTP.Transport {
        let inner: WireRecorder
        let clock: ManualClock
        let hold: Duration

        init(inner: WireRecorder, clock: ManualClock, hold: Duration) {
            self.inner = inner
            self.clock = clock
            self.hold = hold
        }

        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            let response = try await inner.send(request) // sent (and recorded) now, answered later
            if request.url.path.hasSuffix("/events") {
                do { try await clock.sleep(until: clock.now + hold) } catch { throw HTTP.TransportError(kind: .cancelled, message: "cancelled") }
            }
            return response
        }
    }

    @Test("Nitx reset() waiting on a slow event batch when the engine shuts down sends no forget request afterwards")
    func resetRacingShutdown() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try StoredIdentity.nitx([NitxProfile.Key.email: Self.email], in: directory)
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let transport = SlowEventsTransport(inner: wire, clock: clock, hold: .seconds(1))
        let capturing = PrivacyMatrix.CapturingRegistry()
        let json = #"{ "networks": { "nitx": { "adapter": "nitx", "credentials": { "source_code": "SDK-AM-DEMOI" }, "endpoint": "\#(WireRecorder.nitxEndpoint)" } }, "placements": { "b": { "format": "banner", "sizing": "inline", "slot": { "max_width": 320, "max_height": 50 }, "sources": [ { "id": "n", "network": "nitx", "ad_unit_id": "SLOT-RACE", "ecpm": 1.0 } ] } } }"#
        let engine = try MediationEngine(
            configuration: MediationConfiguration(json: json, registry: .standard),
            registry: capturing.registry,
            environment: MediationEnvironment(clock: clock, transport: transport, storageDirectory: directory, requestTemplate: RequestTemplate(privacy: AdRequest.Privacy(userConsent: true, limitAdTracking: false)))
        )
        let nitx = try #require(capturing.adapter("nitx") as? NitxAdapter)
        let placement = try #require(engine.placement("b"))
        let shown = await clock.run { () -> Bool in
            _ = await placement.attachView(visible: true)
            guard let ad = await placement.load().ad?.ad else { return false }
            guard case .impression = await placement.reportShown(ad) else { return false }
            return true
        }
        #expect(shown == true)
        // The impression is queued (batches go every 2 s): reset flushes it and waits on the
        // slow batch; the engine shuts down meanwhile.
        let reset = clock.startTask { await nitx.client.reset() }
        await clock.runUntilIdle()
        await clock.perform { await engine.shutdown() }
        let atShutdown = wire.requests.count
        await clock.advance(by: .seconds(10))
        await reset.value
        let late = Array(wire.requests.dropFirst(atShutdown))
        #expect(late.isEmpty, "sent after shutdown: \(late.map(\.url.path))")
    }

    @Test("each network alone: an ad won before shutdown sends nothing when the host renders, shows and clicks it afterwards", arguments: ["elo", "nitx", "qartvelo"])
    func eachNetworkSilentAfterShutdown(_ network: String) async throws {
        let clock = ManualClock()
        let wire = WireRecorder(clock: clock)
        let source: String
        switch network {
        case "elo": source = #"{ "id": "s", "network": "elo", "ad_unit_id": "elo-red" }"#
        case "nitx": source = #"{ "id": "s", "network": "nitx", "ad_unit_id": "SLOT-RED", "ecpm": 1.0 }"#
        default: source = #"{ "id": "s", "network": "qartvelo", "ad_unit_id": "qv-red", "ecpm": 1.0 }"#
        }
        let json = Self.configuration.replacingOccurrences(of: #""placements": {"#, with: #""placements": { "solo": { "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "sources": [ \#(source) ] },"#)
        let engine = try MediationEngine(
            configuration: MediationConfiguration(json: json, registry: .standard),
            registry: .standard,
            environment: MediationEnvironment(clock: clock, transport: wire, requestTemplate: RequestTemplate(privacy: AdRequest.Privacy(userConsent: true, limitAdTracking: false)))
        )
        var kept: [any LoadedAd] = []
        for _ in 0..<3 {
            let outcome = try await engine.runAuction(placementID: "solo", on: clock)
            if let ad = outcome.winner?.ad { kept.append(ad) }
        }
        #expect(!kept.isEmpty, "\(network) never filled")
        // One ad is rendered and shown before shutdown (its events may be queued).
        if let first = kept.first {
            first.recordRender()
            first.recordImpression()
        }
        await clock.perform { await engine.shutdown() }
        await clock.runUntilIdle()
        let atShutdown = wire.requests.count
        for ad in kept {
            ad.recordRender()
            ad.recordImpression()
            ad.recordClick()
        }
        await clock.perform {
            await engine.willResignActive()
            await engine.setForeground(false)
        }
        await clock.advance(by: .seconds(600))
        for ad in kept { ad.releaseResources() }
        await clock.advance(by: .seconds(10))
        let late = Array(wire.requests.dropFirst(atShutdown))
        #expect(late.isEmpty, "\(network) sent after shutdown: \(late.map(\.url.path))")
    }

    @Test("with Elo's log level at verbose and Nitx's debug on, no log line or event carries the conversation, user data or ids", arguments: [
        AdRequest.Privacy(userConsent: true, limitAdTracking: false),
        AdRequest.Privacy(coppa: true, userConsent: false, limitAdTracking: true),
    ])
    func verboseLogsStayClean(_ privacy: AdRequest.Privacy) async throws {
        let verbose = Self.configuration
            .replacingOccurrences(of: #""endpoint": "\#(WireRecorder.eloEndpoint)" }"#, with: #""endpoint": "\#(WireRecorder.eloEndpoint)", "options": { "log_level": "verbose" } }"#)
            .replacingOccurrences(of: #""endpoint": "\#(WireRecorder.nitxEndpoint)" }"#, with: #""endpoint": "\#(WireRecorder.nitxEndpoint)", "options": { "debug": true } }"#)
        #expect(verbose.contains("verbose") && verbose.contains(#""debug": true"#))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hostile-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let setup = try await Self.setUp(directory: directory, privacy: privacy, configuration: verbose)
        let banner = try #require(setup.engine.placement("home_banner"))
        let strip = try #require(setup.engine.placement("chat_strip"))
        _ = await setup.clock.run { () -> Void in
            for placement in [banner, strip] {
                _ = await placement.attachView(visible: true)
                if let ad = await placement.load().ad?.ad {
                    _ = await placement.reportShown(ad)
                    _ = await placement.reportClick(ad)
                }
            }
        }
        await setup.clock.advance(by: .seconds(70))
        await setup.clock.perform {
            await setup.engine.willResignActive()
            await setup.engine.shutdown()
        }
        #expect(!setup.logger.lines.isEmpty, "verbose logging logged nothing")
        let logs = setup.logger.lines.map { "\($0)" }.joined(separator: "\n")
        let events = setup.events.events.map { "\($0)" }.joined(separator: "\n")
        for forbidden in [Self.chat, "vault", Self.email, Self.phone, "15550001111", Self.identifier, Self.idfa, "Kutaisi"] {
            #expect(!logs.contains(forbidden), "\(forbidden) in a log line")
            #expect(!events.contains(forbidden), "\(forbidden) in an event")
        }
    }
}
