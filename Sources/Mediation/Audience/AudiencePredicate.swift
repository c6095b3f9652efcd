/// A segment's `when`, compiled once at configuration load: a test of one audience signal, or
/// `all` / `any` / `not` of predicates. Evaluating it parses nothing (engine per-auction cost).
///
/// Any comparison against an unknown signal is false (`not_in` and `!=` included); only
/// `known` tests whether a signal is known. Versions compare as versions, numbers as numbers,
/// strings as strings, and a number against a string (or the reverse) is false.
package indirect enum AudiencePredicate: Hashable, Sendable {
    /// One signal's test.
    case test(AudienceTest)
    /// Every one matches (true when empty).
    case all([AudiencePredicate])
    /// At least one matches (false when empty).
    case any([AudiencePredicate])
    /// It does not match.
    case not(AudiencePredicate)

    /// How many tests (leaves) it holds.
    package var testCount: Int {
        switch self {
        case .test: 1
        case .all(let predicates), .any(let predicates): predicates.reduce(0) { $0 + $1.testCount }
        case .not(let predicate): predicate.testCount
        }
    }

    /// Whether `audience` matches.
    package func matches(_ audience: Audience) -> Bool {
        switch self {
        case .test(let test): test.matches(audience)
        case .all(let predicates): predicates.allSatisfy { $0.matches(audience) }
        case .any(let predicates): predicates.contains { $0.matches(audience) }
        case .not(let predicate): !predicate.matches(audience)
        }
    }

    /// Why `audience` gives this predicate's result, for a trace: e.g. `country US in [US, CA,
    /// GB]`, `app_version 2.10.1 >= 2.10.0 and custom.level 12 > 10` (`all`: every test), the
    /// first matching one for `any`.
    package func reason(for audience: Audience) -> String {
        switch self {
        case .test(let test):
            return test.reason(for: audience)
        case .all(let predicates):
            return predicates.map { $0.reason(for: audience) }.joined(separator: " and ")
        case .any(let predicates):
            let chosen = predicates.first { $0.matches(audience) } ?? predicates.first
            return chosen.map { $0.reason(for: audience) } ?? "any of none"
        case .not(let predicate):
            return "not (\(predicate.reason(for: audience)))"
        }
    }
}

