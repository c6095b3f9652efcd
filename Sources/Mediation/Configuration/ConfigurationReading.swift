/// Typed, strict access to the parsed configuration: every accessor names the JSON path of the
/// value it rejects (R15). Shared by ``ConfigurationLoader``'s parts.
package struct ConfigurationObject {
    /// The members, in file order.
    package let members: [JSONMember]
    /// Where the object is.
    package let path: JSONPath
    /// Each key's member index: a lookup costs O(1), whatever the object's size.
    private let indexByKey: [String: Int]

    /// Reads `node` as an object whose keys are all in `allowed` and appear once each.
    /// - Throws: `wrongType` when it is not an object, `unknownKey` for the first key not in
    ///   `allowed`, `duplicateKey` for the first repeated key.
    package init(_ node: JSONNode, at path: JSONPath, allowed: Set<String>) throws(ConfigurationError) {
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an object", at: path)
        }
        self.members = members
        self.path = path
        var indexByKey: [String: Int] = [:]
        indexByKey.reserveCapacity(members.count)
        for (index, member) in members.enumerated() {
            guard allowed.contains(member.key) else {
                let known = allowed.sorted().joined(separator: ", ")
                throw ConfigurationError(code: .unknownKey, path: path.appending(member.key).description, message: "unknown key \(ConfigurationText.quoted(member.key)); allowed here: \(known)")
            }
            guard indexByKey.updateValue(index, forKey: member.key) == nil else {
                throw ConfigurationError(code: .duplicateKey, path: path.appending(member.key).description, message: "the key \(ConfigurationText.quoted(member.key)) appears twice")
            }
        }
        self.indexByKey = indexByKey
    }

    /// The value of `key`, or `nil` when absent. A JSON `null` is a value like any other, so
    /// the reader of the field rejects it as the wrong type (R15: strict, and as the schema says).
    package subscript(key: String) -> JSONNode? {
        indexByKey[key].map { members[$0].value }
    }

    /// The value of a required `key`.
    /// - Throws: `missingField` when absent.
    package func required(_ key: String) throws(ConfigurationError) -> JSONNode {
        guard let value = self[key] else {
            throw ConfigurationError(code: .missingField, path: path.appending(key).description, message: "missing required field \"\(key)\"")
        }
        return value
    }
}

/// The typed readers of single values.
package enum ConfigurationReading {
    /// The `wrongType` error for `node` at `path`.
    package static func wrongType(_ node: JSONNode, expected: String, at path: JSONPath) -> ConfigurationError {
        ConfigurationError(code: .wrongType, path: path.description, message: "expected \(expected), found \(node.summary)")
    }

    /// Reads a string.
    /// - Throws: `wrongType`; `invalidValue` when `nonEmpty` and it is empty.
    package static func string(_ node: JSONNode, at path: JSONPath, nonEmpty: Bool = true) throws(ConfigurationError) -> String {
        guard case .string(let value) = node else { throw wrongType(node, expected: "a string", at: path) }
        if nonEmpty, value.isEmpty {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "must not be empty")
        }
        return value
    }

    /// Reads a string with at least one character that is not white space (an id a network
    /// looks up, such as an ad unit id).
    /// - Throws: `wrongType`; `invalidValue` when it is empty or only white space.
    package static func nonBlankString(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> String {
        let value = try string(node, at: path)
        guard value.unicodeScalars.contains(where: { !$0.properties.isWhitespace }) else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "must not be blank, found \(ConfigurationText.quoted(value))")
        }
        return value
    }

    /// Reads a whole number (written without fraction or exponent) in `range`.
    /// - Throws: `wrongType` for a string, a fraction (`30.5`) or any non-number; `rangeCode`
    ///   when outside `range` (or too large for `Int`).
    package static func wholeNumber(_ node: JSONNode, at path: JSONPath, in range: ClosedRange<Int>, unit: String, rangeCode: ConfigurationError.Code) throws(ConfigurationError) -> Int {
        guard case .number(let number) = node, number.isWhole else {
            // "a whole number of milliseconds", "a whole number (a version number)"
            throw wrongType(node, expected: unit.hasPrefix("(") ? "a whole number \(unit)" : "a whole number of \(unit)", at: path)
        }
        guard let value = number.intValue, range.contains(value) else {
            let found = number.text.count > 24 ? String(number.text.prefix(24)) + "…" : number.text
            throw ConfigurationError(code: rangeCode, path: path.description, message: "must be from \(range.lowerBound) to \(range.upperBound) \(unit), found \(found)")
        }
        return value
    }

    /// Reads a positive finite number (a price, a rate, a size).
    /// - Throws: `wrongType` for a non-number (a number written as a string included);
    ///   `code` when it is zero, negative or not finite (e.g. `1e400`).
    package static func positiveNumber(_ node: JSONNode, at path: JSONPath, code: ConfigurationError.Code = .invalidPrice) throws(ConfigurationError) -> Double {
        guard case .number(let number) = node else {
            throw wrongType(node, expected: "a number", at: path)
        }
        let value = number.doubleValue
        guard value.isFinite, value > 0 else {
            throw ConfigurationError(code: code, path: path.description, message: "must be a positive finite number, found \(number.text.count > 24 ? String(number.text.prefix(24)) + "…" : number.text)")
        }
        return value
    }

    /// Reads one of `choices` (a string), e.g. a format or a mode.
    /// - Throws: `wrongType` for a non-string, `invalidValue` for another string.
    package static func choice<Value>(_ node: JSONNode, at path: JSONPath, _ choices: KeyValuePairs<String, Value>) throws(ConfigurationError) -> Value {
        let text = try string(node, at: path, nonEmpty: false)
        guard let value = choices.first(where: { $0.key == text })?.value else {
            let names = choices.map { "\"\($0.key)\"" }.joined(separator: ", ")
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected one of \(names), found \(ConfigurationText.quoted(text))")
        }
        return value
    }

    /// Reads an ISO 4217 currency code: three capital letters, e.g. `"EUR"`.
    /// - Throws: `wrongType` for a non-string, `invalidValue` for another shape.
    package static func currencyCode(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> String {
        let text = try string(node, at: path, nonEmpty: false)
        try checkCurrencyCode(text, at: path)
        return text
    }

    /// Checks that `text` is three capital ASCII letters.
    /// - Throws: `invalidValue`.
    package static func checkCurrencyCode(_ text: String, at path: JSONPath) throws(ConfigurationError) {
        guard text.utf8.count == 3, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected an ISO 4217 currency code such as \"EUR\", found \(ConfigurationText.quoted(String(text.prefix(16))))")
        }
    }

    /// Converts a parsed value to ``JSONValue`` (for a network's `options`).
    /// - Throws: `duplicateKey` for a repeated key anywhere inside.
    package static func jsonValue(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> JSONValue {
        switch node {
        case .null: return .null
        case .bool(let value): return .bool(value)
        case .string(let value): return .string(value)
        case .number(let number):
            if let integer = number.intValue { return .integer(integer) }
            return .number(number.doubleValue)
        case .array(let elements):
            var values: [JSONValue] = []
            for (index, element) in elements.enumerated() {
                values.append(try jsonValue(element, at: path.appending(index: index)))
            }
            return .array(values)
        case .object(let members):
            var values: [String: JSONValue] = [:]
            for member in members {
                guard values[member.key] == nil else {
                    throw ConfigurationError(code: .duplicateKey, path: path.appending(member.key).description, message: "the key \(ConfigurationText.quoted(member.key)) appears twice")
                }
                values[member.key] = try jsonValue(member.value, at: path.appending(member.key))
            }
            return .object(values)
        }
    }
}
