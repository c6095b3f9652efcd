import Foundation
import Mediation

/// The Nitx client for one mobile source (Nitx seed, "Start", "Request mode", "Consent and
/// identify"): an actor instance owned by its adapter (no singleton). Every call is safe from
/// any task and never throws into the host.
///
/// It loads the source's config (`GET /api/ad-mobiles/show/{code}`) before the first request,
/// warns when the source's bundle id is not the app's, calls `GET /api/ad-mobiles/init/{code}`
/// once per process while the source is `pending_verification`, then asks for ads with GET per
/// slot, or with POST when the config advertises the `sdk` block. The engine drives it through
/// ``loadAd(slot:choice:request:)``, ``hostPrivacyDidChange(_:)``, ``forgetUser()``, the
/// flushes and ``shutdown()``; the seed's `consent`, `identify` and `setScreen` have no engine or
/// host caller and are not offered (a stored consent record and profile are still honoured).
package actor NitxClient {
    /// The mobile source code, e.g. `SDK-AM-DEMOI`.
    package nonisolated let sourceCode: String
    /// The options it started with.
    package nonisolated let options: NitxOptions
    private let networkID: String
    private let transport: any HTTP.Transport
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let storage: NitxRecords
    private let wallAnchor: Date
    private let clockAnchor: MediationInstant
    private let batcher: NitxEventBatcher

    /// The visitor's id, consent and profile, in a lock box rather than the actor, so that the
    /// host's consent withdrawal deletes them synchronously (``hostPrivacyDidChange(_:)``).
    private let visitor: Locked<NitxVisitorStore>
    private var started = false
    private var startTask: Task<Void, Never>?
    private var sourceStatus: String?
    private var endpoints = NitxEndpoints.none
    private var initCalled = false
    private var fellBack = false
    private let appOpenLastShown = Locked<Date?>(nil)
    private var sequence = 0
    private var counters = NitxClientState.Counters()
    private var isShutDown = false

    /// Creates a client; nothing is sent until the first ad request.
    /// - Parameters:
    ///   - sourceCode: the mobile source code (`SDK-AM-…`).
    ///   - options: base URL, debug, personalization, bridge, request mode.
    ///   - networkID: the config's network id (ads' `network`, log source).
    ///   - transport: HTTP.
    ///   - clock: the engine's clock (event batching, app open interval).
    ///   - logger: warnings and debug lines (no user data).
    ///   - storage: where visitor id, consent, profile and the app open time persist; unused
    ///     when personalization is off (the app open time is then kept in memory).
    ///   - wallClockAnchor: the wall time at the clock's current instant; wall time is this plus
    ///     the clock's elapsed time (event timestamps, the app open time, the current year).
    ///   - makeVisitorID: makes a new visitor id (default a lowercased random UUID).
    package init(
        sourceCode: String,
        options: NitxOptions = NitxOptions(),
        networkID: String = "nitx",
        transport: any HTTP.Transport,
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        storage: NitxRecords = NitxRecords(),
        wallClockAnchor: Date = Date(),
        makeVisitorID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.sourceCode = sourceCode
        self.options = options
        self.networkID = networkID
        // Every request, event batch and forget stays on the API's origin (R17), whatever
        // transport the client is given.
        let transport = HTTP.OriginLockedTransport(transport, endpoint: options.apiBaseURL)
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.storage = storage
        self.wallAnchor = wallClockAnchor
        self.clockAnchor = clock.now
        self.batcher = NitxEventBatcher(transport: transport, clock: clock, logger: logger, headers: Self.headers(options), logSource: networkID)
        let visitor = NitxVisitorStore(enabled: options.personalization, storage: storage, makeVisitorID: makeVisitorID)
        self.visitor = Locked(visitor)
        batcher.setVisitorID(visitor.visitorID)
        // Stored values are untrusted (engine rule R21): each is checked, a bad one discarded
        // with a warning that names the key, never the value.
        for warning in visitor.loadWarnings { logger.warning("Nitx \(warning)", source: networkID) }
        if options.personalization, let text = storage.value(forKey: .appOpenLastShown) {
            switch NitxStoredValues.appOpenLastShown(text, now: wallClockAnchor, interval: options.appOpenMinimumInterval) {
            case .success(let date):
                appOpenLastShown.withLock { $0 = date }
            case .failure(let problem):
                logger.warning("Nitx stored \(NitxStorageKey.appOpenLastShown.rawValue) discarded (\(problem.rawValue)): no app open ad counts as shown", source: networkID)
                storage.setValue(nil, forKey: .appOpenLastShown)
            }
        }
    }

    // MARK: - Host calls

    /// Loads the source's config once (single flight; retried on the next call after a failure).
    /// - Parameter app: the host app, for the bundle id check.
    private func start(app: RequestTemplate.App) async {
        if started || isShutDown { return }
        if let startTask {
            await startTask.value
            return
        }
        let task = clock.startTask { await self.loadSourceConfig(app: app) }
        startTask = task
        await task.value
        startTask = nil
    }

    /// The host's privacy signals changed, or came with a request: a consent withdrawal in the
    /// app's own prompt (`userConsent == false`; the Nitx document feeds `consent` "from your own
    /// consent banner", and the engine's signal is that banner) is Nitx's `consent(false)`, at
    /// once and synchronously: the profile and the consent record are deleted from storage, the
    /// visitor id stays, and nothing of the profile is sent afterwards, after a relaunch
    /// included (nothing is left to send). Signals that do not withdraw change nothing (the
    /// engine offers no call that grants Nitx consent). Idempotent; does nothing with personalization off.
    /// - Parameter privacy: the host's current signals.
    package nonisolated func hostPrivacyDidChange(_ privacy: AdRequest.Privacy) {
        guard privacy.userConsent == false else { return }
        let deleted = visitor.withLock { visitor -> Bool in
            guard visitor.holdsConsentOrProfile else { return false }
            visitor.setConsent(false)
            return true
        }
        if deleted {
            logger.info("Nitx consent withdrawn by the host's privacy signals: profile and consent record deleted", source: networkID)
        }
    }

    /// Forgets the visitor (id, profile, consent): pending events are sent first, then a
    /// best-effort forget request goes to the advertised forget endpoint. Events of ads loaded
    /// before the reset leave afterwards without a visitor id (never under the new one, which
    /// would link the two visitors). Does nothing with personalization off.
    package func reset() async {
        guard options.personalization, !isShutDown else { return }
        await batcher.flush()
        // The flush waits on the network: a shutdown meanwhile means nothing more is sent (R18).
        guard !isShutDown else { return }
        let (forgotten, visitorID) = visitor.withLock { visitor in (visitor.reset(), visitor.visitorID) }
        batcher.setVisitorID(visitorID)
        guard let forgotten, let url = endpoints.forget else { return }
        counters.forgetRequests += 1
        var headers = Self.headers(options)
        headers["Content-Type"] = "application/json"
        let body = try? JSONEncoder().encode(NitxWireForgetRequest(visitorID: forgotten))
        do {
            let response = try await transport.send(HTTP.Request(method: "POST", url: url, headers: headers, body: body))
            if !(200..<300).contains(response.statusCode) {
                logger.warning("Nitx forget request answered HTTP \(response.statusCode)", source: networkID)
            }
        } catch {
            logger.warning("Nitx forget request failed: \(error)", source: networkID)
        }
    }

    /// Forgets the user (the engine's ``MediationEngine/forgetUser()``): ``reset()``; after
    /// ``shutdown()``, which sends nothing, the visitor id, profile and consent record are
    /// still erased from storage (a new visitor id is made), without a forget request.
    package func forgetUser() async {
        guard isShutDown else {
            await reset()
            return
        }
        let visitorID = visitor.withLock { visitor -> String? in
            _ = visitor.reset()
            return visitor.visitorID
        }
        batcher.setVisitorID(visitorID)
    }

    /// The host went to the background: sends queued events now (Nitx document, "Request
    /// mode": events are flushed when the app resigns active or enters the background).
    package func applicationDidEnterBackground() async {
        await batcher.flush()
    }

    /// The host is about to resign active (a call, the app switcher, or the way to
    /// termination): sends queued events now.
    package func applicationWillResignActive() async {
        await batcher.flush()
    }

    /// Stops the client for good (the engine's shutdown, R18): queued events are dropped, the
    /// batch timer stops, and nothing is sent afterwards, not even for ads handed out earlier;
    /// later loads fail without a request (`cancelled`, code 14) and ``reset()`` sends no forget
    /// request.
    package func shutdown() {
        isShutDown = true
        batcher.close()
    }

    /// Counters, mode, consent, visitor id and profile keys.
    package func state() async -> NitxClientState {
        let visitor = visitor.withLock { $0 }
        var counters = counters
        counters.eventsQueued = batcher.queuedCount
        counters.eventsSent = batcher.sentCount
        return NitxClientState(
            started: started,
            sourceStatus: sourceStatus,
            mode: currentMode,
            modeOverride: options.requestMode,
            fellBackToGet: fellBack,
            consent: visitor.consent,
            visitorID: visitor.visitorID,
            profileKeys: visitor.profile.keys,
            personalization: options.personalization,
            counters: counters
        )
    }

    // MARK: - Ads

    /// Loads one ad for `slot` in the chosen format.
    /// - Parameters:
    ///   - slot: the slot code (the line item's ad unit id).
    ///   - choice: the Nitx format and size for this request.
    ///   - request: the engine's request (app, device, screen, host context).
    /// - Returns: `.fill(ad)` (Nitx answers carry no price), a no-fill, or a failure:
    ///   rewarded always fails "Rewarded ads are not available in v1"; after ``shutdown()`` a
    ///   `cancelled` failure (code 14) without a request. App open ads load at any time (the
    ///   automatic mode preloads); the minimum interval is checked when one is shown, by the
    ///   ad's ``NitxLoadedAd/impressionReadiness``.
    package func loadAd(slot: String, choice: NitxFormatChoice, request: AdRequest) async -> AdLoadResult {
        counters.adRequests += 1
        hostPrivacyDidChange(request.privacy)
        if isShutDown {
            return finish(.failure(NitxErrorCode.shutDown.error("the Nitx client was shut down")))
        }
        if choice.format == .rewarded {
            return finish(.failure(NitxErrorCode.rewardedUnavailable.error(NitxErrorCode.rewardedMessage)))
        }
        guard !slot.isEmpty else {
            return finish(.failure(NitxErrorCode.missingSlot.error("the line item has no ad_unit_id (the Nitx slot code)")))
        }
        await start(app: request.app)
        if Task.isCancelled { return finish(.failure(NitxErrorCode.cancelled.error("request cancelled"))) }
        if isShutDown { return finish(.failure(NitxErrorCode.shutDown.error("the Nitx client was shut down"))) }

        var response: HTTP.Response
        let baseURL = options.apiBaseURL
        if currentMode == .post, let url = endpoints.ads {
            counters.postRequests += 1
            switch await send(post(url: url, slot: slot, choice: choice, request: request)) {
            case .failure(let error): return finish(.failure(error))
            case .success(let answer): response = answer
            }
            if NitxRequestMode.fallsBack(status: response.statusCode, override: options.requestMode) {
                fellBack = true
                logger.warning("Nitx POST ads endpoint answered HTTP \(response.statusCode): using GET for the rest of the process", source: networkID)
                counters.getRequests += 1
                switch await send(get(slot: slot)) {
                case .failure(let error): return finish(.failure(error))
                case .success(let answer): response = answer
                }
            } else if NitxRequestMode.fallbackStatuses.contains(response.statusCode) {
                return finish(.failure(NitxErrorCode.server.error("the POST ads endpoint answered HTTP \(response.statusCode) (request mode post: no fallback)", httpStatus: response.statusCode)))
            }
        } else {
            counters.getRequests += 1
            switch await send(get(slot: slot)) {
            case .failure(let error): return finish(.failure(error))
            case .success(let answer): response = answer
            }
        }

        switch NitxResponseParser.parse(response, requested: choice.format, baseURL: baseURL) {
        case .noFill(let reason):
            return finish(.noFill(reason))
        case .failure(let error):
            return finish(.failure(error))
        case .ad(let creativeID, let format, let creative, let impressionID):
            sequence += 1
            // The visitor the ad was loaded for: its events name no later visitor (a reset).
            let loadedUnder = visitor.withLock { $0.visitorID }
            var size = choice.size
            if format != choice.format, let fixed = Self.fixedSize(of: format) { size = fixed }
            let ad = NitxLoadedAd(
                id: NetworkValueBounds.identifier("\(networkID)-\(sequence)-\(creativeID)"),
                creativeID: creativeID,
                network: networkID,
                nitxFormat: format,
                size: size,
                slotCode: slot,
                impressionID: impressionID,
                creative: creative,
                signal: { [weak self] signal in
                    self?.record(signal, format: format, slot: slot, impressionID: impressionID, loadedUnder: loadedUnder)
                },
                readiness: { [weak self] in
                    guard format == .appOpen, let self else { return .ready }
                    return self.appOpenReadiness()
                }
            )
            return finish(.fill(ad))
        }
    }

    // MARK: - Internals

    private var currentMode: NitxRequestMode {
        NitxRequestMode.select(override: options.requestMode, adsEndpointAdvertised: endpoints.ads != nil, fellBack: fellBack)
    }

    private nonisolated var wallNow: Date {
        wallAnchor.addingTimeInterval((clock.now - clockAnchor).milliseconds / 1000)
    }

    /// Whether an app open ad may be shown now (Nitx document, "App open": at most once per
    /// minimum interval, measured from the last show kept under `nitx.app_open_last_shown`).
    nonisolated func appOpenReadiness() -> ImpressionReadiness {
        guard let last = appOpenLastShown.withLock({ $0 }) else { return .ready }
        let elapsed = wallNow.timeIntervalSince(last)
        let interval = options.appOpenMinimumInterval.components.seconds
        guard elapsed < Double(interval) else { return .ready }
        // Whole seconds without a trapping conversion, whatever the clocks say (R21).
        let shownAgo = elapsed.isFinite ? Int64(max(min(elapsed, 1e15), -1e15).rounded(.down)) : 0
        if shownAgo < 0 {
            return .notAllowed("app open ad last shown \(-shownAgo) s ahead of this device's clock; minimum interval \(interval) s")
        }
        return .notAllowed("app open ad shown \(shownAgo) s ago; minimum interval \(interval) s")
    }

    private func finish(_ result: AdLoadResult) -> AdLoadResult {
        switch result {
        case .bid, .fill: counters.fills += 1
        case .noFill: counters.noFills += 1
        case .failure: counters.failures += 1
        }
        return result
    }

    /// Handles an ad's hook synchronously (hooks must not block, and events keep their order).
    private nonisolated func record(_ signal: NitxAdSignal, format: NitxFormat, slot: String, impressionID: String?, loadedUnder: String?) {
        let now = wallNow
        switch signal {
        case .shown:
            guard format == .appOpen else { return }
            appOpenLastShown.withLock { $0 = now }
            if options.personalization {
                storage.setValue(String(now.timeIntervalSince1970), forKey: .appOpenLastShown)
            }
        case .impression, .viewable:
            guard let impressionID else { return }  // GET mode: no tracking
            batcher.enqueue(NitxWireEvent(
                type: signal == .impression ? "impression" : "viewable",
                impressionID: impressionID,
                slot: slot,
                timestamp: Int64((now.timeIntervalSince1970 * 1000).rounded())
            ), loadedUnder: loadedUnder)
        }
    }

    private func loadSourceConfig(app: RequestTemplate.App) async {
        counters.configLoads += 1
        let base = options.apiBaseURL
        let url = base.appendingPathComponent("api/ad-mobiles/show").appendingPathComponent(sourceCode)
        let response: HTTP.Response
        switch await send(HTTP.Request(method: "GET", url: url, headers: Self.headers(options))) {
        case .failure(let error):
            logger.warning("Nitx source config could not be loaded: \(error); using GET", source: networkID)
            return
        case .success(let answer):
            response = answer
        }
        guard (200..<300).contains(response.statusCode),
              let config = try? JSONDecoder().decode(NitxWireSourceConfig.self, from: response.body) else {
            logger.warning("Nitx source config answered HTTP \(response.statusCode) without a valid body; using GET", source: networkID)
            return
        }
        started = true
        sourceStatus = config.status.map { NetworkValueBounds.identifier($0) }
        if let bundleID = config.bundleID, !bundleID.isEmpty, bundleID != app.bundleID {
            logger.warning("Nitx source \(sourceCode) is registered for bundle id \(NetworkValueBounds.identifier(bundleID)), but the app's is \(app.bundleID)", source: networkID)
        }
        let (resolved, ignored) = NitxEndpoints.resolve(config.sdk, base: base)
        for name in ignored {
            logger.warning("Nitx sdk.\(name) is off the API's origin and is ignored", source: networkID)
        }
        endpoints = resolved
        batcher.setEndpoint(resolved.events)
        if options.requestMode == .post, resolved.ads == nil {
            logger.warning("Nitx request mode post, but the source advertises no ads endpoint; using GET", source: networkID)
        }
        if options.debug {
            logger.debug("Nitx source \(sourceCode) status \(sourceStatus ?? "unknown"), mode \(currentMode.rawValue)", source: networkID)
        }
        if config.status == "pending_verification", !initCalled {
            initCalled = true
            counters.initCalls += 1
            let initURL = base.appendingPathComponent("api/ad-mobiles/init").appendingPathComponent(sourceCode)
            if case .failure(let error) = await send(HTTP.Request(method: "GET", url: initURL, headers: Self.headers(options))) {
                logger.warning("Nitx init call failed: \(error)", source: networkID)
            }
        }
    }

    private func get(slot: String) -> HTTP.Request {
        let url = options.apiBaseURL.appendingPathComponent("api/ad-slots/show").appendingPathComponent(slot)
        return HTTP.Request(method: "GET", url: url, headers: Self.headers(options))
    }

    private func post(url: URL, slot: String, choice: NitxFormatChoice, request: AdRequest) -> HTTP.Request {
        let body = NitxWireAdsRequest(
            slot: slot,
            format: choice.format.rawValue,
            size: choice.format == .bannerAdaptive ? NitxWireSize(width: choice.size.width, height: choice.size.height) : nil,
            visitor: visitor.withLock { $0.wireBlock(for: request.privacy) },
            context: NitxContextBuilder.context(for: request, sdkTag: options.sdkTag)
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var headers = Self.headers(options)
        headers["Content-Type"] = "application/json"
        return HTTP.Request(method: "POST", url: url, headers: headers, body: try? encoder.encode(body))
    }

    private func send(_ request: HTTP.Request) async -> Result<HTTP.Response, AdLoadResult.Error> {
        if isShutDown {
            return .failure(NitxErrorCode.shutDown.error("the Nitx client was shut down"))
        }
        if options.debug {
            logger.debug("Nitx \(request.method) \(request.url.path)", source: networkID)
        }
        do {
            return .success(try await transport.send(request))
        } catch {
            return .failure(NitxErrorCode.error(for: error))
        }
    }

    private static func fixedSize(of format: NitxFormat) -> AdSize? {
        switch format {
        case .banner320x50: AdSize(width: 320, height: 50)
        case .banner300x250: AdSize(width: 300, height: 250)
        default: nil
        }
    }

    /// The headers of every request: JSON, and the SDK tag in place of the platform's user agent
    /// (Nitx seed: the device's user agent is never sent).
    static func headers(_ options: NitxOptions) -> [String: String] {
        ["Accept": "application/json", "User-Agent": "NitxPublisher/\(options.sdkTag)"]
    }
}
