import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Mediation

/// Runs `mediate config keygen | sign | verify` (engine rule R22; `docs/remote-config.md`).
enum ConfigCommand {
    /// Runs one tool.
    /// - Returns: 0 on success; 64 usage; 65 an invalid configuration, key or signed file
    ///   (`verify`: not valid); 66 a missing input; 73 a key file that exists or cannot be written.
    static func run(_ tool: ConfigTool, environment: CommandEnvironment) async -> ExitCode {
        switch tool {
        case .keygen(let outPath): keygen(outPath, environment: environment)
        case .sign(let options): sign(options, environment: environment)
        case .verify(let publicKeyPath, let signedPath): await verify(publicKeyPath: publicKeyPath, signedPath: signedPath, environment: environment)
        }
    }

    // MARK: - keygen

    /// Writes a new private key to KEY (mode 0600, created only if missing) and its public key
    /// to KEY.pub (one line).
    private static func keygen(_ outPath: String, environment: CommandEnvironment) -> ExitCode {
        let key: ConfigurationSigningKey
        do {
            key = try ConfigurationSigningKey.generate()
        } catch {
            return MediateCommand.fail(.software, error.message, environment: environment)
        }
        let privateURL = environment.resolve(outPath)
        let publicURL = environment.resolve(outPath + ".pub")
        // Both names are checked before anything is written, without following a link: a
        // dangling `KEY.pub` link must not leave a private key behind without its public half.
        for url in [privateURL, publicURL] where exists(url) {
            return MediateCommand.fail(.cannotCreate, "\(url.path) exists (a file, directory or link, even a dangling one); a key is never overwritten", environment: environment)
        }
        if let failure = createFile(privateURL, contents: key.line + "\n", mode: 0o600) {
            return MediateCommand.fail(.cannotCreate, "cannot write \(outPath): \(failure)", environment: environment)
        }
        if let failure = createFile(publicURL, contents: key.publicKey.line + "\n", mode: 0o644) {
            unlink(privateURL.path) // never a private key without its public half
            return MediateCommand.fail(.cannotCreate, "cannot write \(outPath).pub: \(failure)", environment: environment)
        }
        environment.standardOutput.write("wrote \(DisplayText.escaped(outPath)) (private key, mode 0600) and \(DisplayText.escaped(outPath)).pub (public key \(key.publicKey.id)); ship the .pub line in the app, keep the private key off it\n")
        return .success
    }

    /// Whether anything is at `url` itself (a link is not followed: a dangling one exists).
    private static func exists(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 || errno != ENOENT
    }

