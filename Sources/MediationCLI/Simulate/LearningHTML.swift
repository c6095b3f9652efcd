import MediationSimulation

/// `mediate simulate --days … --report FILE.html`: the learning loop on one page: the ratio to
/// the true-means limit per day and learner, and per fixed-price line item its learned eCPM
/// per day against the market's true mean (dashed).
enum LearningHTML {
    static func run(_ run: LearningRun, header: SimulationHeader) -> String {
        let f = SimulationText.fixed
        let title = "\(run.placementID): learning loop, \(HumanReport.counted(run.days, "day")) of \(HumanReport.counted(run.auctionsPerDay, "auction"))"
        let drift = run.drifts.isEmpty ? "stationary market" : "drift " + run.drifts.map(\.description).joined(separator: ", ")
        return SimulationHTML.page(title: title, meta: drift + "; " + SimulationHTML.meta(header)) {
            var body = SimulationHTML.section("Ratio to the true-means limit, per day", ratioChart(run))
            let head = ["learner", "revenue / 1000 requests, USD", "ratio to limit", "95 % interval", "lowest daily ratio from day 3"]
            let rows = run.summaries.map { summary in
                [summary.learner, f(summary.revenuePer1000Requests, 4), summary.ratioToLimit.map { f($0, 4) } ?? "-",
                 summary.ratioToLimitInterval.map { "\(f($0.lower, 4)) to \(f($0.upper, 4))" } ?? "-",
                 summary.minimumDailyRatioFromDay3.map { f($0, 4) } ?? "-"]
            }
            body += SimulationHTML.section("Over \(HumanReport.counted(run.days, "day")) (limit \(f(run.limitRevenuePer1000Requests, 4)))", SimulationHTML.table(head, rows))
            if let country = run.country {
                // The text's country table: each learner's ratio to the limit there, per day and over the run.
                let ratio = { (value: Double?) in value.map { f($0, 4) } ?? "-" }
                var countryRows = run.daily.map { day in [String(day.day)] + day.learners.map { ratio($0.countryRatioToLimit) } }
                countryRows.append(["all"] + run.summaries.map { ratio($0.countryRatioToLimit) })
                var section = SimulationHTML.table(["day"] + run.learners, countryRows)
                if let note = LearningText.countryNote(run) { section += "<p>" + HTML.escape(note) + "</p>" }
                body += SimulationHTML.section("\(country): revenue there ÷ the limit's there (the same auctions)", section)
            }
            if !run.differences.isEmpty {
                body += SimulationHTML.section("Paired differences, B - A", SimulationHTML.table(["B - A", "revenue / 1000 requests, USD", "95 % interval", "significant"], run.differences.map { pair in
                    let difference = pair.revenuePer1000Requests
                    return ["\(pair.b) - \(pair.a)", difference.difference.map { SimulationText.signedSignificant($0) } ?? "-",
                            difference.interval.map { "\(SimulationText.signedSignificant($0.lower)) to \(SimulationText.signedSignificant($0.upper))" } ?? "-",
                            difference.isSignificant ? "yes" : "no"]
                }))
            }
            for (index, lineItem) in (run.daily.first?.learners.first?.prices ?? []).enumerated() {
                body += SimulationHTML.section("\(lineItem.lineItemID): eCPM per day against the true mean (dashed)", priceChart(run, lineItem: index))
            }
            return body
        }
    }

    private static func ratioChart(_ run: LearningRun) -> String {
        let series = run.learners.indices.map { learner in
            SVGChart.Series(name: run.learners[learner], points: run.daily.compactMap { day in
                day.learners[learner].ratioToLimit.map { (x: Double(day.day), y: $0) }
            }, color: SVGChart.palette[learner % SVGChart.palette.count], markers: true)
        }
        let ys: [Double] = series.flatMap { $0.points.map { $0.y } } + [1]
        return SVGChart.lines(series, xLabel: "day", yLabel: "revenue ÷ the limit's", xRange: (1, Double(max(run.days, 2))),
                              yRange: ((ys.min() ?? 0.9) - 0.005, (ys.max() ?? 1) + 0.005), title: "ratio to the true-means limit per day")
    }

    private static func priceChart(_ run: LearningRun, lineItem: Int) -> String {
        var series = run.learners.indices.map { learner in
            SVGChart.Series(name: run.learners[learner], points: run.daily.map { day in
                (x: Double(day.day), y: day.learners[learner].prices[lineItem].eCPM)
            }, color: SVGChart.palette[learner % SVGChart.palette.count], markers: true)
        }
        series.append(SVGChart.Series(name: "true mean", points: run.daily.map { (x: Double($0.day), y: $0.learners[0].prices[lineItem].trueMean) }, color: "#000000", dashed: true))
        let ys: [Double] = series.flatMap { $0.points.map { $0.y } }
        let (low, high) = (ys.min() ?? 0, ys.max() ?? 1)
        let pad = max((high - low) * 0.08, 0.01)
        return SVGChart.lines(series, xLabel: "day", yLabel: "eCPM, USD CPM", xRange: (1, Double(max(run.days, 2))),
                              yRange: (max(0, low - pad), high + pad), title: "eCPM per day")
    }
}
