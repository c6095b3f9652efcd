import Adapters
import Foundation
import Mediation

/// What a run with `--config-url URL --public-key FILE [--state-dir DIR]` needs: the remote
/// configuration's settings (the URL, the trusted keys, ``MediateTransport/configuration``
/// with the loader's size limit) and the state store that keeps its cache and the install id across runs.
struct RemoteRun: Sendable {
    /// The settings.
    let remote: MediationEngine.RemoteConfiguration
    /// The state store: a ``FileStateStore`` in `--state-dir`, else memory only.
    let store: any StateStore

    /// The remote run of `options`, `nil` without `--config-url`, or the exit of a failure
    /// (reported on standard error): 64 for a URL that is not http(s), carries credentials or
    /// (where this platform's HTTP client cannot reach one) names an IPv6 literal host, 65 or
    /// 66 for the key file, 73 for a state directory that cannot be created.
    static func prepare(_ options: RunOptions, environment: CommandEnvironment) -> Result<RemoteRun?, MediateCommand.Exit> {
        guard let text = options.configURL else { return .success(nil) }
        let url: URL
        switch checkedURL(text) {
        case .failure(let refusal):
            return .failure(MediateCommand.Exit(code: MediateCommand.usageError(refusal.text, environment: environment)))
        case .success(let checked):
            url = checked
        }
        let keys: [MediationEngine.RemoteConfiguration.PublicKey]
        switch ConfigCommand.readPublicKeys(options.publicKeyPath ?? "", environment: environment) {
        case .failure(let exit): return .failure(exit)
        case .success(let read): keys = read
        }
        var store: any StateStore = MemoryStateStore()
        if let directory = options.stateDirectory {
            // R29: a run on virtual time (--fast) keeps its state apart, in DIR/virtual-time,
            // which runs on real time never open: the instants it stores are virtual.
            let url = environment.resolve(directory)
            do {
                store = try FileStateStore(opening: options.fast ? url.appendingPathComponent(virtualTimeDirectory) : url)
            } catch {
                return .failure(MediateCommand.Exit(code: MediateCommand.fail(.cannotCreate, "--state-dir \(directory): \(error.message)", environment: environment)))
            }
        }
        return .success(RemoteRun(remote: MediationEngine.RemoteConfiguration(url: url, trustedKeys: keys, transport: MediateTransport.configuration), store: store))
    }

    /// What `mediate networks --state-dir DIR --public-key KEY.pub` launches with: the
    /// engine's own launch over `store` (R22: the stored remote configuration when it verifies
    /// with `trustedKeys` and is the best local one, else the bundled), whose server is never
    /// asked: its URL is a placeholder and its transport refuses every request.
    static func launch(from store: any StateStore, trustedKeys: [MediationEngine.RemoteConfiguration.PublicKey]) -> RemoteRun {
        let placeholder = URL(string: "https://mediate-networks.invalid/") ?? URL(fileURLWithPath: "/")
        return RemoteRun(remote: MediationEngine.RemoteConfiguration(url: placeholder, trustedKeys: trustedKeys, transport: NoRequests()), store: store)
    }

    /// The transport of ``launch(from:trustedKeys:)``: `mediate networks` sends nothing.
    private struct NoRequests: HTTP.Transport {
        /// Refuses `request`.
        /// - Throws: always, ``HTTP/TransportError`` `invalidRequest`.
        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            throw HTTP.TransportError(kind: .invalidRequest, message: "mediate networks sends nothing")
        }
    }

    /// The folder of `--state-dir` where a `--fast` run (virtual time) keeps its state.
    static let virtualTimeDirectory = "virtual-time"

    /// Why a `--config-url` is refused: the usage error's text.
    struct Refusal: Error {
        /// The message, naming the URL without its credentials.
        let text: String
    }

    /// `text` as the URL of a configuration server, or why not: an http(s) URL with a host
    /// (and a port from 1 to 65535, if any); no user name or password before the host (the
    /// rule of a network's `endpoint`: a URL is printed, logged and kept in shell histories,
    /// and the server's answer is signed, so it needs no secret); and, on platforms whose
    /// `URLSession` is FoundationNetworking's (Linux), no IPv6 literal host, which it refuses
    /// with `NSURLErrorBadURL` before any request (its URL parsing and curl disagree on the brackets).
    /// The messages never echo the credentials.
    static func checkedURL(_ text: String) -> Result<URL, Refusal> {
        let credentials = "credentials are not allowed in the URL (a user name or password before the host, as in a network's endpoint)"
        let shown = ConfigurationText.withoutUserInfo(text)
        guard shown == text else {
            return .failure(Refusal(text: "--config-url \(shown): \(credentials)"))
        }
        guard let url = URL(string: text), let origin = HTTP.OriginLockedTransport.Origin(url) else {
            return .failure(Refusal(text: "--config-url needs an http(s) URL with a host (and a port from 1 to 65535, if any), got '\(text)'"))
        }
        guard url.user == nil, url.password == nil else {
            return .failure(Refusal(text: "--config-url: \(credentials)"))
        }
        if refusesIPv6LiteralHosts, origin.host.contains(":") || origin.host.hasPrefix("[") {
            return .failure(Refusal(text: "--config-url \(text): IPv6 literal hosts are not supported by this platform's HTTP client (its URLSession refuses them before sending anything); use a host name that resolves to the address"))
        }
        return .success(url)
    }

    /// Whether this platform's `URLSession` refuses a URL whose host is an IPv6 literal
    /// (`http://[::1]:8080/`): FoundationNetworking's (Linux) does, Apple's does not.
    #if canImport(FoundationNetworking)
    static let refusesIPv6LiteralHosts = true
    #else
    static let refusesIPv6LiteralHosts = false
    #endif

    /// Writes a configuration update on standard error: `mediate: warning: config refused …`
    /// for a warning, `mediate: config applied …` otherwise (standard output keeps the report).
    static func report(_ update: MediationEngine.RemoteConfiguration.Update, environment: CommandEnvironment) {
        environment.standardError.write("mediate: \(update.isWarning ? "warning: " : "")\(update)\n")
    }
}
