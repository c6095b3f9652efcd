import MediationSimulation

/// `mediate simulate --report FILE.html`: one self-contained page (inline CSS and inline SVG;
/// no script, no external resource), well-formed XML so tools can check it: a summary table,
/// the revenue curve of a sweep, the time-to-answer CDF of every network, the win share bars,
/// the per-network table, and for a run with network health events or windows (a timed run,
/// `--compare-health`) its pauses and resumes per network, its events and its per-window table
/// (``HealthHTML``).
enum SimulationHTML {
    static func run(_ report: SimulationReport, header: SimulationHeader) -> String {
        page(title: "\(report.placementID): \(report.requests) simulated auctions", meta: meta(header)) {
            section("Summary", summaryTable([("", report)]))
                + section("Time to answer per network (CDF)", latencyCDF([("", report)]))
                + section("Win share by network", winShares([("", report)]))
                + section("Networks", networkTable(report))
                + HealthHTML.sections(report)
        }
    }

    static func compare(_ comparison: SimulationComparison, header: SimulationHeader, otherPath: String) -> String {
        let runs = [("A", comparison.a), ("B", comparison.b)]
        return page(title: "\(comparison.a.placementID): A vs B on \(comparison.a.requests) paired auctions", meta: "A = \(header.configPath), B = \(otherPath); " + meta(header)) {
            section("Differences, B - A (95 % intervals)", differenceTable(comparison.differences))
                + section("Summary", summaryTable(runs))
                + section("Time to answer per network (CDF; A dashed)", latencyCDF(runs))
                + section("Win share by network", winShares(runs))
                + section("Networks, A", networkTable(comparison.a))
                + section("Networks, B", networkTable(comparison.b))
                + HealthHTML.sections(comparison)
        }
    }

    static func sweep(_ sweep: SweepResult, header: SimulationHeader) -> String {
        let best = sweep.best
        let runs = [("as configured", sweep.baseline), ("best \(SimulationText.value(best.value))", best.report)]
        return page(title: "\(sweep.baseline.placementID): sweep of \(sweep.parameter)", meta: "\(sweep.points.count) values, \(sweep.baseline.requests) auctions each on the same draws; " + meta(header)) {
            section("Revenue per 1000 requests vs \(sweep.parameter)", curve(sweep))
                + section("Sweep", sweepTable(sweep))
                + section("Best vs as configured, B - A", differenceTable(sweep.bestVersusBaseline))
                + section("Time to answer per network (CDF; as configured dashed)", latencyCDF(runs))
                + section("Win share by network", winShares(runs))
                + section("Networks at the best value", networkTable(best.report))
        }
    }

    static func replay(_ replay: ReplayReport, header: SimulationHeader, recordingPath: String) -> String {
        let report = replay.report
        let note = "Replay of \(replay.recordedAuctions) recorded auctions from \(recordingPath): \(replay.recordedAnswers) answers as recorded, \(replay.drawnAnswers) drawn from the market\(SimulationText.drawnBreakdown(replay)).\(replay.unknownLineItems.isEmpty ? "" : " Recorded line items not in the configuration (not replayed): " + SimulationText.listed(replay.unknownLineItems.map(\.lineItemID)) + ".") Recorded revenue \(SimulationText.fixed(replay.recordedRevenueUSD, 6)) USD; replayed \(SimulationText.fixed(report.knownRevenueUSD, 6)) USD."
        return page(title: "\(report.placementID): replay of \(replay.recordedAuctions) auctions", meta: meta(header)) {
            "<p>\(HTML.escape(note))</p>"
                + section("Summary", summaryTable([("", report)]))
                + section("Time to answer per network (CDF)", latencyCDF([("", report)]))
                + section("Win share by network", winShares([("", report)]))
                + section("Networks", networkTable(report))
        }
    }

    // MARK: - Page

    static let style = """
    body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:24px auto;max-width:1100px;color:#222;background:#fafafa}
    h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}
    p.meta{color:#666;margin:0 0 12px;font-size:13px}
    table{border-collapse:collapse;font-size:13px;background:#fff}
    th,td{border:1px solid #ddd;padding:4px 8px;text-align:right}
    th:first-child,td:first-child{text-align:left}th{background:#f0f0f0}
    tr.best td{background:#fff4d6;font-weight:600}
    svg.chart{background:#fff;border:1px solid #ddd;display:block}
    svg text{font-size:11px;fill:#333}svg text.axis{font-size:12px}
    """

