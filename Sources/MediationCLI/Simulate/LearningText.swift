import MediationSimulation

/// The text of `mediate simulate --days`: per day, each learner's revenue per 1000 requests and
/// its ratio to the true-means limit; the totals with their intervals; the paired differences;
/// and each learner's prices beside the market's true means. Fixed number formats in columns
/// as wide as their widest cell (``TextColumns``: a long line item id or a big number keeps
/// them aligned), so the same arguments print the same bytes.
enum LearningText {
    static func run(_ run: LearningRun, header: SimulationHeader) -> String {
        let safe = SimulationText.safe
        let drift = run.drifts.isEmpty ? "a stationary market" : "drift " + run.drifts.map { safe($0.description) }.joined(separator: ", ")
        var lines = [
            "\(safe(run.placementID)): learning loop, \(HumanReport.counted(run.days, "day")) of \(HumanReport.counted(run.auctionsPerDay, "auction")), seed \(header.seed), \(drift) (config \(safe(header.configPath)), market \(safe(header.marketPath)))",
            "every learner and the true-means limit run on the same draws each day; a learner reprices at the end of each day from its own revenue reports",
            "",
            "revenue per 1000 requests, USD (ratio to the limit)",
        ]
        lines += dailyTable(run)
        lines.append("")
        lines += summaryTable(run)
        if let country = run.country {
            lines.append("")
            lines.append("\(safe(country)): revenue there ÷ the limit's there (the same auctions)")
            lines += countryTable(run)
            if let note = countryNote(run) { lines.append(note) }
        }
        if !run.differences.isEmpty {
            lines.append("")
            lines.append("paired differences in revenue per 1000 requests over every day (B - A, USD)")
            lines += differenceTable(run)
            if run.differences.contains(where: { $0.revenuePer1000Requests.isSignificant }) { lines.append("(* the interval excludes 0)") }
        }
        for (index, learner) in run.learners.enumerated() {
            guard let first = run.daily.first, index < first.learners.count, !first.learners[index].prices.isEmpty else { continue }
            lines.append("")
            lines.append("\(safe(learner)): eCPM each fixed-price line item ran at / the market's true mean, USD CPM")
            lines += priceTable(run, learner: index)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Per day (then over all days): the limit's revenue per 1000 requests and each learner's,
    /// with its ratio to the limit.
    private static func dailyTable(_ run: LearningRun) -> [String] {
        let fixed = SimulationText.fixed
        var table = TextColumns([.init(alignment: .left, minimumWidth: 5), .init(alignment: .left, minimumWidth: 12), .init(alignment: .right, minimumWidth: 9)]
            + run.learners.map { _ in .init(alignment: .right, minimumWidth: 20) })
        func cell(_ revenue: Double, _ ratio: Double?) -> String {
            fixed(revenue, 4) + " (" + (ratio.map { fixed($0, 4) } ?? "-") + ")"
        }
        table.append(["day", "date", "limit"] + run.learners.map(SimulationText.safe))
        for day in run.daily {
            table.append([String(day.day), day.date, fixed(day.limitRevenuePer1000Requests, 4)] + day.learners.map { cell($0.revenuePer1000Requests, $0.ratioToLimit) })
        }
        table.append(["all", HumanReport.counted(run.days, "day"), fixed(run.limitRevenuePer1000Requests, 4)] + run.summaries.map { cell($0.revenuePer1000Requests, $0.ratioToLimit) })
        return table.lines
    }

    /// Per learner: its ratio to the limit over every day, its interval, its lowest daily ratio.
    private static func summaryTable(_ run: LearningRun) -> [String] {
        let fixed = SimulationText.fixed
        var table = TextColumns([.init(alignment: .left, minimumWidth: 12), .init(alignment: .right, minimumWidth: 16), .init(alignment: .left, minimumWidth: 28), .init(alignment: .left, minimumWidth: 0)])
        table.append(["learner", "ratio to limit", "   95 % interval", "lowest daily ratio from day 3"])
        for summary in run.summaries {
            let interval = summary.ratioToLimitInterval.map { "(\(fixed($0.lower, 4)) to \(fixed($0.upper, 4)))" } ?? "-"
            table.append([SimulationText.safe(summary.learner), summary.ratioToLimit.map { fixed($0, 4) } ?? "-", "   " + interval, summary.minimumDailyRatioFromDay3.map { fixed($0, 4) } ?? "-"])
        }
        return table.lines
    }

    /// With a country named whose ratios are all missing: why (the limit earned nothing there,
    /// so no auction of the run there filled, or none was drawn there); `nil` otherwise.
    static func countryNote(_ run: LearningRun) -> String? {
        guard let country = run.country, !run.summaries.isEmpty, run.summaries.allSatisfy({ $0.countryRatioToLimit == nil }) else { return nil }
        return "(no auction of the run in \(SimulationText.safe(country)) earned the limit anything: none was drawn there, or none filled; so no ratio)"
    }

    /// Per day (then over all days): each learner's ratio to the limit in the named country.
    private static func countryTable(_ run: LearningRun) -> [String] {
        let fixed = SimulationText.fixed
        var table = TextColumns([.init(alignment: .left, minimumWidth: 5)] + run.learners.map { _ in .init(alignment: .right, minimumWidth: 10) })
        table.append(["day"] + run.learners.map(SimulationText.safe))
        for day in run.daily {
            table.append([String(day.day)] + day.learners.map { $0.countryRatioToLimit.map { fixed($0, 4) } ?? "-" })
        }
        table.append(["all"] + run.summaries.map { $0.countryRatioToLimit.map { fixed($0, 4) } ?? "-" })
        return table.lines
    }

    /// Per pair of learners: B − A with its interval, starred when it excludes 0.
    private static func differenceTable(_ run: LearningRun) -> [String] {
        let safe = SimulationText.safe, signed = SimulationText.signedSignificant
        var table = TextColumns([.init(alignment: .left, minimumWidth: 26), .init(alignment: .right, minimumWidth: 11), .init(alignment: .left, minimumWidth: 0)])
        for pair in run.differences {
            let difference = pair.revenuePer1000Requests
            let interval = difference.interval.map { "(95 %: \(signed($0.lower)) to \(signed($0.upper)))" } ?? "-"
            table.append(["\(safe(pair.b)) - \(safe(pair.a))", difference.difference.map { signed($0) } ?? "-", "   " + interval + (difference.isSignificant ? "  *" : "")])
        }
        return table.lines
    }

    /// Per day, each fixed-price line item's eCPM as run / the true mean; then the next prices.
    private static func priceTable(_ run: LearningRun, learner index: Int) -> [String] {
        let fixed = SimulationText.fixed
        guard let first = run.daily.first, index < first.learners.count else { return [] }
        let ids = first.learners[index].prices.map { SimulationText.safe($0.lineItemID) }
        var table = TextColumns([.init(alignment: .left, minimumWidth: 5)] + ids.map { _ in .init(alignment: .right, minimumWidth: 16, gap: 2) })
        table.append(["day"] + ids)
        for day in run.daily where index < day.learners.count {
            table.append([String(day.day)] + day.learners[index].prices.map { fixed($0.eCPM, 3) + " / " + fixed($0.trueMean, 3) })
        }
        if let last = run.daily.last, index < last.learners.count {
            table.append(["next"] + last.learners[index].prices.map { fixed($0.learned, 3) })
        }
        return table.lines
    }
}
