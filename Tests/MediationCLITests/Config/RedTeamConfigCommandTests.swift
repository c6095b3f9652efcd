import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Mediation
@testable import MediationCLI
import Testing

/// Red-team invocations of `mediate config keygen | sign | verify` and `--config-url` (engine
/// rule R22): hostile flag values, key files and signed files, and a state directory that is
/// not one. Each gets its documented exit code and a message saying what and where; none is
/// accepted, none traps.
@Suite("Red team: mediate config", .serialized)
struct RedTeamConfigCommandTests {
    private static func keyed() async throws -> Workspace {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let keygen = await workspace.run(["config", "keygen", "--out", "k"])
        #expect(keygen.code == .success)
        return workspace
    }

    @Test("sign: a version or rollout that is not a number in range is a usage error (64)",
          arguments: [["--version", "-1"], ["--version", "9007199254740992"], ["--version", "99999999999999999999"], ["--version", "1e3"], ["--version", "0x10"], ["--version", ""],
                      ["--version", "1", "--rollout", "nan"], ["--version", "1", "--rollout", "inf"], ["--version", "1", "--rollout", "-1"], ["--version", "1", "--rollout", "100.01"],
                      ["--version", "1", "--rollout", "12.345"], ["--version", "1", "--rollout", "50", "--salt", ""],
                      ["--version", "1", "--rollout", "50", "--salt", String(repeating: "s", count: 101)], ["--version", "1", "--issued-at", "yesterday"]])
    func hostileSignFlags(flags: [String]) async throws {
        let workspace = try await Self.keyed()
        let result = await workspace.run(["config", "sign", "--key", "k"] + flags + ["Config/mediation.json"])
        #expect(result.code == .usage, "\(flags): \(result.code) \(result.error)")
        #expect(result.output.isEmpty)
        #expect(result.error.hasPrefix("mediate: "))
    }

