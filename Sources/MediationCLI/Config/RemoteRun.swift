import Adapters
import Foundation
import Mediation

/// What a run with `--config-url URL --public-key FILE [--state-dir DIR]` needs: the remote
/// configuration's settings (the URL, the trusted keys, `URLSessionTransport` with the loader's
/// size limit) and the state store that keeps its cache and the install id across runs.
struct RemoteRun: Sendable {
    /// The settings.
    let remote: RemoteConfiguration
    /// The state store: a ``FileStateStore`` in `--state-dir`, else memory only.
    let store: any StateStore

    /// The remote run of `options`, `nil` without `--config-url`, or the exit of a failure
    /// (reported on standard error): 64 for a URL that is not http(s), 65 or 66 for the key
    /// file, 73 for a state directory that cannot be created.
    static func prepare(_ options: RunOptions, environment: CommandEnvironment) -> Result<RemoteRun?, MediateCommand.Exit> {
        guard let text = options.configURL else { return .success(nil) }
        guard let url = URL(string: text), HTTPOrigin(url) != nil else {
            return .failure(MediateCommand.Exit(code: MediateCommand.usageError("--config-url needs an http(s) URL with a host (and a port from 1 to 65535, if any), got '\(text)'", environment: environment)))
        }
        let keys: [ConfigurationPublicKey]
        switch ConfigCommand.readPublicKeys(options.publicKeyPath ?? "", environment: environment) {
        case .failure(let exit): return .failure(exit)
        case .success(let read): keys = read
        }
        var store: any StateStore = MemoryStateStore()
        if let directory = options.stateDirectory {
            do {
                store = try FileStateStore(directory: environment.resolve(directory))
            } catch {
                return .failure(MediateCommand.Exit(code: MediateCommand.fail(.cannotCreate, "--state-dir \(directory): \(error.message)", environment: environment)))
            }
        }
        let transport = URLSessionTransport(maximumResponseBytes: RemoteConfiguration.maximumBodyBytes)
        return .success(RemoteRun(remote: RemoteConfiguration(url: url, trustedKeys: keys, transport: transport), store: store))
    }

    /// Writes a configuration update on standard error: `mediate: warning: config refused …`
    /// for a warning, `mediate: config applied …` otherwise (standard output keeps the report).
    static func report(_ update: ConfigurationUpdate, environment: CommandEnvironment) {
        environment.standardError.write("mediate: \(update.isWarning ? "warning: " : "")\(update)\n")
    }
}
