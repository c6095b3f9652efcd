import Foundation

/// Makes signed configurations (`mediate config sign`): sets a configuration's release fields
/// (`config_version`, `issued_at`, `rollout`), checks the result with the loader, and signs
/// its exact bytes. Given a signed envelope instead of a plain configuration it signs the
/// configuration inside again, under the new version: a rollback is one command, publishing a
/// higher version with the old content.
package enum ConfigurationSigner {
    /// Why signing failed.
    package struct Failure: Error, Sendable {
        /// What is wrong, for a person.
        package var message: String
        /// The loader's error when the configuration is invalid (its JSON path).
        package var configurationError: ConfigurationError?
    }

    /// The envelope of `input` signed by `key` as `version`.
    /// - Parameters:
    ///   - input: a plain configuration, or a signed envelope whose configuration is signed again.
    ///   - key: the signing key.
    ///   - version: the new `config_version`, at least 1.
    ///   - issuedAt: the `issued_at` to write.
    ///   - rollout: the staged rollout, or `nil` for every install.
    ///   - registry: the network kinds the configuration is checked with (R15).
    /// - Returns: the envelope's bytes.
    /// - Throws: ``Failure``.
    package static func sign(
        _ input: Data,
        key: ConfigurationSigningKey,
        version: Int,
        issuedAt: WallClockTime,
        rollout: MediationConfiguration.Rollout?,
        registry: NetworkRegistry
    ) throws(Failure) -> Data {
        guard (1...ConfigurationLoader.maximumConfigVersion).contains(version) else {
            throw Failure(message: "--version must be from 1 to \(ConfigurationLoader.maximumConfigVersion)")
        }
        var bytes = [UInt8](input)
        if case .success(let envelope) = SignedConfiguration.parse(input) { bytes = envelope.payload }
        let root: JSONNode
        do {
            root = try StrictJSONReader.parse(bytes)
        } catch {
            throw Failure(message: "\(error.path): \(error.message)", configurationError: error)
        }
        guard case .object(let members) = root else {
            throw Failure(message: "$: a configuration is a JSON object")
        }
        var release: [JSONMember] = [
            JSONMember(key: "config_version", value: .number(JSONNumberLiteral(text: String(version)))),
            JSONMember(key: "issued_at", value: .string(rfc3339(issuedAt))),
        ]
        if let rollout {
            release.append(JSONMember(key: "rollout", value: .object([
                JSONMember(key: "percent", value: .number(JSONNumberLiteral(text: rollout.percentText))),
                JSONMember(key: "salt", value: .string(rollout.salt)),
            ])))
        }
        let kept = members.filter { !["config_version", "issued_at", "rollout"].contains($0.key) }
        let schema = kept.filter { $0.key == "$schema" }
        let payload = Array(JSONNodeWriter.text(.object(schema + release + kept.filter { $0.key != "$schema" })).utf8)
        do {
            _ = try ConfigurationLoader(registry: registry).load(data: Data(payload))
        } catch {
            throw Failure(message: "\(error.path): \(error.message)", configurationError: error)
        }
        let signature: [UInt8]
        do {
            signature = try key.sign(payload)
        } catch {
            throw Failure(message: error.message)
        }
        let envelope = SignedConfiguration(keyID: key.publicKey.id, signature: signature, payload: payload).rendered()
        guard envelope.count <= SignedConfiguration.maximumBytes else {
            throw Failure(message: "the signed configuration would be \(envelope.count) bytes, over the limit of \(SignedConfiguration.maximumBytes) bytes")
        }
        return envelope
    }

    /// `issuedAt` as RFC 3339 in UTC, whole seconds: `2026-12-01T14:00:00Z`.
    package static func rfc3339(_ time: WallClockTime) -> String {
        let text = time.description // YYYY-MM-DDTHH:MM:SS.mmmZ
        return String(text.prefix(19)) + "Z"
    }
}