    static func page(title: String, meta: String, body: () -> String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"/><title>\(HTML.escape(title))</title><style>
        \(style)</style></head><body>
        <h1>\(HTML.escape(title))</h1>
        <p class="meta">\(HTML.escape(meta))</p>
        \(body())
        </body></html>

        """
    }

    static func meta(_ header: SimulationHeader) -> String {
        "mediate simulate; placement \(header.placementID), config \(header.configPath), market \(header.marketPath), seed \(header.seed); virtual time, simulated networks, illustrative market"
    }

    static func section(_ title: String, _ content: String) -> String {
        "<section><h2>\(HTML.escape(title))</h2>\n\(content)\n</section>\n"
    }

    static func table(_ head: [String], _ rows: [[String]], classes: [String?] = []) -> String {
        var html = "<table><thead><tr>" + head.map { "<th>\(HTML.escape($0))</th>" }.joined() + "</tr></thead><tbody>"
        for (index, row) in rows.enumerated() {
            let cls = index < classes.count ? classes[index].map { " class=\"\($0)\"" } ?? "" : ""
            html += "<tr\(cls)>" + row.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }
        return html + "</tbody></table>"
    }

    // MARK: - Tables

    private static func interval(_ interval: ConfidenceInterval?, _ digits: Int) -> String {
        interval.map { "\(SimulationText.fixed($0.lower, digits)) to \(SimulationText.fixed($0.upper, digits))" } ?? "-"
    }

    private static func summaryTable(_ runs: [(String, SimulationReport)]) -> String {
        let f = SimulationText.fixed
        let figures: [(String, (SimulationReport) -> String)] = [
            ("requests", { String($0.requests) }),
            ("fill rate", { f($0.fillRate, 4) + " (" + interval($0.fillRateInterval, 4) + ")" }),
            ("revenue / 1000 requests, USD", { f($0.revenuePer1000Requests, 4) + " (" + interval($0.revenuePer1000RequestsInterval, 4) + ")" }),
            ("known revenue / 1000 requests, USD", { f($0.knownRevenuePer1000Requests, 4) }),
            ("mean winning eCPM, USD", { ($0.meanWinningECPM.map { f($0, 4) } ?? "-") + " (" + interval($0.meanWinningECPMInterval, 4) + ")" }),
            ("time to ad p50 / p95 / p99, ms", { "\(SimulationText.ms($0.timeToAd.p50)) / \(SimulationText.ms($0.timeToAd.p95)) / \(SimulationText.ms($0.timeToAd.p99))" }),
            ("oracle ratio, deadline", { ($0.oracle.ratio.map { f($0, 4) } ?? "-") + " (" + interval($0.oracle.ratioInterval, 4) + ")" }),
            ("oracle ratio, unbounded", { ($0.oracle.unboundedRatio.map { f($0, 4) } ?? "-") + " (" + interval($0.oracle.unboundedRatioInterval, 4) + ")" }),
        ]
        let head = ["figure"] + runs.map { $0.0.isEmpty ? "value (95 % interval)" : $0.0 }
        return table(head, figures.map { figure in [figure.0] + runs.map { figure.1($0.1) } })
    }

    private static func differenceTable(_ differences: [FigureDifference]) -> String {
        table(["figure", "A", "B", "B - A", "95 % interval", "significant"], differences.map { difference in
            let digits = difference.figure == "mean_auction_ms" ? 2 : 4
            return [
                SimulationText.label(difference.figure),
                difference.a.map { SimulationText.fixed($0, digits) } ?? "-",
                difference.b.map { SimulationText.fixed($0, digits) } ?? "-",
                difference.difference.map { SimulationText.signed($0, digits) } ?? "-",
                difference.interval.map { "\(SimulationText.signed($0.lower, digits)) to \(SimulationText.signed($0.upper, digits))" } ?? "-",
                difference.isSignificant ? "yes" : "no",
            ]
        })
    }

    private static func networkTable(_ report: SimulationReport) -> String {
        table(["network", "asked", "fills", "wins", "win share", "timeouts", "errors", "no fills", "paused", "answer p50 / p95 ms", "revenue USD"], report.networks.map { network in
            [
                network.network, String(network.asked), String(network.fills), String(network.wins),
                SimulationText.fixed(network.winShare * 100, 1) + " %", String(network.timeouts), String(network.errors), String(network.noFills), String(network.paused),
                "\(SimulationText.ms(network.answerLatency.p50)) / \(SimulationText.ms(network.answerLatency.p95))",
                SimulationText.fixed(network.revenueUSD, 6),
            ]
        })
    }

    private static func sweepTable(_ sweep: SweepResult) -> String {
        var rows: [[String]] = []
        var classes: [String?] = []
        func row(_ label: String, _ report: SimulationReport) -> [String] {
            [label, SimulationText.fixed(report.revenuePer1000Requests, 4), interval(report.revenuePer1000RequestsInterval, 4), SimulationText.fixed(report.fillRate, 4),
             report.meanWinningECPM.map { SimulationText.fixed($0, 4) } ?? "-", report.oracle.ratio.map { SimulationText.fixed($0, 4) } ?? "-", SimulationText.ms(report.timeToAd.p95)]
        }
        rows.append(row("as configured", sweep.baseline))
        classes.append(nil)
        for (index, point) in sweep.points.enumerated() {
            rows.append(row(SimulationText.value(point.value), point.report))
            classes.append(index == sweep.bestIndex ? "best" : nil)
        }
        return table([sweep.parameter, "revenue / 1000", "95 % interval", "fill", "mean eCPM", "oracle ratio", "time to ad p95 ms"], rows, classes: classes)
    }

    // MARK: - Charts

    private static func curve(_ sweep: SweepResult) -> String {
        let points = sweep.points.map { (x: $0.value, y: $0.report.revenuePer1000Requests) }
        let band = SVGChart.Band(points: sweep.points.map { point in
            let interval = point.report.revenuePer1000RequestsInterval
            return (x: point.value, lower: interval?.lower ?? point.report.revenuePer1000Requests, upper: interval?.upper ?? point.report.revenuePer1000Requests)
        }, color: SVGChart.palette[0])
        let xs = points.map(\.x)
        let ys = band.points.flatMap { [$0.lower, $0.upper] } + [sweep.baseline.revenuePer1000Requests]
        let baseline = sweep.baseline.revenuePer1000Requests
        let (xLow, xHigh) = (xs.min() ?? 0, xs.max() ?? 1)
        let (yLow, yHigh) = (ys.min() ?? 0, ys.max() ?? 1)
        let pad = max((yHigh - yLow) * 0.08, 0.0001)
        return SVGChart.lines(
            [
                SVGChart.Series(name: "revenue / 1000", points: points, color: SVGChart.palette[0], markers: true),
                SVGChart.Series(name: "as configured", points: [(xLow, baseline), (xHigh, baseline)], color: SVGChart.palette[7], dashed: true),
            ],
            band: band,
            highlight: (sweep.best.value, sweep.best.report.revenuePer1000Requests),
            xLabel: sweep.parameter, yLabel: "revenue / 1000 requests, USD",
            xRange: (xLow, xHigh), yRange: (max(0, yLow - pad), yHigh + pad),
            title: "revenue per 1000 requests against \(sweep.parameter)"
        )
    }

    /// One CDF per network (and per run: the first of two dashed).
    private static func latencyCDF(_ runs: [(String, SimulationReport)]) -> String {
        var reach = 100
        for (_, report) in runs {
            for network in report.networks {
                if let p99 = Estimators.percentile(0.99, of: network.latencyHistogram) { reach = max(reach, (p99 + 1) * 10) }
            }
        }
        let xMax = min(3000, ((reach + 99) / 100) * 100)
        var series: [SVGChart.Series] = []
        let names = runs.flatMap { $0.1.networks.map(\.network) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for (runIndex, run) in runs.enumerated() {
            for network in run.1.networks {
                let histogram = network.latencyHistogram
                let total = histogram.reduce(0, +)
                guard total > 0 else { continue }
                // Bucket k holds 10k to 10k + 9 ms: by 10(k + 1) ms that share has answered.
                var points: [(x: Double, y: Double)] = [(0, 0)]
                var seen = 0
                for (bucket, count) in histogram.enumerated() {
                    seen += count
                    let ms = (bucket + 1) * 10
                    if ms > xMax { break }
                    points.append((Double(ms), Double(seen) / Double(total)))
                }
                let color = SVGChart.palette[(names.firstIndex(of: network.network) ?? 0) % SVGChart.palette.count]
                let dashed = runs.count > 1 && runIndex == 0
                series.append(SVGChart.Series(name: network.network, points: points, color: color, dashed: dashed, legend: !dashed))
            }
        }
        return SVGChart.lines(series, xLabel: "time to answer, ms (virtual)", yLabel: "share of answers", xRange: (0, Double(xMax)), yRange: (0, 1), title: "time to answer per network")
    }

    private static func winShares(_ runs: [(String, SimulationReport)]) -> String {
        var bars: [SVGChart.Bar] = []
        let names = runs.flatMap { $0.1.networks.map(\.network) }.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        for (index, name) in names.enumerated() {
            for run in runs {
                let share = run.1.network(name)?.winShare ?? 0
                bars.append(SVGChart.Bar(label: run.0.isEmpty ? name : "\(name) (\(run.0))", value: share, text: SimulationText.fixed(share * 100, 1) + " %", color: SVGChart.palette[index % SVGChart.palette.count]))
            }
        }
        return SVGChart.bars(bars, maximum: max(0.01, bars.map(\.value).max() ?? 1), title: "win share by network")
    }
}