/// One test of one audience signal, e.g. `country in [US, CA, GB]`.
package struct AudienceTest: Hashable, Sendable {
    /// What the test reads.
    package enum Signal: Hashable, Sendable, CustomStringConvertible {
        /// ISO 3166-1 alpha-2, a string.
        case country
        /// `phone` or `tablet`, a string.
        case deviceKind
        /// A version.
        case osVersion
        /// A version.
        case appVersion
        /// A custom key, a string or a number.
        case custom(String)
        /// A privacy flag, a boolean.
        case gdprApplies, coppa, limitAdTracking

        /// Its name in a configuration, e.g. `custom.level`.
        package var description: String {
            switch self {
            case .country: "country"
            case .deviceKind: "device_kind"
            case .osVersion: "os_version"
            case .appVersion: "app_version"
            case .custom(let key): "custom.\(key)"
            case .gdprApplies: "gdpr_applies"
            case .coppa: "coppa"
            case .limitAdTracking: "lat"
            }
        }
    }

    /// A value a signal has or a test compares with.
    package enum Operand: Hashable, Sendable, CustomStringConvertible {
        case string(String)
        case number(Double)
        case version(Version)
        case bool(Bool)

        /// The value as a configuration writes it (a string unquoted).
        package var description: String {
            switch self {
            case .string(let text): text
            case .number(let number): DisplayText.number(number)
            case .version(let version): version.text
            case .bool(let flag): flag ? "true" : "false"
            }
        }

        /// Equal operands: strings by their UTF-8 bytes (Swift's `String ==` would call
        /// canonically equivalent forms, such as "e\u{301}" and "\u{e9}", equal).
        package static func == (left: Operand, right: Operand) -> Bool {
            switch (left, right) {
            case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
            case (.number(let a), .number(let b)): a == b
            case (.version(let a), .version(let b)): a == b
            case (.bool(let a), .bool(let b)): a == b
            default: false
            }
        }

        /// Hashes strings by their UTF-8 bytes, as `==` compares them.
        package func hash(into hasher: inout Hasher) {
            switch self {
            case .string(let text):
                hasher.combine(0)
                for byte in text.utf8 { hasher.combine(byte) }
                hasher.combine(text.utf8.count)
            case .number(let number): hasher.combine(1); hasher.combine(number)
            case .version(let version): hasher.combine(2); hasher.combine(version)
            case .bool(let flag): hasher.combine(3); hasher.combine(flag)
            }
        }

        /// The order of two operands of the same kind (strings in UTF-8 byte order); `nil`
        /// across kinds (never comparable) and for booleans (only equal or not).
        func compared(to other: Operand) -> ComparisonResult? {
            switch (self, other) {
            case (.string(let a), .string(let b)):
                a.utf8.elementsEqual(b.utf8) ? .same : (a.utf8.lexicographicallyPrecedes(b.utf8) ? .less : .more)
            case (.number(let a), .number(let b)): a == b ? .same : (a < b ? .less : .more)
            case (.version(let a), .version(let b)): a == b ? .same : (a < b ? .less : .more)
            default: nil
            }
        }
    }

    /// The result of comparing two operands.
    package enum ComparisonResult: Sendable { case less, same, more }

    /// What the test does.
    package enum Operation: Hashable, Sendable {
        case isIn(Set<Operand>)
        case notIn(Set<Operand>)
        case equal(Operand)
        case notEqual(Operand)
        case less(Operand)
        case lessOrEqual(Operand)
        case greater(Operand)
        case greaterOrEqual(Operand)
        /// Whether the signal is known (`true`) or unknown (`false`).
        case known(Bool)
    }

    /// The signal.
    package var signal: Signal
    /// The operation.
    package var operation: Operation
    /// The operation as a trace writes it, e.g. `in [US, CA, GB]` or `>= 2.10.0` (made once, at
    /// load, in the configuration's order).
    package var text: String

    /// A test.
    package init(signal: Signal, operation: Operation, text: String) {
        self.signal = signal
        self.operation = operation
        self.text = text
    }

    /// The signal's value in `audience`, or `nil` when unknown.
    package func value(in audience: Audience) -> Operand? {
        switch signal {
        case .country: audience.country.map(Operand.string)
        case .deviceKind: audience.deviceKind.map { .string($0.rawValue) }
        case .osVersion: audience.osVersion.map(Operand.version)
        case .appVersion: audience.appVersion.map(Operand.version)
        case .custom(let key):
            switch audience.custom[key] {
            case .string(let text)?: .string(text)
            case .number(let number)?: .number(number)
            case nil: nil
            }
        case .gdprApplies: audience.gdprApplies.map(Operand.bool)
        case .coppa: audience.coppa.map(Operand.bool)
        case .limitAdTracking: audience.limitAdTracking.map(Operand.bool)
        }
    }

    /// Whether `audience` passes the test.
    package func matches(_ audience: Audience) -> Bool {
        let value = value(in: audience)
        if case .known(let wanted) = operation { return (value != nil) == wanted }
        guard let value else { return false } // an unknown signal fails every comparison
        switch operation {
        case .isIn(let set): return set.contains(value)
        case .notIn(let set): return !set.contains(value) && set.contains { Self.sameKind($0, value) }
        case .equal(let operand): return value == operand
        case .notEqual(let operand): return value != operand && Self.sameKind(value, operand)
        case .less(let operand): return value.compared(to: operand) == .less
        case .lessOrEqual(let operand): return value.compared(to: operand).map { $0 != .more } ?? false
        case .greater(let operand): return value.compared(to: operand) == .more
        case .greaterOrEqual(let operand): return value.compared(to: operand).map { $0 != .less } ?? false
        case .known: return false
        }
    }

    /// Whether two operands are of one kind (a string against a number is never a match, even
    /// for `!=`).
    private static func sameKind(_ a: Operand, _ b: Operand) -> Bool {
        switch (a, b) {
        case (.string, .string), (.number, .number), (.version, .version), (.bool, .bool): true
        default: false
        }
    }

    /// `country US in [US, CA, GB]`; `country unknown` for `known: false`.
    package func reason(for audience: Audience) -> String {
        guard let value = value(in: audience) else {
            return "\(signal) unknown"
        }
        if case .known = operation { return "\(signal) \(value) known" }
        return "\(signal) \(value) \(text)"
    }
}
