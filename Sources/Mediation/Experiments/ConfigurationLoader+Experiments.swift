/// The configuration's top-level `experiments` (``MediationConfiguration/Experiment``), read
/// strictly (R15): the first mistake fails the load with its JSON path.
///
/// - `experiments`: an array of at most 100 experiments.
/// - An experiment: `id` (1 to 64 of `A-Z a-z 0-9 _ . -`, unique), `salt` (1 to 100
///   characters), `start` and `end` (RFC 3339 in UTC, `end` after `start`), `allocation_bp` (a
///   whole number 0 to 10,000) and `variants`.
/// - `variants`: 2 to 20 variants, the first the control; a variant has `id` (as an
///   experiment's, unique in its experiment), `weight_bp` (a whole number 1 to 10,000; the
///   weights sum to 10,000) and optional `placements`: per placement id of the configuration,
///   a placement override, which may hold `segments` of its own (a placement's `segments`,
///   chosen from in place of the placement's for the variant's installs).
/// - Two experiments that name one placement must not run at the same time (their start-to-end
///   spans must not overlap): an event carries one experiment.
extension ConfigurationLoader {
    /// The most experiments a configuration holds.
    static let maximumExperiments = 100
    /// The most variants an experiment holds.
    static let maximumVariants = 20
    /// The longest experiment or variant id, in characters.
    static let maximumExperimentIDLength = 64

