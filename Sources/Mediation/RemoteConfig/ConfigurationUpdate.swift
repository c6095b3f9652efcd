extension MediationEngine.RemoteConfiguration.Update {
    /// Where the configuration the engine runs came from (engine rule R22: bundled, then cached,
    /// then remote; launch never waits on the network).
    package enum Source: String, Sendable, Hashable, Codable {
        /// The configuration shipped in the app (always valid; version 0 when unsigned).
        case bundled
        /// The last verified remote configuration, read back from the host's state store.
        case cache
        /// A verified configuration fetched from the configuration server.
        case remote
    }
}

extension MediationEngine.RemoteConfiguration {
    /// What a check of the remote configuration, or the choice at launch, came to: applied,
    /// unchanged, deferred by a staged rollout, refused (with the current configuration kept), or
    /// failed (nothing usable arrived), and why. Published as the engine event
    /// ``MediationEvent/configuration(_:)``; every refusal and failure is a warning
    /// (``isWarning``).
    public struct Update: Sendable, Hashable, CustomStringConvertible {
        /// What happened.
        package enum Outcome: String, Sendable, Hashable, Codable {
            /// A newer verified configuration is in force from each placement's next auction.
            case applied
            /// Nothing changed: the server said so (304), or sent the version already running.
            case unchanged
            /// A verified newer version whose staged rollout does not include this install yet.
            case deferred
            /// A configuration arrived and was refused; the current one is kept.
            case refused
            /// No configuration arrived (a transport failure, a timeout, an HTTP error status).
            case failed
            /// Something at launch the host should know (a damaged cache removed, the device clock
            /// behind the cache's fetch time); the engine runs the best valid configuration.
            case warning
        }

        /// A stable snake_case code saying why.
        package struct Code: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
            /// The code, e.g. `bad_signature`.
            public var rawValue: String

            /// Creates a code.
            public init(rawValue: String) {
                self.rawValue = rawValue
            }

            /// The code.
            public var description: String { rawValue }

            /// A newer verified version was applied.
            public static let applied = Code(rawValue: "applied")
            /// The engine started on this configuration at launch.
            public static let launched = Code(rawValue: "launched")
            /// 304 Not Modified: the server's configuration is the one held.
            public static let notModified = Code(rawValue: "not_modified")
            /// The server sent the version already running.
            public static let sameVersion = Code(rawValue: "same_version")
            /// The staged rollout does not include this install.
            public static let rolloutNotSelected = Code(rawValue: "rollout_not_selected")
            /// The body is not a signed configuration envelope of a format this version reads.
            public static let malformedEnvelope = Code(rawValue: "malformed_envelope")
            /// Signed by a key the app does not trust.
            public static let unknownKey = Code(rawValue: "unknown_key")
            /// The signature is missing or does not verify.
            public static let badSignature = Code(rawValue: "bad_signature")
            /// The signed configuration fails the loader (R15) or a network's check (R19), or lacks
            /// its release fields; ``Update/path`` names the JSON path.
            public static let invalidConfig = Code(rawValue: "invalid_config")
            /// Its version is older than the running one (an old signed file served again).
            public static let notNewer = Code(rawValue: "not_newer")
            /// Its version is older than one this install applied before.
            public static let olderThanApplied = Code(rawValue: "older_than_applied")
            /// The body is larger than the loader accepts.
            public static let tooLarge = Code(rawValue: "too_large")
            /// The server answered an HTTP error status.
            public static let httpStatus = Code(rawValue: "http_status")
            /// The server asked to wait (429 or 503), with or without `Retry-After`.
            public static let serverBusy = Code(rawValue: "server_busy")
            /// No response: refused connection, DNS, TLS, a dropped or truncated transfer.
            public static let transport = Code(rawValue: "transport")
            /// No complete response within the fetch timeout: the server was silent, or still
            /// sending (its bytes trickling).
            public static let timeout = Code(rawValue: "timeout")
            /// The server redirected off the configuration URL's origin (not followed).
            public static let redirectRefused = Code(rawValue: "redirect_refused")
            /// The cached configuration's file was damaged, foreign or a newer version's; removed.
            public static let cacheDiscarded = Code(rawValue: "cache_discarded")
            /// The cached configuration no longer verifies or builds with this app (a key no longer
            /// trusted, a network kind removed); removed.
            public static let cacheInvalid = Code(rawValue: "cache_invalid")
            /// The device clock is earlier than when the cache was fetched: its age is unknown, so
            /// it is checked at once.
            public static let clockBehind = Code(rawValue: "clock_behind")
            /// The cached configuration is older than its `max-age` plus `stale-while-revalidate`:
            /// it still runs (a signed configuration is newer than the bundled one, and launch
            /// never waits) while the server is checked at once.
            public static let configExpired = Code(rawValue: "config_expired")
            /// The state store could not be read or written.
            public static let storeUnavailable = Code(rawValue: "store_unavailable")
        }

        /// What happened.
        package var outcome: Outcome
        /// Why, as a stable code.
        package var code: Code
        /// Why, for a person (text from the server is quoted and bounded).
        public var message: String
        /// The JSON path inside the offered configuration for ``Code/invalidConfig``, e.g.
        /// `placements.home_banner.sources[2].ecpm`.
        public var path: String?
        /// The `config_version` the engine runs after this update.
        public var runningVersion: Int
        /// The version offered (once its signature verified), if known.
        public var offeredVersion: Int?
        /// Where the configuration considered came from.
        package var source: Source
        /// When the next check is due, on the engine's clock, if one is scheduled.
        public var nextCheckAt: MediationInstant?
        /// When it happened, on the engine's clock.
        public var at: MediationInstant

        /// Creates an update.
        package init(outcome: Outcome, code: Code, message: String, path: String? = nil, runningVersion: Int, offeredVersion: Int? = nil, source: Source, nextCheckAt: MediationInstant? = nil, at: MediationInstant) {
            self.outcome = outcome
            self.code = code
            self.message = message
            self.path = path
            self.runningVersion = runningVersion
            self.offeredVersion = offeredVersion
            self.source = source
            self.nextCheckAt = nextCheckAt
            self.at = at
        }

        /// Whether the host should hear about it as a warning: every refusal, failure and launch
        /// warning.
        public var isWarning: Bool {
            switch outcome {
            case .refused, .failed, .warning: true
            case .applied, .unchanged, .deferred: false
            }
        }

        /// One line:
        /// `config refused (bad_signature): …; running version 3, next check at 300.000s`.
        public var description: String {
            var text = "config \(outcome.rawValue) (\(code)): \(DisplayText.escaped(message))"
            if let path { text += " at \(DisplayText.escaped(path))" }
            text += "; running version \(runningVersion)"
            if let nextCheckAt { text += ", next check at \(nextCheckAt)" }
            return text
        }
    }
}
