import Mediation
import MediationSimulation

/// The one reader of `mediate`'s options, for every command: `--name value`, `--name=value`,
/// flags, lists (`--reports A B C`) and plain arguments, each option once; and the one way its
/// numbers are read (``NumberText``: decimal only, no hexadecimal or exponent, a sign only where
/// the option takes one, finite, in range), every error naming the option.
struct OptionReader {
    /// What a command takes.
    struct Grammar: Sendable {
        /// The command's name in errors (`simulate` gives "does not apply to mediate simulate"),
        /// `nil` for `mediate --placement …`.
        var command: String?
        /// The options that take one value.
        var valued: Set<String> = []
        /// The options that take none.
        var flags: Set<String> = []
        /// The options that take every following argument up to the next option.
        var lists: Set<String> = []
        /// The flags that may also take `=VALUE` (`--debug=unredacted`); the value is checked by
        /// the caller.
        var optionalValue: Set<String> = []
        /// Whether an argument starting with a single `-` (`-p`) is an option (refused as
        /// unknown) rather than a plain argument.
        var singleDash = false
        /// What a plain argument is: `nil` (the default) collects it in ``OptionReader/plain``;
        /// otherwise the error for it, given the argument and the number of arguments read before.
        var unexpected: (@Sendable (_ argument: String, _ before: Int) -> UsageError)?
    }

    /// Every option any command takes: one of them given to a command that does not take it
    /// "does not apply"; any other is "unknown".
    static let known: Set<String> = [
        "--placement", "--config", "--json", "--seed", "--messages", "--watch", "--duration", "--fast", "--debug", "--report",
        "--events", "--config-url", "--public-key", "--state-dir", "--market", "--auctions", "--compare", "--compare-health",
        "--sweep", "--jobs", "--replay", "--rate", "--window", "--days", "--learner", "--drift", "--write-reports", "--reports",
        "--events-start", "--as-of", "--write", "--out", "--key", "--version", "--rollout", "--salt", "--issued-at", "--user-days", "--country",
    ]

    /// The options' values (a flag's is `""`), by name.
    private(set) var values: [String: String] = [:]
    /// The list options' values, by name.
    private(set) var lists: [String: [String]] = [:]
    /// The plain arguments, in order.
    private(set) var plain: [String] = []
    /// The command's name in errors.
    let command: String?

    /// Reads `arguments` by `grammar`.
    /// - Throws: ``UsageError`` naming the option (unknown, not for this command, given twice,
    ///   missing or empty value, a value on a flag) or the stray argument.
    init(_ arguments: [String], _ grammar: Grammar) throws(UsageError) {
        command = grammar.command
        let suffix = grammar.command.map { " for mediate \($0)" } ?? ""
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("--") || (grammar.singleDash && argument.hasPrefix("-") && argument.count > 1) else {
                if let unexpected = grammar.unexpected { throw unexpected(argument, index - 1) }
                plain.append(argument)
                continue
            }
            var name = argument
            var inline: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            let shown = String(name.prefix(80))
            guard grammar.valued.contains(name) || grammar.flags.contains(name) || grammar.lists.contains(name) else {
                throw UsageError(message: Self.known.contains(name) ? "\(shown) does not apply to \(grammar.command.map { "mediate \($0)" } ?? "this command")" : "unknown option \(shown)\(suffix)")
            }
            guard values[name] == nil, lists[name] == nil else { throw UsageError(message: "\(shown) given more than once") }
            if grammar.flags.contains(name) {
                if let inline, grammar.optionalValue.contains(name) {
                    values[name] = inline
                    continue
                }
                guard inline == nil else { throw UsageError(message: "\(shown) takes no value") }
                values[name] = ""
                continue
            }
            let value: String
            if let inline {
                value = inline
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError(message: "\(shown) needs a value")
            }
            guard !value.isEmpty else { throw UsageError(message: "\(shown) needs a non-empty value") }
            if grammar.lists.contains(name) {
                var list = [value]
                while inline == nil, index < arguments.count, !arguments[index].hasPrefix("--"), !arguments[index].isEmpty {
                    list.append(arguments[index])
                    index += 1
                }
                lists[name] = list
            } else {
                values[name] = value
            }
        }
    }

    /// The value of `name`, `nil` when it was not given (a flag's is `""`).
    subscript(_ name: String) -> String? { values[name] }

    /// Whether `name` was given.
    func has(_ name: String) -> Bool { values[name] != nil || lists[name] != nil }

    /// `name`'s value as a whole number in `range`, `nil` when it was not given.
    /// - Throws: ``UsageError`` "NAME needs a whole number from A to B, got 'TEXT'".
    func whole<T: FixedWidthInteger>(_ name: String, in range: ClosedRange<T>) throws(UsageError) -> T? {
        guard let text = values[name] else { return nil }
        return try Self.whole(name, text, in: range)
    }

    /// `text` as `name`'s whole number in `range` (a `-` only where the range goes below 0).
    /// - Throws: ``UsageError`` "NAME needs a whole number from A to B, got 'TEXT'".
    static func whole<T: FixedWidthInteger>(_ name: String, _ text: String, in range: ClosedRange<T>) throws(UsageError) -> T {
        guard let value = NumberText.whole(text, as: T.self, signed: range.lowerBound < 0), range.contains(value) else {
            throw UsageError(message: "\(name) needs a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text.prefix(40))'")
        }
        return value
    }

    /// `name`'s value as a decimal number (no sign) accepted by `valid`, `nil` when it was not
    /// given.
    /// - Parameters:
    ///   - name: the option.
    ///   - what: what it needs, e.g. "a percentage from 0 to 100".
    ///   - valid: the range check.
    /// - Throws: ``UsageError`` "NAME needs WHAT, got 'TEXT'".
    func decimal(_ name: String, _ what: String, where valid: (Double) -> Bool) throws(UsageError) -> Double? {
        guard let text = values[name] else { return nil }
        guard let value = NumberText.decimal(text), valid(value) else {
            throw UsageError(message: "\(name) needs \(what) (plain decimal), got '\(text.prefix(40))'")
        }
        return value
    }
}
