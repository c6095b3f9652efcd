import MediationSimulation

/// The text of `mediate simulate --days`: per day, each learner's revenue per 1000 requests and
/// its ratio to the true-means limit; the totals with their intervals; the paired differences;
/// and each learner's prices beside the market's true means. Fixed formats, so the same
/// arguments print the same bytes.
enum LearningText {
    static func run(_ run: LearningRun, header: SimulationHeader) -> String {
        let safe = SimulationText.safe, fixed = SimulationText.fixed, pad = SimulationText.pad, lpad = SimulationText.lpad
        let drift = run.drifts.isEmpty ? "a stationary market" : "drift " + run.drifts.map { safe($0.description) }.joined(separator: ", ")
        var lines = [
            "\(safe(run.placementID)): learning loop, \(run.days) days of \(HumanReport.counted(run.auctionsPerDay, "auction")), seed \(header.seed), \(drift) (config \(safe(header.configPath)), market \(safe(header.marketPath)))",
            "every learner and the true-means limit run on the same draws each day; a learner reprices at the end of each day from its own revenue reports",
            "",
            "revenue per 1000 requests, USD (ratio to the limit)",
        ]
        let width = 20
        lines.append(pad("day", 5) + pad("date", 12) + lpad("limit", 9) + run.learners.map { lpad(safe($0), width) }.joined())
        for day in run.daily {
            lines.append(pad(String(day.day), 5) + pad(day.date, 12) + lpad(fixed(day.limitRevenuePer1000Requests, 4), 9)
                + day.learners.map { lpad(fixed($0.revenuePer1000Requests, 4) + " (" + ($0.ratioToLimit.map { fixed($0, 4) } ?? "-") + ")", width) }.joined())
        }
        lines.append(pad("all", 5) + pad("\(run.days) days", 12) + lpad(fixed(run.limitRevenuePer1000Requests, 4), 9)
            + run.summaries.map { lpad(fixed($0.revenuePer1000Requests, 4) + " (" + ($0.ratioToLimit.map { fixed($0, 4) } ?? "-") + ")", width) }.joined())
        lines.append("")
        lines.append(pad("learner", 12) + lpad("ratio to limit", 16) + "   95 % interval" + String(repeating: " ", count: 10) + "lowest daily ratio from day 3")
        for summary in run.summaries {
            let interval = summary.ratioToLimitInterval.map { "(\(fixed($0.lower, 4)) to \(fixed($0.upper, 4)))" } ?? "-"
            lines.append(pad(safe(summary.learner), 12) + lpad(summary.ratioToLimit.map { fixed($0, 4) } ?? "-", 16) + "   " + pad(interval, 25) + (summary.minimumDailyRatioFromDay3.map { fixed($0, 4) } ?? "-"))
        }
        if !run.differences.isEmpty {
            lines.append("")
            lines.append("paired differences in revenue per 1000 requests over every day (B - A, USD)")
            for pair in run.differences {
                let difference = pair.revenuePer1000Requests
                let interval = difference.interval.map { "(95 %: \(SimulationText.signed($0.lower, 6)) to \(SimulationText.signed($0.upper, 6)))" } ?? "-"
                lines.append(pad("\(safe(pair.b)) - \(safe(pair.a))", 26) + lpad(difference.difference.map { SimulationText.signed($0, 6) } ?? "-", 11) + "   " + interval + (difference.isSignificant ? "  *" : ""))
            }
            if run.differences.contains(where: { $0.revenuePer1000Requests.isSignificant }) { lines.append("(* the interval excludes 0)") }
        }
        for (index, learner) in run.learners.enumerated() {
            guard let first = run.daily.first, index < first.learners.count, !first.learners[index].prices.isEmpty else { continue }
            lines.append("")
            lines.append("\(safe(learner)): eCPM each fixed-price line item ran at / the market's true mean, USD CPM")
            let ids = first.learners[index].prices.map { safe($0.lineItemID) }
            let column = max(16, (ids.map(\.count).max() ?? 0) + 2)
            lines.append(pad("day", 5) + ids.map { lpad($0, column) }.joined())
            for day in run.daily where index < day.learners.count {
                lines.append(pad(String(day.day), 5) + day.learners[index].prices.map { lpad(fixed($0.eCPM, 3) + " / " + fixed($0.trueMean, 3), column) }.joined())
            }
            if let last = run.daily.last, index < last.learners.count {
                lines.append(pad("next", 5) + last.learners[index].prices.map { lpad(fixed($0.learned, 3), column) }.joined())
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
