extension MediationConfiguration {
    /// A staged rollout of a signed configuration (its `rollout` field, under the signature): an
    /// install takes the version only when its bucket is under the percentage.
    ///
    /// An install's bucket is the first 8 bytes of SHA-256(install id ‖ salt), big-endian, modulo
    /// 10,000; the install takes the version when the bucket is below ``basisPoints`` (the
    /// percentage times 100). The install id is the engine's own (``InstallID``: 128 random bits
    /// made once per install and kept in the host's state store, never sent anywhere), so the same
    /// install keeps its bucket for a salt: widening a rollout from 10 % to 50 % (the same version
    /// and salt, signed again) keeps the first 10 % and adds 40 %. A new salt draws new buckets, so
    /// the same installs are not always first.
    ///
    /// JSON: `"rollout": {"percent": 12.5, "salt": "home-refresh-2026-12"}`; `percent` from 0 to
    /// 100 with at most two decimals, `salt` 1 to 100 characters.
    package struct Rollout: Hashable, Sendable, CustomStringConvertible {
        /// The share of installs that take the version, in hundredths of a percent (0 to 10,000).
        public let basisPoints: Int
        /// The salt mixed into every install's bucket.
        public let salt: String

        /// The number of buckets: 10,000 (one per hundredth of a percent).
        public static let bucketCount = 10_000
        /// The longest salt, in characters.
        public static let maximumSaltLength = 100

        /// A rollout to `percent` of installs, or `nil` when `percent` is not from 0 to 100 with at
        /// most two decimals, or `salt` is empty or over 100 characters.
        /// - Parameters:
        ///   - percent: the share of installs, e.g. `12.5`.
        ///   - salt: the salt.
        public init?(percent: Double, salt: String) {
            guard percent.isFinite, (0...100).contains(percent) else { return nil }
            let scaled = (percent * 100).rounded()
            guard abs(scaled - percent * 100) < 1e-6, !salt.isEmpty, salt.count <= Self.maximumSaltLength else { return nil }
            basisPoints = Int(scaled)
            self.salt = salt
        }

        /// The share of installs, in percent.
        public var percent: Double { Double(basisPoints) / 100 }

        /// The bucket of `installID` under this rollout's salt, in `0..<10_000`.
        /// - Parameter installID: the install id.
        public func bucket(of installID: String) -> Int {
            let digest = SHA256Digest.hash(Array((installID + salt).utf8))
            let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return Int(value % UInt64(Self.bucketCount))
        }

        /// Whether the install `installID` takes the version: its bucket is under ``basisPoints``.
        /// - Parameter installID: the install id.
        public func includes(_ installID: String) -> Bool {
            bucket(of: installID) < basisPoints
        }

        /// The percentage as the shortest decimal: `25`, `12.5`, `0.05`.
        package var percentText: String {
            let whole = basisPoints / 100, hundredths = basisPoints % 100
            if hundredths == 0 { return String(whole) }
            return hundredths % 10 == 0 ? "\(whole).\(hundredths / 10)" : "\(whole).\(hundredths < 10 ? "0" : "")\(hundredths)"
        }

        /// `12.5 % (salt "…")`.
        public var description: String {
            "\(percentText) % (salt \(ConfigurationText.quoted(salt)))"
        }
    }
}
