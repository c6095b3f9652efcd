import Mediation

/// `mediate config keygen | sign | verify`: the tools of signed remote configurations.
enum ConfigTool: Equatable, Sendable {
    /// `mediate config keygen --out KEY`: a new key pair, KEY (mode 0600) and KEY.pub.
    case keygen(outPath: String)
    /// `mediate config sign --key KEY --version N [--rollout PERCENT [--salt S]] [--issued-at T]
    /// [--public-key KEY.pub] CONFIG`.
    case sign(SignOptions)
    /// `mediate config verify --public-key KEY.pub SIGNED`.
    case verify(publicKeyPath: String, signedPath: String)

    /// The options of `sign`.
    struct SignOptions: Equatable, Sendable {
        /// `--key KEY`: the private key file.
        var keyPath: String
        /// `--version N`: the new `config_version`.
        var version: Int
        /// `--rollout PERCENT`: the staged rollout's percentage, if any.
        var rolloutPercent: Double?
        /// `--salt S`: the rollout's salt (default `v<N>`, so that a rollout of one version
        /// widened later keeps its installs).
        var salt: String?
        /// `--issued-at T`: the `issued_at` to write (default: now).
        var issuedAt: String?
        /// The configuration (or a signed envelope to sign again).
        var configPath: String
        /// `--public-key KEY.pub`: the keys a signed envelope signed again must verify with
        /// (default: the signing key's own), e.g. a rotated key's for a rollback to its content.
        var publicKeyPath: String?
    }

    /// Parses the arguments after `config`.
    /// - Throws: ``UsageError`` saying what is wrong.
    static func parse(_ arguments: [String]) throws(UsageError) -> ConfigTool {
        guard let tool = arguments.first else {
            throw UsageError(message: "mediate config needs keygen, sign or verify")
        }
        let (values, files) = try options(Array(arguments.dropFirst()), tool: tool)
        func required(_ name: String) throws(UsageError) -> String {
            guard let value = values[name] else { throw UsageError(message: "mediate config \(tool) needs \(name)") }
            return value
        }
        func file(_ what: String) throws(UsageError) -> String {
            guard files.count == 1 else { throw UsageError(message: "mediate config \(tool) needs one \(what) file, got \(files.count)") }
            return files[0]
        }
        switch tool {
        case "keygen":
            guard files.isEmpty else { throw UsageError(message: "unexpected argument '\(files[0])'") }
            return .keygen(outPath: try required("--out"))
        case "sign":
            let version = try OptionReader.whole("--version", try required("--version"), in: 1...ConfigurationLoader.maximumConfigVersion)
            var options = SignOptions(keyPath: try required("--key"), version: version, configPath: try file("configuration"))
            if let percent = try values.decimal("--rollout", "a percentage from 0 to 100", where: { $0 <= 100 }) {
                options.rolloutPercent = percent
            } else if values["--salt"] != nil {
                throw UsageError(message: "--salt applies to --rollout only")
            }
            options.salt = values["--salt"]
            options.issuedAt = values["--issued-at"]
            options.publicKeyPath = values["--public-key"]
            return .sign(options)
        case "verify":
            return .verify(publicKeyPath: try required("--public-key"), signedPath: try file("signed configuration"))
        default:
            throw UsageError(message: "unknown config tool '\(tool)' (keygen, sign or verify)")
        }
    }

    /// The options each tool takes (all take a value).
    private static let allowed: [String: Set<String>] = [
        "keygen": ["--out"],
        "sign": ["--key", "--version", "--rollout", "--salt", "--issued-at", "--public-key"],
        "verify": ["--public-key"],
    ]

    /// Reads the tool's options and its plain arguments (the files).
    private static func options(_ arguments: [String], tool: String) throws(UsageError) -> (values: OptionReader, files: [String]) {
        let values = try OptionReader(arguments, OptionReader.Grammar(command: "config \(tool)", valued: allowed[tool] ?? []))
        return (values, values.plain)
    }
}
