/// The one number formatter of every report the project prints (traces, events, `mediate`'s
/// text, JSON-adjacent CSV, the HTML pages): decimal text computed from integers, so it never
/// traps, never depends on the C library's locale or rounding, and prints the same bytes on
/// every platform.
package enum DecimalText {
    /// `value` with exactly `digits` decimals (0 to 9), rounded half away from zero, e.g.
    /// `fixed(1.2, digits: 2)` is `1.20`; a value that rounds to zero prints without a sign
    /// (`0.00`, never `-0.00`). A non-finite value, or one too large for the integer arithmetic
    /// (`|value| · 10^digits` of 9·10^18 or more), prints as Swift prints it.
    package static func fixed(_ value: Double, digits: Int) -> String {
        let digits = min(max(digits, 0), 9)
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        let scaled = (value.magnitude * Double(scale)).rounded(.toNearestOrAwayFromZero)
        guard value.isFinite, scaled < 9e18 else { return String(value) }
        let units = Int64(scaled)
        let whole = String(units / scale)
        let sign = value < 0 && units != 0 ? "-" : ""
        guard digits > 0 else { return sign + whole }
        let fraction = String(units % scale)
        return sign + whole + "." + String(repeating: "0", count: digits - fraction.count) + fraction
    }

    /// `value` with between `minimumDigits` and `maximumDigits` decimals: rounded to
    /// `maximumDigits`, then trailing zeros dropped down to `minimumDigits`, and the point with
    /// them (a USD CPM such as `1.20` or `0.001234`; `3` with no minimum).
    package static func trimmed(_ value: Double, minimumDigits: Int = 2, maximumDigits: Int = 6) -> String {
        var text = fixed(value, digits: maximumDigits)
        guard value.isFinite, let point = text.firstIndex(of: ".") else { return text }
        while text.distance(from: point, to: text.endIndex) - 1 > minimumDigits, text.hasSuffix("0") {
            text.removeLast()
        }
        if text.hasSuffix(".") { text.removeLast() }
        return text
    }
    /// `value` with `digits` significant digits (1 to 9), rounded half away from zero: in
    /// decimals from 0.0001 up (`0.0001235`, `-1.500`, `12346` for 12345.6 with 4), below that
    /// as a mantissa and a power of ten (`3.333e-7`); `0` for zero. A non-finite value
    /// prints as Swift prints it. For a figure that may be tiny (a difference of USD per 1000
    /// requests on a market at a millionth of a USD CPM) where fixed decimals would read 0.
    package static func significant(_ value: Double, digits: Int = 4) -> String {
        let digits = min(max(digits, 1), 9)
        guard value != 0 else { return "0" }
        // Beyond 1e±300 the powers of ten below leave a Double's range.
        guard value.isFinite, value.magnitude > 1e-300, value.magnitude < 1e300 else { return String(value) }
        // log10 from the binary exponent, off by at most one; the rounded mantissa settles it.
        var exponent = Int((Double(value.exponent) * 0.301_029_995_663_981_2).rounded(.down))
        for _ in 0..<4 {
            let mantissa = (value.magnitude / power(exponent - digits + 1)).rounded(.toNearestOrAwayFromZero)
            if mantissa >= power(digits) { exponent += 1 } else if mantissa < power(digits - 1) { exponent -= 1 } else { break }
        }
        let decimals = max(0, digits - 1 - exponent)
        if exponent >= -4, decimals <= 9 { return fixed(value, digits: decimals) }
        return fixed(value / power(exponent), digits: digits - 1) + "e" + String(exponent)
    }

    /// 10 to the power `exponent`, exactly for the integer powers a `Double` holds.
    private static func power(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent.magnitude { result *= 10 }
        return exponent >= 0 ? result : 1 / result
    }
}
