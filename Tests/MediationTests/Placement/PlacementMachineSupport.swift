import Mediation
import MediationTestKit
import Testing

/// Helpers for ``PlacementStateMachine`` tests: each event at an instant in seconds, its reply
/// and actions as short lines of text (`"= wait #1"`, `"auction_started load @0.000s"`,
/// `"timer 30.100s"`), so a test asserts the exact sequence in one comparison.
typealias Machine = PlacementStateMachine

extension PlacementStateMachine {
    /// A machine for `configuration`, in the foreground unless told.
    static func of(_ configuration: MediationConfiguration.Placement, foreground: Bool = true) -> Machine {
        Machine(configuration: configuration, foreground: foreground)
    }

    mutating func loading(_ seconds: Double) -> [String] {
        let (reply, actions) = load(at: at(seconds))
        return [text(reply)] + actions.map(text)
    }

    mutating func attaching(visible: Bool, _ seconds: Double) -> [String] {
        let (view, actions) = attachView(visible: visible, at: at(seconds))
        return ["= \(view)"] + actions.map(text)
    }

    mutating func visibility(_ visible: Bool, view: Int = 1, _ seconds: Double) -> [String] {
        setVisible(visible, for: Placement.ViewID(rawValue: view), at: at(seconds)).map(text)
    }

    mutating func detaching(view: Int, _ seconds: Double) -> [String] {
        detachView(Placement.ViewID(rawValue: view), at: at(seconds)).map(text)
    }

    mutating func foreground(_ foreground: Bool, sequence: UInt64, _ seconds: Double) -> [String] {
        setForeground(foreground, sequence: sequence, at: at(seconds)).map(text)
    }

    mutating func finishing(_ outcome: MediationEngine.AuctionOutcome, _ seconds: Double) -> [String] {
        auctionFinished(outcome, at: at(seconds)).map(text)
    }

    /// The timer set for `wakeUp` fires at `seconds` (default: at `wakeUp`).
    mutating func firing(_ wakeUp: Double, at seconds: Double? = nil) -> [String] {
        timerFired(for: at(wakeUp), at: at(seconds ?? wakeUp)).map(text)
    }

    mutating func showing(_ ad: any LoadedAd, _ seconds: Double) -> [String] {
        let (result, actions) = reportShown(ad, at: at(seconds))
        return [text(result)] + actions.map(text)
    }

    /// A show reported while the ad says `readiness`.
    mutating func showing(_ ad: any LoadedAd, readiness: ImpressionReadiness, _ seconds: Double) -> [String] {
        let (result, actions) = reportShown(ad, readiness: readiness, at: at(seconds))
        return [text(result)] + actions.map(text)
    }

    /// `ad` tells its sink it became ready, and now says `readiness`.
    mutating func becomingReady(_ ad: any LoadedAd, readiness: ImpressionReadiness = .ready, _ seconds: Double) -> [String] {
        adBecameReady(ad, readiness: readiness, at: at(seconds)).map(text)
    }

    /// `ad` tells its sink its creative failed.
    mutating func reportingRenderFailure(by ad: any LoadedAd, _ seconds: Double) -> [String] {
        adReportedRenderFailure(ad, at: at(seconds)).map(text)
    }

    mutating func clicking(_ ad: any LoadedAd, _ seconds: Double) -> [String] {
        let (counted, actions) = reportClick(ad, at: at(seconds))
        return ["= \(counted)"] + actions.map(text)
    }

    mutating func failingRender(_ ad: any LoadedAd, _ seconds: Double) -> [String] {
        let (reply, actions) = reportRenderFailure(ad, at: at(seconds))
        return [text(reply)] + actions.map(text)
    }

    mutating func destroying(_ seconds: Double) -> [String] {
        destroy(at: at(seconds)).map(text)
    }
}

/// A test ad of network `neta`.
func testAd(_ id: String, _ format: AdFormat = .banner, timeToLive: Duration? = nil, serverRefreshSeconds: Int? = nil) -> ScriptedAd {
    ScriptedAd(id: id, network: "neta", format: format, timeToLive: timeToLive, serverRefreshSeconds: serverRefreshSeconds)
}

/// An auction outcome won by `ad`, which arrived at `arrived` seconds.
func filled(_ ad: any LoadedAd, arrived: Double, lineItem: LineItem = PlacementFixture.sources[1], eCPM: Double = 1.20, auctionID: String = "auction-1") -> MediationEngine.AuctionOutcome {
    let winner = MediationEngine.AuctionOutcome.Winner(ad: ad, lineItem: lineItem, eCPM: eCPM, arrivedAt: at(arrived))
    return MediationEngine.AuctionOutcome(winner: winner, trace: trace(auctionID: auctionID, winner: lineItem.id, eCPM: eCPM))
}

