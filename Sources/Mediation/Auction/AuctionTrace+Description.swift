extension AuctionTrace: CustomStringConvertible {
    /// The trace as a person reads it: a header line with the placement, times and winner,
    /// then the auction's country and segment with its reason when it has them, then one
    /// aligned row per source (line item, network, start, latency, outcome with a
    /// late answer if any, eCPM, released). Times are milliseconds from the auction's start
    /// (``warnings`` are in the JSON form only).
    /// Ids and reasons from the configuration or a network have their control characters
    /// escaped (R17).
    public var description: String {
        var lines: [String] = []
        let winnerText = winner.map { id in "winner \(DisplayText.escaped(id)) at \(AuctionTrace.money(winningECPM)) USD CPM" } ?? "no fill"
        lines.append(
            "auction \(DisplayText.escaped(String(auctionID.prefix(8)))) placement \(DisplayText.escaped(placementID)) (\(mode.rawValue)): "
                + "\(winnerText); ended at \(AuctionTrace.millis(durationMilliseconds)) ms, "
                + "deadline \(AuctionTrace.millis(deadlineLengthMilliseconds)) ms"
        )
        if let segmentReason {
            // e.g. "country US; segment tier1: country US in [US, CA, GB]"
            lines.append((country.map { "country \(DisplayText.escaped($0)); " } ?? "") + "segment \(DisplayText.escaped(segmentReason))")
        } else if let country {
            lines.append("country \(DisplayText.escaped(country))")
        }
        let header = ["line item", "network", "start ms", "latency ms", "outcome", "eCPM", "released"]
        let rows = sources.map { source in
            [
                DisplayText.escaped(source.lineItemID),
                DisplayText.escaped(source.network),
                source.startOffsetMilliseconds.map(AuctionTrace.millis) ?? "-",
                source.latencyMilliseconds.map(AuctionTrace.millis) ?? "-",
                DisplayText.escaped(source.outcome.description)
                    + (source.retryAtMilliseconds.map { "; retry at \(AuctionTrace.millis($0)) ms" } ?? "")
                    + (source.lateAnswer.map { "; late answer at \(AuctionTrace.millis($0.atOffsetMilliseconds)) ms" + ($0.released ? ", released" : "") } ?? ""),
                source.eCPM.map { AuctionTrace.money($0) } ?? "-",
                source.adReleased ? "yes" : "no",
            ]
        }
        lines += AuctionTrace.table(header: header, rows: rows)
        return lines.joined(separator: "\n")
    }

    /// Renders rows as left-aligned columns separated by two spaces.
    static func table(header: [String], rows: [[String]]) -> [String] {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.indices.map { column in
                column == row.count - 1 ? row[column] : row[column].padding(toLength: widths[column], withPad: " ", startingAt: 0)
            }
            .joined(separator: "  ")
        }
    }

    /// Milliseconds with at most one decimal, e.g. `150` or `2.5`.
    static func millis(_ value: Double) -> String {
        let rounded = (value * 10).rounded() / 10
        return rounded == rounded.rounded() && abs(rounded) < 1e15 ? String(Int64(rounded)) : String(rounded)
    }

    /// A USD CPM with two to six decimals, e.g. `1.20`.
    static func money(_ value: Double?) -> String {
        guard let value else { return "-" }
        return DecimalText.trimmed(value)
    }
}
