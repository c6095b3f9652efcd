/// A placement's segments compiled, when the configuration loads, into a flat list of plain
/// steps (no references, nothing to retain or hash per auction): what the engine tests per
/// auction to choose a segment. It answers exactly as ``Swift/Array/firstMatch(_:)`` over the
/// same segments (the reference form, which the tests compare it with); only faster:
/// - a country is two letters, so a country list is a bit set of the 676 codes, tested with one
///   word (not a `Set<String>` hashed per auction);
/// - a device kind and a privacy flag have three states (unknown and two values): their test's
///   answer for each is worked out at load;
/// - a version is compared by its four numbers, a custom number as a number, a custom string
///   byte by byte, with one dictionary look-up of the key;
/// - anything else (an ordered test of a country, a list of versions or custom values, an
///   audience whose country is not two capitals, which the engine never resolves) is tested
///   by ``AudienceTest/matches(_:)`` itself.
package struct SegmentMatcher: Sendable {
    /// An ordering test's operator, applied to the result of comparing a value with the operand.
    private enum Order: Sendable {
        case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual

        /// Whether a comparison's result passes; `nil` (values of different kinds) never does,
        /// `!=` included.
        func holds(_ result: AudienceTest.ComparisonResult?) -> Bool {
            guard let result else { return false }
            switch self {
            case .equal: return result == .same
            case .notEqual: return result != .same
            case .less: return result == .less
            case .lessOrEqual: return result != .more
            case .greater: return result == .more
            case .greaterOrEqual: return result != .less
            }
        }
    }

    /// A signal with three states: unknown, and two values.
    private enum ThreeState: Sendable {
        case deviceKind, gdprApplies, coppa, limitAdTracking
    }

    /// One test, compiled.
    private enum Check: Sendable {
        /// A three-state signal's answer per state: bit 0 unknown, bit 1 phone / false, bit 2
        /// tablet / true.
        case table(ThreeState, UInt8)
        /// `country in` (or `not_in` when `negated`): the bit set at `words[offset...]`;
        /// `hasStrings`: the list has a string, so `not_in` can match.
        case countryIn(offset: Int32, negated: Bool, hasStrings: Bool)
        /// `country ==` (or `!=` when `negated`) a string; `code` is `nil` when the string is no
        /// country code (no country equals it).
        case countryEqual(code: UInt16?, negated: Bool)
        /// Whether the country is known.
        case countryKnown(Bool)
        /// An app (`app` true) or OS version against a version.
        case version(app: Bool, Order, UInt32, UInt32, UInt32, UInt32)
        /// Whether the app (`app` true) or OS version is known.
        case versionKnown(app: Bool, Bool)
        /// A custom key (`keys[key]`) against a number.
        case customNumber(key: Int32, Order, Double)
        /// A custom key (`keys[key]`) against a string (`texts[text]`).
        case customString(key: Int32, Order, text: Int32)
        /// Whether a custom key (`keys[key]`) is set.
        case customKnown(key: Int32, Bool)
        /// Any other test: `tests[index].matches`.
        case generic(Int32)
    }

    /// One node of a predicate.
    private enum Node: Sendable {
        case check(Check)
        /// Every one of `children[first ..< first + count]`.
        case all(first: Int32, count: Int32)
        /// At least one of `children[first ..< first + count]`.
        case any(first: Int32, count: Int32)
        /// Not `nodes[child]`.
        case not(Int32)
    }

    /// The words of one country bit set: 676 codes, AA to ZZ.
    private static let wordsPerSet = 11

    private var nodes: [Node] = []
    private var children: [Int32] = []
    /// Per segment, its predicate's node; `-1` for the default (no predicate).
    private var roots: [Int32] = []
    private var words: [UInt64] = []
    private var keys: [String] = []
    private var texts: [String] = []
    private var tests: [AudienceTest] = []
    /// The segments as configured: the reference form, for an audience the steps do not cover.
    private let segments: [AudienceSegment]

    /// Compiles `segments` (a placement's, in order).
    package init(_ segments: [AudienceSegment]) {
        self.segments = segments
        for segment in segments {
            roots.append(segment.predicate.map { compile($0) } ?? -1)
        }
    }

    /// The index of the first segment `audience` matches (the default when no other does), and
    /// `nil` only for an empty list: the answer of ``Swift/Array/firstMatch(_:)``.
    package func firstMatch(_ audience: Audience) -> Int? {
        let country: UInt16
        if let text = audience.country {
            guard let code = CountryCode.index(text) else { return segments.firstMatch(audience) }
            country = code
        } else {
            country = Self.unknownCountry
        }
        for index in roots.indices {
            let root = roots[index]
            if root < 0 || evaluate(root, audience, country) { return index }
        }
        return nil
    }

    /// The country value of an audience whose country is unknown.
    private static let unknownCountry = UInt16.max

    private func evaluate(_ index: Int32, _ audience: Audience, _ country: UInt16) -> Bool {
        switch nodes[Int(index)] {
        case .check(let check):
            return test(check, audience, country)
        case .all(let first, let count):
            for child in first..<first + count where !evaluate(children[Int(child)], audience, country) { return false }
            return true
        case .any(let first, let count):
            for child in first..<first + count where evaluate(children[Int(child)], audience, country) { return true }
            return false
        case .not(let child):
            return !evaluate(child, audience, country)
        }
    }

    private func test(_ check: Check, _ audience: Audience, _ country: UInt16) -> Bool {
        switch check {
        case .table(let signal, let table):
            let state: Int
            switch signal {
            case .deviceKind: state = audience.deviceKind.map { $0 == .phone ? 1 : 2 } ?? 0
            case .gdprApplies: state = audience.gdprApplies.map { $0 ? 2 : 1 } ?? 0
            case .coppa: state = audience.coppa.map { $0 ? 2 : 1 } ?? 0
            case .limitAdTracking: state = audience.limitAdTracking.map { $0 ? 2 : 1 } ?? 0
            }
            return table & (1 << state) != 0
        case .countryIn(let offset, let negated, let hasStrings):
            guard country != Self.unknownCountry else { return false }
            let word = words[Int(offset) + Int(country) / 64]
            let listed = word & (1 << UInt64(country % 64)) != 0
            return negated ? !listed && hasStrings : listed
        case .countryEqual(let code, let negated):
            guard country != Self.unknownCountry else { return false }
            return (code == country) != negated
        case .countryKnown(let wanted):
            return (country != Self.unknownCountry) == wanted
        case .version(let app, let order, let a, let b, let c, let d):
            guard let parts = (app ? audience.appVersion : audience.osVersion)?.parts else { return false }
            let operand = (a, b, c, d)
            return order.holds(parts == operand ? .same : (parts < operand ? .less : .more))
        case .versionKnown(let app, let wanted):
            return ((app ? audience.appVersion : audience.osVersion) != nil) == wanted
        case .customNumber(let key, let order, let operand):
            guard case .number(let value)? = audience.custom[keys[Int(key)]] else {
                return false // unknown, or a string: never a match
            }
            return order.holds(value == operand ? .same : (value < operand ? .less : .more))
        case .customString(let key, let order, let text):
            guard case .string(let value)? = audience.custom[keys[Int(key)]] else { return false }
            return order.holds(AudienceTest.Operand.string(value).compared(to: .string(texts[Int(text)])))
        case .customKnown(let key, let wanted):
            return (audience.custom[keys[Int(key)]] != nil) == wanted
        case .generic(let index):
            return tests[Int(index)].matches(audience)
        }
    }

    /// Appends `predicate`'s nodes; returns its root's index.
    private mutating func compile(_ predicate: AudiencePredicate) -> Int32 {
        switch predicate {
        case .test(let test):
            return append(.check(compile(test)))
        case .all(let predicates), .any(let predicates):
            let compiled = predicates.map { compile($0) }
            let first = Int32(children.count)
            children += compiled
            let count = Int32(compiled.count)
            if case .all = predicate { return append(.all(first: first, count: count)) }
            return append(.any(first: first, count: count))
        case .not(let inner):
            return append(.not(compile(inner)))
        }
    }

    private mutating func append(_ node: Node) -> Int32 {
        nodes.append(node)
        return Int32(nodes.count - 1)
    }

    private mutating func compile(_ test: AudienceTest) -> Check {
        let operation = test.operation
        switch test.signal {
        case .deviceKind:
            return .table(.deviceKind, Self.table(test, [Audience(), Audience(deviceKind: .phone), Audience(deviceKind: .tablet)]))
        case .gdprApplies:
            return .table(.gdprApplies, Self.table(test, [Audience(), Audience(gdprApplies: false), Audience(gdprApplies: true)]))
        case .coppa:
            return .table(.coppa, Self.table(test, [Audience(), Audience(coppa: false), Audience(coppa: true)]))
        case .limitAdTracking:
            return .table(.limitAdTracking, Self.table(test, [Audience(), Audience(limitAdTracking: false), Audience(limitAdTracking: true)]))
        case .country:
            switch operation {
            case .isIn(let set), .notIn(let set):
                let offset = words.count
                words += Array(repeating: 0, count: Self.wordsPerSet)
                var hasStrings = false
                for case .string(let text) in set {
                    hasStrings = true
                    // A string that is no code equals no audience's country.
                    guard let code = CountryCode.index(text) else { continue }
                    words[offset + Int(code) / 64] |= 1 << UInt64(code % 64)
                }
                let negated = if case .notIn = operation { true } else { false }
                return .countryIn(offset: Int32(offset), negated: negated, hasStrings: hasStrings)
            case .equal(.string(let text)):
                return .countryEqual(code: CountryCode.index(text), negated: false)
            case .notEqual(.string(let text)):
                return .countryEqual(code: CountryCode.index(text), negated: true)
            case .known(let wanted):
                return .countryKnown(wanted)
            default:
                return generic(test)
            }
        case .osVersion, .appVersion:
            let app = test.signal == .appVersion
            if case .known(let wanted) = operation { return .versionKnown(app: app, wanted) }
            guard let (order, operand) = Self.ordered(operation), case .version(let version) = operand else { return generic(test) }
            let parts = version.parts
            return .version(app: app, order, parts.0, parts.1, parts.2, parts.3)
        case .custom(let name):
            let key = Int32(keys.count)
            keys.append(name)
            if case .known(let wanted) = operation { return .customKnown(key: key, wanted) }
            switch Self.ordered(operation) {
            case (let order, .number(let number))?:
                return .customNumber(key: key, order, number)
            case (let order, .string(let text))?:
                texts.append(text)
                return .customString(key: key, order, text: Int32(texts.count - 1))
            default:
                keys.removeLast()
                return generic(test)
            }
        }
    }

    /// The operator and operand of a comparison (`==` to `>=`); `nil` for lists and `known`.
    private static func ordered(_ operation: AudienceTest.Operation) -> (Order, AudienceTest.Operand)? {
        switch operation {
        case .equal(let operand): (.equal, operand)
        case .notEqual(let operand): (.notEqual, operand)
        case .less(let operand): (.less, operand)
        case .lessOrEqual(let operand): (.lessOrEqual, operand)
        case .greater(let operand): (.greater, operand)
        case .greaterOrEqual(let operand): (.greaterOrEqual, operand)
        case .isIn, .notIn, .known: nil
        }
    }

    /// The answers of `test` for the audiences of a three-state signal's states, as bits.
    private static func table(_ test: AudienceTest, _ states: [Audience]) -> UInt8 {
        var table: UInt8 = 0
        for (state, audience) in states.enumerated() where test.matches(audience) { table |= 1 << UInt8(state) }
        return table
    }

    private mutating func generic(_ test: AudienceTest) -> Check {
        tests.append(test)
        return .generic(Int32(tests.count - 1))
    }
}
