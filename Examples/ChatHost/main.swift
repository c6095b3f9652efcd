// An example host: a chat app's ad layer embedding the mediation engine.
//
// It runs the repository's Config/mediation.json against the networks' in-process sandboxes,
// plus a network of the app's own (Examples/HouseAds), on a ManualClock (virtual time:
// as fast as the machine goes, the same lines every run), through one session of a user:
//   1. a chat screen with a native strip slot fed the conversation;
//   2. a feed with inline banners in rows that are created and destroyed as the user scrolls;
//   3. a game level whose end shows an interstitial;
//   4. a trip to the background and back, then the feed again.
// It prints what the user would have seen, and the engine's auctions and impressions.
//
// Run it from the repository root: `swift run chat-host-example`.

import Adapters
import Foundation
import HouseAds
import Mediation
import MediationTestKit

/// The screens' view of the ad layer: which host views show which placement, rendering each
/// new ad into every visible view (one impression per ad, engine rule R12).
actor AdLayer {
    private let engine: MediationEngine
    private var viewNames: [String: [Placement.ViewID: String]] = [:]
    private var shownAdIDs: [String: String] = [:]

    init(engine: MediationEngine) {
        self.engine = engine
    }

    /// A host view of `placementID` appears on screen.
    func showView(_ name: String, placementID: String, at clock: any MediationClock) async -> Placement.ViewID? {
        guard let placement = engine.placement(placementID) else { return nil }
        let view = await placement.attachView(visible: true)
        viewNames[placementID, default: [:]][view] = name
        await render(placementID, at: clock)
        return view
    }

    /// A host view leaves the screen and is destroyed (its row scrolled away, its screen closed).
    func removeView(_ view: Placement.ViewID, placementID: String, at clock: any MediationClock) async {
        guard let placement = engine.placement(placementID) else { return }
        await placement.detachView(view)
        let name = viewNames[placementID]?.removeValue(forKey: view) ?? "\(view)"
        say(clock, "\(name) scrolls away / closes (the ad stays with the placement)")
    }

    /// Renders the placement's current ad into its visible views; the first render of a new
    /// ad counts its impression.
    func render(_ placementID: String, at clock: any MediationClock) async {
        guard let placement = engine.placement(placementID), let current = await placement.currentAd else { return }
        let names = viewNames[placementID, default: [:]].values.sorted()
        guard !names.isEmpty else { return }
        if shownAdIDs[placementID] != current.ad.id {
            shownAdIDs[placementID] = current.ad.id
            _ = await placement.reportShown(current.ad)
            say(clock, "\(names.joined(separator: ", ")) now show\(names.count == 1 ? "s" : "") \(current.ad.network) ad \(current.ad.id) (\(current.ad.size), \(placementID))")
        } else {
            say(clock, "\(names.joined(separator: ", ")) show\(names.count == 1 ? "s" : "") the same \(current.ad.network) ad \(current.ad.id) (no new request, no new impression)")
        }
    }
}

/// Prints one line stamped with the virtual time.
func say(_ clock: any MediationClock, _ text: String) {
    print("[\(clock.now)] \(text)")
}

/// A USD amount with a fixed number of decimals, e.g. `1.20`.
func usd(_ value: Double, digits: Int = 2) -> String {
    String(format: "%.\(digits)f", value)
}

/// Moves virtual time to `seconds` from the start, waking every sleeper due on the way.
func run(_ clock: ManualClock, to seconds: Double) async {
    await clock.advance(to: MediationInstant.origin + .milliseconds(Int64(seconds * 1000)))
}

