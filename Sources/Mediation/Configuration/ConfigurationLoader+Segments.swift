extension ConfigurationLoader {
    /// The most segments a placement may have.
    static let maximumSegments = 100
    /// The most tests (leaves) one segment's predicate may hold, so that checking which
    /// segments an earlier one shadows stays cheap (LevelPlay allows 10 conditions and 5
    /// custom properties per segment).
    static let maximumTestsPerPredicate = 20
    /// The most values an `in` / `not_in` list may hold.
    static let maximumListValues = 1000
    /// How deep `all` / `any` / `not` may nest.
    static let maximumPredicateDepth = 8

    /// Reads a placement's `segments`: a non-empty array of at most 100 objects, each an `id`
    /// (unique in the placement), a `when` (all but the last, which is the default and has
    /// none) and the fields of a placement override.
    /// - Throws: ``ConfigurationError`` at the JSON path of the first mistake.
    static func decodeSegments(_ node: JSONNode, at path: JSONPath, for placement: MediationConfiguration.Placement) throws(ConfigurationError) -> [AudienceSegment] {
        guard case .array(let elements) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an array of segments", at: path)
        }
        guard !elements.isEmpty else {
            throw ConfigurationError(code: .missingField, path: path.description, message: "\"segments\" needs at least the default segment (one without \"when\"), last")
        }
        guard elements.count <= maximumSegments else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "at most \(maximumSegments) segments, found \(elements.count)")
        }
        var segments: [AudienceSegment] = []
        var ids = Set<String>()
        for (index, element) in elements.enumerated() {
            let segmentPath = path.appending(index: index)
            let object = try ConfigurationObject(element, at: segmentPath, allowed: overrideKeys.union(["id", "when"]))
            let idPath = segmentPath.appending("id")
            let id = try Self.experimentID(try object.required("id"), at: idPath)
            guard ids.insert(id).inserted else {
                throw ConfigurationError(code: .duplicateID, path: idPath.description, message: "the segment id \(ConfigurationText.quoted(id)) appears twice in this placement")
            }
            let isLast = index == elements.count - 1
            var predicate: AudiencePredicate?
            if let when = object["when"] {
                guard !isLast else {
                    throw ConfigurationError(code: .invalidValue, path: segmentPath.appending("when").description, message: "the last segment is the default, for every audience the others miss: it takes no \"when\"")
                }
                let decoded = try decodePredicate(when, at: segmentPath.appending("when"), depth: 0)
                guard decoded.testCount <= maximumTestsPerPredicate else {
                    throw ConfigurationError(code: .invalidValue, path: segmentPath.appending("when").description, message: "a segment's predicate holds at most \(maximumTestsPerPredicate) tests, found \(decoded.testCount)")
                }
                predicate = decoded
            } else if !isLast {
                throw ConfigurationError(code: .missingField, path: segmentPath.appending("when").description, message: "missing required field \"when\": only the last segment (the default) has none")
            }
            let override = try decodeOverride(object, for: placement)
            segments.append(AudienceSegment(id: id, predicate: predicate, override: override, path: segmentPath.description))
        }
        return segments
    }

    /// Reads a predicate: `{"all": [..]}`, `{"any": [..]}`, `{"not": {..}}` or a test
    /// `{"<signal>": {"<op>": value}}`, each an object of exactly one key.
    static func decodePredicate(_ node: JSONNode, at path: JSONPath, depth: Int) throws(ConfigurationError) -> AudiencePredicate {
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "a predicate object such as {\"country\": {\"in\": [\"US\"]}}", at: path)
        }
        guard members.count == 1, let member = members.first else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "a predicate has exactly one key (a signal, \"all\", \"any\" or \"not\"), found \(members.count)")
        }
        guard depth < maximumPredicateDepth else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "predicates nest at most \(maximumPredicateDepth) deep")
        }
        let memberPath = path.appending(member.key)
        switch member.key {
        case "all", "any":
            guard case .array(let elements) = member.value else {
                throw ConfigurationReading.wrongType(member.value, expected: "an array of predicates", at: memberPath)
            }
            guard !elements.isEmpty else {
                throw ConfigurationError(code: .invalidValue, path: memberPath.description, message: "\"\(member.key)\" needs at least one predicate")
            }
            var predicates: [AudiencePredicate] = []
            for (index, element) in elements.enumerated() {
                predicates.append(try decodePredicate(element, at: memberPath.appending(index: index), depth: depth + 1))
            }
            return member.key == "all" ? .all(predicates) : .any(predicates)
        case "not":
            return .not(try decodePredicate(member.value, at: memberPath, depth: depth + 1))
        default:
            return .test(try decodeTest(signalName: member.key, member.value, at: memberPath))
        }
    }

    /// The kind of value a signal has.
    private enum SignalKind { case country, deviceKind, version, custom, flag }

    private static func signal(named name: String, at path: JSONPath) throws(ConfigurationError) -> (AudienceTest.Signal, SignalKind) {
        switch name {
        case "country": return (.country, .country)
        case "device_kind": return (.deviceKind, .deviceKind)
        case "os_version": return (.osVersion, .version)
        case "app_version": return (.appVersion, .version)
        case "gdpr_applies": return (.gdprApplies, .flag)
        case "coppa": return (.coppa, .flag)
        case "lat": return (.limitAdTracking, .flag)
        default:
            if name.hasPrefix("custom.") {
                let key = String(name.dropFirst("custom.".count))
                guard Audience.isKey(key) else {
                    throw ConfigurationError(code: .invalidValue, path: path.description, message: "a custom key is a lower-case letter then up to 39 of a-z, 0-9, _, found \(ConfigurationText.quoted(key))")
                }
                return (.custom(key), .custom)
            }
            throw ConfigurationError(code: .unknownKey, path: path.description, message: "unknown signal or combinator \(ConfigurationText.quoted(name)); known: all, any, not, country, device_kind, os_version, app_version, custom.<key>, gdpr_applies, coppa, lat")
        }
    }

    private static func decodeTest(signalName: String, _ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> AudienceTest {
        let (signal, kind) = try signal(named: signalName, at: path)
        guard case .object(let members) = node else {
            throw ConfigurationReading.wrongType(node, expected: "a test such as {\"in\": [..]} or {\">=\": ..}", at: path)
        }
        guard members.count == 1, let member = members.first else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "a test has exactly one operator (in, not_in, ==, !=, <, <=, >, >=, known), found \(members.count)")
        }
        let opPath = path.appending(member.key)
        switch member.key {
        case "known":
            guard case .bool(let known) = member.value else {
                throw ConfigurationReading.wrongType(member.value, expected: "true or false", at: opPath)
            }
            return AudienceTest(signal: signal, operation: .known(known), text: known ? "known" : "unknown")
        case "in", "not_in":
            guard kind != .flag else {
                throw ConfigurationError(code: .invalidValue, path: opPath.description, message: "a privacy flag takes ==, != or known, not \(member.key)")
            }
            guard case .array(let elements) = member.value else {
                throw ConfigurationReading.wrongType(member.value, expected: "an array of values", at: opPath)
            }
            guard !elements.isEmpty, elements.count <= maximumListValues else {
                throw ConfigurationError(code: .invalidValue, path: opPath.description, message: "needs 1 to \(maximumListValues) values, found \(elements.count)")
            }
            var set = Set<AudienceTest.Operand>()
            var texts: [String] = []
            for (index, element) in elements.enumerated() {
                let operand = try decodeOperand(element, kind: kind, ordered: false, at: opPath.appending(index: index))
                if set.insert(operand).inserted { texts.append(operand.description) }
            }
            let text = "\(member.key == "in" ? "in" : "not in") [\(texts.joined(separator: ", "))]"
            return AudienceTest(signal: signal, operation: member.key == "in" ? .isIn(set) : .notIn(set), text: text)
        case "==", "!=", "<", "<=", ">", ">=":
            let ordered = !["==", "!="].contains(member.key)
            let operand = try decodeOperand(member.value, kind: kind, ordered: ordered, at: opPath)
            let operation: AudienceTest.Operation = switch member.key {
            case "==": .equal(operand)
            case "!=": .notEqual(operand)
            case "<": .less(operand)
            case "<=": .lessOrEqual(operand)
            case ">": .greater(operand)
            default: .greaterOrEqual(operand)
            }
            return AudienceTest(signal: signal, operation: operation, text: "\(member.key) \(operand)")
        default:
            throw ConfigurationError(code: .unknownKey, path: opPath.description, message: "unknown operator \(ConfigurationText.quoted(member.key)); known: in, not_in, ==, !=, <, <=, >, >=, known")
        }
    }

    /// A test's value, typed by the signal: a country is two capital letters, a device kind
    /// `phone` or `tablet`, a version a dotted version string, a privacy flag a boolean (`==`,
    /// `!=` only), a custom key's a string (at most 128 UTF-8 bytes) or a finite number.
    private static func decodeOperand(_ node: JSONNode, kind: SignalKind, ordered: Bool, at path: JSONPath) throws(ConfigurationError) -> AudienceTest.Operand {
        switch kind {
        case .country:
            let text = try ConfigurationReading.string(node, at: path)
            guard CountryCode.isAlpha2(text) else {
                throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected an ISO 3166-1 alpha-2 country code in capitals such as \"US\", found \(ConfigurationText.quoted(String(text.prefix(16))))")
            }
            return .string(text)
        case .deviceKind:
            let kind = try ConfigurationReading.choice(node, at: path, ["phone": AdRequest.Device.Kind.phone, "tablet": .tablet])
            return .string(kind.rawValue)
        case .version:
            let text = try ConfigurationReading.string(node, at: path)
            guard let version = Version(text) else {
                throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected a version of 1 to 4 dotted numbers such as \"2.10.0\", found \(ConfigurationText.quoted(String(text.prefix(32))))")
            }
            return .version(version)
        case .flag:
            guard case .bool(let flag) = node else {
                throw ConfigurationReading.wrongType(node, expected: "true or false", at: path)
            }
            guard !ordered else {
                throw ConfigurationError(code: .invalidValue, path: path.description, message: "a privacy flag is only equal or not: use ==, != or known")
            }
            return .bool(flag)
        case .custom:
            switch node {
            case .string(let text):
                guard text.utf8.count <= Audience.maximumStringBytes else {
                    throw ConfigurationError(code: .invalidValue, path: path.description, message: "a custom string is at most \(Audience.maximumStringBytes) UTF-8 bytes, found \(text.utf8.count)")
                }
                return .string(text)
            case .number(let number):
                let value = number.doubleValue
                guard value.isFinite else {
                    throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be a finite number")
                }
                return .number(value)
            default:
                throw ConfigurationReading.wrongType(node, expected: "a string or a number", at: path)
            }
        }
    }
}
