/// The bounds of a Nitx profile's custom traits (Nitx seed, "Consent and identify"), read by
/// the stored profile's checks. The engine offers no `identify` call (no host or engine path
/// calls it; the engine drives the network itself), so a profile comes only from a record an
/// earlier version stored.
package enum NitxIdentityNormalizer {
    /// The most custom traits a profile holds, 20.
    package static let maximumTraitCount = 20
    /// The longest trait key, 32 characters of `[a-z0-9_]`.
    package static let traitKeyMaximumLength = 32
}
