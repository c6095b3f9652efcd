import Foundation
import Mediation
import MediationTestKit
import Testing

/// Engine rule R16: no value a network sends can crash the host or stop a placement for good.
@Suite("R16 untrusted network values")
struct UntrustedNetworkValueTests {
    @Test("a TTL and a refresh of 9223372036854775807 s: the ad expires after the format's 1 h, the refresh is lowered to one day with a warning, and every event still prints")
    func absurdTTLAndRefreshAreBounded() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 60),
            netAAds: .init(timeToLive: .seconds(Int64.max), serverRefreshSeconds: Int.max)
        )
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            let current = try #require(await placement.currentAd)
            #expect(current.expiry.expiresAt == at(0.1) + .seconds(3600))
            #expect(await placement.refreshInterval == .seconds(86_400))
            #expect(await placement.nextRefreshDue == at(0.1) + .seconds(86_400))
            #expect(fixture.logger.warnings.count == 1)
            #expect(fixture.logger.warnings.first?.contains("lowered to 86400 s") == true)
            for event in fixture.recorder.events {
                #expect(!event.description.isEmpty)
            }
        }
    }

    @Test("a server refresh of 1e10 s does not freeze the slot: refresh due after one day, and the ad (TTL at most 1 h) is replaced when it expires")
    func hugeRefreshIsClampedToOneDay() async throws {
        let fixture = try PlacementFixture(
            placement: PlacementFixture.homeBanner(refreshSeconds: 60),
            netA: [.after(ms(100), .fill)],
            netAAds: .init(timeToLive: .seconds(10_000_000_000), serverRefreshSeconds: 10_000_000_000)
        )
        try await fixture.clock.perform {
            let placement = try fixture.placement
            _ = await placement.attachView(visible: true)
            await fixture.advance(to: at(0.1))
            #expect(await placement.refreshInterval == .seconds(86_400))
            #expect(await placement.nextRefreshDue == at(86_400.1))
            await fixture.advance(to: at(3600.1))
            // The banner's ad expired after its format's hour; the seen placement reloads at once.
            #expect(fixture.auctionStarts == [at(0), at(3600.1)])
            await fixture.advance(to: at(3600.2))
            #expect(await placement.currentAd != nil)
        }
    }

    @Test("formatting an instant never traps, however far: Int64.max seconds, Int64.min seconds")
    func instantsAlwaysFormat() {
        #expect(MediationInstant(offset: .seconds(Int64.max)).description == "9223372036854775807.000s")
        #expect(MediationInstant(offset: .seconds(Int64.min)).description == "-9223372036854775808.000s")
        #expect(MediationInstant(offset: .milliseconds(30_100)).description == "30.100s")
        #expect(MediationInstant(offset: .microseconds(-1500)).description == "-0.002s")
        #expect(MediationInstant(offset: .microseconds(999_999_600)).description == "1000.000s")
        let far = MediationInstant(offset: .seconds(Int64.max))
        let summary = MediationEvent.AdSummary(placementID: "p", adID: "a", creativeID: "c", network: "n", lineItemID: "l", format: .banner, size: AdSize(width: 320, height: 50), eCPM: 1)
        let events: [MediationEvent] = [
            .adLoaded(summary, expiresAt: far, at: far),
            .refreshScheduled(placementID: "p", dueAt: far, configVersion: 0, at: .origin),
            .auctionFinished(placementID: "p", trace: AuctionTrace(auctionID: "x", placementID: "p", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 9.3e21, deadlineMilliseconds: .nan, winner: nil, winningECPM: nil, sources: []), at: far),
        ]
        for event in events {
            #expect(event.description.contains("9223372036854775807"))
        }
        #expect(Duration.saturating(milliseconds: .nan) == .zero)
        #expect(Duration.saturating(milliseconds: 1e300) == .milliseconds(Int64(9.2e18)))
    }

    @Test("SystemClock.sleep with an absurd deadline does not trap: it waits (a day at a time) until cancelled")
    func systemClockSleepsUntilAnAbsurdDeadline() async {
        let clock = SystemClock()
        let sleeper = Task {
            do {
                try await clock.sleep(until: MediationInstant(offset: .seconds(Int64.max)))
                return "returned"
            } catch {
                return "cancelled"
            }
        }
        sleeper.cancel()
        #expect(await sleeper.value == "cancelled")
    }
}
