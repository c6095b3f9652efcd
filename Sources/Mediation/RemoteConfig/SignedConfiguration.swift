import Foundation

/// A signed configuration: the envelope a configuration server serves, and what the engine
/// caches. The envelope is JSON,
/// ```json
/// {
///   "format": "mediation-signed-config-v1",
///   "key_id": "c882f47debb3cd17",
///   "signature": "<Ed25519 signature of the config's bytes, base64>",
///   "config": "<the configuration's exact bytes, base64>"
/// }
/// ```
/// and the signature covers the configuration's bytes exactly as they are inside `config`, so
/// no byte of the configuration, its `config_version`, `issued_at` or `rollout` can change in
/// transit or on disk without the signature failing. The configuration inside is an ordinary
/// one (``ConfigurationLoader``) with its release fields set: `config_version` at least 1 and
/// `issued_at` (``ConfigurationLoader/decodeRelease(_:)``).
///
/// The whole envelope is at most ``maximumBytes`` (the loader's size limit), so the
/// configuration inside is at most about 3 MiB.
package struct SignedConfiguration: Sendable {
    /// The envelope's `format`.
    package static let format = "mediation-signed-config-v1"
    /// The largest envelope accepted: the loader's limit, 4 MiB.
    package static let maximumBytes = StrictJSONReader.maximumSize

    /// The id of the key that signed it (``MediationEngine/RemoteConfiguration/PublicKey/id``).
    package var keyID: String
    /// The Ed25519 signature of ``payload``.
    package var signature: [UInt8]
    /// The configuration's bytes.
    package var payload: [UInt8]

    /// Why an envelope was refused.
    package struct Rejection: Error, Sendable, Hashable {
        /// The code the refusal's update carries.
        package var code: MediationEngine.RemoteConfiguration.Update.Code
        /// What is wrong, for a person.
        package var message: String
        /// The JSON path inside the configuration
        /// (``MediationEngine/RemoteConfiguration/Update/Code/invalidConfig``).
        package var path: String?

        package init(_ code: MediationEngine.RemoteConfiguration.Update.Code, _ message: String, path: String? = nil) {
            self.code = code
            self.message = message
            self.path = path
        }
    }

    /// Creates an envelope.
    package init(keyID: String, signature: [UInt8], payload: [UInt8]) {
        self.keyID = keyID
        self.signature = signature
        self.payload = payload
    }

    /// Reads an envelope (not yet verified): strict JSON of at most ``maximumBytes`` with
    /// exactly the four keys.
    /// - Parameter data: the bytes served (or cached).
    /// - Returns: the envelope, or why it is not one: `too_large`, `bad_signature` for a
    ///   configuration that is not signed at all, `malformed_envelope` for anything else.
    package static func parse(_ data: Data) -> Result<SignedConfiguration, Rejection> {
        guard data.count <= maximumBytes else {
            return .failure(Rejection(.tooLarge, "the body of \(data.count) bytes is over the limit of \(maximumBytes) bytes"))
        }
        let root: JSONNode
        do {
            root = try StrictJSONReader.parse([UInt8](data))
        } catch {
            return .failure(Rejection(.malformedEnvelope, "not a signed configuration: \(error.path): \(error.message)"))
        }
        guard case .object(let members) = root else {
            return .failure(Rejection(.malformedEnvelope, "not a signed configuration: the body is not a JSON object"))
        }
        let keys = Set(members.map(\.key))
        if keys.contains("networks") || keys.contains("placements") {
            return .failure(Rejection(.badSignature, "the configuration is not signed (a plain configuration, not an envelope)"))
        }
        let object: ConfigurationObject
        do {
            object = try ConfigurationObject(root, at: .root, allowed: ["format", "key_id", "signature", "config"])
        } catch {
            return .failure(Rejection(.malformedEnvelope, "not a signed configuration: \(error.path): \(error.message)"))
        }
        guard case .string(let format)? = object["format"] else {
            return .failure(Rejection(.malformedEnvelope, "not a signed configuration: no \"format\""))
        }
        guard format == Self.format else {
            return .failure(Rejection(.malformedEnvelope, "the envelope format \(ConfigurationText.quoted(String(format.prefix(40)))) is not one this version reads (\"\(Self.format)\")"))
        }
        guard case .string(let signatureText)? = object["signature"], !signatureText.isEmpty else {
            return .failure(Rejection(.badSignature, "the envelope has no signature"))
        }
        guard case .string(let keyID)? = object["key_id"], !keyID.isEmpty, keyID.utf8.count <= 64 else {
            return .failure(Rejection(.malformedEnvelope, "the envelope has no usable \"key_id\""))
        }
        guard case .string(let configText)? = object["config"], let payload = Data(base64Encoded: configText), !payload.isEmpty else {
            return .failure(Rejection(.malformedEnvelope, "the envelope's \"config\" is not base64 of a configuration"))
        }
        guard let signature = Data(base64Encoded: signatureText), signature.count == Ed25519.signatureLength else {
            return .failure(Rejection(.badSignature, "the signature is not 64 bytes of base64"))
        }
        return .success(SignedConfiguration(keyID: keyID, signature: [UInt8](signature), payload: [UInt8](payload)))
    }

    /// Checks the signature against the trusted keys: `nil` when it verifies, else
    /// `unknown_key` or `bad_signature`.
    /// - Parameter trustedKeys: the keys the app ships.
    package func checkSignature(trustedKeys: [MediationEngine.RemoteConfiguration.PublicKey]) -> Rejection? {
        guard let key = trustedKeys.first(where: { $0.id == keyID }) else {
            let known = trustedKeys.map(\.id).joined(separator: ", ")
            return Rejection(.unknownKey, "signed by key \(ConfigurationText.quoted(keyID)), which this app does not trust (it trusts: \(known.isEmpty ? "none" : known))")
        }
        guard Ed25519.isValidSignature(signature, of: payload, publicKey: [UInt8](key.rawRepresentation)) else {
            return Rejection(.badSignature, "the signature by key \(keyID) does not verify: the configuration was changed or not signed by that key")
        }
        return nil
    }

    /// The configuration inside, read strictly (R15) with the network kinds of `registry`; it
    /// must carry `config_version` (at least 1) and `issued_at`.
    /// - Parameter registry: the network kinds the app knows.
    /// - Returns: the configuration, or an `invalid_config` rejection naming the JSON path.
    package func configuration(registry: NetworkRegistry) -> Result<MediationConfiguration, Rejection> {
        let configuration: MediationConfiguration
        do {
            configuration = try ConfigurationLoader(registry: registry).load(data: Data(payload))
        } catch {
            return .failure(Rejection(.invalidConfig, "\(error.message) (\(error.code))", path: error.path))
        }
        guard configuration.version >= 1 else {
            return .failure(Rejection(.invalidConfig, "a signed configuration needs a config_version of at least 1", path: "config_version"))
        }
        guard configuration.issuedAt != nil else {
            return .failure(Rejection(.invalidConfig, "a signed configuration needs issued_at", path: "issued_at"))
        }
        return .success(configuration)
    }

    /// Reads and verifies `data` (``parse(_:)``, ``checkSignature(trustedKeys:)``,
    /// ``configuration(registry:)``), in that order.
    /// - Parameters:
    ///   - data: the envelope's bytes.
    ///   - trustedKeys: the keys the app ships.
    ///   - registry: the network kinds the app knows.
    package static func verify(_ data: Data, trustedKeys: [MediationEngine.RemoteConfiguration.PublicKey], registry: NetworkRegistry) -> Result<VerifiedConfiguration, Rejection> {
        let envelope: SignedConfiguration
        switch parse(data) {
        case .success(let parsed): envelope = parsed
        case .failure(let rejection): return .failure(rejection)
        }
        if let rejection = envelope.checkSignature(trustedKeys: trustedKeys) { return .failure(rejection) }
        return envelope.configuration(registry: registry).map { VerifiedConfiguration(envelope: data, keyID: envelope.keyID, configuration: $0) }
    }

    /// The envelope as JSON text with a trailing newline.
    package func rendered() -> Data {
        let text = """
        {
          "format": \(JSONNodeWriter.quoted(Self.format)),
          "key_id": \(JSONNodeWriter.quoted(keyID)),
          "signature": "\(Data(signature).base64EncodedString())",
          "config": "\(Data(payload).base64EncodedString())"
        }

        """
        return Data(text.utf8)
    }
}

/// A configuration whose signature verified and which the loader accepted (R15); a network's
/// check (R19) runs when the engine builds it.
package struct VerifiedConfiguration: Sendable {
    /// The envelope's bytes as received (what the cache keeps).
    package var envelope: Data
    /// The key that signed it.
    package var keyID: String
    /// The configuration, with its version, `issued_at` and rollout.
    package var configuration: MediationConfiguration

    /// Its `config_version`.
    package var version: Int { configuration.version }
}
