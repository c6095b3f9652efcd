/// The assignment of installs to experiments and variants: a pure function of an experiment's
/// salt and the engine's install id (``InstallID``), so it holds across relaunches and
/// configuration versions, differs between experiments (each has its own salt), and is drawn
/// anew when the host's ``MediationEngine/forgetUser()`` replaces the install id.
///
/// - bucket: `h = SHA-256(UTF-8(salt + ":" + installID))`; the first 4 bytes of `h` as a
///   big-endian unsigned 32-bit number, modulo 10,000. The install takes part iff
///   `bucket < allocation_bp`.
/// - variant: the same over `SHA-256(UTF-8(salt + ":variant:" + installID))`; the first variant
///   whose cumulative `weight_bp` exceeds that number.
/// - unit: the user unit written in events, `hex(first 8 bytes of
///   SHA-256(UTF-8(salt + ":unit:" + installID)))`, 16 lowercase hex digits (not linkable
///   across experiments, nor back to the install id).
package enum ExperimentAssignment {
    /// The number of buckets: 10,000 (one per basis point).
    package static let bucketCount: UInt32 = 10_000

    /// The allocation bucket of `installID` under `salt`, in `0..<10_000`.
    /// - Parameters:
    ///   - salt: the experiment's salt.
    ///   - installID: the install id.
    package static func bucket(salt: String, installID: String) -> Int {
        basisPoint(of: salt + ":" + installID)
    }

    /// The variant draw of `installID` under `salt`, in `0..<10_000`.
    /// - Parameters:
    ///   - salt: the experiment's salt.
    ///   - installID: the install id.
    package static func variantDraw(salt: String, installID: String) -> Int {
        basisPoint(of: salt + ":variant:" + installID)
    }

    /// The index of the variant of `installID`, or `nil` when its bucket is not under
    /// `allocationBasisPoints` (outside the allocation: no variant).
    /// - Parameters:
    ///   - salt: the experiment's salt.
    ///   - installID: the install id.
    ///   - allocationBasisPoints: the share taking part, 0 to 10,000.
    ///   - weights: the variants' weights in basis points, summing to 10,000.
    package static func variantIndex(salt: String, installID: String, allocationBasisPoints: Int, weights: [Int]) -> Int? {
        guard bucket(salt: salt, installID: installID) < allocationBasisPoints else { return nil }
        let draw = variantDraw(salt: salt, installID: installID)
        var cumulative = 0
        for (index, weight) in weights.enumerated() {
            cumulative += weight
            if draw < cumulative { return index }
        }
        return nil // weights under 10,000: the loader refuses them
    }

    /// The user unit of `installID` in the experiment of `salt`: 16 lowercase hex digits.
    /// - Parameters:
    ///   - salt: the experiment's salt.
    ///   - installID: the install id.
    package static func unit(salt: String, installID: String) -> String {
        SHA256Digest.hex(Array(SHA256Digest.hash(Array((salt + ":unit:" + installID).utf8)).prefix(8)))
    }

    /// The first 4 bytes of SHA-256(UTF-8(`text`)), big-endian, modulo 10,000.
    private static func basisPoint(of text: String) -> Int {
        let digest = SHA256Digest.hash(Array(text.utf8))
        let value = digest.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return Int(value % bucketCount)
    }
}
