import Foundation

/// How the install's exposures sit in the state store (`docs/experiments.md`), so that a
/// relaunch does not publish an `exposure` again: one value under `experiments.exposures`
/// holding, per experiment and placement, the variant and unit the install was exposed to and
/// when (wall clock).
///
/// Bounded: at most one record per experiment × placement; when written, records of
/// experiments the configuration no longer holds (or that no longer name the placement) and of
/// experiments past their `end` are dropped, and at most ``maximumRecords`` are kept (the
/// newest). ``MediationEngine/forgetUser()`` removes the value (a new install id draws new
/// variants and units, exposed anew).
///
/// Read back as untrusted input: a value that is not strict JSON, does not decode, has another
/// version, holds more than ``maximumRecords`` records, one experiment × placement twice, or a
/// record whose ids or unit are malformed, is discarded with a warning and removed. The install
/// is then exposed again at its next auction of each placement under an experiment (one more
/// `exposure` event; reports count distinct units, so no user is counted twice).
package enum StoredExposures {
    /// The key of the value.
    package static let key = "experiments.exposures"
    /// The format.
    package static let version = 1
    /// The most records kept (the newest by ``Record/wallMilliseconds``).
    package static let maximumRecords = 256
    /// The longest experiment, variant or placement id accepted in a record, in UTF-8 bytes.
    static let maximumIDBytes = 200

    /// One exposure: the install saw `placement` under `experiment`'s `variant`.
    package struct Record: Codable, Hashable, Sendable {
        /// The experiment's id.
        var experiment: String
        /// The placement id.
        var placement: String
        /// The variant's id.
        var variant: String
        /// The install's unit in the experiment: 16 lowercase hex digits.
        var unit: String
        /// When it was exposed, wall clock in ms since 1970.
        var wallMilliseconds: Int64

        private enum CodingKeys: String, CodingKey {
            case experiment, placement, variant, unit
            case wallMilliseconds = "wall_ms"
        }

        /// The record's key among the install's exposures: one per experiment × placement.
        var slot: String { StoredExposures.slot(experiment: experiment, placement: placement) }

        /// Why it is refused, or `nil`.
        var problem: String? {
            for (name, id) in [("experiment", experiment), ("placement", placement), ("variant", variant)] where id.isEmpty || id.utf8.count > StoredExposures.maximumIDBytes {
                return "a record's \(name) id is empty or longer than \(StoredExposures.maximumIDBytes) bytes"
            }
            let hex = unit.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
            if unit.utf8.count != 16 || !hex { return "a record's unit is not 16 lowercase hex digits" }
            return nil
        }
    }

    /// The stored value.
    package struct Value: Codable, Hashable, Sendable {
        /// The format: 1.
        var version: Int
        /// The records, one per experiment × placement.
        var records: [Record]

        init(records: [Record]) {
            version = StoredExposures.version
            self.records = records
        }

        /// Why it is refused, or `nil`.
        var problem: String? {
            if version != StoredExposures.version { return "version \(version) is not \(StoredExposures.version)" }
            if records.count > StoredExposures.maximumRecords { return "it holds \(records.count) records, more than \(StoredExposures.maximumRecords)" }
            var slots = Set<String>()
            for record in records {
                if let problem = record.problem { return problem }
                if !slots.insert(record.slot).inserted { return "one experiment and placement appear twice" }
            }
            return nil
        }
    }

    /// The key of an experiment × placement among the records.
    static func slot(experiment: String, placement: String) -> String {
        experiment + "\u{0}" + placement
    }

    /// The records of `exposed` worth keeping under `experiments` at wall time `now`: those of
    /// an experiment the configuration holds, that names the placement and has not ended; at
    /// most ``maximumRecords``, the newest.
    /// - Parameters:
    ///   - exposed: the records, by ``slot(experiment:placement:)``.
    ///   - experiments: the configuration's experiments.
    ///   - now: the wall clock now.
    static func kept(_ exposed: [String: Record], under experiments: [MediationConfiguration.Experiment], at now: WallClockTime) -> [Record] {
        var running: [String: Set<String>] = [:]
        for experiment in experiments where now.millisecondsSince1970 < experiment.end.millisecondsSince1970 {
            running[experiment.id] = Set(experiment.placementIDs)
        }
        let kept = exposed.values.filter { running[$0.experiment]?.contains($0.placement) == true }
        let newestFirst = kept.sorted { ($0.wallMilliseconds, $0.slot) > ($1.wallMilliseconds, $1.slot) }
        return Array(newestFirst.prefix(maximumRecords)).sorted { $0.slot < $1.slot }
    }
}
