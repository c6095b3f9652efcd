import Foundation
import Mediation

/// The table `mediate --placement ID` prints: the placement, the winner (network, line item,
/// eCPM, creative, format and size), the auction's start, end and deadline, and one row per
/// source with its start offset, latency, outcome, eCPM, loss reason or detail, and whether
/// its ad was released. Everything a network or the configuration supplied (ids, creative ids,
/// reasons, messages) has its control characters escaped (`\u{1B}`, `\u{0A}` …), so each row
/// stays one line and nothing reaches the terminal raw (R17).
enum HumanReport {
    /// Renders the report.
    /// - Parameters:
    ///   - placement: the placement's configuration.
    ///   - outcome: the auction's outcome.
    /// - Returns: the text, ending with a newline.
    static func render(placement: PlacementConfiguration, outcome: AuctionOutcome) -> String {
        let trace = outcome.trace
        var lines: [String] = []
        lines.append("Placement \(safe(placement.id)): \(describe(placement))")
        if let winner = outcome.winner {
            let ad = winner.ad
            lines.append("Winner: \(safe(winner.lineItem.network)) / \(safe(winner.lineItem.id)), eCPM \(money(winner.eCPM)) USD, creative \(safe(NetworkValueBounds.identifier(ad.creativeID))), \(ad.format) \(ad.size) pt")
        } else {
            lines.append("No fill: none of the \(placement.sources.count) sources filled \(safe(placement.id))")
        }
        lines.append("Auction \(safe(trace.auctionID)): started \(seconds(trace.startedAtMilliseconds)), ended \(seconds(trace.endedAtMilliseconds)) (\(millis(trace.durationMilliseconds))), deadline \(seconds(trace.deadlineMilliseconds))")
        lines.append("")

        let header = ["LINE ITEM", "NETWORK", "PRICING", "START", "LATENCY", "OUTCOME", "ECPM", "RELEASED", "LOSS REASON / DETAIL"]
        var rows: [[String]] = []
        for source in trace.sources {
            rows.append([
                safe(source.lineItemID),
                safe(source.network),
                source.pricing == .bidder ? "bidder" : "fixed",
                source.startOffsetMilliseconds.map(millis) ?? "-",
                source.latencyMilliseconds.map(millis) ?? "-",
                source.outcome.status,
                source.eCPM.map(money) ?? source.rawPrice.map { "(\($0))" } ?? "-",
                source.adReleased ? "yes" : "-",
                safe(detail(source.outcome)),
            ])
        }
        lines.append(contentsOf: table(header: header, rows: rows))
        return lines.joined(separator: "\n") + "\n"
    }

    private static func describe(_ placement: PlacementConfiguration) -> String {
        var parts = [placement.format.description]
        if let sizing = placement.bannerSizing { parts[0] += " (\(sizing))" }
        var slot: [String] = []
        if let width = placement.slot.maxWidth { slot.append("max width \(number(width)) pt") }
        if let height = placement.slot.maxHeight { slot.append("max height \(number(height)) pt") }
        if !slot.isEmpty { parts.append("slot " + slot.joined(separator: ", ")) }
        parts.append(placement.mode.rawValue)
        parts.append("deadline \(millis(placement.deadline.milliseconds))")
        if let floor = placement.floor { parts.append("floor \(money(floor))") }
        if let refresh = placement.refreshSeconds { parts.append("refresh \(refresh) s") }
        return parts.joined(separator: ", ")
    }

    /// `text` with its control characters escaped.
    static func safe(_ text: String) -> String {
        DisplayText.escaped(text)
    }

    /// Which limit a timeout hit (R3a), for the detail column.
    static func timeoutDetail(_ limit: TimeoutLimit) -> String {
        switch limit {
        case .source: "line item timeout_ms"
        case .network: "network timeout_ms"
        case .deadline: "auction deadline"
        }
    }

    private static func detail(_ outcome: SourceOutcome) -> String {
        switch outcome {
        case .lost(let reason): reason.description
        case .noFill(let reason): reason.description
        case .error(let error): error.description
        case .timeout(let limit): HumanReport.timeoutDetail(limit)
        case .cancelled(let value): value.map { "could not beat \(money($0)) USD" } ?? "the caller gave up"
        case .notAsked(let reason): reason.rawValue
        case .won: ""
        }
    }

    private static func table(header: [String], rows: [[String]]) -> [String] {
        var widths = header.map(\.count)
        for row in rows {
            for (column, cell) in row.enumerated() where column < widths.count {
                widths[column] = max(widths[column], cell.count)
            }
        }
        func line(_ cells: [String]) -> String {
            var text = ""
            for (column, cell) in cells.enumerated() {
                let isLast = column == cells.count - 1
                text += isLast ? cell : cell.padding(toLength: widths[column] + 2, withPad: " ", startingAt: 0)
            }
            return text.trimmingCharacters(in: .whitespaces)
        }
        return [line(header)] + rows.map(line)
    }

    /// `1.20`.
    static func money(_ value: Double) -> String {
        value.isFinite ? String(format: "%.2f", value) : "\(value)"
    }

    private static func millis(_ value: Double) -> String {
        value.isFinite && abs(value) < 1e15 ? "\(Int(value.rounded())) ms" : "-"
    }

    private static func seconds(_ milliseconds: Double) -> String {
        milliseconds.isFinite ? String(format: "%.3fs", milliseconds / 1000) : "-"
    }

    private static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e9 ? String(Int(value)) : String(value)
    }
}
