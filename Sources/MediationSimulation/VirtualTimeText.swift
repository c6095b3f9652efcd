import Mediation

/// Lengths of virtual time written as text: a number and a unit (`500ms`, `90s`, `10m`, `1.5h`,
/// `1d`), or, where the reader allows it, a number of seconds alone (`90`, `0.5`). One grammar
/// for the market's outages (`start`, `end`) and `mediate simulate`'s `--duration` and `--window`.
package enum VirtualTimeText {
    /// The units, each suffix with its seconds; `ms` is tried before `m` and `s`.
    private static let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]

    /// The seconds `text` writes: digits with at most one inner `.` (no sign, no exponent), then
    /// a unit (`ms`, `s`, `m`, `h` or `d`) or, unless `unitRequired`, none (seconds); `nil`
    /// when it is neither, or not finite.
    /// - Parameters:
    ///   - text: the text, e.g. `"10m"`.
    ///   - unitRequired: whether a number alone is refused.
    package static func seconds(_ text: String, unitRequired: Bool = false) -> Double? {
        let unit = units.first { text.hasSuffix($0.suffix) }
        if unit == nil, unitRequired { return nil }
        let digits = unit.map { String(text.dropLast($0.suffix.count)) } ?? text
        guard let value = NumberText.decimal(digits) else { return nil }
        let seconds = value * (unit?.seconds ?? 1)
        return seconds.isFinite ? seconds : nil
    }
}
