import Foundation

extension MediationEngine.RemoteConfiguration.PublicKey {
    /// Why a configuration key could not be read.
    package struct FormatError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong, for a person (never the key's secret bytes).
        public var message: String

        /// Creates an error.
        /// - Parameter message: what is wrong.
        public init(message: String) {
            self.message = message
        }

        /// The message.
        public var description: String { message }
    }
}

extension MediationEngine.RemoteConfiguration {
    /// A public key the app trusts to sign its remote configurations (Ed25519, RFC 8032). An app
    /// ships several (by id) so that a key can be rotated: sign with the new key once every app
    /// version in use trusts it, then drop the old one.
    ///
    /// Its text form is the one line `mediate config keygen` writes to `KEY.pub`:
    /// `mediation-ed25519 <key id> <public key, base64>`, e.g.
    /// `mediation-ed25519 c882f47debb3cd17 Xb2kS0…=`. The key id is the first 8 bytes of the
    /// key's SHA-256 in hex; a line whose id does not match its key is refused, so a key copied
    /// with a typo never stands for another.
    public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
        /// The key id: 16 lowercase hex digits, the first 8 bytes of SHA-256 of the raw key. A
        /// signed configuration names the key that signed it by this id.
        public let id: String
        /// The raw Ed25519 public key: 32 bytes.
        public let rawRepresentation: Data

        /// The first word of a public key line.
        public static let linePrefix = "mediation-ed25519"

        /// The key of a `KEY.pub` line (surrounding white space ignored).
        /// - Parameter line: `mediation-ed25519 <key id> <public key, base64>`.
        /// - Throws: an error (a `FormatError`) saying what is wrong with the line: not three
        ///   words, not this prefix, not 32 bytes of base64, or an id that does not match the key.
        public init(_ line: String) throws {
            try self.init(keyLine: line)
        }

        /// The key of a `KEY.pub` line, with the reason typed (``init(_:)``).
        package init(keyLine line: String) throws(FormatError) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
            guard words.count == 3, words[0] == Self.linePrefix else {
                throw FormatError(message: "expected one line \"\(Self.linePrefix) <key id> <public key in base64>\"")
            }
            guard let raw = Data(base64Encoded: String(words[2])), raw.count == Ed25519.keyLength else {
                throw FormatError(message: "the public key is not 32 bytes of base64")
            }
            try self.init(raw: raw)
            guard id == words[1] else {
                throw FormatError(message: "the key id \(ConfigurationText.quoted(String(words[1].prefix(20)))) does not match the key (its id is \(id))")
            }
        }

        /// The key with these 32 raw bytes; its id is derived from them.
        /// - Parameter rawRepresentation: the raw Ed25519 public key.
        /// - Throws: an error (a `FormatError`) when it is not 32 bytes.
        public init(rawRepresentation: Data) throws {
            try self.init(raw: rawRepresentation)
        }

        /// The key with these 32 raw bytes, with the reason typed (``init(rawRepresentation:)``).
        package init(raw rawRepresentation: Data) throws(FormatError) {
            guard rawRepresentation.count == Ed25519.keyLength else {
                throw FormatError(message: "an Ed25519 public key is 32 bytes, found \(rawRepresentation.count)")
            }
            self.rawRepresentation = rawRepresentation
            id = Self.keyID(of: [UInt8](rawRepresentation))
        }

        /// The key id of a raw public key: the first 8 bytes of its SHA-256, in hex.
        package static func keyID(of publicKey: [UInt8]) -> String {
            SHA256Digest.hex(SHA256Digest.hash(publicKey).prefix(8))
        }

        /// The `KEY.pub` line, without a newline.
        public var line: String {
            "\(Self.linePrefix) \(id) \(rawRepresentation.base64EncodedString())"
        }

        /// The ``line``.
        public var description: String { line }
    }
}

/// A private key that signs configurations (for `mediate config sign`; an app never holds one).
/// Its text form is the one line `mediate config keygen` writes to `KEY` (mode 0600):
/// `mediation-ed25519-private <key id> <32-byte seed, base64>`.
package struct ConfigurationSigningKey: Sendable {
    /// The private key's 32-byte seed.
    package let seed: [UInt8]
    /// Its public key.
    package let publicKey: MediationEngine.RemoteConfiguration.PublicKey

    /// The first word of a private key line.
    package static let linePrefix = "mediation-ed25519-private"

    /// The key of `seed`.
    /// - Throws: ``MediationEngine/RemoteConfiguration/PublicKey/FormatError`` when it is not a
    ///   32-byte seed.
    package init(seed: [UInt8]) throws(MediationEngine.RemoteConfiguration.PublicKey.FormatError) {
        guard let publicKey = Ed25519.publicKey(ofPrivateKey: seed) else {
            throw MediationEngine.RemoteConfiguration.PublicKey.FormatError(message: "an Ed25519 private key is a 32-byte seed")
        }
        self.seed = seed
        self.publicKey = try MediationEngine.RemoteConfiguration.PublicKey(raw: Data(publicKey))
    }

    /// The key of a `KEY` line.
    /// - Throws: ``MediationEngine/RemoteConfiguration/PublicKey/FormatError`` saying what is wrong
    ///   (never quoting the secret).
    package init(line: String) throws(MediationEngine.RemoteConfiguration.PublicKey.FormatError) {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" })
        guard words.count == 3, words[0] == Self.linePrefix else {
            throw MediationEngine.RemoteConfiguration.PublicKey.FormatError(message: "expected one line \"\(Self.linePrefix) <key id> <seed in base64>\" (a key written by mediate config keygen)")
        }
        guard let seed = Data(base64Encoded: String(words[2])) else {
            throw MediationEngine.RemoteConfiguration.PublicKey.FormatError(message: "the private key is not base64")
        }
        try self.init(seed: [UInt8](seed))
        guard publicKey.id == words[1] else {
            throw MediationEngine.RemoteConfiguration.PublicKey.FormatError(message: "the key id does not match the private key (its id is \(publicKey.id))")
        }
    }

    /// A new key from the system's secure random source.
    /// - Throws: ``MediationEngine/RemoteConfiguration/PublicKey/FormatError`` when the crypto
    ///   library cannot make one.
    package static func generate() throws(MediationEngine.RemoteConfiguration.PublicKey.FormatError) -> ConfigurationSigningKey {
        guard let seed = Ed25519.generatePrivateKey() else {
            throw MediationEngine.RemoteConfiguration.PublicKey.FormatError(message: "the crypto library could not generate an Ed25519 key")
        }
        return try ConfigurationSigningKey(seed: seed)
    }

    /// The `KEY` line, without a newline.
    package var line: String {
        "\(Self.linePrefix) \(publicKey.id) \(Data(seed).base64EncodedString())"
    }

    /// The signature of `message`: 64 bytes.
    /// - Throws: ``MediationEngine/RemoteConfiguration/PublicKey/FormatError`` when the library
    ///   fails.
    package func sign(_ message: [UInt8]) throws(MediationEngine.RemoteConfiguration.PublicKey.FormatError) -> [UInt8] {
        guard let signature = Ed25519.signature(of: message, privateKey: seed) else {
            throw MediationEngine.RemoteConfiguration.PublicKey.FormatError(message: "the crypto library could not sign")
        }
        return signature
    }
}
