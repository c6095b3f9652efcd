/// The one reader of numbers written as text outside JSON numbers: on the command line and in
/// its small grammars (`--auctions`, `--rate`, `--rollout`, `--drift`'s factor and day,
/// `--sweep`'s values, the digits of a length of virtual time) and in a configuration's strings
/// (the fallback's `creative_sizes`, `320x50`): plain decimal only, so that `0x10` is not 16, `1e-400` is not 0 and `+5`
/// is not 5.
///
/// A whole number is ASCII digits, with a leading `-` only where the reader allows a sign. A
/// decimal is digits with at most one inner `.` (`0.5`, `12`; not `.5`, `5.`), with the same
/// sign rule, no exponent, no `inf`/`nan`, no spaces. A decimal whose digits are not all zero
/// but which reads as zero (too small to represent) is refused rather than rounded to zero.
package enum NumberText {
    /// The whole number `text` writes, or `nil` when it is not digits (after a `-` where
    /// `signed`) or does not fit `T`.
    /// - Parameters:
    ///   - text: the text, e.g. `"10000"`.
    ///   - signed: whether a leading `-` is allowed.
    package static func whole<T: FixedWidthInteger>(_ text: some StringProtocol, as type: T.Type, signed: Bool = false) -> T? {
        let digits = unsigned(text, signed: signed)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
        return T(String(text), radix: 10)
    }

    /// The decimal `text` writes, or `nil` when it is not plain decimal (see the type), is not
    /// finite, or has non-zero digits and reads as zero.
    /// - Parameters:
    ///   - text: the text, e.g. `"0.25"`.
    ///   - signed: whether a leading `-` is allowed.
    package static func decimal(_ text: some StringProtocol, signed: Bool = false) -> Double? {
        let digits = unsigned(text, signed: signed)
        var points = 0
        for byte in digits.utf8 {
            if byte == UInt8(ascii: ".") { points += 1; continue }
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else { return nil }
        }
        guard !digits.isEmpty, points <= 1, digits.first != ".", digits.last != ".", let value = Double(String(text)), value.isFinite else { return nil }
        if value == 0, digits.utf8.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) { return nil }
        return value
    }

    /// `text` without its leading `-` where `signed` allows one.
    private static func unsigned(_ text: some StringProtocol, signed: Bool) -> Substring {
        let whole = Substring(text)
        return signed && whole.hasPrefix("-") ? whole.dropFirst() : whole
    }
}
