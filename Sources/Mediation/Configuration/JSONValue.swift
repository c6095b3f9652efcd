/// A JSON value, for the parts of the configuration whose shape belongs to one network
/// (its `options`). Numbers keep whether they were written as integers.
package enum JSONValue: Hashable, Sendable {
    /// `null`.
    case null
    /// `true` / `false`.
    case bool(Bool)
    /// A number written without a fraction or exponent that fits in `Int`.
    case integer(Int)
    /// Any other number.
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; key order is not kept.
    case object([String: JSONValue])

    /// The value as a `Double` when it is a number.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The value as an `Int` when it is an integer.
    public var intValue: Int? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The value as a `String` when it is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value as a `Bool` when it is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}
