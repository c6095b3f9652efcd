import Foundation
import Mediation
import MediationTestKit
@testable import Adapters

/// A user's identity as an earlier version stored it. The engine offers no identity or consent
/// setter (no host or engine path would call one), so a test that needs an identity on the
/// device writes it where each network's factory reads it back at launch.
enum StoredIdentity {
    /// Nitx's consent record (granted) and a profile of `values`' digests, by field, as the
    /// records a client for `network` reads from the state store in `directory`'s `state` folder
    /// (where the privacy launches keep it).
    static func nitx(_ values: [String: String], in directory: URL, network: String = "nitx") throws {
        let store = try FileStateStore(directory: directory.appendingPathComponent("state"))
        nitx(values, in: NitxRecords(store: store, network: network))
    }

    /// Nitx's consent record (granted) and a profile of `values`' digests, by field, in `storage`.
    static func nitx(_ values: [String: String], in storage: NitxRecords) {
        storage.setValue("granted", forKey: .consent)
        storage.setValue(nitxProfile(values), forKey: .profile)
    }

    /// The stored profile text for `values`: each value's SHA-256 digest, by field.
    static func nitxProfile(_ values: [String: String]) -> String {
        let profile = NitxProfile(hashes: values.mapValues { SHA256Digest.hex(SHA256Digest.hash(Data($0.utf8))) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return (try? encoder.encode(profile)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
