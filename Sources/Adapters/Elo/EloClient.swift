import Foundation
import Mediation

/// The Elo client: the seed's `Elo` entry point as an instance owned by its adapter (no
/// singleton), with the same behaviour (Elo seed, "API Reference"):
/// - ``configure(_:)`` sets it up; configuring again re-configures and starts a new session id.
/// - ``disable()`` pauses new requests (a load answers no fill `sessionDisabled` without a
///   request) until ``enable()``.
/// - Before configure and after ``shutdown()`` a load answers no fill `notConfigured`.
/// - ``shutdown()`` cancels the requests in flight, drops preloaded ads, erases the stored
///   user identifier and user data (a re-configure does not), and stops the tracking of every
///   ad handed out before: nothing is sent afterwards (engine rule R18).
/// - Each request carries the earlier of its own deadline and 3 s as its `tmax`. The engine
///   enforces a source's one limit and cancels the request at it (no second timer here); a
///   preload, which no engine waits for, stops at that instant with no fill `timeout`.
/// - ``setShareGeoLocation(_:)`` lasts until ``shutdown()`` plus a new configure (a
///   re-configure alone keeps it).
/// - After the host's consent withdrawal (`AdRequest.Privacy.userConsent == false`) the stored user
///   identifier and user data are erased at once (``hostPrivacyDidChange(_:)``).
/// - The stored identity record is untrusted input (engine rule R21): each field is checked when
///   it is read back, and a bad one discarded with a warning.
package actor EloClient {
    /// The client's version string for support tickets.
    package static let sdkVersion = EloRequestBuilder.sdkVersion

    private let transport: any HTTP.Transport
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let identityStore: any EloIdentityStore
    private let stateStore: any StateStore
    private let wallClock: @Sendable () -> Date
    private let makeID: @Sendable () -> String
    private let network: String
    private let debug = EloDebugChannel()

    private var configuration: EloConfiguration?
    private var currentSessionID: String?
    private var disabled = false
    /// The runtime geo toggle (``setShareGeoLocation(_:)``): it wins over the configured value
    /// until ``shutdown()`` clears it, so a re-configure alone keeps it.
    private var geoToggle: Bool?
    /// The identity record, in a lock box rather than the actor, so that the host's consent
    /// withdrawal erases it synchronously (``hostPrivacyDidChange(_:)``). Every change is read,
    /// changed and written under the lock: one write per change, never two changes mixed.
    private let identity: Locked<EloIdentityRecord>
    /// The host's latest privacy signals (``hostPrivacyDidChange(_:)``, each request), read by the
    /// pings of ads handed out earlier as they leave; `nil` before any.
    private let hostPrivacy = Locked<AdRequest.Privacy?>(nil)
    /// The configured log level, readable outside the actor (``hostPrivacyDidChange(_:)``).
    private let logThreshold = Locked(EloLogLevel.warn)
    private var inFlight: [String: EloRequestInFlight] = [:]
    private var cache = EloPreloadCache()
    /// The tracking life of the ads handed out since the last shutdown.
    private var tracking = EloTrackingSession()

    /// Creates a client, configured at once when `configuration` is given.
    /// - Parameters:
    ///   - configuration: the configuration, or `nil` to stay unconfigured until ``configure(_:)``.
    ///   - network: the network id the ads carry, default `"elo"`.
    ///   - transport: HTTP (URLSession, sandbox, or a test fake).
    ///   - clock: the clock deadlines and browser dwell are measured on.
    ///   - logger: where warnings go (never chat content or user data).
    ///   - identityStore: where the identity record (user identifier and user data) persists.
    ///   - stateStore: where the per-install id persists (``EloInstallID``).
    ///   - now: wall-clock time, for the `createdAt` rules and event timestamps.
    ///   - makeID: makes request, session and install ids (default random UUIDs).
    package init(
        configuration: EloConfiguration? = nil,
        network: String = "elo",
        transport: any HTTP.Transport,
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        identityStore: any EloIdentityStore = InMemoryEloIdentityStore(),
        stateStore: any StateStore = MemoryStateStore(),
        now: @escaping @Sendable () -> Date = { Date() },
        makeID: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.identityStore = identityStore
        self.stateStore = stateStore
        self.wallClock = now
        self.makeID = makeID
        self.network = network
        var record: EloIdentityRecord
        var rewrite = false
        do {
            // The stored record is untrusted (engine rule R21): each field is checked, a bad
            // one discarded with a warning naming the field, never its value.
            let (checked, problems) = EloIdentityRules.checkedStoredRecord(try identityStore.read())
            record = checked
            for problem in problems {
                logger.warning("stored identity record: \(problem) discarded (not a value this client writes)", source: network)
            }
            rewrite = !problems.isEmpty
        } catch {
            logger.warning("identity record unreadable, starting empty: \(error.message)", source: network)
            record = EloIdentityRecord()
        }
        // Per install (never the record's, which the Keychain keeps across a reinstall): an
        // install id in an older version's record is ignored.
        let (installID, installWarnings) = EloInstallID.load(from: stateStore, network: network, makeID: makeID)
        for warning in installWarnings { logger.warning(warning, source: network) }
        record.installID = installID
        if rewrite {
            do { try identityStore.write(record.withoutInstallID) } catch {
                logger.warning("identity record not stored, kept in memory: \(error.message)", source: network)
            }
        }
        self.identity = Locked(record)
        if let configuration {
            self.configuration = configuration
            logThreshold.withLock { $0 = configuration.logLevel }
            self.currentSessionID = makeID()
        }
    }

    // MARK: Configuration

    /// Configures (or re-configures) the client and starts a new session id. Stored identity
    /// is kept, and so is the runtime geo toggle (``setShareGeoLocation(_:)``): only
    /// ``shutdown()`` followed by a new configure returns to the configured `shareGeoLocation`.
    /// Emits `.configured`.
    /// - Parameter configuration: the full configuration.
    package func configure(_ configuration: EloConfiguration) {
        self.configuration = configuration
        logThreshold.withLock { $0 = configuration.logLevel }
        currentSessionID = makeID()
        if !tracking.isOpen { tracking = EloTrackingSession() }
        let issues = configuration.validationIssues
        for issue in issues { log(.warn, "configuration: \(issue)") }
        debug.emit { [wallClock] in
            .configured(EloDebugConfiguration(
                publisherID: configuration.publisherID,
                adUnitID: configuration.adUnitID,
                requestTimeout: Double(configuration.requestTimeout.milliseconds) / 1000,
                validationIssues: issues,
                timestamp: wallClock()
            ))
        }
    }

    /// The simple form (Elo seed): publisher id, ad unit id and the geo controls.
    /// - Parameters:
    ///   - publisherID: the publisher id.
    ///   - adUnitID: the default ad unit id.
    ///   - shareGeoLocation: default `true`.
    ///   - geoLocationPrecision: default 2, clamped to 0 ... 6; `nil` = full precision.
    package func configure(publisherID: String, adUnitID: String, shareGeoLocation: Bool = true, geoLocationPrecision: Int? = EloConfiguration.defaultGeoPrecision) {
        configure(EloConfiguration(publisherID: publisherID, adUnitID: adUnitID, shareGeoLocation: shareGeoLocation, geoLocationPrecision: geoLocationPrecision))
    }

    /// Whether the client is configured (and not shut down).
    package var isConfigured: Bool { configuration != nil }

    /// The current configuration.
    package var currentConfiguration: EloConfiguration? { configuration }

    /// The session id, new on every configure; `nil` when not configured.
    package var sessionID: String? { currentSessionID }

    /// Resumes new requests.
    package func enable() { disabled = false }

    /// Pauses new requests: loads answer no fill `sessionDisabled` without a request.
    package func disable() { disabled = true }

    /// Whether new requests are paused.
    package var isDisabled: Bool { disabled }

    /// Turns passive geo sharing on or off at run time (Elo document: "The toggle resets to the
    /// configured value after shutdown() + reconfigure"): the toggle wins over the configured
    /// `shareGeoLocation` through any number of re-configures, until ``shutdown()``; the
    /// configure after that shutdown uses its configured value again.
    /// - Parameter enabled: whether coordinates are sent.
    package func setShareGeoLocation(_ enabled: Bool) { geoToggle = enabled }

    /// Whether coordinates are currently shared: the runtime toggle when one was set since the
    /// last ``shutdown()``, else the configured value (on by default, as before any configure).
    package var isSharingGeoLocation: Bool { geoToggle ?? configuration?.shareGeoLocation ?? true }

    /// Cancels the requests in flight (they answer `.error(.cancelled)`), releases preloaded ads,
    /// erases the stored user identifier and user data, stops the tracking of every ad handed
    /// out before (no render, impression or browser event is sent afterwards, queued ones are
    /// cancelled), and leaves the client unconfigured. Emits `.shutdown`.
    package func shutdown() {
        tracking.close()
        for race in inFlight.values { race.cancel() }
        inFlight.removeAll()
        cache.removeAll()
        configuration = nil
        logThreshold.withLock { $0 = .warn }
        currentSessionID = nil
        disabled = false
        geoToggle = nil
        updateIdentity { record in record = EloIdentityRecord(installID: record.installID) }
        debug.emit { .shutdown }
    }

    // MARK: Identity

    /// Forgets the user (the engine's ``MediationEngine/forgetUser()``): the stored user
    /// identifier and user data are erased, a new install id replaces the old one (written in
    /// the same record), a configured client starts a new session id (the old one would link
    /// the requests), and preloaded ads (requested under the old ids) are released. The pings
    /// of ads handed out earlier carry no visitor id afterwards (``pingVisitorID(loadedUnder:_:)``
    /// sends only the ids of the ad's own request).
    package func forgetUser() {
        let newInstallID = makeID()
        updateIdentity { record in record = EloIdentityRecord(installID: newInstallID) }
        if configuration != nil { currentSessionID = makeID() }
        cache.removeAll()
        log(.info, "user forgotten: identifier, user data and install id replaced")
    }

    /// Sets the publisher's user identifier, sent as the visitor id in place of the anonymous
    /// install id. Trimmed; blank or `nil` clears; over 256 characters is ignored with a warning.
    /// - Parameter identifier: the identifier.
    package func setUserIdentifier(_ identifier: String?) {
        setUserIdentity(userIdentifier: identifier, userData: userData)
    }

    /// Replaces the user data; `nil` or an object with no field set clears it.
    /// - Parameter data: the data.
    package func setUserData(_ data: EloUserData?) {
        updateIdentity { $0.userData = EloIdentityRules.normalizedData(data) }
    }

    /// Sets the identifier and the user data in one write; each behaves as its own setter.
    /// - Parameters:
    ///   - userIdentifier: the identifier (rules of ``setUserIdentifier(_:)``).
    ///   - userData: the data (rules of ``setUserData(_:)``).
    package func setUserIdentity(userIdentifier: String?, userData: EloUserData?) {
        let change = EloIdentityRules.identifierChange(userIdentifier)
        if change == .ignore {
            log(.warn, "user identifier over \(EloIdentityRules.maximumIdentifierLength) characters ignored")
        }
        updateIdentity { record in
            if case .set(let value) = change { record.userIdentifier = value }
            record.userData = EloIdentityRules.normalizedData(userData)
        }
    }

    /// The host's privacy signals changed, or came with a request: after a consent withdrawal in
    /// the app's own prompt (`userConsent == false`) the stored user identifier and user data
    /// are erased at once and synchronously (the anonymous install id stays), so that neither
    /// leaves the device again, after a relaunch with the signal unset included. The engine's
    /// privacy rules already keep them off every request while the signal says withdrawn; the
    /// Elo document has no consent call of its own, so this is the engine's reading (as its
    /// Nitx network's `consent(false)` deletes the profile). Signals that do not withdraw change
    /// nothing. Idempotent.
    /// - Parameter privacy: the host's current signals.
    package nonisolated func hostPrivacyDidChange(_ privacy: AdRequest.Privacy) {
        hostPrivacy.withLock { $0 = privacy }
        guard privacy.userConsent == false else { return }
        let erased = updateIdentityIfChanged { record -> Bool in
            guard record.userIdentifier != nil || record.userData != nil else { return false }
            record = EloIdentityRecord(installID: record.installID)
            return true
        }
        if erased {
            log(.info, "consent withdrawn by the host's privacy signals: user identifier and user data erased")
        }
    }

    /// The stored user identifier.
    package var userIdentifier: String? { identity.withLock { $0.userIdentifier } }

    /// The stored user data.
    package var userData: EloUserData? { identity.withLock { $0.userData } }

    /// The anonymous per-install id (``EloInstallID``).
    package var installID: String? { identity.withLock { $0.installID } }

    /// The visitor id sent with requests and pings: the user identifier, else the install id.
    package var visitorID: String { identity.withLock { $0.userIdentifier ?? $0.installID ?? "" } }

    /// The visitor id for a request with `privacy`: the publisher's identifier unless the user
    /// refused or withdrew consent (it is first-party identity); else the install id where it
    /// may leave the device (``allowsInstallID(_:coppa:tfua:)``); else none.
    private func visitorID(for privacy: AdRequest.Privacy, _ configuration: EloConfiguration) -> String? {
        let allowsIdentity = PrivacyRules.allowsIdentity(privacy)
        let allowsInstall = Self.allowsInstallID(privacy, coppa: configuration.coppa, tfua: configuration.tfua)
        return identity.withLock { (allowsIdentity ? $0.userIdentifier : nil) ?? (allowsInstall ? $0.installID : nil) }
    }

    /// Whether the anonymous per-install id may leave the device: not where the user said no.
    /// It is withheld from child-directed (COPPA) and under-age (TFUA) traffic, under the OS's
    /// limit-ad-tracking, and after the user refused or withdrew consent in the app's own
    /// prompt (the Elo document names no such case, and describes the id only as what the
    /// publisher's identifier replaces; the engine's reading is that a persistent id that lets
    /// delivery and reporting follow the user is not sent once the user declined).
    /// - Parameters:
    ///   - privacy: the host's signals.
    ///   - coppa: the configuration's COPPA flag.
    ///   - tfua: the configuration's TFUA flag.
    /// - Returns: `true` when the install id may be sent.
    static func allowsInstallID(_ privacy: AdRequest.Privacy, coppa: Bool, tfua: Bool) -> Bool {
        !(coppa || tfua || privacy.coppa || privacy.underAgeOfConsent || privacy.limitAdTracking) && PrivacyRules.allowsIdentity(privacy)
    }

    /// The visitor id the pings of an ad loaded under `privacy` send, read as each ping leaves
    /// (a withdrawal after the load is honoured by the ad's later pings): the publisher's
    /// identifier while neither the load's signals nor the host's current ones say consent was
    /// withdrawn, else the install id where both allow it (``allowsInstallID(_:coppa:tfua:)``),
    /// else none. Only an id the ad's own request could carry: never an identifier set or an
    /// install id made after the load (a new user or a forgotten one), which would link the two.
    /// - Parameters:
    ///   - privacy: the signals of the ad's request.
    ///   - configuration: the configuration the request was built from.
    /// - Returns: the reader the ad's tracker calls.
    private nonisolated func pingVisitorID(loadedUnder privacy: AdRequest.Privacy, _ configuration: EloConfiguration) -> @Sendable () -> String? {
        let identityAtLoad = PrivacyRules.allowsIdentity(privacy)
        let installAtLoad = Self.allowsInstallID(privacy, coppa: configuration.coppa, tfua: configuration.tfua)
        let (identifierAtLoad, installIDAtLoad) = identity.withLock { ($0.userIdentifier, $0.installID) }
        return { [identity, hostPrivacy] in
            let current = hostPrivacy.withLock { $0 }
            let identityNow = identityAtLoad && (current.map(PrivacyRules.allowsIdentity) ?? true)
            let installNow = installAtLoad && (current.map { Self.allowsInstallID($0, coppa: false, tfua: false) } ?? true)
            return identity.withLock { record -> String? in
                if identityNow, let id = record.userIdentifier, id == identifierAtLoad { return id }
                if installNow, let id = record.installID, id == installIDAtLoad { return id }
                return nil
            }
        }
    }

    /// Changes the identity record and writes it, in one step under the lock; a failed write
    /// keeps the change in memory, with a warning that names no value.
    /// - Parameter change: changes the record (a `false` result leaves it unwritten).
    @discardableResult
    private nonisolated func updateIdentityIfChanged(_ change: (inout EloIdentityRecord) -> Bool) -> Bool {
        let (changed, failure) = identity.withLock { record -> (Bool, EloStorageError?) in
            var updated = record
            guard change(&updated) else { return (false, nil) }
            let installChanged = updated.installID != record.installID
            record = updated
            var installFailure: EloStorageError?
            if installChanged, let id = updated.installID {
                do { try EloInstallID.store(id, in: stateStore, network: network) } catch {
                    installFailure = EloStorageError(message: "cannot write the install id: \(error)")
                }
            }
            do throws(EloStorageError) {
                try identityStore.write(updated.withoutInstallID)
                return (true, installFailure)
            } catch {
                return (true, error)
            }
        }
        if let failure { log(.warn, "identity record not stored, kept in memory: \(failure.message)") }
        return changed
    }

    /// ``updateIdentityIfChanged(_:)`` for a change that always writes.
    private nonisolated func updateIdentity(_ change: (inout EloIdentityRecord) -> Void) {
        updateIdentityIfChanged { record -> Bool in
            change(&record)
            return true
        }
    }

    // MARK: Debugging

    /// Sets the debug observer (`nil` clears it). Independent of configure and shutdown.
    /// - Parameters:
    ///   - observer: receives each event, never while the client holds a lock.
    ///   - capturePayloads: also deliver the redacted request and the response (default off).
    package nonisolated func setDebugObserver(_ observer: (@Sendable (EloDebugEvent) -> Void)?, capturePayloads: Bool = false) {
        debug.set(observer, capturePayloads: capturePayloads)
    }

    // MARK: Browser

    /// The host's browser opened the ad's click URL (see ``EloAd/recordBrowserOpened()``).
    /// - Parameter ad: an Elo-served ad.
    package nonisolated func trackBrowserOpened(_ ad: EloAd) { ad.recordBrowserOpened() }

    /// The host's browser closed (see ``EloAd/recordBrowserClosed()``).
    /// - Parameter ad: an Elo-served ad.
    package nonisolated func trackBrowserClosed(_ ad: EloAd) { ad.recordBrowserClosed() }

    // MARK: Loading

    /// Loads an ad for the request's chat context and slot.
    /// - Parameter request: the engine's request (messages, context objects, slot, device,
    ///   privacy, deadline; its `adUnitID` overrides the configured one when not empty).
    /// - Returns: a fill with its eCPM, a no fill with the reason, or an error.
    package func loadAd(for request: AdRequest) async -> EloAdResult {
        let started = clock.now
        let key = preloadKey(for: request)
        if let key, configuration != nil, !disabled, let entry = cache.take(key, now: clock.now) {
            report(request, started: started, requestID: nil, isPreload: false, result: .loaded(entry.ad, eCPM: entry.eCPM))
            return .loaded(entry.ad, eCPM: entry.eCPM)
        }
        return await fetch(request, started: started, isPreload: false)
    }

    /// Warms the cache for a later load with the same messages, context objects, slot and
    /// consent. Fire-and-forget; the task is returned for callers that want to await it.
    /// - Parameter request: the request a later load will repeat.
    /// - Returns: the preload's task.
    @discardableResult
    package nonisolated func preloadAd(for request: AdRequest) -> Task<Void, Never> {
        clock.startTask { await self.runPreload(request) }
    }

    /// The number of preloaded ads held.
    package var preloadedAdCount: Int { cache.count }

    /// The preloaded ads held (for inspection in tests).
    var preloadedAds: [EloAd] { cache.ads }

    /// Fetches and files the ad under the key of the consent in force when the preload was
    /// requested: the key and the request are built from the same configuration (no suspension
    /// between them). An ad whose session ended meanwhile (a re-configure or a shutdown) is
    /// released, never filed.
    private func runPreload(_ request: AdRequest) async {
        let started = clock.now
        let key = preloadKey(for: request)
        let session = currentSessionID
        let result = await fetch(request, started: started, isPreload: true)
        guard case .loaded(let ad, let eCPM) = result else { return }
        // A session that ended meanwhile, or a format outside the slot's range (which the
        // auction would reject, 203): released, never filed.
        guard let key, session != nil, currentSessionID == session,
              ad.eloFormat.fits(maxHeight: EloAdFormat.wholePoints(request.slot.maxHeight)) else {
            ad.releaseResources()
            return
        }
        cache.store(ad, eCPM: eCPM, under: key, now: clock.now)
    }

    private func preloadKey(for request: AdRequest) -> EloPreloadKey? {
        guard let configuration else { return nil }
        return EloPreloadKey(
            request: request,
            adUnitID: resolvedAdUnitID(request, configuration),
            configuration: configuration,
            maxHeight: EloAdFormat.wholePoints(request.slot.maxHeight),
            maxWidth: EloAdFormat.wholePoints(request.slot.maxWidth)
        )
    }

    private func resolvedAdUnitID(_ request: AdRequest, _ configuration: EloConfiguration) -> String {
        let own = request.adUnitID.trimmingCharacters(in: .whitespacesAndNewlines)
        return own.isEmpty ? configuration.adUnitID.trimmingCharacters(in: .whitespacesAndNewlines) : own
    }

    private func fetch(_ request: AdRequest, started: MediationInstant, isPreload: Bool) async -> EloAdResult {
        func done(_ result: EloAdResult, requestID: String? = nil) -> EloAdResult {
            report(request, started: started, requestID: requestID, isPreload: isPreload, result: result)
            return result
        }
        hostPrivacyDidChange(request.privacy)
        guard let configuration, let sessionID = currentSessionID else { return done(.noFill(.notConfigured)) }
        guard !disabled else { return done(.noFill(.sessionDisabled)) }
        let adUnitID = resolvedAdUnitID(request, configuration)
        guard !adUnitID.isEmpty else { return done(.error(EloError(.internalState, "no ad unit id configured or requested"))) }
        let maxHeight = EloAdFormat.wholePoints(request.slot.maxHeight)
        let maxWidth = EloAdFormat.wholePoints(request.slot.maxWidth)
        guard EloAdFormat.choose(forMaxHeight: maxHeight) != nil else {
            return done(.noFill(.other("no format fits a slot under \(EloAdFormat.stripMinimumSlotHeight) pt")))
        }
        let now = clock.now
        let deadline = min(request.deadline, now + configuration.requestTimeout)
        guard deadline > now else { return done(.noFill(.timeout)) }

        let requestID = makeID()
        let visitorID = visitorID(for: request.privacy, configuration)
        let (wire, warnings) = EloRequestBuilder.build(EloRequestBuilder.Input(
            configuration: configuration,
            request: request,
            adUnitID: adUnitID,
            requestID: requestID,
            sessionID: sessionID,
            visitorID: visitorID,
            userData: userData,
            shareGeoLocation: isSharingGeoLocation,
            now: wallClock(),
            tmaxMilliseconds: Int((deadline - now).milliseconds.rounded(.down)),
            maxWidth: maxWidth,
            maxHeight: maxHeight
        ))
        for warning in warnings { log(.warn, warning) }
        let body: Data
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            body = try encoder.encode(wire)
        } catch {
            return done(.error(EloError(.internalState, "request could not be encoded")))
        }
        let httpRequest = HTTP.Request(
            method: "POST",
            url: configuration.baseURL.appendingPathComponent("v1").appendingPathComponent("bid"),
            headers: ["Content-Type": "application/json", "x-openrtb-version": "2.6"],
            body: body
        )

        let exchange = EloRequestInFlight()
        inFlight[requestID] = exchange
        // The bid request goes to the configured origin only, and so do its redirects (R17);
        // locking a transport already locked to it (the network's connection) adds nothing.
        let locked = HTTP.OriginLockedTransport(transport, endpoint: configuration.baseURL)
        let outcome = await exchange.run(httpRequest, over: locked, clock: clock, deadline: isPreload ? deadline : nil)
        inFlight[requestID] = nil

        switch outcome {
        case .timedOut:
            return done(.noFill(.timeout), requestID: requestID)
        case .cancelled:
            return done(.error(EloError(.cancelled, "request cancelled")), requestID: requestID)
        case .response(.failure(let error)):
            if error.kind == .cancelled {
                return done(.error(EloError(.cancelled, "request cancelled")), requestID: requestID)
            }
            let detail = NetworkValueBounds.text("\(error.kind.rawValue): \(error.message)")
            log(.warn, "ad request failed: \(detail)")
            return done(.networkError(detail: detail, failure: EloErrorCode.error(for: error, prefix: "networkError")), requestID: requestID)
        case .response(.success(let response)):
            // Payloads are captured only for requests that got an HTTP answer (Elo seed: cache
            // hits, disabled sessions and transport failures produce neither).
            if debug.capturesPayloads {
                debug.emit { .requestPayloadCaptured(requestID: requestID, json: EloDebugChannel.redactedJSON(wire)) }
            }
            let tracker = EloTracker(transport: transport, baseURL: configuration.baseURL, visitorID: pingVisitorID(loadedUnder: request.privacy, configuration), clock: clock, now: wallClock, makeID: makeID, debug: debug, session: tracking)
            let context = EloResponseParser.Context(
                requestID: requestID,
                network: network,
                engineFormat: request.format,
                maxWidth: maxWidth,
                maxHeight: maxHeight,
                screenWidth: request.screen.width,
                tracker: tracker
            )
            switch EloResponseParser.parse(response, context: context) {
            case .bid(let ad, let eCPM, let decoded):
                debug.emit { .serverRequestIDAssigned(requestID: requestID, serverRequestID: ad.id) }
                if debug.capturesPayloads {
                    debug.emit { .responsePayloadCaptured(requestID: requestID, json: EloDebugChannel.json(decoded)) }
                }
                return done(.loaded(ad, eCPM: eCPM), requestID: requestID)
            case .noBids:
                return done(.noFill(.noBids), requestID: requestID)
            case .serverError(let status):
                log(.warn, "ad server answered HTTP \(status)")
                let failure = EloErrorCode.status(status).error("networkError: HTTP \(status)", httpStatus: status)
                return done(.networkError(detail: "HTTP \(status)", failure: failure), requestID: requestID)
            case .invalid(let message):
                log(.warn, "invalid ad response: \(message)")
                return done(.error(EloError(.decoding, message)), requestID: requestID)
            }
        }
    }

    private func report(_ request: AdRequest, started: MediationInstant, requestID: String?, isPreload: Bool, result: EloAdResult) {
        guard debug.isObserved else { return }
        let latency = Int((clock.now - started).milliseconds.rounded(.down))
        let timestamp = wallClock()
        let operation: EloDebugAdOperation
        let outcome: EloAdLoadOutcome
        var format: String?
        var ctaEnabled: Bool?
        switch result {
        case .loaded(let ad, let eCPM):
            outcome = .loaded(eCPM: eCPM)
            format = ad.eloFormat.rawValue
            ctaEnabled = ad.ctaEnabled
        case .noFill(let reason):
            outcome = .noFill(reason)
        case .networkError(let detail, _):
            outcome = .noFill(.networkError(detail: detail))
        case .error(let error):
            outcome = .error(error.debugCategory)
        }
        operation = EloDebugAdOperation(
            requestID: requestID,
            isPreload: isPreload,
            timestamp: timestamp,
            messageCount: min(request.context.messages.count, EloMessageRules.maximumMessages),
            contextCount: request.context.contextObjects.count,
            latencyMilliseconds: latency,
            outcome: outcome,
            format: format,
            maxHeight: EloAdFormat.wholePoints(request.slot.maxHeight),
            maxWidth: EloAdFormat.wholePoints(request.slot.maxWidth),
            ctaEnabled: ctaEnabled
        )
        debug.emit { .adOperation(operation) }
    }

    private nonisolated func log(_ level: EloLogLevel, _ message: String) {
        guard logThreshold.withLock({ $0 }).admits(level) else { return }
        let mapped: LogLevel
        switch level {
        case .verbose, .debug: mapped = .debug
        case .info: mapped = .info
        case .warn: mapped = .warning
        case .error, .none: mapped = .error
        }
        logger.log(mapped, message, source: network)
    }
}
