import Foundation
@testable import Mediation
import Testing

/// The HTTP rules of the remote configuration as a pure schedule: headers read as untrusted
/// input, max-age within the host's bounds, back-off doubling with a seeded jitter, the cache's
/// freshness across a launch.
@Suite("Remote fetch policy")
struct RemoteFetchPolicyTests {
    private static let settings = MediationEngine.RemoteConfiguration(url: URL(string: "https://c.example/x")!, trustedKeys: [], transport: HTTP.OriginLockedTransport(NoTransport(), endpoint: URL(string: "https://c.example")!), minimumInterval: .seconds(60), maximumInterval: .seconds(86_400), defaultInterval: .seconds(900), maximumBackoff: .seconds(3600))
    private static let wall = WallClockTime(millisecondsSince1970: 1_796_220_000_000)

    private struct NoTransport: HTTP.Transport {
        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            throw HTTP.TransportError(kind: .connection, message: "none")
        }
    }

    @Test("Cache-Control, ETag and Retry-After are read leniently and bounded; nonsense is ignored")
    func headers() {
        let parsed = HTTPCacheHeaders(["cache-control": "public, MAX-AGE=\"300\", stale-while-revalidate=60, no-store", "etag": "W/\"abc\"", "retry-after": "120"], wallClock: Self.wall)
        #expect(parsed.maxAge == 300 && parsed.staleWhileRevalidate == 60 && parsed.noStore && !parsed.noCache)
        #expect(parsed.entityTag == "W/\"abc\"" && parsed.retryAfter == 120)
        let hostile = HTTPCacheHeaders(["Cache-Control": "max-age=-5, max-age=1e9, stale-while-revalidate=99999999999999999999", "ETag": "\"a\u{1B}[2J\"", "Retry-After": "soon"], wallClock: Self.wall)
        #expect(hostile.maxAge == nil && hostile.staleWhileRevalidate == nil && hostile.entityTag == nil && hostile.retryAfter == nil)
        let huge = HTTPCacheHeaders(["Cache-Control": "max-age=999999999999", "ETag": String(repeating: "x", count: 300)], wallClock: Self.wall)
        #expect(huge.maxAge == HTTPCacheHeaders.maximumSeconds && huge.entityTag == nil)
        let dated = HTTPCacheHeaders(["Retry-After": "Tue, 01 Dec 2026 14:45:00 GMT"], wallClock: WallClockTime(rfc3339: "2026-12-01T14:40:00Z")!)
        #expect(dated.retryAfter == 300)
        let past = HTTPCacheHeaders(["Retry-After": "Tue, 01 Dec 2026 14:35:00 GMT"], wallClock: WallClockTime(rfc3339: "2026-12-01T14:40:00Z")!)
        #expect(past.retryAfter == 0)
    }

    @Test("max-age sets the next check within the host's bounds; none gives the default; no-cache the minimum")
    func maxAgeWithinBounds() {
        var policy = RemoteFetchPolicy(settings: Self.settings, seed: 1, now: .origin)
        #expect(policy.isDue(at: .origin))
        for (header, expected) in [("max-age=300", 300), ("max-age=5", 60), ("max-age=9999999", 86_400), ("", 900), ("no-cache", 60)] as [(String, Int64)] {
            policy.record(.answered(HTTPCacheHeaders(["Cache-Control": header], wallClock: Self.wall)), at: .origin)
            #expect(policy.nextCheck == .origin + .seconds(expected), "\(header)")
        }
        policy.record(.answered(HTTPCacheHeaders(["Cache-Control": "max-age=300, stale-while-revalidate=100", "ETag": "\"v\""], wallClock: Self.wall)), at: .origin)
        #expect(policy.freshness(at: .origin + .seconds(299)) == .fresh)
        #expect(policy.freshness(at: .origin + .seconds(350)) == .stale)
        #expect(policy.freshness(at: .origin + .seconds(400)) == .expired)
        #expect(policy.conditionalHeaders == ["If-None-Match": "\"v\""])
    }

    @Test("back-off: the minimum doubled per failure, times 1 to 1.5, at most the maximum; the same seed repeats; a success resets it")
    func backoff() {
        func delays(seed: UInt64) -> [Duration] {
            var policy = RemoteFetchPolicy(settings: Self.settings, seed: seed, now: .origin)
            return (0..<9).map { _ in
                policy.record(.failed, at: .origin)
                return policy.nextCheck - .origin
            }
        }
        let first = delays(seed: 42)
        #expect(first == delays(seed: 42))
        #expect(first != delays(seed: 43))
        for (index, delay) in first.enumerated() {
            let base = min(Duration.seconds(60 * (1 << index)), .seconds(3600))
            #expect(delay >= base && delay <= min(base * 1.5, .seconds(3600)), "failure \(index + 1): \(delay)")
        }
        #expect(first.last == .seconds(3600))
        var policy = RemoteFetchPolicy(settings: Self.settings, seed: 42, now: .origin)
        policy.record(.failed, at: .origin)
        policy.record(.failed, at: .origin)
        policy.record(.answered(HTTPCacheHeaders([:], wallClock: Self.wall)), at: .origin)
        #expect(policy.failures == 0)
        policy.record(.failed, at: .origin)
        #expect(policy.nextCheck - .origin < .seconds(90))
        policy.record(.busy(retryAfter: 7200), at: .origin)
        #expect(policy.nextCheck == .origin + .seconds(7200))
    }

    @Test("resuming from the cache: fresh checks at its expiry, stale at once, a clock set back at once and says so; the cache's own numbers are bounded again")
    func resume() {
        let fetched = WallClockTime(millisecondsSince1970: Self.wall.millisecondsSince1970 - 100_000)
        var fresh = RemoteFetchPolicy(settings: Self.settings, seed: 1, now: .origin)
        let freshResumed = fresh.resume(entityTag: "\"e\"", fetchedAt: fetched, maxAgeSeconds: 300, staleSeconds: 0, wallClock: Self.wall, now: .origin)
        #expect(freshResumed)
        #expect(fresh.nextCheck == .origin + .seconds(200) && fresh.entityTag == "\"e\"")
        var stale = RemoteFetchPolicy(settings: Self.settings, seed: 1, now: .origin)
        let staleResumed = stale.resume(entityTag: nil, fetchedAt: fetched, maxAgeSeconds: 60, staleSeconds: 0, wallClock: Self.wall, now: .origin)
        #expect(staleResumed)
        #expect(stale.nextCheck == .origin)
        var behind = RemoteFetchPolicy(settings: Self.settings, seed: 1, now: .origin)
        let behindResumed = behind.resume(entityTag: nil, fetchedAt: WallClockTime(millisecondsSince1970: Self.wall.millisecondsSince1970 + 86_400_000), maxAgeSeconds: 300, staleSeconds: 0, wallClock: Self.wall, now: .origin)
        #expect(!behindResumed)
        #expect(behind.nextCheck == .origin && behind.freshness(at: .origin) == .expired)
        var hostile = RemoteFetchPolicy(settings: Self.settings, seed: 1, now: .origin)
        _ = hostile.resume(entityTag: nil, fetchedAt: Self.wall, maxAgeSeconds: Int.max, staleSeconds: Int.max, wallClock: Self.wall, now: .origin)
        #expect(hostile.nextCheck == .origin + .seconds(86_400))
    }
}