/// An auction outcome with no fill.
func unfilled(auctionID: String = "auction-1") -> MediationEngine.AuctionOutcome {
    MediationEngine.AuctionOutcome(winner: nil, trace: trace(auctionID: auctionID, winner: nil, eCPM: nil))
}

private func trace(auctionID: String, winner: String?, eCPM: Double?) -> AuctionTrace {
    AuctionTrace(auctionID: auctionID, placementID: "p", mode: .parallel, startedAtMilliseconds: 0, endedAtMilliseconds: 0, deadlineMilliseconds: 0, winner: winner, winningECPM: eCPM, sources: [])
}

/// A placement that shares a shown ad and does not refresh.
let feedNative = MediationConfiguration.Placement(id: "feed_native", format: .native, sources: PlacementFixture.sources)

func text(_ reply: Machine.LoadReply) -> String {
    switch reply {
    case .ready(let result): "= ready \(text(result))"
    case .wait(let ticket): "= wait \(ticket)"
    }
}

func text(_ result: Placement.LoadResult) -> String {
    switch result {
    case .loaded(let ad): "loaded \(ad.ad.id)"
    case .noFill: "no fill"
    case .destroyed: "destroyed"
    }
}

func text(_ result: Placement.ShowResult) -> String {
    switch result {
    case .impression(let impression): "= impression \(impression.ad.adID)"
    case .alreadyShown: "= alreadyShown"
    case .expired: "= expired"
    case .notCurrent: "= notCurrent"
    case .refused(let refusal): "= refused \(text(refusal))"
    }
}

func text(_ refusal: Placement.ShowResult.Refusal) -> String {
    switch refusal {
    case .background: "background"
    case .noVisibleView: "noVisibleView"
    case .notReady(let reason): "notReady: \(reason)"
    case .notAllowed(let reason): "notAllowed: \(reason)"
    case .capped(let refusal): "capped: \(refusal)"
    }
}

func text(_ action: Machine.Action) -> String {
    switch action {
    case .emit(let event):
        text(event)
    case .startAuction(let start):
        "start \(start.reason.rawValue)" + (start.excludedLineItems.isEmpty ? "" : " without \(start.excludedLineItems.sorted().joined(separator: ","))")
    case .cancelAuction:
        "cancel auction"
    case .setTimer(let wakeUp):
        "timer \(wakeUp.map(\.description) ?? "off")"
    case .release(let ad):
        "release \(ad.id)"
    case .recordRender(let ad):
        "render \(ad.id)"
    case .recordImpression(let ad):
        "impression \(ad.id)"
    case .recordClick(let ad):
        "click \(ad.id)"
    case .deliver(let result, let tickets):
        "deliver \(text(result)) to \(tickets.map(\.description).joined(separator: " "))"
    case .log(let level, let message):
        "log \(level): \(message)"
    case .ended:
        "ended"
    }
}

func text(_ event: MediationEvent) -> String {
    switch event {
    case .auctionStarted(_, let reason, _, let instant, _, _, _):
        "auction_started \(reason.rawValue) @\(instant)"
    case .auctionFinished(_, let trace, let instant):
        "auction_finished \(trace.winner ?? "no fill") @\(instant)"
    case .adLoaded(let ad, let expiresAt, let instant):
        "ad_loaded \(ad.adID) until \(expiresAt) @\(instant)"
    case .shown(let impression, let instant):
        "shown \(impression.ad.adID) @\(instant)"
    case .clicked(let ad, let instant), .retired(let ad, let instant), .expired(let ad, let instant), .renderFailed(let ad, let instant):
        "\(event.name) \(ad.adID) @\(instant)"
    case .released(let ad, let reason, let instant):
        "released \(ad.adID) \(reason.rawValue) @\(instant)"
    case .refreshScheduled(_, let due, _, let instant, _):
        "refresh_scheduled \(due) @\(instant)"
    case .lateAnswer(let late):
        "late_answer \(late.lineItemID) @\(late.arrivedAt)"
    case .configuration(let update):
        "config_\(update.outcome.rawValue) v\(update.runningVersion) @\(update.at)"
    case .placementRemoved(let placementID, let version, let instant):
        "placement_removed \(placementID) v\(version) @\(instant)"
    case .networkPaused(let pause):
        "network_paused \(pause.networkID) until \(pause.retryAt) @\(pause.at)"
    case .networkResumed(let networkID, _, let instant, _, _):
        "network_resumed \(networkID) @\(instant)"
    case .exposure(let exposure):
        "exposure \(exposure.arm) @\(exposure.at)"
    case .capped(let placementID, _, let refusal, let instant):
        "capped \(placementID) \(refusal) @\(instant)"
    }
}
