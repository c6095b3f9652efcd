import Foundation
@testable import Mediation
import MediationTestKit
import Testing

/// Red-team attacks on the remote configuration's driver and its cache (engine rule R22, R21):
/// entity-tag games, replays across relaunches with a tampered or removed cache and applied
/// version, hostile retry headers, and a state directory that fights back. In every case the
/// app keeps serving ads from the best valid configuration, says why, and loses no ad.
@Suite("Red team: remote configuration")
struct RedTeamRemoteConfigTests {
    @Test("a 304 to an unconditional request (nothing held) applies nothing and plants no entity tag")
    func notModifiedWithNothingHeld() async throws {
        let harness = try RemoteHarness(steps: [
            .respond(HTTP.Response(statusCode: 304, headers: ["ETag": "\"v9\"", "Cache-Control": "max-age=60"])),
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"")),
        ])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.engine.configurationVersion == 0)
            #expect(harness.updates.last?.code == .notModified)
            // It confirms nothing: the message must not say a configuration is held.
            #expect(harness.updates.last?.message.contains("named no configuration") == true, "\(harness.updates.last?.message ?? "")")
            await harness.advance(to: 62)
            #expect(harness.transport.requests.count == 2)
            // The 304's tag was never a representation this install held: it is not sent back,
            // or a server would answer 304 to it for ever and version 1 would never arrive.
            #expect(harness.transport.requests[1].headers["If-None-Match"] == nil)
            #expect(harness.engine.configurationVersion == 1)
            #expect(try await harness.auction().configVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("a 304 naming another entity tag does not replace the one held (in memory or in the cache across a relaunch)")
    func notModifiedWithAnotherTag() async throws {
        let store = MemoryStateStore()
        let first = try RemoteHarness(store: store, steps: [
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(2), etag: "\"v2\"", cacheControl: "max-age=60")),
            .respond(HTTP.Response(statusCode: 304, headers: ["ETag": "\"v3\"", "Cache-Control": "max-age=60"])),
            .respond(HTTP.Response(statusCode: 304, headers: ["Cache-Control": "max-age=60"])),
        ])
        try await first.clock.perform { () async throws in
            await first.advance(to: 130)
            #expect(first.transport.requests.count == 3)
            #expect(first.transport.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v2\"", "\"v2\""])
            #expect(first.engine.configurationVersion == 2)
            #expect(await first.shutdownAndCountAds())
        }
        let second = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(3), etag: "\"v3\""))], wallClock: Date(timeIntervalSince1970: 1_796_220_000 + 3600))
        try await second.clock.perform { () async throws in
            await second.advance(to: 1)
            #expect(second.transport.requests.first?.headers["If-None-Match"] == "\"v2\"")
            #expect(second.engine.configurationVersion == 3)
            #expect(await second.shutdownAndCountAds())
        }
    }

    @Test("a refused configuration's entity tag is never sent back (a forged body cannot pin the install to 304s)")
    func refusedTagNotKept() async throws {
        var forged = try SignedConfiguration.parse(try RemoteHarness.signed(5, eCPM: "9.9")).get()
        forged.payload[forged.payload.count / 2] ^= 0x01
        let harness = try RemoteHarness(steps: [
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(1), etag: "\"v1\"", cacheControl: "max-age=60")),
            .respond(ScriptedTransport.ok(forged.rendered(), etag: "\"evil\"")),
            .respond(HTTP.Response(statusCode: 304)),
        ])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 400)
            let tags = harness.transport.requests.map { $0.headers["If-None-Match"] }
            #expect(tags.count >= 3 && !tags.contains("\"evil\""))
            #expect(harness.updates.contains { $0.code == .badSignature && $0.isWarning })
            #expect(harness.engine.configurationVersion == 1)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("the same version re-signed with other content is not applied: a version names one configuration")
    func sameVersionOtherContent() async throws {
        let harness = try RemoteHarness(steps: [
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(2, eCPM: "1.2"), etag: "\"a\"", cacheControl: "max-age=60")),
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(2, eCPM: "9.9"), etag: "\"b\"", cacheControl: "max-age=60")),
        ])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 62)
            #expect(harness.updates.last?.code == .sameVersion)
            #expect(try await harness.auction().winningECPM == 1.2)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("replay after a relaunch: the cache swapped for an older, validly signed envelope is removed; the old version served again is refused")
    func replayOlderEnvelopeIntoTheCache() async throws {
        let store = MemoryStateStore()
        // Version 1 was cached once; keep its record, as an attacker with a backup would.
        let zeroth = try RemoteHarness(store: MemoryStateStore(), steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1, eCPM: "0.1"), etag: "\"v1\""))])
        try await zeroth.clock.perform { () async throws in
            await zeroth.advance(to: 1)
            _ = await zeroth.shutdownAndCountAds()
        }
        let oldRecord = try #require(try zeroth.store.data(forKey: ConfigurationCache.key))
        let first = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(4), etag: "\"v4\""))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            #expect(first.engine.configurationVersion == 4)
            _ = await first.shutdownAndCountAds()
        }
        try store.setData(oldRecord, forKey: ConfigurationCache.key) // a well-formed record of version 1
        let second = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1, eCPM: "0.1"), etag: "\"v1\""))])
        #expect(second.engine.configurationVersion == 0 && second.engine.configurationSource == .bundled)
        #expect(second.engine.launchWarnings.map(\.code) == [.cacheInvalid])
        #expect(try store.data(forKey: ConfigurationCache.key) == nil)
        try await second.clock.perform { () async throws in
            await second.advance(to: 1)
            let refused = try #require(second.updates.last)
            #expect(refused.code == .olderThanApplied && refused.isWarning && refused.offeredVersion == 1)
            #expect(try await second.auction().winningECPM == 0.5)
            #expect(await second.shutdownAndCountAds())
        }
    }

    @Test("a tampered config.applied_version is discarded with a warning; the cached version running raises the floor again, so an older version is still refused",
          arguments: ["garbage", "-5", "99999999999999999999", "9007199254740992", " 4", "4\n", "", String(repeating: "9", count: 5000), "+4", "04"])
    func tamperedAppliedVersion(value: String) async throws {
        let store = MemoryStateStore()
        let first = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(4), etag: "\"v4\""))])
        try await first.clock.perform { () async throws in
            await first.advance(to: 1)
            _ = await first.shutdownAndCountAds()
        }
        try store.setData(Data(value.utf8), forKey: ConfigurationCache.appliedVersionKey)
        let second = try RemoteHarness(store: store, steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(3), etag: "\"v3\""))], wallClock: Date(timeIntervalSince1970: 1_796_220_000 + 7200))
        #expect(second.engine.configurationVersion == 4 && second.engine.configurationSource == .cache)
        #expect(second.engine.launchWarnings.contains { $0.code == .cacheDiscarded }, "\(value)")
        #expect(ConfigurationCache(store: store).appliedVersion().version == 4)
        try await second.clock.perform { () async throws in
            await second.advance(to: 1)
            #expect(second.updates.last?.code == .notNewer)
            #expect(second.engine.configurationVersion == 4)
            #expect(await second.shutdownAndCountAds())
        }
    }

    @Test("foreign or hostile cache metadata is discarded with a warning and never trusted",
          arguments: ["{}", "[]", "null", #"{"format": 1}"#, #"{"format": 1, "fetched_at_ms": "x", "max_age_s": 1, "stale_while_revalidate_s": 0}"#,
                      #"{"format": 1, "fetched_at_ms": 1e40, "max_age_s": 1, "stale_while_revalidate_s": 0}"#, #"{"format": -1, "fetched_at_ms": 0, "max_age_s": 1, "stale_while_revalidate_s": 0}"#,
                      #"{"format": 99999999999999999999, "fetched_at_ms": 0, "max_age_s": 1, "stale_while_revalidate_s": 0}"#, String(repeating: " ", count: 5000),
                      // A repeated key (`JSONDecoder` alone keeps one of the two, by platform) and text after the object.
                      #"{"format": 1, "fetched_at_ms": 1796220000000, "max_age_s": 3600, "stale_while_revalidate_s": 0, "format": 2}"#,
                      #"{"format": 2, "fetched_at_ms": 1796220000000, "max_age_s": 3600, "stale_while_revalidate_s": 0, "format": 1}"#,
                      #"{"format": 1, "fetched_at_ms": 1796220000000, "max_age_s": 3600, "stale_while_revalidate_s": 0} x"#])
    func hostileCacheMetadata(metadata: String) async throws {
        let store = MemoryStateStore()
        let envelope = try RemoteHarness.signed(3)
        try store.setData(Data((metadata + "\n").utf8) + envelope, forKey: ConfigurationCache.key)
        let harness = try RemoteHarness(store: store, steps: [.respond(HTTP.Response(statusCode: 304))])
        #expect(harness.engine.configurationVersion == 0 && harness.engine.configurationSource == .bundled)
        #expect(harness.engine.launchWarnings.map(\.code) == [.cacheDiscarded], "\(metadata)")
        #expect(try store.data(forKey: ConfigurationCache.key) == nil)
        try await harness.clock.perform { () async throws in
            #expect(try await harness.auction().configVersion == 0)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("hostile metadata that parses (a fetch time at Int64's limits, a huge or negative max-age) runs the cache and checks within the bounds, never trapping",
          arguments: [(Int64.max, Int.max), (Int64.min, Int.min), (-9_000_000_000_000_000_000, 0), (0, -1), (1_796_220_000_000, Int.max)] as [(Int64, Int)])
    func extremeCacheMetadata(fetchedAt: Int64, maxAge: Int) async throws {
        let store = MemoryStateStore()
        var metadata = ConfigurationCache.Metadata(entityTag: "\"v3\"", fetchedAt: WallClockTime(millisecondsSince1970: fetchedAt), maxAgeSeconds: maxAge, staleSeconds: maxAge)
        metadata.format = ConfigurationCache.format
        try ConfigurationCache(store: store).write(try RemoteHarness.signed(3), metadata: metadata)
        let harness = try RemoteHarness(store: store, steps: [.respond(HTTP.Response(statusCode: 304, headers: ["Cache-Control": "max-age=60"]))])
        #expect(harness.engine.configurationVersion == 3)
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 86_401)
            #expect(!harness.transport.requests.isEmpty) // checked within the longest interval
            #expect(try await harness.auction().configVersion == 3)
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test("429 with an absurd Retry-After waits at most the longest interval; 503 with Retry-After 0 waits the shortest, never a busy loop",
          arguments: [("99999999999999999", 86_400.0), ("0", 60.0), ("-1", -1), ("Fri, 31 Dec 9999 23:59:59 GMT", 86_400.0)] as [(String, Double)])
    func absurdRetryAfter(value: String, expected: Double) async throws {
        let harness = try RemoteHarness(steps: [.respond(HTTP.Response(statusCode: value == "0" ? 503 : 429, headers: ["Retry-After": value]))])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            let busy = try #require(harness.updates.last)
            #expect(busy.code == .serverBusy && busy.isWarning)
            let next = try #require(busy.nextCheckAt) - busy.at
            if expected < 0 {
                #expect(next >= .seconds(60) && next <= .seconds(90)) // unreadable: the back-off
            } else {
                #expect(next == .milliseconds(Int64(expected * 1000)), "\(value): \(next)")
            }
            #expect(harness.transport.requests.count == 1)
            #expect(try await harness.auction().configVersion == 0)
            #expect(await harness.shutdownAndCountAds())
        }
    }
    @Test("a reset install id re-asks for a version its old bucket deferred: the deferred version's entity tag is not sent back")
    func resetInstallIDForgetsTheDeferredTag() async throws {
        let salt = try #require((0..<1000).map { "wave-\($0)" }.first { MediationConfiguration.Rollout(percent: 100, salt: $0)!.bucket(of: RemoteHarness.installID) >= 5000 })
        let narrow = try #require(MediationConfiguration.Rollout(percent: 10, salt: salt))
        let harness = try RemoteHarness(steps: [
            .respond(ScriptedTransport.ok(try RemoteHarness.signed(4, rollout: narrow), etag: "\"v4-10\"", cacheControl: "max-age=60")),
            .respond(HTTP.Response(statusCode: 304)),
        ])
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            #expect(harness.updates.last?.code == .rolloutNotSelected)
            try await harness.engine.resetInstallID()
            await harness.advance(to: 62)
            #expect(harness.transport.requests.count == 2)
            // With the old tag the server would answer 304 and the new bucket would never be asked.
            #expect(harness.transport.requests[1].headers["If-None-Match"] == nil)
            #expect(await harness.shutdownAndCountAds())
        }
    }
    @Test("shutdown while a check is in flight: the newer version that arrives afterwards is never applied, nothing is published after shutdown, no ad is lost")
    func shutdownDuringAFetch() async throws {
        let harness = try RemoteHarness(steps: [.respond(ScriptedTransport.ok(try RemoteHarness.signed(1, eCPM: "9.0"), etag: "\"v1\""), after: .seconds(5))])
        let engine = harness.engine
        try await harness.clock.perform { () async throws in
            #expect(try await harness.auction().configVersion == 0)
            let shutdown = harness.clock.startTask { await engine.shutdown() }
            await harness.clock.runUntilIdle()
            await shutdown.value
            let published = harness.recorder.events.count
            await harness.advance(to: 30)
            #expect(engine.configurationVersion == 0)
            #expect(!harness.updates.contains { $0.outcome == .applied })
            #expect(harness.recorder.events.count == published, "events published after shutdown")
            #expect(await engine.checkConfiguration() == nil)
            #expect(harness.neta.ads.allSatisfy { $0.releaseCount == 1 && $0.impressionCount == 0 })
        }
    }
    @Test("a cached entity tag is untrusted too: one with CR LF (a header injection), control bytes or 4 KB is never sent back",
          arguments: ["\"a\"\r\nX-Injected: 1", "\"a\u{7}\"", String(repeating: "x", count: 3000), "", "\"ok\" \"two\""])
    func tamperedCachedEntityTag(tag: String) async throws {
        let store = MemoryStateStore()
        let metadata = ConfigurationCache.Metadata(entityTag: tag, fetchedAt: WallClockTime(millisecondsSince1970: 1_796_220_000_000 - 3_600_000), maxAgeSeconds: 60, staleSeconds: 0)
        try ConfigurationCache(store: store).write(try RemoteHarness.signed(3), metadata: metadata)
        let harness = try RemoteHarness(store: store, steps: [.respond(HTTP.Response(statusCode: 304))])
        #expect(harness.engine.configurationVersion == 3)
        try await harness.clock.perform { () async throws in
            await harness.advance(to: 1)
            let sent = try #require(harness.transport.requests.first).headers["If-None-Match"]
            #expect(sent == nil, "\(sent ?? "")")
            #expect(await harness.shutdownAndCountAds())
        }
    }

    @Test(
        "a server that never answers, outside virtual time, cannot hold a virtual-time run still: the wait gives up after the fetch timeout's real-time budget, once per check, and the timeout fires at its virtual instant",
        .timeLimit(.minutes(10))
    )
    func silentServerUnderVirtualTime() async throws {
        let transport = SilentTransport()
        let harness = try RemoteHarness(settings: { $0.transport = transport })
        try await harness.clock.perform { () async throws in
            await harness.clock.runUntilIdle()
            #expect(transport.requestCount == 1, "the launch check is in flight")
            // The budget's real time runs out at once (a server trickling its bytes, or silent).
            let budgets = Locked<[Duration]>([])
            await harness.engine.configurationChecksSettled { length in budgets.withLock { $0.append(length) } }
            #expect(budgets.withLock { $0 } == [.seconds(10)], "one wait of the fetch timeout")
            await harness.engine.configurationChecksSettled { _ in Issue.record("a check given up on is waited for again") }
            await harness.advance(to: 10)
            let update = try #require(harness.updates.last)
            #expect(update.code == .timeout && update.at == .origin + .seconds(10), "\(update)")
            #expect(update.message == "no complete response within the fetch timeout", "\(update)")
            #expect(harness.engine.configurationVersion == 0)
            #expect(try await harness.auction().configVersion == 0)
            #expect(await harness.shutdownAndCountAds())
        }
    }
}

/// A configuration server outside virtual time that accepts and never answers (or trickles its
/// bytes for ever): only cancellation ends a request.
private final class SilentTransport: HTTP.Transport {
    private let state = Locked<(requests: Int, streams: [AsyncStream<Never>.Continuation])>((0, []))

    /// The requests received.
    var requestCount: Int { state.withLock { $0.requests } }

    func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
        let (stream, continuation) = AsyncStream.makeStream(of: Never.self)
        state.withLock { state in
            state.requests += 1
            state.streams.append(continuation) // held, so the stream ends only on cancellation
        }
        for await _ in stream {}
        throw HTTP.TransportError(kind: .cancelled, message: "request cancelled")
    }
}