func main() async -> Int32 {
    let configURL = URL(fileURLWithPath: "Config/mediation.json")
    // The standard networks plus the app's own house ads (Examples/HouseAds): one
    // registration is all a third-party network needs.
    let registry = NetworkRegistry.standard.registering(HouseAdsFactory())
    var configuration: MediationConfiguration
    do {
        configuration = try MediationConfiguration(contentsOf: configURL, registry: registry)
    } catch {
        FileHandle.standardError.write(Data("chat-host-example: \(error) (run it from the repository root)\n".utf8))
        return 66
    }
    // The house ads backfill the level-end interstitial at 0.05 USD CPM, last in line.
    configuration.networks.append(MediationConfiguration.Network(id: "house", adapter: "house_ads", options: ["creative": .string("house-pro-upgrade")]))
    if let index = configuration.placements.firstIndex(where: { $0.id == "level_end" }) {
        configuration.placements[index].sources.append(.fixedPrice("house_level_end", network: "house", adUnitID: "house-interstitial", eCPM: 0.05))
    }
    // Virtual time: the run is the same, line for line, every time.
    let clock = ManualClock()

    let revenue = Locked((impressions: 0, usd: 0.0))
    let engine: MediationEngine
    do {
        engine = try MediationEngine(
            configuration: configuration,
            registry: registry,
            environment: MediationEnvironment(clock: clock, seed: 7, sandboxLatency: .milliseconds(90)),
            hostContext: { _ in AdRequest.Context(screenName: "Home") },
            onEvent: { event in
                switch event {
                case .auctionStarted(let placementID, let reason, _, let at, _, _, _):
                    print("[\(at)]   engine: \(placementID) auction started (\(reason.rawValue))")
                case .auctionFinished(let placementID, let trace, let at):
                    let result = trace.winner.map { "\($0) won at $\(usd(trace.winningECPM ?? 0)) CPM" } ?? "no fill"
                    print("[\(at)]   engine: \(placementID) auction ended after \(Int(trace.durationMilliseconds.rounded())) ms: \(result)")
                case .shown(let impression, let at):
                    revenue.withLock { total in
                        total.impressions += 1
                        total.usd += impression.revenueUSD
                    }
                    print("[\(at)]   engine: impression \(impression.network)/\(impression.lineItemID), revenue $\(usd(impression.revenueUSD, digits: 6)) USD")
                case .retired(let ad, let at):
                    print("[\(at)]   engine: \(ad.placementID) retired \(ad.adID) (the renderer keeps it)")
                case .released(let ad, let reason, let at):
                    print("[\(at)]   engine: \(ad.placementID) released \(ad.adID) (\(reason.rawValue))")
                case .expired(let ad, let at):
                    print("[\(at)]   engine: \(ad.placementID) \(ad.adID) expired unshown")
                case .networkPaused(let pause):
                    print("[\(pause.at)]   engine: network \(pause.networkID)\(pause.lineItemID.map { " line item \($0)" } ?? "") paused until \(pause.retryAt) (\(pause.cause.rawValue))")
                case .networkResumed(let networkID, _, let at, _, let lineItemID):
                    print("[\(at)]   engine: network \(networkID)\(lineItemID.map { " line item \($0)" } ?? "") resumed")
                case .capped(let placementID, _, let refusal, let at):
                    print("[\(at)]   engine: \(placementID) capped: \(refusal)")
                case .adLoaded, .clicked, .renderFailed, .refreshScheduled, .lateAnswer, .configuration, .placementRemoved, .exposure:
                    break
                }
            }
        )
    } catch {
        FileHandle.standardError.write(Data("chat-host-example: \(error)\n".utf8))
        return 65
    }
    // The session runs as a task on the clock, so virtual time knows when its work is done.
    return await clock.startTask { await session(engine: engine, clock: clock, revenue: revenue) }.value
}