    /// Creates `url` (failing if it exists) with `mode` and writes `contents`; the reason on failure.
    private static func createFile(_ url: URL, contents: String, mode: mode_t) -> String? {
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        defer { close(descriptor) }
        _ = fchmod(descriptor, mode) // the umask may have narrowed it; never widened past `mode`
        let bytes = Array(contents.utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { return written < 0 ? String(cString: strerror(errno)) : "short write" }
        return fsync(descriptor) == 0 ? nil : String(cString: strerror(errno))
    }

    // MARK: - sign

    /// Signs the configuration (or signs a signed one again) and prints the envelope.
    private static func sign(_ options: ConfigTool.SignOptions, environment: CommandEnvironment) -> ExitCode {
        let key: ConfigurationSigningKey
        switch readText(options.keyPath, what: "key", environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let text):
            do {
                key = try ConfigurationSigningKey(line: text)
            } catch {
                return MediateCommand.fail(.dataError, "invalid key \(options.keyPath): \(error.message)", environment: environment)
            }
        }
        var rollout: MediationConfiguration.Rollout?
        if let percent = options.rolloutPercent {
            guard let value = MediationConfiguration.Rollout(percent: percent, salt: options.salt ?? "v\(options.version)") else {
                return MediateCommand.usageError("--rollout needs at most two decimals and --salt 1 to \(MediationConfiguration.Rollout.maximumSaltLength) characters", environment: environment)
            }
            rollout = value
        }
        var issuedAt = WallClockTime(Date())
        if let text = options.issuedAt {
            guard let time = WallClockTime(rfc3339: text) else {
                return MediateCommand.usageError("--issued-at needs an RFC 3339 time in UTC such as 2026-12-01T14:00:00Z, got '\(text)'", environment: environment)
            }
            issuedAt = time
        }
        let input: Data
        switch readData(options.configPath, what: "config", environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let data): input = data
        }
        // A signed envelope is signed again only when its signature verifies (with the signing
        // key, or the keys given): its configuration is never taken on trust and re-signed.
        if case .success(let envelope) = SignedConfiguration.parse(input) {
            var trusted = [key.publicKey]
            if let publicKeyPath = options.publicKeyPath {
                switch readPublicKeys(publicKeyPath, environment: environment) {
                case .failure(let exit): return exit.code
                case .success(let keys): trusted = keys
                }
            }
            if let rejection = envelope.checkSignature(trustedKeys: trusted) {
                return MediateCommand.fail(.dataError, "invalid config \(options.configPath): a signed configuration is signed again only when it verifies: \(rejection.message) (\(rejection.code)); give the keys it was signed with as --public-key", environment: environment)
            }
            // Installs never go back to a lower version (the rollback floor), so signing an
            // envelope again under a lower version would only publish what they refuse: a
            // rollback is its content signed again under a new, higher version.
            if case .success(let signed) = envelope.configuration(registry: environment.registry), options.version < signed.version {
                return MediateCommand.usageError("--version \(options.version) is lower than the version \(signed.version) of the signed configuration \(options.configPath); it is signed again only at version \(signed.version) or higher (a rollback is its content under a new, higher version)", environment: environment)
            }
        }
        do {
            let envelope = try ConfigurationSigner.sign(input, key: key, version: options.version, issuedAt: issuedAt, rollout: rollout, registry: environment.registry)
            environment.standardOutput.write(String(decoding: envelope, as: UTF8.self))
            return .success
        } catch {
            return MediateCommand.fail(.dataError, "invalid config \(options.configPath): \(error.message)", environment: environment)
        }
    }

    // MARK: - verify

    /// Says whether the signed file verifies with the trusted keys and builds (R15, R19).
    private static func verify(publicKeyPath: String, signedPath: String, environment: CommandEnvironment) async -> ExitCode {
        let keys: [MediationEngine.RemoteConfiguration.PublicKey]
        switch readPublicKeys(publicKeyPath, environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let read): keys = read
        }
        let data: Data
        switch readData(signedPath, what: "signed config", environment: environment) {
        case .failure(let exit): return exit.code
        case .success(let read): data = read
        }
        let name = DisplayText.escaped(signedPath)
        func notValid(_ code: MediationEngine.RemoteConfiguration.Update.Code, _ message: String, path: String? = nil) -> ExitCode {
            let place = path.map { " at \(DisplayText.escaped($0))" } ?? ""
            environment.standardOutput.write("\(name): not valid: \(code): \(DisplayText.escaped(message))\(place)\n")
            return .dataError
        }
        let verified: VerifiedConfiguration
        switch SignedConfiguration.verify(data, trustedKeys: keys, registry: environment.registry) {
        case .failure(let rejection): return notValid(rejection.code, rejection.message, path: rejection.path)
        case .success(let value): verified = value
        }
        // R19: the networks' own checks run when an engine is built (nothing is sent).
        do {
            let engine = try MediationEngine(configuration: verified.configuration, registry: environment.registry)
            await engine.shutdown()
        } catch {
            return notValid(.invalidConfig, "\(error.message) (\(error.code))", path: error.path)
        }
        let configuration = verified.configuration
        let issued = configuration.issuedAt.map { "\($0)" } ?? "-"
        let rollout = configuration.rollout.map { "rollout \($0)" } ?? "every install"
        environment.standardOutput.write("\(name): valid: version \(configuration.version), key \(verified.keyID), issued_at \(issued), \(rollout); \(configuration.networks.count) networks, \(configuration.placements.count) placements\n")
        return .success
    }

    // MARK: - Files

    /// The trusted keys of a `KEY.pub` file: one key a line (blank lines and `#` comments skipped).
    static func readPublicKeys(_ path: String, environment: CommandEnvironment) -> Result<[MediationEngine.RemoteConfiguration.PublicKey], MediateCommand.Exit> {
        let text: String
        switch readText(path, what: "public key", environment: environment) {
        case .failure(let exit): return .failure(exit)
        case .success(let read): text = read
        }
        var keys: [MediationEngine.RemoteConfiguration.PublicKey] = []
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            do {
                keys.append(try MediationEngine.RemoteConfiguration.PublicKey(keyLine: trimmed))
            } catch {
                return .failure(MediateCommand.Exit(code: MediateCommand.fail(.dataError, "invalid public key file \(path): line \(number + 1): \(error.message)", environment: environment)))
            }
        }
        guard !keys.isEmpty else {
            return .failure(MediateCommand.Exit(code: MediateCommand.fail(.dataError, "invalid public key file \(path): no key", environment: environment)))
        }
        return .success(keys)
    }

    private static func readText(_ path: String, what: String, environment: CommandEnvironment) -> Result<String, MediateCommand.Exit> {
        readData(path, what: what, environment: environment, limit: 64 * 1024).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The file's bytes, at most `limit` (the loader's 4 MiB by default; more is an invalid file).
    private static func readData(_ path: String, what: String, environment: CommandEnvironment, limit: Int = SignedConfiguration.maximumBytes) -> Result<Data, MediateCommand.Exit> {
        InputFile.read(path, what: what, limit: limit, environment: environment)
    }
}
