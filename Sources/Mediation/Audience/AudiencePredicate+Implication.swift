extension AudiencePredicate {
    /// Whether every audience that matches this predicate surely matches `other` too (so a
    /// segment with this predicate after one with `other` is never chosen). Sound, not complete:
    /// `false` means "not shown", e.g. for two earlier segments that only together cover it.
    package func implies(_ other: AudiencePredicate) -> Bool {
        if self == other || other.isAlwaysTrue || isAlwaysFalse { return true }
        switch (self, other) {
        case (_, .all(let others)):
            return others.allSatisfy { implies($0) }
        case (.any(let mine), _):
            return mine.allSatisfy { $0.implies(other) }
        case (.all(let mine), _):
            if mine.contains(where: { $0.implies(other) }) { return true }
            if case .any(let others) = other { return others.contains { implies($0) } }
            return false
        case (_, .any(let others)):
            return others.contains { implies($0) }
        case (.test(let mine), .test(let theirs)):
            return mine.implies(theirs)
        case (.not(let mine), .not(let theirs)):
            return theirs.implies(mine)
        default:
            return false
        }
    }

    /// Whether every audience surely matches (e.g. `any` of `known: true` and `known: false`).
    package var isAlwaysTrue: Bool {
        switch self {
        case .test: false
        case .all(let predicates): predicates.allSatisfy(\.isAlwaysTrue)
        case .any(let predicates):
            predicates.contains(where: \.isAlwaysTrue) || predicates.contains { predicate in
                predicates.contains { $0 == .not(predicate) } || AudiencePredicate.knownPair(predicate, in: predicates, wanted: false)
            }
        case .not(let predicate): predicate.isAlwaysFalse
        }
    }

    /// Whether no audience can match (e.g. `all` of `known: true` and `known: false`).
    package var isAlwaysFalse: Bool {
        switch self {
        case .test: false
        case .all(let predicates):
            predicates.contains(where: \.isAlwaysFalse) || predicates.contains { predicate in
                predicates.contains { $0 == .not(predicate) } || AudiencePredicate.knownPair(predicate, in: predicates, wanted: false)
                    || AudiencePredicate.comparedWhileUnknown(predicate, in: predicates)
            }
        case .any(let predicates): predicates.allSatisfy(\.isAlwaysFalse)
        case .not(let predicate): predicate.isAlwaysTrue
        }
    }

    /// Whether `predicate` is `known: true` of a signal whose `known: false` is also in `list`.
    private static func knownPair(_ predicate: AudiencePredicate, in list: [AudiencePredicate], wanted: Bool) -> Bool {
        guard case .test(let test) = predicate, case .known(true) = test.operation else { return false }
        return list.contains { other in
            guard case .test(let otherTest) = other, otherTest.signal == test.signal, case .known(let known) = otherTest.operation else { return false }
            return known == wanted
        }
    }

    /// Whether `predicate` is `known: false` of a signal `list` also compares (which needs it known).
    private static func comparedWhileUnknown(_ predicate: AudiencePredicate, in list: [AudiencePredicate]) -> Bool {
        guard case .test(let test) = predicate, case .known(false) = test.operation else { return false }
        return list.contains { other in
            guard case .test(let otherTest) = other, otherTest.signal == test.signal else { return false }
            if case .known = otherTest.operation { return false }
            return true
        }
    }
}

extension AudienceTest {
    /// Whether passing this test surely passes `other` (same signal; sound, not complete).
    func implies(_ other: AudienceTest) -> Bool {
        guard signal == other.signal else { return false }
        if operation == other.operation { return true }
        switch (operation, other.operation) {
        case (.known, .known):
            return false // different wanted values (equal ones returned above)
        case (_, .known(true)):
            return true // every comparison fails on an unknown signal
        case (.known, _), (_, .known):
            return false
        case (.isIn(let mine), .isIn(let theirs)):
            return mine.isSubset(of: theirs)
        case (.equal(let value), .isIn(let theirs)):
            return theirs.contains(value)
        case (.isIn(let mine), .equal(let value)):
            return mine == [value]
        case (.equal(let value), .notIn(let theirs)):
            return !theirs.contains(value) && Self.kinds(theirs).contains(Self.kind(value))
        case (.equal(let value), .notEqual(let excluded)):
            return value != excluded && Self.kind(value) == Self.kind(excluded)
        case (.isIn(let mine), .notIn(let theirs)):
            return mine.isDisjoint(with: theirs) && Self.kinds(mine).isSubset(of: Self.kinds(theirs))
        case (.notIn(let mine), .notIn(let theirs)):
            return theirs.isSubset(of: mine) && Self.kinds(mine).isSubset(of: Self.kinds(theirs))
        default:
            return Self.impliesOrdered(operation, other.operation)
        }
    }

    /// An operand's kind: 0 string, 1 number, 2 version, 3 boolean.
    private static func kind(_ operand: Operand) -> Int {
        switch operand {
        case .string: 0
        case .number: 1
        case .version: 2
        case .bool: 3
        }
    }

    private static func kinds(_ operands: Set<Operand>) -> Set<Int> {
        Set(operands.map(kind))
    }

    /// Ranges of one kind: `> 10` implies `> 5`, `>= 10` implies `> 9.5`, `== 3` implies `< 4`.
    private static func impliesOrdered(_ mine: Operation, _ theirs: Operation) -> Bool {
        // Each side as a lower or upper bound (or both, for ==).
        guard let (myLow, myHigh) = bounds(mine), let (theirLow, theirHigh) = bounds(theirs) else { return false }
        if let theirLow {
            guard let myLow, let order = myLow.value.compared(to: theirLow.value) else { return false }
            switch order {
            case .less: return false
            case .same: if theirLow.strict && !myLow.strict { return false }
            case .more: break
            }
        }
        if let theirHigh {
            guard let myHigh, let order = myHigh.value.compared(to: theirHigh.value) else { return false }
            switch order {
            case .more: return false
            case .same: if theirHigh.strict && !myHigh.strict { return false }
            case .less: break
            }
        }
        return theirLow != nil || theirHigh != nil
    }

    private struct Bound: Equatable {
        var value: Operand
        var strict: Bool
    }

    private static func bounds(_ operation: Operation) -> (low: Bound?, high: Bound?)? {
        switch operation {
        case .greater(let value): (Bound(value: value, strict: true), nil)
        case .greaterOrEqual(let value): (Bound(value: value, strict: false), nil)
        case .less(let value): (nil, Bound(value: value, strict: true))
        case .lessOrEqual(let value): (nil, Bound(value: value, strict: false))
        case .equal(let value) where value.compared(to: value) != nil: (Bound(value: value, strict: false), Bound(value: value, strict: false))
        default: nil
        }
    }
}