/// One user's session, driving virtual time as it goes.
func session(engine: MediationEngine, clock: ManualClock, revenue: Locked<(impressions: Int, usd: Double)>) async -> Int32 {
    let layer = AdLayer(engine: engine)
    // Re-render a placement's visible views whenever it gets a new ad (a refresh).
    let events = engine.events()
    let renderer = clock.startTask {
        for await event in events {
            if case .adLoaded(let ad, _, _) = event { await layer.render(ad.placementID, at: clock) }
        }
    }

    // 1. The chat screen: the strip sits under the conversation and is fed it.
    say(clock, "User opens the chat")
    var conversation = [
        AdRequest.Context.Message(role: .user, content: "Any tips for a weekend trip to Kakheti?"),
        AdRequest.Context.Message(role: .assistant, content: "Visit Sighnaghi and a family winery in Telavi."),
    ]
    guard let strip = engine.placement("chat_strip"), let feed = engine.placement("feed_inline"), let levelEnd = engine.placement("level_end") else {
        FileHandle.standardError.write(Data("chat-host-example: the config needs chat_strip, feed_inline and level_end\n".utf8))
        return 65
    }
    await strip.setHostContext(AdRequest.Context(messages: conversation, screenName: "Chat"))
    let stripView = await layer.showView("chat strip", placementID: "chat_strip", at: clock)
    let stripLoad = clock.startTask { await strip.load() }
    await run(clock, to: 2)
    let stripResult = await stripLoad.value
    if stripResult.ad == nil { say(clock, "chat strip stays empty (no fill)") }
    await layer.render("chat_strip", at: clock)

    await run(clock, to: 12)
    conversation.append(AdRequest.Context.Message(role: .user, content: "Which winery has a tasting in English?"))
    await strip.setHostContext(AdRequest.Context(messages: conversation, screenName: "Chat"))
    say(clock, "User sends a message; the strip keeps its fresh ad")
    _ = await strip.load()
    await layer.render("chat_strip", at: clock)
    if let stripView { await layer.removeView(stripView, placementID: "chat_strip", at: clock) }

    // 2. The feed: rows 0-7 on screen, ads in rows 3 and 7; scrolling creates and destroys rows.
    await run(clock, to: 20)
    say(clock, "User opens the feed (rows 0-7 visible, ad slots in rows 3 and 7)")
    var feedRows: [Int: Placement.ViewID] = [:]
    for row in [3, 7] {
        if let view = await layer.showView("feed row \(row)", placementID: "feed_inline", at: clock) { feedRows[row] = view }
    }
    await run(clock, to: 35)
    say(clock, "User scrolls down: row 3 leaves, row 11 (an ad slot) appears")
    if let view = feedRows.removeValue(forKey: 3) { await layer.removeView(view, placementID: "feed_inline", at: clock) }
    if let view = await layer.showView("feed row 11", placementID: "feed_inline", at: clock) { feedRows[11] = view }
    await run(clock, to: 70)
    say(clock, "User leaves the feed (its ad rows are destroyed)")
    for (_, view) in feedRows.sorted(by: { $0.key < $1.key }) { await layer.removeView(view, placementID: "feed_inline", at: clock) }
    feedRows.removeAll()

    // 3. A game level: the interstitial is loaded at its start and shown at its end.
    say(clock, "User starts a level; the level-end interstitial preloads")
    let interstitial = clock.startTask { await levelEnd.load() }
    await run(clock, to: 130)
    say(clock, "Level complete!")
    let interstitialResult = await interstitial.value
    if let ad = interstitialResult.ad {
        switch await levelEnd.reportShown(ad.ad) {
        case .impression(let impression):
            say(clock, "full-screen \(impression.network) interstitial \(ad.ad.id) shown; the user closes it")
        case .expired, .alreadyShown, .notCurrent:
            say(clock, "no interstitial to show")
        case .refused(let refusal):
            say(clock, "the interstitial may not count now (\(refusal)); it stays for later")
        }
    } else {
        say(clock, "no interstitial this time (no fill)")
    }

    // 4. Background and back: refresh counts freeze while the app is away.
    await run(clock, to: 140)
    say(clock, "User opens the feed again (row 2 is an ad slot), then switches apps")
    let row2 = await layer.showView("feed row 2", placementID: "feed_inline", at: clock)
    await run(clock, to: 150)
    await engine.setForeground(false)
    say(clock, "App in the background: no refresh while away")
    await run(clock, to: 750)
    await engine.setForeground(true)
    say(clock, "User comes back 10 minutes later")
    let due = await feed.nextRefreshDue
    let interval = await feed.refreshInterval
    if let due, let interval {
        say(clock, "feed's next refresh is due at \(due): \(interval) of visible foreground time since its ad became current (the current ad's network may set the interval); time in the background did not count")
    }
    await run(clock, to: 800)
    if let row2 { await layer.removeView(row2, placementID: "feed_inline", at: clock) }

    await engine.shutdown()
    renderer.cancel()
    let total = revenue.withLock { $0 }
    say(clock, "Session over: \(total.impressions) impressions, revenue $\(usd(total.usd, digits: 6)) USD (eCPM / 1000 each)")
    return 0
}

exit(await main())
