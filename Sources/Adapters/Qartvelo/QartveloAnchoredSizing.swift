import Mediation

/// Qartvelo's anchored adaptive banner size: the shared ``AnchoredAdaptiveSizing`` (the fallback
/// network uses the same rule, so the two networks' heights match for the same width).
package typealias QartveloAnchoredSizing = AnchoredAdaptiveSizing
