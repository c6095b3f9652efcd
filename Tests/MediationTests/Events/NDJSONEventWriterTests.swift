import Foundation
import Mediation
import Testing

/// The NDJSON event log: one `EventRecord` a line, keys sorted, readable back, and nothing but
/// ids, prices, instants and traces.
@Suite("NDJSON event log")
struct NDJSONEventWriterTests {
    private let ad = MediationEvent.AdSummary(placementID: "home_banner", adID: "ad-1", creativeID: "cr-1", network: "neta", lineItemID: "li-1", format: .banner, size: AdSize(width: 320, height: 50), eCPM: 1.5)

    private func at(_ milliseconds: Int64) -> MediationInstant {
        MediationInstant(offset: .milliseconds(milliseconds))
    }

    @Test func everyEventIsOneSortedLineThatReadsBack() throws {
        let trace = AuctionTrace(
            auctionID: "a1", placementID: "home_banner", mode: .parallel,
            startedAtMilliseconds: 0, endedAtMilliseconds: 90, deadlineMilliseconds: 3000,
            winner: "li-1", winningECPM: 1.5,
            sources: [AuctionTrace.Source(lineItemID: "li-1", network: "neta", pricing: .fixedPrice, startOffsetMilliseconds: 0, latencyMilliseconds: 90, outcome: .won, eCPM: 1.5)]
        )
        let events: [MediationEvent] = [
            .auctionStarted(placementID: "home_banner", reason: .refresh, configVersion: 0, at: at(0)),
            .auctionFinished(placementID: "home_banner", trace: trace, at: at(90)),
            .adLoaded(ad, expiresAt: at(3_600_090), at: at(90)),
            .shown(MediationEvent.Impression(ad: ad), at: at(95)),
            .released(ad, reason: .replaced, at: at(60_095)),
            .refreshScheduled(placementID: "home_banner", dueAt: at(60_090), configVersion: 0, at: at(90)),
            .lateAnswer(MediationEvent.LateAnswer(auctionID: "a1", placementID: "home_banner", lineItemID: "li-2", arrivedAt: at(120), adReleased: true)),
        ]
        let lines = Locked<[String]>([])
        let writer = MediationEvent.NDJSONWriter { line in lines.withLock { $0.append(line) } }
        for event in events { writer.record(event) }
        let written = lines.withLock { $0 }
        #expect(written.count == events.count && writer.linesWritten == events.count)
        #expect(written.allSatisfy { $0.hasSuffix("}\n") && $0.dropLast().contains("\n") == false })
        #expect(written[0] == #"{"at_ms":0,"config_version":0,"event":"auction_started","placement":"home_banner","reason":"refresh"}"# + "\n")
        let records = try written.map { try JSONDecoder().decode(EventRecord.self, from: Data($0.utf8)) }
        #expect(records.map(\.event) == events.map(\.name))
        #expect(records[1].trace == trace)
        #expect(records[2].expiresAtMilliseconds == 3_600_090 && records[2].ad == ad)
        #expect(records[3].revenueUSD == 0.0015)
        #expect(records[4].reason == "replaced")
        #expect(records[5].dueAtMilliseconds == 60_090)
        #expect(records[6].lineItemID == "li-2" && records[6].adReleased == true && records[6].atMilliseconds == 120)
    }
}
