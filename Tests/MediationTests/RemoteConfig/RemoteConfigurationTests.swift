import Foundation
@testable import Mediation
import MediationTestKit
import Testing

private func seconds(_ value: Double) -> MediationInstant {
    .origin + .milliseconds(Int64((value * 1000).rounded()))
}

/// The remote configuration on the manual clock (engine rule R22, the HTTP rules of
/// `MediationEngine.RemoteConfiguration`): the fault matrix through a scripted transport. In every case the app
/// keeps serving ads from the best valid configuration, says why in an event (a warning for
/// every refusal and failure), and loses no ad.
@Suite("Remote configuration")
struct RemoteConfigurationTests {
    @Test("launch never waits: the engine runs the bundled version 0 at once; the first check applies version 1 in the background")
    func launchAndFirstFetch() async throws {
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\""))])
        #expect(harness.engine.configurationVersion == 0 && harness.engine.configurationSource == .bundled)
        try await harness.clock.perform { () async throws in
            // The first auction starts at once, on the bundled configuration.
            let first = try await harness.auction()
            #expect(first.configVersion == 0 && first.winningECPM == 0.5)
            #expect(harness.engine.configurationVersion == 1) // applied at 0.050 s, during that auction
            let applied = try #require(harness.updates.last)
            #expect(applied.outcome == .applied && applied.code == .applied && applied.runningVersion == 1 && applied.at == seconds(0.05))
            #expect(applied.nextCheckAt == seconds(300.05))
            let next = try await harness.auction()
            #expect(next.configVersion == 1 && next.winningECPM == 1.2)
            #expect(harness.transport.requests.first?.headers["If-None-Match"] == nil)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("304 keeps the configuration; the request carries If-None-Match; max-age sets the next check")
    func notModified() async throws {
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "max-age=120")), .respond(HTTP.Response(statusCode: 304, headers: ["Cache-Control": "max-age=600"]))])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == 1)
            await harness.advance(to: 200)
            #expect(harness.transport.requests.count == 2)
            #expect(harness.transport.requests[1].headers["If-None-Match"] == "\"v1\"")
            let update = try #require(harness.updates.last)
            #expect(update.outcome == .unchanged && update.code == .notModified && !update.isWarning)
            #expect(update.at == seconds(120.1) && update.nextCheckAt == seconds(720.1))
            #expect(harness.engine.configurationVersion == 1)
            #expect(try await harness.auction().configVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("a published config reaches a foreground app within its max-age plus one fetch; the same version again changes nothing")
    func newerAndSameVersion() async throws {
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "max-age=300"))])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 10)
            // Version 2 is published at 10 s; the app's next check is at 300.05 s.
            harness.transport.serve(.respond(ScriptedTransport.ok(try harness.signed(2, eCPM: "2.0"), etag: "\"v2\"")), .respond(ScriptedTransport.ok(try harness.signed(2, eCPM: "2.0"), etag: "\"v2b\"")))
            await harness.advance(to: 300)
            #expect(harness.engine.configurationVersion == 1)
            await harness.advance(to: 301)
            #expect(harness.engine.configurationVersion == 2)
            let applied = try #require(harness.updates.last)
            #expect(applied.outcome == .applied && applied.at == seconds(300.1)) // max-age + one 50 ms fetch
            #expect(try await harness.auction().winningECPM == 2.0)
            await harness.advance(to: 700)
            let same = try #require(harness.updates.last)
            #expect(same.outcome == .unchanged && same.code == .sameVersion && same.offeredVersion == 2 && !same.isWarning)
            #expect(harness.engine.configurationVersion == 2)
            #expect(harness.transport.requests.last?.headers["If-None-Match"] == "\"v2\"")
            #expect(await harness.shutdownAndCountAds())
        }
    }

    /// The refusals: each case served after version 1 runs; the engine keeps version 1 and says why.
    static let refusals: [(name: String, code: MediationEngine.RemoteConfiguration.Update.Code)] = [
        ("bad signature", .badSignature),
        ("unknown key", .unknownKey),
        ("old version served again", .notNewer),
        ("invalid config inside a valid signature", .invalidConfig),
        ("truncated body", .malformedEnvelope),
        ("5 MB body", .tooLarge),
        ("plain unsigned config", .badSignature),
    ]

    @Test("refused, the current configuration kept, a warning saying why, and a back-off", arguments: 0..<7)
    func refusal(index: Int) async throws {
        let (name, code) = Self.refusals[index]
        let fixture = RemoteConfigFixture()
        let v1 = try RemoteHarness.signed(1)
        let v2 = try RemoteHarness.signed(2, eCPM: "2.0")
        var body: Data
        switch name {
        case "bad signature":
            var envelope = try SignedConfiguration.parse(v2).get()
            envelope.payload[envelope.payload.count / 2] ^= 0x04
            body = envelope.rendered()
        case "unknown key":
            let other = try ConfigurationSigningKey.generate()
            body = try ConfigurationSigner.sign(Data(RemoteConfigFixture.configJSON(version: nil).utf8), key: other, version: 2, issuedAt: WallClockTime(millisecondsSince1970: 0), rollout: nil, registry: RemoteConfigFixture.registry)
        case "old version served again":
            body = v1
        case "invalid config inside a valid signature":
            body = try fixture.sign(raw: RemoteConfigFixture.configJSON(version: 2).replacingOccurrences(of: #""network": "neta""#, with: #""network": "nobody""#))
        case "truncated body":
            body = v2.prefix(v2.count / 2)
        case "5 MB body":
            body = Data(repeating: 0x20, count: 5_000_000)
        default:
            body = Data(RemoteConfigFixture.configJSON(version: 2).utf8)
        }
        // Version 1 runs (version 2 for "old version served again"); the bad body comes next.
        let first = name == "old version served again" ? try RemoteHarness.signed(2, eCPM: "1.5") : v1
        let harness = try RemoteHarness(steps: [
            .respond(ScriptedTransport.ok(first, etag: name == "old version served again" ? "\"v2\"" : "\"v1\"", cacheControl: "max-age=60")),
            .respond(ScriptedTransport.ok(body, etag: "\"bad\"", cacheControl: "max-age=60")),
        ])
        let expected = name == "old version served again" ? 2 : 1
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == expected, "\(name)")
            await harness.advance(to: 61)
            let update = try #require(harness.updates.last)
            #expect(update.outcome == .refused, "\(name)")
            #expect(update.code == code, "\(name): \(update)")
            #expect(update.isWarning)
            #expect(update.runningVersion == expected)
            if code == .invalidConfig { #expect(update.path == "placements.home_banner.sources[0].network") }
            // A refusal backs off: 60 to 90 s after the first failure, not the 60 s max-age.
            let next = try #require(update.nextCheckAt)
            #expect(next >= update.at + .seconds(60) && next < update.at + .seconds(90), "\(name): next check \(next)")
            #expect(harness.engine.configurationVersion == expected)
            #expect(try await harness.auction().configVersion == expected)
            // The refused response's entity tag is not kept.
            await harness.advance(to: 200)
            #expect(harness.transport.requests.last?.headers["If-None-Match"] == (expected == 2 ? "\"v2\"" : "\"v1\""))
            #expect(await harness.shutdownAndCountAds())
        }
    }

    /// The failures: no configuration arrives.
    static let failures: [(name: String, step: ScriptedTransport.Step, code: MediationEngine.RemoteConfiguration.Update.Code)] = [
        ("connection refused", .fail(HTTP.TransportError(kind: .connection, message: "Could not connect to the server.")), .transport),
        ("500", .respond(HTTP.Response(statusCode: 500)), .httpStatus),
        ("redirect off the origin", .fail(HTTP.TransportError(kind: .redirectRefused, message: "HTTP 302 redirect to http://evil.example:80 refused: it leaves https://config.example.com:443", status: 302)), .redirectRefused),
        ("server slower than the timeout", .respond(ScriptedTransport.ok(Data()), after: .seconds(30)), .timeout),
    ]

    @Test("failed: no response, an error status, a redirect refused, a timeout; the current configuration kept; exponential back-off", arguments: 0..<4)
    func failure(index: Int) async throws {
        let (name, step, code) = Self.failures[index]
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "max-age=60")), step])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == 1)
            var previous = seconds(60.05)
            var bounds: [(Double, Double)] = [(60, 90), (120, 180), (240, 360)]
            // Three failures in a row: each back-off doubles (with a jitter of up to half).
            for failure in 1...3 {
                let (low, high) = bounds.removeFirst()
                await harness.clock.advance(to: previous + .seconds(400))
                let updates = harness.updates.filter { $0.outcome == .failed }
                #expect(updates.count >= failure, "\(name)")
                guard let update = updates.dropFirst(failure - 1).first, let next = update.nextCheckAt else { continue }
                #expect(update.code == code, "\(name): \(update)")
                #expect(update.isWarning && update.runningVersion == 1)
                if name == "server slower than the timeout" {
                    #expect(update.at == previous + .seconds(10), "the timeout fires at its instant")
                }
                #expect(next >= update.at + .seconds(Int64(low)) && next < update.at + .seconds(Int64(high)), "\(name) failure \(failure): \(next)")
                previous = next
                if failure == 1 { #expect(try await harness.auction().configVersion == 1) }
            }
            #expect(harness.engine.configurationVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("429 and 503 wait for Retry-After (seconds, or an HTTP date), within the host's bounds")
    func retryAfter() async throws {
        let harness = try RemoteHarness(steps: [
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "max-age=60")),
            .respond(HTTP.Response(statusCode: 429, headers: ["Retry-After": "120"])),
            .respond(HTTP.Response(statusCode: 503, headers: ["Retry-After": "Tue, 01 Dec 2026 14:45:00 GMT", "Date": "Tue, 01 Dec 2026 14:40:00 GMT"])),
            .respond(HTTP.Response(statusCode: 503, headers: ["Retry-After": "5"])),
            .respond(HTTP.Response(statusCode: 304)),
        ], wallClock: Date(timeIntervalSince1970: 1_796_220_000)) // 2026-12-01T14:40:00Z
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 61)
            let busy = try #require(harness.updates.last)
            #expect(busy.code == .serverBusy && busy.outcome == .failed && busy.isWarning)
            #expect(busy.nextCheckAt == seconds(60.1) + .seconds(120))
            await harness.advance(to: 181)
            let dated = try #require(harness.updates.last)
            #expect(dated.code == .serverBusy && dated.nextCheckAt == seconds(180.15) + .seconds(300)) // the date is 300 s after the server's Date
            await harness.advance(to: 481)
            let short = try #require(harness.updates.last)
            #expect(short.nextCheckAt == seconds(480.2) + .seconds(60)) // 5 s is raised to the 60 s minimum
            #expect(harness.engine.configurationVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("in the background the due check waits; back in the foreground it runs at once")
    func foregroundCheck() async throws {
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "max-age=60")), .respond(ScriptedTransport.ok(try RemoteHarness.signed(2, eCPM: "2.0"), etag: "\"v2\""))])
        let engine = harness.engine
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            await engine.setForeground(false)
            await harness.advance(to: 500)
            #expect(harness.transport.requests.count == 1) // due at 60.05, but in the background
            await engine.setForeground(true)
            await harness.advance(to: 501)
            #expect(harness.transport.requests.count == 2)
            #expect(engine.configurationVersion == 2)
            #expect(harness.updates.last?.at == seconds(500.05))
            // Back in the foreground before the interval has passed: no check.
            await engine.setForeground(false)
            await engine.setForeground(true)
            await harness.advance(to: 502)
            #expect(harness.transport.requests.count == 2)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("the cache: a relaunch runs the cached version at once and checks when its max-age is over; the applied version is a floor even when the cache is lost")
    func cacheAcrossLaunches() async throws {
        let store = MemoryStateStore()
        let first = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(2), etag: "\"v2\"", cacheControl: "max-age=3600, stale-while-revalidate=600"))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            #expect(first.engine.configurationVersion == 2)
            #expect(await first.shutdownAndCountAds())
        }
        // Relaunch 20 minutes later (device clock): the cache is fresh for 40 more minutes.
        let second = try RemoteHarness(store: store, wallClock: Date(timeIntervalSince1970: 1_796_220_000 + 1200))
        #expect(second.engine.configurationVersion == 2 && second.engine.configurationSource == .cache)
        #expect(second.engine.launchWarnings.isEmpty)
        second.transport.serve(.respond(HTTP.Response(statusCode: 304)))
        try await second.clock.perform { () async throws in
            #expect(try await second.auction().configVersion == 2)
            await second.advance(to: 2399)
            #expect(second.transport.requests.isEmpty)
            await second.advance(to: 2401)
            #expect(second.transport.requests.count == 1)
            #expect(second.transport.requests[0].headers["If-None-Match"] == "\"v2\"")
            #expect(await second.shutdownAndCountAds())
        }
        // The cache is lost; version 1 is served: older than version 2, applied before.
        try store.setData(nil, forKey: ConfigurationCache.key)
        let third = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\""))])
        #expect(third.engine.configurationVersion == 0)
        try await third.clock.perform { () async throws in
            await third.advance(to: 1)
            let refused = try #require(third.updates.last)
            #expect(refused.outcome == .refused && refused.code == .olderThanApplied && refused.runningVersion == 0)
            #expect(try await third.auction().configVersion == 0)
            #expect(await third.shutdownAndCountAds())
        }
    }

    @Test("stale-while-revalidate: a relaunch past max-age but within it runs the cache and checks at once, silently; past both it still runs the cache, with a config_expired warning", arguments: [(90.0, false), (200.0, true)])
    func staleWhileRevalidate(relaunchAfter: Double, expired: Bool) async throws {
        let store = MemoryStateStore()
        let first = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(2), etag: "\"v2\"", cacheControl: "max-age=60, stale-while-revalidate=60"))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            _ = await first.shutdownAndCountAds()
        }
        let second = try RemoteHarness(store: store, steps: [.respond(HTTP.Response(statusCode: 304))], wallClock: Date(timeIntervalSince1970: 1_796_220_000 + relaunchAfter))
        #expect(second.engine.configurationVersion == 2 && second.engine.configurationSource == .cache)
        #expect(second.engine.launchWarnings.map(\.code) == (expired ? [.configExpired] : []))
        try await second.clock.perform { () async throws in
            await second.advance(to: 1)
            #expect(second.transport.requests.count == 1) // revalidated at once either way
            #expect(second.updates.last?.code == .notModified)
            #expect(try await second.auction().configVersion == 2)
            #expect(await second.shutdownAndCountAds())
        }
    }

    @Test("a tampered cache file, a cache written by a newer version, or one the app's keys no longer verify: removed with a warning; the bundled configuration runs and the server is checked at once", arguments: ["tampered", "newer store format", "newer cache format", "key rotated"])
    func badCache(kind: String) async throws {
        let store = MemoryStateStore()
        let first = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(3), etag: "\"v3\"", cacheControl: "max-age=3600"))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            #expect(first.engine.configurationVersion == 3)
            _ = await first.shutdownAndCountAds()
        }
        var record = [UInt8](try #require(store.record(forKey: ConfigurationCache.key)))
        var expected = MediationEngine.RemoteConfiguration.Update.Code.cacheDiscarded
        switch kind {
        case "tampered":
            record[record.count / 2] ^= 0x01
            store.setRecord(Data(record), forKey: ConfigurationCache.key)
        case "newer store format":
            record[8] = 2
            store.setRecord(Data(record), forKey: ConfigurationCache.key)
        case "newer cache format":
            let value = try #require(try store.data(forKey: ConfigurationCache.key))
            let text = String(decoding: value, as: UTF8.self).replacingOccurrences(of: #""format":1"#, with: #""format":2"#)
            try store.setData(Data(text.utf8), forKey: ConfigurationCache.key)
        default:
            expected = .cacheInvalid
        }
        let second = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(3), etag: "\"v3\""))], settings: { remote in
            if kind == "key rotated" { remote.trustedKeys = [(try? ConfigurationSigningKey.generate())?.publicKey].compactMap { $0 } }
        })
        #expect(second.engine.configurationVersion == 0 && second.engine.configurationSource == .bundled)
        let warning = try #require(second.engine.launchWarnings.first)
        #expect(warning.code == expected && warning.outcome == .warning && warning.isWarning, "\(kind): \(warning)")
        #expect(second.updates.first == warning) // also published to onEvent
        #expect(try store.data(forKey: ConfigurationCache.key) == nil)
        try await second.clock.perform { () async throws in
            #expect(try await second.auction().configVersion == 0)
            if kind != "key rotated" { #expect(second.engine.configurationVersion == 3) } // checked at once, and version 3 is the floor, not older
            #expect(await second.shutdownAndCountAds())
        }
    }

    @Test("the device clock set back: the cached version runs, a warning says its age is unknown, the server is checked at once; a newer version issued 'in the future' applies")
    func deviceClockSetBack() async throws {
        let store = MemoryStateStore()
        let first = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(2), etag: "\"v2\"", cacheControl: "max-age=86400"))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            _ = await first.shutdownAndCountAds()
        }
        // A year earlier on the device's clock.
        let second = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(3, eCPM: "3.0"), etag: "\"v3\""))], wallClock: Date(timeIntervalSince1970: 1_796_220_000 - 365 * 86400))
        #expect(second.engine.configurationVersion == 2 && second.engine.configurationSource == .cache)
        #expect(second.engine.launchWarnings.map(\.code) == [.clockBehind])
        try await second.clock.perform { () async throws in
            await second.advance(to: 1)
            #expect(second.transport.requests.count == 1) // at once, not in a day
            #expect(second.engine.configurationVersion == 3)
            #expect(try await second.auction().winningECPM == 3.0)
            #expect(await second.shutdownAndCountAds())
        }
    }

    @Test("staged rollout: an install outside the percentage defers the version; inside, it applies; a wider rollout and a reset install id are taken at the next check")
    func stagedRollout() async throws {
        let installID = RemoteHarness.installID
        // Salts whose bucket for this install is known.
        let salt = try #require((0..<1000).map { "wave-\($0)" }.first { MediationConfiguration.Rollout(percent: 100, salt: $0)!.bucket(of: installID) >= 5000 })
        let bucket = try #require(MediationConfiguration.Rollout(percent: 100, salt: salt)).bucket(of: installID)
        let narrow = try #require(MediationConfiguration.Rollout(percent: 10, salt: salt))
        let wide = try #require(MediationConfiguration.Rollout(percent: Double(bucket + 1) / 100, salt: salt))
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(4, rollout: narrow), etag: "\"v4-10\"", cacheControl: "max-age=60")), .respond(ScriptedTransport.ok(try RemoteHarness.signed(4, rollout: wide), etag: "\"v4-wide\"", cacheControl: "max-age=60"))])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            let deferred = try #require(harness.updates.last)
            #expect(deferred.outcome == .deferred && deferred.code == .rolloutNotSelected && deferred.offeredVersion == 4 && !deferred.isWarning)
            #expect(harness.engine.configurationVersion == 0)
            #expect(!deferred.message.contains(installID) && !deferred.message.contains(String(bucket)))
            await harness.advance(to: 62)
            #expect(harness.engine.configurationVersion == 4) // the wider rollout includes this install
            #expect(await harness.shutdownAndCountAds())
        }
        // A reset install id draws a new bucket (and is kept in the store).
        let store = MemoryStateStore()
        let other = try RemoteHarness(store: store)
        try await other.engine.resetInstallID()
        let newID = String(decoding: try #require(try store.data(forKey: "install.id")), as: UTF8.self)
        #expect(newID != RemoteHarness.installID && newID.count == 32)
        _ = await other.shutdownAndCountAds()
    }

    @Test("staged rollout is keyed on the install, not the version: two installs on opposite sides of one 50 % rollout decide differently, and each decides the same for version 4 and then version 5")
    func stagedRolloutKeyedOnTheInstall() async throws {
        let inside = RemoteHarness.installID, outside = "ffeeddccbbaa99887766554433221100"
        // A salt that puts the two installs on opposite sides of 50 %.
        let salt = try #require((0..<1000).map { "wave-\($0)" }.first { salt in
            let rollout = MediationConfiguration.Rollout(percent: 50, salt: salt)!
            return rollout.includes(inside) && !rollout.includes(outside)
        })
        let half = try #require(MediationConfiguration.Rollout(percent: 50, salt: salt))
        let steps: [ScriptedTransport.Step] = [
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(4, rollout: half), etag: "\"v4\"", cacheControl: "max-age=60")),
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(5, rollout: half), etag: "\"v5\"", cacheControl: "max-age=60")),
        ]
        for (installID, takes) in [(inside, true), (outside, false)] {
            let store = MemoryStateStore()
            try store.setData(Data(installID.utf8), forKey: "install.id")
            let harness = try RemoteHarness(store: store, steps: steps)
            try await harness.clock.perform { () async throws in
                await harness.advance(to: 1)
                #expect(harness.engine.configurationVersion == (takes ? 4 : 0), "install \(installID), version 4")
                #expect(harness.updates.last?.outcome == (takes ? .applied : .deferred), "install \(installID), version 4")
                await harness.advance(to: 62)
                #expect(harness.transport.requests.count == 2)
                #expect(harness.engine.configurationVersion == (takes ? 5 : 0), "install \(installID), version 5")
                #expect(harness.updates.last?.outcome == (takes ? .applied : .deferred), "install \(installID), version 5")
                #expect(await harness.shutdownAndCountAds())
            }
        }
    }

    @Test("no-store: the configuration applies but is not kept on disk")
    func noStore() async throws {
        let store = MemoryStateStore()
        let harness = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "no-store, max-age=60"))])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == 1)
            #expect(try store.data(forKey: ConfigurationCache.key) == nil)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("a swap by the remote configuration during a placement's refresh: the running auction keeps its version; the next auction runs the new one")
    func remoteSwapDuringAPlacement() async throws {
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\""), after: .milliseconds(150))])
        let engine = harness.engine
        try await harness.clock.perform { () async throws in
            let placement = try #require(engine.placement("home_banner"))
            _ = await placement.attachView(visible: true) // auction at 0 under version 0; v1 applies at 0.150
            await harness.advance(to: 0.2)
            #expect(harness.recorder.traces.map(\.configVersion) == [0])
            #expect(engine.configurationVersion == 1)
            #expect(await placement.currentAd?.eCPM == 0.5) // the current ad stays to its refresh
            await harness.advance(to: 61)
            #expect(harness.recorder.traces.map(\.configVersion) == [0, 1])
            #expect(await placement.currentAd?.eCPM == 1.2)
            await placement.destroy()
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("a remote version that drops a placement: its config_applied comes first, then its consequences (the placement's ad released, placement_removed), and a store warning before it all")
    func appliedBeforeItsConsequences() async throws {
        let dropped = RemoteConfigFixture.configJSON(version: nil).replacingOccurrences(of: "home_banner", with: "other_banner")
        let signed = try RemoteConfigFixture().signed(version: 1, config: dropped)
        let store = MemoryStateStore()
        let harness = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(signed, etag: "\"v1\""), after: .milliseconds(150))])
        let engine = harness.engine
        try await harness.clock.perform { () async throws in
            let placement = try #require(engine.placement("home_banner"))
            _ = await placement.attachView(visible: true) // an ad loaded at 0.1, not shown; v1 applies at 0.150
            await harness.advance(to: 0.12)
            store.failAll("disk full")
            await harness.advance(to: 0.2)
            #expect(engine.configurationVersion == 1)
            let names = harness.recorder.names.drop { $0 != "config_warning" }
            #expect(Array(names) == ["config_warning", "config_applied", "released", "placement_removed"], "\(harness.recorder.names)")
            #expect(await harness.shutdownAndCountAds())
        }
    }
}
