/// Wraps an adapter to record each `loadAd` call into an ``HTTPExchangeRecorder``; every other
/// call goes straight to the adapter. The engine puts it around each adapter when the
/// environment has a recorder.
struct RecordingAdapter: AdNetworkAdapter {
    let base: any AdNetworkAdapter
    let networkID: String
    let clock: any MediationClock
    let recorder: HTTPExchangeRecorder

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        let startedAt = clock.now
        var call = AdapterCall(networkID: networkID, source: SourceAttribution.current, request: AdapterCall.summary(of: request), result: "no answer yet", startedAt: startedAt, endedAt: startedAt)
        let slot = recorder.begin(call)
        let result = await base.loadAd(for: request)
        switch result {
        case .bid(_, let eCPM): call.result = "bid \(eCPM)"
        case .fill: call.result = "fill"
        case .noFill(let reason): call.result = "no_fill (\(reason))"
        case .failure(let error): call.result = "failure (\(error))"
        }
        call.endedAt = clock.now
        if let slot { recorder.finish(slot, with: call) }
        return result
    }

    func auctionDidEnd(_ notice: AuctionNotice) { base.auctionDidEnd(notice) }
    var receivesAuctionNotices: Bool { base.receivesAuctionNotices }
    func didEnterBackground() async { await base.didEnterBackground() }
    func willEnterForeground() async { await base.willEnterForeground() }
    func willResignActive() async { await base.willResignActive() }
    func shutdown() async { await base.shutdown() }
    func forgetUser() async { await base.forgetUser() }
    func requestTemplateDidChange(_ template: RequestTemplate) { base.requestTemplateDidChange(template) }
    func status(for template: RequestTemplate) async -> NetworkStatus { await base.status(for: template) }
}