    /// Reads `experiments` against the configuration's placements.
    /// - Parameters:
    ///   - node: the `experiments` value, if any.
    ///   - placements: the configuration's placements.
    /// - Returns: the experiments, in file order.
    /// - Throws: ``ConfigurationError`` naming the JSON path of the first mistake.
    func decodeExperiments(
        _ node: JSONNode?,
        placements: [MediationConfiguration.Placement]
    ) throws(ConfigurationError) -> [MediationConfiguration.Experiment] {
        guard let node else { return [] }
        let path = JSONPath.root.appending("experiments")
        guard case .array(let elements) = node else {
            throw ConfigurationReading.wrongType(node, expected: "an array of experiments", at: path)
        }
        guard elements.count <= Self.maximumExperiments else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "at most \(Self.maximumExperiments) experiments, found \(elements.count)")
        }
        var experiments: [MediationConfiguration.Experiment] = []
        var ids = Set<String>()
        for (index, element) in elements.enumerated() {
            let experimentPath = path.appending(index: index)
            let experiment = try decodeExperiment(element, at: experimentPath, placements: placements)
            guard ids.insert(experiment.id).inserted else {
                throw ConfigurationError(code: .duplicateID, path: experimentPath.appending("id").description, message: "the experiment id \(ConfigurationText.quoted(experiment.id)) appears twice")
            }
            for earlier in experiments where earlier.start.millisecondsSince1970 < experiment.end.millisecondsSince1970 && experiment.start.millisecondsSince1970 < earlier.end.millisecondsSince1970 {
                if let shared = experiment.placementIDs.first(where: earlier.placementIDs.contains) {
                    throw ConfigurationError(code: .invalidValue, path: experimentPath.description, message: "the experiments \(ConfigurationText.quoted(earlier.id)) and \(ConfigurationText.quoted(experiment.id)) both name placement \(ConfigurationText.quoted(shared)) and run at the same time (\(earlier.start)–\(earlier.end) and \(experiment.start)–\(experiment.end)): an event carries one experiment")
                }
            }
            experiments.append(experiment)
        }
        return experiments
    }

    private func decodeExperiment(
        _ node: JSONNode,
        at path: JSONPath,
        placements: [MediationConfiguration.Placement]
    ) throws(ConfigurationError) -> MediationConfiguration.Experiment {
        let object = try ConfigurationObject(node, at: path, allowed: ["id", "salt", "start", "end", "allocation_bp", "variants"])
        let id = try Self.experimentID(try object.required("id"), at: path.appending("id"))
        let saltPath = path.appending("salt")
        let salt = try ConfigurationReading.string(try object.required("salt"), at: saltPath)
        guard salt.count <= MediationConfiguration.Rollout.maximumSaltLength else {
            throw ConfigurationError(code: .invalidValue, path: saltPath.description, message: "must be at most \(MediationConfiguration.Rollout.maximumSaltLength) characters")
        }
        let start = try Self.wallClockTime(try object.required("start"), at: path.appending("start"))
        let endPath = path.appending("end")
        let end = try Self.wallClockTime(try object.required("end"), at: endPath)
        guard end.millisecondsSince1970 > start.millisecondsSince1970 else {
            throw ConfigurationError(code: .invalidValue, path: endPath.description, message: "must be after \"start\" (\(start)), found \(end)")
        }
        let allocation = try ConfigurationReading.wholeNumber(try object.required("allocation_bp"), at: path.appending("allocation_bp"), in: 0...10_000, unit: "basis points", rangeCode: .invalidValue)

        let variantsPath = path.appending("variants")
        let variantsNode = try object.required("variants")
        guard case .array(let elements) = variantsNode else {
            throw ConfigurationReading.wrongType(variantsNode, expected: "an array of variants", at: variantsPath)
        }
        guard (2...Self.maximumVariants).contains(elements.count) else {
            throw ConfigurationError(code: .invalidValue, path: variantsPath.description, message: "an experiment needs 2 to \(Self.maximumVariants) variants (the first is the control), found \(elements.count)")
        }
        var variants: [MediationConfiguration.Experiment.Variant] = []
        var variantIDs = Set<String>()
        for (index, element) in elements.enumerated() {
            let variantPath = variantsPath.appending(index: index)
            let variantObject = try ConfigurationObject(element, at: variantPath, allowed: ["id", "weight_bp", "placements"])
            let variantID = try Self.experimentID(try variantObject.required("id"), at: variantPath.appending("id"))
            guard variantIDs.insert(variantID).inserted else {
                throw ConfigurationError(code: .duplicateID, path: variantPath.appending("id").description, message: "the variant id \(ConfigurationText.quoted(variantID)) appears twice in this experiment")
            }
            let weight = try ConfigurationReading.wholeNumber(try variantObject.required("weight_bp"), at: variantPath.appending("weight_bp"), in: 1...10_000, unit: "basis points", rangeCode: .invalidValue)
            var overrides: [String: MediationConfiguration.PlacementOverride] = [:]
            if let placementsNode = variantObject["placements"] {
                let placementsPath = variantPath.appending("placements")
                guard case .object(let members) = placementsNode else {
                    throw ConfigurationReading.wrongType(placementsNode, expected: "an object keyed by placement id", at: placementsPath)
                }
                for member in members {
                    let memberPath = placementsPath.appending(member.key)
                    guard let placement = placements.first(where: { $0.id == member.key }) else {
                        let defined = ConfigurationText.excerpt(placements.map(\.id).joined(separator: ", "), limit: 200)
                        throw ConfigurationError(code: .invalidValue, path: memberPath.description, message: "unknown placement \(ConfigurationText.quoted(member.key)); \"placements\" defines: \(defined)")
                    }
                    guard overrides[member.key] == nil else {
                        throw ConfigurationError(code: .duplicateKey, path: memberPath.description, message: "the placement \(ConfigurationText.quoted(member.key)) appears twice")
                    }
                    let object = try ConfigurationObject(member.value, at: memberPath, allowed: Self.overrideKeys.union(["segments"]))
                    var override = try Self.decodeOverride(object, for: placement)
                    if let segments = object["segments"] {
                        override.segments = try Self.decodeSegments(segments, at: memberPath.appending("segments"), for: placement)
                    }
                    overrides[member.key] = override
                }
            }
            variants.append(MediationConfiguration.Experiment.Variant(id: variantID, weightBasisPoints: weight, placements: overrides))
        }
        let total = variants.reduce(0) { $0 + $1.weightBasisPoints }
        guard total == 10_000 else {
            let weights = variants.map { "\($0.id) \($0.weightBasisPoints)" }.joined(separator: ", ")
            throw ConfigurationError(code: .invalidValue, path: variantsPath.description, message: "the variants' weight_bp must sum to 10000, found \(total) (\(weights))")
        }
        guard variants.contains(where: { !$0.placements.isEmpty }) else {
            throw ConfigurationError(code: .invalidValue, path: variantsPath.description, message: "no variant names a placement: the experiment would change nothing and expose no one")
        }
        return MediationConfiguration.Experiment(id: id, salt: salt, start: start, end: end, allocationBasisPoints: allocation, variants: variants)
    }

    /// An experiment's, variant's or segment's id: 1 to 64 of `A-Z a-z 0-9 _ . -` (it goes
    /// into every event, trace and warehouse table as it is).
    static func experimentID(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> String {
        let id = try ConfigurationReading.string(node, at: path)
        let allowed = id.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
        guard allowed, id.utf8.count <= maximumExperimentIDLength else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "must be 1 to \(maximumExperimentIDLength) of A-Z a-z 0-9 _ . -, found \(ConfigurationText.quoted(ConfigurationText.excerpt(id, limit: 80)))")
        }
        return id
    }

    /// An RFC 3339 time in UTC.
    private static func wallClockTime(_ node: JSONNode, at path: JSONPath) throws(ConfigurationError) -> WallClockTime {
        let text = try ConfigurationReading.string(node, at: path)
        guard let time = WallClockTime(rfc3339: text) else {
            throw ConfigurationError(code: .invalidValue, path: path.description, message: "expected an RFC 3339 time in UTC such as \"2026-12-01T00:00:00Z\", found \(ConfigurationText.quoted(ConfigurationText.excerpt(text, limit: 80)))")
        }
        return time
    }
}
