import Mediation

extension MediationConfiguration.Placement {
    /// What in this placement the market's truth does not model, and the learning loop's limit
    /// and calibration therefore do not describe (`docs/simulation.md`, "The market's truth"):
    /// a floor on the placement, and each segment that sets its own eCPMs (the engine then
    /// orders that segment by them, not by the learned prices) or a floor. One line each,
    /// starting with the JSON path, e.g. `placements.level_end.segments[0]: segment "tier1"
    /// sets its own ecpm for 3 line items`; empty when there is none.
    package var changesTheTruthLeavesOut: [String] {
        var lines: [String] = []
        if let floor {
            lines.append("placements.\(id): the placement's floor (\(DecimalText.trimmed(floor, minimumDigits: 0)) USD CPM)")
        }
        for segment in segments {
            var changes: [String] = []
            if !segment.override.eCPM.isEmpty {
                changes.append("its own ecpm for \(segment.override.eCPM.count) line item\(segment.override.eCPM.count == 1 ? "" : "s")")
            }
            if let floor = segment.override.floor {
                changes.append("a floor (\(DecimalText.trimmed(floor, minimumDigits: 0)) USD CPM)")
            }
            guard !changes.isEmpty else { continue }
            lines.append("\(segment.path): segment \"\(segment.id)\" sets \(changes.joined(separator: " and "))")
        }
        return lines
    }
}
