import Foundation
import Mediation
import Testing

@Suite("MediationStatistics")
struct MediationStatisticsTests {
    private func line(_ id: String, _ network: String, start: Double? = 0, latency: Double?, _ outcome: SourceOutcome, ad: Bool = false) -> AuctionTrace.Source {
        AuctionTrace.Source(lineItemID: id, network: network, pricing: .fixedPrice, startOffsetMilliseconds: start, latencyMilliseconds: latency, outcome: outcome, eCPM: ad ? 1 : nil, adID: ad ? "ad-\(id)" : nil)
    }

    private func trace(_ id: String, winner: String?, _ sources: [AuctionTrace.Source]) -> AuctionTrace {
        AuctionTrace(auctionID: id, placementID: "p", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 100, deadlineMilliseconds: 3000, winner: winner, winningECPM: winner == nil ? nil : 2, sources: sources)
    }

    private func impression(_ lineItem: String, _ network: String, eCPM: Double) -> MediationEvent.Impression {
        MediationEvent.Impression(ad: MediationEvent.AdSummary(placementID: "p", adID: "x", creativeID: "c", network: network, lineItemID: lineItem, format: .banner, size: AdSize(width: 320, height: 50), eCPM: eCPM))
    }

    @Test("nearest rank: the value at rank ceil(p/100 x n) of the sorted sample")
    func nearestRank() {
        #expect(MediationStatistics.Figures.nearestRank(50, of: [40, 10, 30, 20]) == 20)
        #expect(MediationStatistics.Figures.nearestRank(95, of: [40, 10, 30, 20]) == 40)
        #expect(MediationStatistics.Figures.nearestRank(25, of: [40, 10, 30, 20]) == 10)
        let hundred = (1...100).map(Double.init)
        #expect(MediationStatistics.Figures.nearestRank(99, of: hundred) == 99)
        #expect(MediationStatistics.Figures.nearestRank(95, of: hundred) == 95)
        #expect(MediationStatistics.Figures.nearestRank(50, of: hundred) == 50)
        #expect(MediationStatistics.Figures.nearestRank(100, of: hundred) == 100)
        #expect(MediationStatistics.Figures.nearestRank(50, of: []) == nil)
        #expect(MediationStatistics.Figures.nearestRank(0, of: [1]) == nil)
    }

    @Test("a scripted run of four auctions: requests, fills, wins, timeouts, errors, percentiles and revenue per network and line item")
    func scriptedRun() {
        var statistics = MediationStatistics()
        let events: [MediationEvent] = [
            .auctionFinished(placementID: "p", trace: trace("a1", winner: "bid", [
                line("bid", "elo", latency: 90, .won, ad: true),
                line("fix", "nitx", latency: 120, .lost(.lostToHigherBid), ad: true),
                line("tail", "admob", latency: nil, .cancelled(couldNotBeat: 2)),
            ]), at: MediationInstant(offset: .milliseconds(90))),
            .shown(impression("bid", "elo", eCPM: 2.5), at: MediationInstant(offset: .milliseconds(100))),
            .auctionFinished(placementID: "p", trace: trace("a2", winner: "fix", [
                line("bid", "elo", latency: 200, .noFill(AdLoadResult.NoFillReason(code: "nobid", message: "no bid"))),
                line("fix", "nitx", latency: 60, .won, ad: true),
                line("tail", "admob", latency: nil, .cancelled(couldNotBeat: 2)),
            ]), at: MediationInstant(offset: .seconds(60))),
            .shown(impression("fix", "nitx", eCPM: 1.2), at: MediationInstant(offset: .seconds(61))),
            .auctionFinished(placementID: "p", trace: trace("a3", winner: "tail", [
                line("bid", "elo", latency: nil, .timeout(.network)),
                line("fix", "nitx", latency: 30, .error(AdLoadResult.Error(kind: .network, code: 7, message: "boom"))),
                line("tail", "admob", latency: 40, .won, ad: true),
            ]), at: MediationInstant(offset: .seconds(120))),
            .auctionFinished(placementID: "p", trace: trace("a4", winner: nil, [
                line("bid", "elo", latency: 10, .noFill(AdLoadResult.NoFillReason(code: "nobid", message: "no bid"))),
                line("fix", "nitx", start: nil, latency: nil, .notAsked(.tierNotReached)),
                line("tail", "admob", latency: 20, .noFill(AdLoadResult.NoFillReason(code: "nofill", message: "none"))),
            ]), at: MediationInstant(offset: .seconds(180))),
            .lateAnswer(MediationEvent.LateAnswer(auctionID: "a3", placementID: "p", lineItemID: "bid", arrivedAt: MediationInstant(offset: .seconds(121)), adReleased: false)),
        ]
        for event in events { statistics.record(event) }

        #expect(statistics.auctions == 4)
        #expect(statistics.filledAuctions == 3)
        #expect(statistics.impressions == 2)
        #expect(abs(statistics.revenueUSD - 0.0037) < 1e-12)
        #expect(statistics.lateAnswers == 1)
        #expect(statistics.networks.map(\.id) == ["elo", "nitx", "admob"])
        #expect(statistics.lineItems.map(\.id) == ["bid", "fix", "tail"])

        let elo = statistics.networks[0]
        #expect(elo == MediationStatistics.Figures(
            id: "elo", network: "elo", requests: 4, fills: 1, wins: 1, timeouts: 1, errors: 0, impressions: 1, revenueUSD: 0.0025,
            fillRate: 0.25, winRate: 1, latencyP50Milliseconds: 90, latencyP95Milliseconds: 200, latencyP99Milliseconds: 200
        ))
        let nitx = statistics.lineItems[1]
        #expect(nitx.requests == 3) // never asked in a4
        #expect(nitx.fills == 2)
        #expect(nitx.wins == 1)
        #expect(nitx.errors == 1)
        #expect(nitx.fillRate == 2.0 / 3.0)
        #expect(nitx.winRate == 0.5)
        #expect(nitx.latencyP50Milliseconds == 60) // 30, 60, 120
        #expect(nitx.latencyP99Milliseconds == 120)
        #expect(abs(nitx.revenueUSD - 0.0012) < 1e-12)
        let admob = statistics.networks[2]
        #expect(admob.requests == 4)
        #expect(admob.fills == 1)
        #expect(admob.wins == 1)
        #expect(admob.latencyP50Milliseconds == 20)
        #expect(admob.latencyP95Milliseconds == 40)
        #expect(admob.impressions == 0)
    }

    @Test("rows encode with snake_case keys and null rates when nothing was asked")
    func encoding() throws {
        let row = MediationStatistics.Figures(id: "n", network: "n")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let text = String(decoding: try encoder.encode(row), as: UTF8.self)
        #expect(text == #"{"errors":0,"fills":0,"id":"n","impressions":0,"network":"n","requests":0,"revenue_usd":0,"timeouts":0,"wins":0}"#)
    }
}