    @Test("verify: a key file that is empty, garbage, a private key, huge or a directory; a signed file that is huge, empty or a plain config: 65 or 66 with the reason")
    func hostileVerifyInputs() async throws {
        let workspace = try await Self.keyed()
        let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "3", "Config/mediation.json"])
        try workspace.write(signed.output, to: "signed.json")
        try workspace.write("", to: "empty.pub")
        try workspace.write("mediation-ed25519 0000000000000000 AAAA\n", to: "garbage.pub")
        try workspace.write(String(repeating: "# comment\n", count: 10_000), to: "huge.pub")
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("dir.pub"), withIntermediateDirectories: false)
        for (keyFile, code) in [("empty.pub", ExitCode.dataError), ("garbage.pub", .dataError), ("k", .dataError), ("huge.pub", .dataError), ("dir.pub", .noInput), ("missing.pub", .noInput)] {
            let result = await workspace.run(["config", "verify", "--public-key", keyFile, "signed.json"])
            #expect(result.code == code, "\(keyFile): \(result.code) \(result.error)")
            #expect(result.error.contains(keyFile), "\(keyFile): \(result.error)")
        }
        try workspace.write(String(repeating: " ", count: SignedConfiguration.maximumBytes + 1), to: "huge.json")
        try workspace.write("", to: "empty.json")
        for (file, code) in [("huge.json", ExitCode.dataError), ("empty.json", .dataError), ("Config/mediation.json", .dataError), ("missing.json", .noInput)] {
            let result = await workspace.run(["config", "verify", "--public-key", "k.pub", file])
            #expect(result.code == code, "\(file): \(result.code) \(result.output) \(result.error)")
        }
        let plain = await workspace.run(["config", "verify", "--public-key", "k.pub", "Config/mediation.json"])
        #expect(plain.output.contains("not valid: bad_signature"))
    }

    @Test("verify names the JSON path of an invalid configuration inside a valid signature")
    func verifyNamesThePath() async throws {
        let workspace = try await Self.keyed()
        // A configuration the loader accepts, signed; then its line item made invalid and signed raw.
        let key = try ConfigurationSigningKey(line: String(contentsOf: workspace.directory.appendingPathComponent("k"), encoding: .utf8))
        let invalid = Workspace.instantConfig
            .replacingOccurrences(of: "{", with: #"{ "config_version": 4, "issued_at": "2026-12-01T14:00:00Z", "#, options: [], range: Workspace.instantConfig.range(of: "{"))
            .replacingOccurrences(of: "\"ecpm\": 2.0", with: "\"ecpm\": -2.0")
        let payload = Array(invalid.utf8)
        let envelope = SignedConfiguration(keyID: key.publicKey.id, signature: try key.sign(payload), payload: payload).rendered()
        try workspace.write([UInt8](envelope), to: "invalid.json")
        let result = await workspace.run(["config", "verify", "--public-key", "k.pub", "invalid.json"])
        #expect(result.code == .dataError)
        #expect(result.output.contains("not valid: invalid_config") && result.output.contains("at placements.home_banner.sources[0].ecpm"), "\(result.output)")
    }

    @Test("keygen never writes through an existing or dangling link, or into a missing directory (73)")
    func keygenTargets() async throws {
        let workspace = try await Self.keyed()
        let elsewhere = workspace.directory.appendingPathComponent("elsewhere")
        try FileManager.default.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("dangling").path, withDestinationPath: elsewhere.path)
        #expect(await workspace.run(["config", "keygen", "--out", "dangling"]).code == .cannotCreate)
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
        #expect(await workspace.run(["config", "keygen", "--out", "no/such/dir/key"]).code == .cannotCreate)
        try workspace.write("x", to: "only.pub")
        #expect(await workspace.run(["config", "keygen", "--out", "only"]).code == .cannotCreate)
        #expect(!FileManager.default.fileExists(atPath: workspace.directory.appendingPathComponent("only").path))
    }

    @Test("keygen writes nothing when KEY.pub is a dangling link (no private key left without its public half)")
    func keygenDanglingPublicLink() async throws {
        let workspace = try await Self.keyed()
        let elsewhere = workspace.directory.appendingPathComponent("elsewhere.pub")
        try FileManager.default.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("fresh.pub").path, withDestinationPath: elsewhere.path)
        let result = await workspace.run(["config", "keygen", "--out", "fresh"])
        #expect(result.code == .cannotCreate, "\(result.error)")
        #expect(result.error.contains("fresh.pub exists"), "\(result.error)")
        var status = stat()
        #expect(lstat(workspace.directory.appendingPathComponent("fresh").path, &status) != 0, "the private key was left behind")
        #expect(!FileManager.default.fileExists(atPath: elsewhere.path))
    }

    @Test("sign refuses to sign a signed envelope again under a lower version (64); the same or a higher one is fine")
    func signNeverLowersAVersion() async throws {
        let workspace = try await Self.keyed()
        let five = await workspace.run(["config", "sign", "--key", "k", "--version", "5", "Config/mediation.json"])
        #expect(five.code == .success, "\(five.error)")
        try workspace.write(five.output, to: "v5.json")
        let lower = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "v5.json"])
        #expect(lower.code == .usage, "\(lower.code) \(lower.error)")
        #expect(lower.output.isEmpty)
        #expect(lower.error.contains("--version 2 is lower than the version 5 of the signed configuration v5.json"), "\(lower.error)")
        #expect(await workspace.run(["config", "sign", "--key", "k", "--version", "5", "v5.json"]).code == .success)
        #expect(await workspace.run(["config", "sign", "--key", "k", "--version", "6", "v5.json"]).code == .success)
    }

    @Test("--config-url: not http(s), no host, a state directory that is a file: 64 or 73 before any auction")
    func hostileRemoteRunFlags() async throws {
        let workspace = try await Self.keyed()
        try workspace.write("x", to: "afile")
        for (url, code) in [("ftp://127.0.0.1/c.json", ExitCode.usage), ("http://", .usage), ("file:///etc/passwd", .usage), ("not a url", .usage)] {
            let result = await workspace.run(["--placement", "home_banner", "--config-url", url, "--public-key", "k.pub"])
            #expect(result.code == code, "\(url): \(result.code) \(result.error)")
            #expect(result.output.isEmpty)
        }
        for directory in ["afile", "afile/below"] {
            let result = await workspace.run(["--placement", "home_banner", "--config-url", "http://127.0.0.1:1/c.json", "--public-key", "k.pub", "--state-dir", directory])
            #expect(result.code == .cannotCreate, "\(directory): \(result.code) \(result.error)")
            #expect(result.error.contains("--state-dir"))
        }
    }
    @Test("--config-url with a user name or password before the host: exit 64 before any request, as for a network's endpoint, naming the URL without them",
          arguments: [("http://user:pw-s3cret@127.0.0.1:1/c.json", "http://***@127.0.0.1:1/c.json"),
                      ("https://t0ken-s3cret@config.example.com/c.json", "https://***@config.example.com/c.json"),
                      ("http://a@b:pw-s3cret@127.0.0.1:1/c.json?x=@", "http://***@127.0.0.1:1/c.json?x=@"),
                      ("HTTP://user:pw-s3cret@localhost:1", "HTTP://***@localhost:1"),
                      ("http:user:pw-s3cret@127.0.0.1:1/c.json", "http:***@127.0.0.1:1/c.json")])
    func credentialsInTheConfigURL(url: String, shown: String) async throws {
        let workspace = try await Self.keyed()
        for watch in [[], ["--watch", "--fast", "--duration", "1"]] {
            let result = await workspace.run(["--placement", "home_banner", "--config-url", url, "--public-key", "k.pub"] + watch)
            #expect(result.code == .usage, "\(url) \(watch): \(result.code) \(result.error)")
            #expect(result.output.isEmpty)
            #expect(result.error == "mediate: --config-url \(shown): credentials are not allowed in the URL (a user name or password before the host, as in a network's endpoint) (see mediate --help)\n", "\(result.error)")
            #expect(!result.error.contains("s3cret"))
        }
        // The same rule as a network's endpoint, which the configuration refuses.
        let endpoint = Workspace.instantConfig.replacingOccurrences(of: #""endpoint": "sandbox""#, with: #""endpoint": "http://user:pw@127.0.0.1:1/""#)
        try workspace.write(endpoint, to: "endpoint.json")
        #expect(await workspace.run(["validate", "--config", "endpoint.json"]).code == .dataError)
    }

    @Test("--config-url with an IPv6 literal host: where URLSession is FoundationNetworking's (Linux), exit 64 saying this platform's HTTP client does not support it; elsewhere it runs; a host name runs everywhere",
          arguments: ["http://[::1]:1/c.json", "http://[::ffff:127.0.0.1]:1/c.json", "https://[2001:DB8::1]/c.json", "http://[fe80::1%25lo]:1/"])
    func ipv6LiteralInTheConfigURL(url: String) async throws {
        let workspace = try await Self.keyed()
        let result = await workspace.run(["--placement", "home_banner", "--config-url", url, "--public-key", "k.pub"])
        #if canImport(FoundationNetworking)
        #expect(result.code == .usage, "\(url): \(result.code) \(result.error)")
        #expect(result.output.isEmpty)
        #expect(result.error == "mediate: --config-url \(url): IPv6 literal hosts are not supported by this platform's HTTP client (its URLSession refuses them before sending anything); use a host name that resolves to the address (see mediate --help)\n", "\(result.error)")
        #else
        #expect(result.code == .success, "\(url): \(result.code) \(result.error)")
        #endif
        let named = await workspace.run(["--placement", "home_banner", "--config-url", "http://localhost:1/c.json", "--public-key", "k.pub"])
        #expect(named.code == .success, "\(named.code) \(named.error)")
    }

    #if canImport(FoundationNetworking)
    /// Why the refusal above exists. When this fails, the platform's URLSession reaches IPv6
    /// literals (swift-corelibs-foundation has fixed its bracketed hosts upstream): lift
    /// `RemoteRun.refusesIPv6LiteralHosts` for the toolchains that have the fix.
    @Test("FoundationNetworking's URLSession still refuses an IPv6 literal host with NSURLErrorBadURL before connecting")
    func foundationNetworkingRefusesIPv6Literals() async throws {
        let url = try #require(URL(string: "http://[::1]:1/c.json"))
        let code: Int? = await withCheckedContinuation { continuation in
            let session = URLSession(configuration: .ephemeral)
            session.dataTask(with: URLRequest(url: url, timeoutInterval: 5)) { _, _, error in
                continuation.resume(returning: error.map { ($0 as NSError).code })
                session.finishTasksAndInvalidate()
            }.resume()
        }
        #expect(code == NSURLErrorBadURL, "URLSession answered \(code.map(String.init) ?? "without an error"): see RemoteRun.refusesIPv6LiteralHosts")
    }
    #endif

    @Test("config sign / verify and --public-key read regular files only: a device, a directory (and a FIFO, whose open would block) is exit 66 'not a regular file', never read")
    func keyAndSignedFilesMustBeRegular() async throws {
        let workspace = try await Self.keyed()
        let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "Config/mediation.json"])
        try workspace.write(signed.output, to: "signed.json")
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("adir"), withIntermediateDirectories: true)
        let runs: [([String], String)] = [
            (["config", "verify", "--public-key", "k.pub", "/dev/zero"], "cannot read signed config file /dev/zero: not a regular file"),
            (["config", "verify", "--public-key", "/dev/zero", "signed.json"], "cannot read public key file /dev/zero: not a regular file"),
            (["config", "sign", "--key", "/dev/zero", "--version", "3", "Config/mediation.json"], "cannot read key file /dev/zero: not a regular file"),
            (["config", "sign", "--key", "k", "--version", "3", "/dev/zero"], "cannot read config file /dev/zero: not a regular file"),
            (["config", "sign", "--key", "k", "--version", "3", "--public-key", "/dev/zero", "signed.json"], "cannot read public key file /dev/zero: not a regular file"),
            (["config", "verify", "--public-key", "k.pub", "adir"], "cannot read signed config file adir: it is a directory"),
            (["--placement", "home_banner", "--config-url", "http://127.0.0.1:1/c.json", "--public-key", "/dev/zero"], "cannot read public key file /dev/zero: not a regular file"),
        ]
        for (arguments, message) in runs {
            let result = await workspace.run(arguments)
            #expect(result.code == .noInput, "\(arguments): \(result.code) \(result.error)")
            #expect(result.error == "mediate: \(message)\n", "\(arguments): \(result.error)")
        }
    }

    @Test("a one-shot run says on standard error that a damaged stored network health in --state-dir was discarded (R21), as a watch does")
    func discardedHealthIsAWarning() async throws {
        let workspace = try await Self.keyed()
        let store = try FileStateStore(directory: workspace.directory.appendingPathComponent("state"))
        try store.setData(Data("garbage".utf8), forKey: "health.never")
        let result = await workspace.run(["--placement", "home_banner", "--config-url", "http://127.0.0.1:1/c.json", "--public-key", "k.pub", "--state-dir", "state"])
        #expect(result.code == .success, "\(result.code) \(result.error)")
        let line = try #require(result.error.split(separator: "\n").first { $0.contains("stored health") }, "\(result.error)")
        #expect(line.hasPrefix("mediate: warning [health] the stored health of network never was discarded"), "\(line)")
        #expect(try store.data(forKey: "health.never") == nil)
    }

    @Test("a one-shot run says on standard error that the configuration it applied could not be cached in --state-dir (a directory at the cache's path), as a watch does, and that the directory was not removed")
    func unwritableCacheIsAWarning() async throws {
        let workspace = try await Self.keyed()
        let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "Config/mediation.json"])
        let server = try await ConfigServer([.init(body: signed.output, headers: ["Cache-Control": "max-age=300"])])
        defer { server.stop() }
        try FileManager.default.createDirectory(at: workspace.directory.appendingPathComponent("state/config.cache.state"), withIntermediateDirectories: true)
        let result = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub", "--state-dir", "state"])
        #expect(result.code == .success, "\(result.code) \(result.error)")
        let lines = result.error.split(separator: "\n")
        let discarded = try #require(lines.first { $0.contains("cache_discarded") }, "\(result.error)")
        #expect(discarded.contains("not removed"), "\(discarded)")
        let unwritable = try #require(lines.first { $0.contains("store_unavailable") }, "\(result.error)")
        #expect(unwritable.hasPrefix("mediate: warning: ") && unwritable.contains("could not be written"), "\(unwritable)")
        #expect(result.error.components(separatedBy: "store_unavailable").count == 2, "written once: \(result.error)")
        #expect(lines.contains { $0.contains("version 2 applied") })
    }

    @Test("a placement the signed configuration from the server dropped: exit 64 naming that configuration (its version and source), not the bundled file that has it")
    func placementDroppedByTheServer() async throws {
        let workspace = try await Self.keyed()
        let dropped = Workspace.instantConfig.replacingOccurrences(of: #""home_banner": {"#, with: #""old_banner": {"#)
        try workspace.write(dropped, to: "dropped.json")
        let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "9", "dropped.json"])
        let server = try await ConfigServer([.init(body: signed.output, headers: ["Cache-Control": "max-age=300"])])
        defer { server.stop() }
        let result = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub"])
        #expect(result.code == .usage)
        let line = try #require(result.error.split(separator: "\n").first { $0.contains("unknown placement") })
        #expect(line.contains("version 9") && line.contains("server"), "\(line)")
        #expect(line.contains("old_banner"))
    }
    @Test("signing a signed file again (the rollback) refuses a copy whose signature does not verify, instead of laundering it; --public-key names a rotated key")
    func resignRefusesATamperedEnvelope() async throws {
        let workspace = try await Self.keyed()
        let v3 = await workspace.run(["config", "sign", "--key", "k", "--version", "3", "Config/mediation.json"])
        try workspace.write(v3.output, to: "v3.json")
        #expect(await workspace.run(["config", "sign", "--key", "k", "--version", "4", "v3.json"]).code == .success)
        // The copy on a server or a CDN changed: a line item's eCPM raised, the old signature kept.
        var envelope = try SignedConfiguration.parse(Data(v3.output.utf8)).get()
        let text = String(decoding: envelope.payload, as: UTF8.self).replacingOccurrences(of: "0.5", with: "9.5")
        envelope.payload = Array(text.utf8)
        try workspace.write([UInt8](envelope.rendered()), to: "tampered.json")
        let laundered = await workspace.run(["config", "sign", "--key", "k", "--version", "4", "tampered.json"])
        #expect(laundered.code == .dataError, "\(laundered.code) \(laundered.error)")
        #expect(laundered.output.isEmpty)
        #expect(laundered.error.contains("tampered.json") && laundered.error.contains("bad_signature"))
        // Rotation: the old file was signed by an old key; the new key signs it again once it
        // verifies with the old public key.
        _ = await workspace.run(["config", "keygen", "--out", "new"])
        #expect(await workspace.run(["config", "sign", "--key", "new", "--version", "5", "v3.json"]).code == .dataError)
        let rotated = await workspace.run(["config", "sign", "--key", "new", "--version", "5", "--public-key", "k.pub", "v3.json"])
        #expect(rotated.code == .success, "\(rotated.error)")
        try workspace.write(rotated.output, to: "v5.json")
        #expect(await workspace.run(["config", "verify", "--public-key", "new.pub", "v5.json"]).code == .success)
        #expect(await workspace.run(["config", "sign", "--key", "new", "--version", "5", "--public-key", "k.pub", "tampered.json"]).code == .dataError)
    }
}
