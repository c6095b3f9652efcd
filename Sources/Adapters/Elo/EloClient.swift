import Foundation
import Mediation

/// The Elo client: the seed's `Elo` entry point as an instance owned by its adapter (no
/// singleton), configured once at creation by the adapter's factory. The engine drives it
/// through ``loadAd(for:)``, ``hostPrivacyDidChange(_:)``, ``forgetUser()`` and ``shutdown()``;
/// the seed's other calls (re-configure, enable / disable, preload, the geo toggle, the user
/// identity setters, the debug observer) have no engine or host caller and are not offered, so
/// the only id it sends is the anonymous per-install id (``EloInstallID``).
/// - After ``shutdown()`` a load answers no fill `notConfigured`.
/// - ``shutdown()`` cancels the requests in flight and stops the tracking of every ad handed out
///   before: nothing is sent afterwards (engine rule R18).
/// - Each request carries the earlier of its own deadline and 3 s as its `tmax`. The engine
///   enforces a source's one limit and cancels the request at it (no second timer here).
package actor EloClient {
    /// The client's version string for support tickets.
    package static let sdkVersion = EloRequestBuilder.sdkVersion

    private let transport: any HTTP.Transport
    private let clock: any MediationClock
    private let logger: any MediationLogger
    private let stateStore: any StateStore
    private let wallClock: @Sendable () -> Date
    private let makeID: @Sendable () -> String
    private let network: String

    private var configuration: EloConfiguration?
    private var currentSessionID: String?
    /// The anonymous per-install id, in a lock box rather than the actor, so that the pings of
    /// ads handed out earlier read it as they leave.
    private let identity: Locked<String>
    /// The host's latest privacy signals (``hostPrivacyDidChange(_:)``, each request), read by the
    /// pings of ads handed out earlier as they leave; `nil` before any.
    private let hostPrivacy = Locked<AdRequest.Privacy?>(nil)
    /// The configured log level, readable outside the actor (``hostPrivacyDidChange(_:)``).
    private let logThreshold = Locked(EloLogLevel.warn)
    private var inFlight: [String: EloRequestInFlight] = [:]
    /// The tracking life of the ads handed out since the last shutdown.
    private var tracking = EloTrackingSession()

    /// Creates a configured client.
    /// - Parameters:
    ///   - configuration: the configuration (its validation issues are logged as warnings).
    ///   - network: the network id the ads carry, default `"elo"`.
    ///   - transport: HTTP (URLSession, sandbox, or a test fake).
    ///   - clock: the clock deadlines and browser dwell are measured on.
    ///   - logger: where warnings go (never chat content or user data).
    ///   - stateStore: where the per-install id persists (``EloInstallID``).
    ///   - now: wall-clock time, for the `createdAt` rules and event timestamps.
    ///   - makeID: makes request, session and install ids (default random UUIDs).
    package init(
        configuration: EloConfiguration,
        network: String = "elo",
        transport: any HTTP.Transport,
        clock: any MediationClock = SystemClock(),
        logger: any MediationLogger = SilentLogger(),
        stateStore: any StateStore = MemoryStateStore(),
        now: @escaping @Sendable () -> Date = { Date() },
        makeID: @escaping @Sendable () -> String = { UUID().uuidString }
    ) {
        self.transport = transport
        self.clock = clock
        self.logger = logger
        self.stateStore = stateStore
        self.wallClock = now
        self.makeID = makeID
        self.network = network
        let (installID, installWarnings) = EloInstallID.load(from: stateStore, network: network, makeID: makeID)
        for warning in installWarnings { logger.warning(warning, source: network) }
        self.identity = Locked(installID)
        self.configuration = configuration
        logThreshold.withLock { $0 = configuration.logLevel }
        self.currentSessionID = makeID()
        for issue in configuration.validationIssues { log(.warn, "configuration: \(issue)") }
    }

    // MARK: Configuration

    /// The current configuration; `nil` after ``shutdown()``.
    package var currentConfiguration: EloConfiguration? { configuration }

    /// The session id, new on every ``forgetUser()``; `nil` after ``shutdown()``.
    package var sessionID: String? { currentSessionID }

    /// Cancels the requests in flight (they answer `.error(.cancelled)`), stops the tracking of
    /// every ad handed out before (no render, impression or browser event is sent afterwards,
    /// queued ones are cancelled), and leaves the client unconfigured.
    package func shutdown() {
        tracking.close()
        for race in inFlight.values { race.cancel() }
        inFlight.removeAll()
        configuration = nil
        logThreshold.withLock { $0 = .warn }
        currentSessionID = nil
    }

    // MARK: Identity

    /// Forgets the user (the engine's ``MediationEngine/forgetUser()``): a new install id
    /// replaces the old one (and is stored), and a configured client starts a new session id
    /// (the old one would link the requests). The pings of ads handed out earlier carry no
    /// visitor id afterwards (``pingVisitorID(loadedUnder:_:)`` sends only the id of the ad's
    /// own request).
    package func forgetUser() {
        let newInstallID = makeID()
        identity.withLock { $0 = newInstallID }
        do { try EloInstallID.store(newInstallID, in: stateStore, network: network) } catch {
            log(.warn, "install id not stored, kept in memory: \(error)")
        }
        if configuration != nil { currentSessionID = makeID() }
        log(.info, "user forgotten: install id replaced")
    }

    /// The host's privacy signals changed, or came with a request: the pings of ads handed out
    /// earlier read them as they leave (a withdrawal after the load is honoured).
    /// - Parameter privacy: the host's current signals.
    package nonisolated func hostPrivacyDidChange(_ privacy: AdRequest.Privacy) {
        hostPrivacy.withLock { $0 = privacy }
    }

    /// The anonymous per-install id (``EloInstallID``).
    package var installID: String { identity.withLock { $0 } }

    /// The visitor id for a request with `privacy`: the install id where it may leave the device
    /// (``allowsInstallID(_:coppa:tfua:)``); else none.
    private func visitorID(for privacy: AdRequest.Privacy, _ configuration: EloConfiguration) -> String? {
        Self.allowsInstallID(privacy, coppa: configuration.coppa, tfua: configuration.tfua) ? identity.withLock { $0 } : nil
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
    /// (a withdrawal after the load is honoured by the ad's later pings): the install id where
    /// both the load's signals and the host's current ones allow it
    /// (``allowsInstallID(_:coppa:tfua:)``), else none. Only the id the ad's own request could
    /// carry: never an install id made after the load (a forgotten user), which would link the two.
    /// - Parameters:
    ///   - privacy: the signals of the ad's request.
    ///   - configuration: the configuration the request was built from.
    /// - Returns: the reader the ad's tracker calls.
    private nonisolated func pingVisitorID(loadedUnder privacy: AdRequest.Privacy, _ configuration: EloConfiguration) -> @Sendable () -> String? {
        let installAtLoad = Self.allowsInstallID(privacy, coppa: configuration.coppa, tfua: configuration.tfua)
        let installIDAtLoad = identity.withLock { $0 }
        return { [identity, hostPrivacy] in
            let current = hostPrivacy.withLock { $0 }
            let installNow = installAtLoad && (current.map { Self.allowsInstallID($0, coppa: false, tfua: false) } ?? true)
            return identity.withLock { id -> String? in installNow && id == installIDAtLoad ? id : nil }
        }
    }

    // MARK: Loading

    /// Loads an ad for the request's chat context and slot.
    /// - Parameter request: the engine's request (messages, context objects, slot, device,
    ///   privacy, deadline; its `adUnitID` overrides the configured one when not empty).
    /// - Returns: a fill with its eCPM, a no fill with the reason, or an error.
    package func loadAd(for request: AdRequest) async -> EloAdResult {
        hostPrivacyDidChange(request.privacy)
        guard let configuration, let sessionID = currentSessionID else { return .noFill(.notConfigured) }
        let adUnitID = resolvedAdUnitID(request, configuration)
        guard !adUnitID.isEmpty else { return .error(EloError(.internalState, "no ad unit id configured or requested")) }
        let maxHeight = EloAdFormat.wholePoints(request.slot.maxHeight)
        let maxWidth = EloAdFormat.wholePoints(request.slot.maxWidth)
        guard EloAdFormat.choose(forMaxHeight: maxHeight) != nil else {
            return .noFill(.other("no format fits a slot under \(EloAdFormat.stripMinimumSlotHeight) pt"))
        }
        let now = clock.now
        let deadline = min(request.deadline, now + configuration.requestTimeout)
        guard deadline > now else { return .noFill(.timeout) }

        let requestID = makeID()
        let visitorID = visitorID(for: request.privacy, configuration)
        let (wire, warnings) = EloRequestBuilder.build(EloRequestBuilder.Input(
            configuration: configuration,
            request: request,
            adUnitID: adUnitID,
            requestID: requestID,
            sessionID: sessionID,
            visitorID: visitorID,
            shareGeoLocation: configuration.shareGeoLocation,
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
            return .error(EloError(.internalState, "request could not be encoded"))
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
        let outcome = await exchange.run(httpRequest, over: locked, clock: clock)
        inFlight[requestID] = nil

        switch outcome {
        case .cancelled:
            return .error(EloError(.cancelled, "request cancelled"))
        case .response(.failure(let error)):
            if error.kind == .cancelled {
                return .error(EloError(.cancelled, "request cancelled"))
            }
            let detail = NetworkValueBounds.text("\(error.kind.rawValue): \(error.message)")
            log(.warn, "ad request failed: \(detail)")
            return .networkError(detail: detail, failure: EloErrorCode.error(for: error, prefix: "networkError"))
        case .response(.success(let response)):
            let tracker = EloTracker(transport: transport, baseURL: configuration.baseURL, visitorID: pingVisitorID(loadedUnder: request.privacy, configuration), clock: clock, session: tracking)
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
            case .bid(let ad, let eCPM, _):
                return .loaded(ad, eCPM: eCPM)
            case .noBids:
                return .noFill(.noBids)
            case .serverError(let status):
                log(.warn, "ad server answered HTTP \(status)")
                let failure = EloErrorCode.status(status).error("networkError: HTTP \(status)", httpStatus: status)
                return .networkError(detail: "HTTP \(status)", failure: failure)
            case .invalid(let message):
                log(.warn, "invalid ad response: \(message)")
                return .error(EloError(.decoding, message))
            }
        }
    }

    private func resolvedAdUnitID(_ request: AdRequest, _ configuration: EloConfiguration) -> String {
        let own = request.adUnitID.trimmingCharacters(in: .whitespacesAndNewlines)
        return own.isEmpty ? configuration.adUnitID.trimmingCharacters(in: .whitespacesAndNewlines) : own
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
