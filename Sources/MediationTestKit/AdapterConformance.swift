import Mediation

/// Runs any ``AdNetworkAdapter`` through the protocol's contract on virtual time, so a network's
/// author (or a host adding one) can check it in a test:
///
/// ```swift
/// let clock = ManualClock()
/// let adapter = try HouseAdsFactory().makeAdapter(for: network, environment: MediationEnvironment(clock: clock))
/// let report = await AdapterConformance.check(adapter, clock: clock, request: AdRequest(placementID: "p", format: .banner))
/// #expect(report.failures == [])
/// ```
///
/// What it checks (the contract in ``AdNetworkAdapter``'s documentation):
/// 1. **Answers once, by the deadline.** A request answers (one ``AdLoadResult``) no later than
///    ``AdRequest/deadline`` plus ``answerGrace`` of virtual time.
/// 2. **A valid answer.** A bid's price is finite and positive; an ad has a non-empty id, a
///    finite positive size in points, and the request's format.
/// 3. **Fresh ads.** Two loads never hand out the same ad id.
/// 4. **Honours cancellation, and releases on cancel.** A request whose task is cancelled while
///    it waits answers without moving virtual time, and with no ad: whatever it had loaded it
///    released itself. (When the adapter answers before it ever waits, this part cannot run
///    and the report says so in ``Report/notes``.)
/// 5. **Concurrent requests.** Several requests at once each answer once.
/// 6. **Idempotent release.** Calling `releaseResources()` twice on an ad does not crash.
///
/// The adapter must run on `clock` (built with `MediationEnvironment(clock: clock)`) and must
/// not wait on real I/O (use the network's sandbox or a fake transport).
public enum AdapterConformance {
    /// The virtual time allowed past a request's deadline for its answer.
    public static let answerGrace: Duration = .seconds(1)

    /// What the check found.
    public struct Report: Sendable, Hashable {
        /// Every broken rule, one sentence each; empty when the adapter conforms.
        public var failures: [String] = []
        /// What could not be checked, and why.
        public var notes: [String] = []

        /// Whether no rule was broken.
        public var conforms: Bool { failures.isEmpty }
    }

    /// Runs the checks.
    /// - Parameters:
    ///   - adapter: the adapter, built on `clock`.
    ///   - clock: the virtual clock it runs on.
    ///   - request: a request it can serve (its deadline is set from the clock's current
    ///     instant plus `request.timeBudget`).
    ///   - concurrentRequests: how many requests the concurrency check makes (default 4).
    /// - Returns: the report.
    public static func check(
        _ adapter: any AdNetworkAdapter,
        clock: ManualClock,
        request: AdRequest,
        concurrentRequests: Int = 4
    ) async -> Report {
        var report = Report()
        var seenAdIDs = Set<String>()

        // 1-3: one request, answered by its deadline, with a valid answer.
        for attempt in 1...2 {
            guard let result = await answer(adapter, clock: clock, request: fresh(request, clock: clock), report: &report, label: "request \(attempt)") else { continue }
            validate(result, request: request, label: "request \(attempt)", seen: &seenAdIDs, report: &report)
            if let ad = result.ad {
                ad.releaseResources()
                ad.releaseResources() // 6: a second release is harmless
            }
        }

        // 4: cancellation while waiting.
        let cancelRequest = fresh(request, clock: clock)
        let cancelled = Locked<AdLoadResult?>(nil)
        let task = clock.startTask {
            let result = await adapter.loadAd(for: cancelRequest)
            cancelled.withLock { $0 = result }
        }
        await clock.runUntilIdle()
        if let early = cancelled.withLock({ $0 }) {
            report.notes.append("the adapter answered before waiting on the clock, so cancellation could not be checked")
            early.ad?.releaseResources()
        } else {
            let before = clock.now
            task.cancel()
            await clock.runUntilIdle()
            if let result = cancelled.withLock({ $0 }) {
                if clock.now != before {
                    report.failures.append("a cancelled request moved virtual time before answering")
                }
                if let ad = result.ad {
                    report.failures.append("a cancelled request answered with an ad (\(ad.id)) instead of releasing what it loaded")
                    ad.releaseResources()
                }
            } else {
                report.failures.append("a cancelled request did not answer promptly (no answer without moving virtual time)")
                await clock.advance(to: cancelRequest.deadline + answerGrace)
                cancelled.withLock { $0 }?.ad?.releaseResources()
            }
        }
        // Not awaited: an adapter that never answers would hold the check forever.
        _ = task

        // 5: concurrent requests each answer once.
        let count = max(1, concurrentRequests)
        let results = Locked<[Int: AdLoadResult]>([:])
        let batch = fresh(request, clock: clock)
        for index in 0..<count {
            clock.startTask {
                let result = await adapter.loadAd(for: batch)
                results.withLock { $0[index] = result }
            }
        }
        await clock.advance(to: batch.deadline + answerGrace)
        let answered = results.withLock { $0 }
        if answered.count != count {
            report.failures.append("\(count - answered.count) of \(count) concurrent requests did not answer by the deadline")
        }
        for index in answered.keys.sorted() {
            guard let result = answered[index] else { continue }
            validate(result, request: request, label: "concurrent request \(index + 1)", seen: &seenAdIDs, report: &report)
            result.ad?.releaseResources()
        }
        return report
    }

    /// `request` with a deadline counted from the clock's current instant.
    private static func fresh(_ request: AdRequest, clock: ManualClock) -> AdRequest {
        var request = request
        request.deadline = clock.now + request.timeBudget
        return request
    }

    /// Runs one request to its answer, moving virtual time at most to its deadline plus the grace.
    private static func answer(_ adapter: any AdNetworkAdapter, clock: ManualClock, request: AdRequest, report: inout Report, label: String) async -> AdLoadResult? {
        let result = Locked<AdLoadResult?>(nil)
        clock.startTask {
            let answer = await adapter.loadAd(for: request)
            result.withLock { $0 = answer }
        }
        await clock.advance(to: request.deadline + answerGrace)
        guard let answer = result.withLock({ $0 }) else {
            report.failures.append("\(label) did not answer by its deadline (\(request.deadline)) plus \(answerGrace)")
            return nil
        }
        return answer
    }

    private static func validate(_ result: AdLoadResult, request: AdRequest, label: String, seen: inout Set<String>, report: inout Report) {
        if case .bid(_, let price) = result, !(price.isFinite && price > 0) {
            report.failures.append("\(label) bid a price that is not finite and positive: \(price)")
        }
        guard let ad = result.ad else { return }
        if ad.id.isEmpty { report.failures.append("\(label) handed out an ad with an empty id") }
        if !seen.insert(ad.id).inserted { report.failures.append("\(label) handed out the ad id \(ad.id) twice") }
        if !(ad.size.width.isFinite && ad.size.height.isFinite && ad.size.width > 0 && ad.size.height > 0) {
            report.failures.append("\(label) handed out an ad whose size is not finite and positive: \(ad.size)")
        }
        if ad.format != request.format {
            report.failures.append("\(label) handed out a \(ad.format) ad for a \(request.format) request")
        }
    }
}
