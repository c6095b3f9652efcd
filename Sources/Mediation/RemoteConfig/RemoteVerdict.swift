import Foundation

/// What a response of the configuration server comes to, before anything is applied: the
/// rules of engine rule R22 as one pure function of the response, the version running, the
/// highest version this install applied, the install id and the trusted keys.
package enum RemoteVerdict: Sendable {
    /// A verified, newer configuration this install takes: build it and apply it.
    case apply(VerifiedConfiguration, HTTPCacheHeaders)
    /// Nothing to apply, and nothing wrong (304, the version running, a rollout that does not
    /// include this install yet).
    case keep(MediationEngine.RemoteConfiguration.Update.Outcome, MediationEngine.RemoteConfiguration.Update.Code, String, offered: Int?, HTTPCacheHeaders)
    /// A configuration arrived and is refused; the current one is kept.
    case refuse(SignedConfiguration.Rejection, offered: Int?)
    /// No configuration arrived; `busy` for 429 and 503 (with `Retry-After`, if given).
    case fail(MediationEngine.RemoteConfiguration.Update.Code, String, busy: Bool, retryAfter: Int?)

    /// The verdict on one fetch.
    /// - Parameters:
    ///   - outcome: what the request came to.
    ///   - running: the version the engine runs.
    ///   - highestApplied: the highest version this install ever applied.
    ///   - installID: the install id (the rollout bucket).
    ///   - trustedKeys: the keys the app trusts.
    ///   - registry: the network kinds (the loader's R15 checks).
    ///   - wallClock: the device's clock (an HTTP-date `Retry-After`).
    ///   - conditional: whether the request named the configuration held (`If-None-Match`);
    ///     a 304 to a request that named none confirms nothing, and says so.
    static func of(
        _ outcome: RemoteFetch.Outcome,
        running: Int,
        highestApplied: Int,
        installID: String,
        trustedKeys: [MediationEngine.RemoteConfiguration.PublicKey],
        registry: NetworkRegistry,
        wallClock: WallClockTime,
        conditional: Bool
    ) -> RemoteVerdict {
        let response: HTTP.Response
        switch outcome {
        case .response(let answered):
            response = answered
        case .timedOut:
            // The transport answers with a whole response or nothing: a server that sent its
            // headers and trickles its body is not told apart from a silent one.
            return .fail(.timeout, "no complete response within the fetch timeout", busy: false, retryAfter: nil)
        case .cancelled:
            return .fail(.transport, "the check was cancelled", busy: false, retryAfter: nil)
        case .transport(let error):
            switch error.kind {
            case .redirectRefused: return .fail(.redirectRefused, error.message, busy: false, retryAfter: nil)
            case .responseTooLarge: return .fail(.tooLarge, error.message, busy: false, retryAfter: nil)
            case .timedOut: return .fail(.timeout, error.message, busy: false, retryAfter: nil)
            case .connection, .cancelled, .invalidRequest: return .fail(.transport, error.message, busy: false, retryAfter: nil)
            }
        }
        let headers = HTTPCacheHeaders(response.headers, wallClock: wallClock)
        switch response.statusCode {
        case 304:
            // A 304 keeps the entity tag that selected it (RFC 9111 4.3.4): one naming another
            // tag, or answering a request that sent none, must not plant a tag the install never
            // held, or the server would answer 304 to it for ever and no new version would arrive.
            var kept = headers
            kept.entityTag = nil
            let message = conditional
                ? "304 Not Modified: the server's configuration is the one held"
                : "304 Not Modified to a request that named no configuration (no If-None-Match): nothing received, version \(running) kept"
            return .keep(.unchanged, .notModified, message, offered: nil, kept)
        case 429, 503:
            let wait = headers.retryAfter.map { ", Retry-After \($0) s" } ?? ""
            return .fail(.serverBusy, "HTTP \(response.statusCode)\(wait)", busy: true, retryAfter: headers.retryAfter)
        case 200:
            break
        default:
            return .fail(.httpStatus, "HTTP \(response.statusCode)", busy: false, retryAfter: nil)
        }
        let verified: VerifiedConfiguration
        switch SignedConfiguration.verify(response.body, trustedKeys: trustedKeys, registry: registry) {
        case .success(let value): verified = value
        case .failure(let rejection): return .refuse(rejection, offered: nil)
        }
        let version = verified.version
        if version < running {
            return .refuse(SignedConfiguration.Rejection(.notNewer, "version \(version) is older than the running version \(running): an old signed configuration served again is never applied"), offered: version)
        }
        if version == running {
            return .keep(.unchanged, .sameVersion, "version \(version) is the one running", offered: version, headers)
        }
        if version < highestApplied {
            return .refuse(SignedConfiguration.Rejection(.olderThanApplied, "version \(version) is older than version \(highestApplied), which this install applied before"), offered: version)
        }
        if let rollout = verified.configuration.rollout, !rollout.includes(installID) {
            return .keep(.deferred, .rolloutNotSelected, "version \(version) is rolled out to \(rollout.percentText) % of installs, not yet this one", offered: version, headers)
        }
        return .apply(verified, headers)
    }
}
