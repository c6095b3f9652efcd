import MediationSimulation

/// The network health (R24) and per-window sections of `mediate simulate --report`, the figures
/// the text output prints for them: pauses and resumes per network, the pause and resume events,
/// and a timed run's per-window table (of A and B side by side for a comparison). Empty for a
/// run with neither windows nor health events.
enum HealthHTML {
    /// The health and window sections of one run.
    static func sections(_ report: SimulationReport) -> String {
        var html = ""
        if hasEvents(report) || report.windows != nil {
            html += SimulationHTML.section("Network health", health([("", report)]))
        }
        if let windows = report.windows {
            html += SimulationHTML.section("Per \(SimulationText.value(report.windowSeconds ?? 60)) s window", windowTable(windows, networks: report.networks.map(\.network)))
        }
        return html
    }

    /// The health and window sections of a comparison: A's and B's health, and their windows
    /// side by side.
    static func sections(_ comparison: SimulationComparison) -> String {
        var html = ""
        if hasEvents(comparison.a) || hasEvents(comparison.b) || comparison.a.windows != nil {
            html += SimulationHTML.section("Network health, A and B", health([("A", comparison.a), ("B", comparison.b)]))
        }
        if let a = comparison.a.windows, let b = comparison.b.windows {
            var names: [String] = []
            for network in comparison.a.networks.map(\.network) + comparison.b.networks.map(\.network) where !names.contains(network) { names.append(network) }
            html += SimulationHTML.section("Per \(SimulationText.value(comparison.a.windowSeconds ?? 60)) s window, A / B", windowComparison(a, b, networks: names))
        }
        return html
    }

    private static func hasEvents(_ report: SimulationReport) -> Bool {
        report.health.pauses + report.health.resumes > 0
    }

    /// Per run: its health line, its pauses and resumes per network, and its events.
    private static func health(_ runs: [(String, SimulationReport)]) -> String {
        var html = ""
        for (name, report) in runs {
            let prefix = name.isEmpty ? "" : name + ": "
            html += "<p>\(HTML.escape(prefix + "network health " + SimulationText.healthSummary(report.health)))</p>"
            guard report.health.enabled else { continue }
            html += perNetwork(report) + events(report)
        }
        return html
    }

    /// Each network's pauses and resumes (from the listed events) and its requests not made.
    private static func perNetwork(_ report: SimulationReport) -> String {
        let events = report.health.events
        let rows = report.networks.map { network in
            [
                network.network,
                String(events.count { $0.network == network.network && $0.event == "paused" }),
                String(events.count { $0.network == network.network && $0.event == "resumed" }),
                String(network.paused),
            ]
        }
        let listed = events.count < report.health.pauses + report.health.resumes ? " (of the first \(events.count) events)" : ""
        return SimulationHTML.table(["network", "pauses" + listed, "resumes" + listed, "requests not made"], rows)
    }

    /// The pause and resume events, on the run's virtual time.
    private static func events(_ report: SimulationReport) -> String {
        let events = report.health.events
        guard !events.isEmpty else { return "" }
        let timed = report.rate != nil
        let head = ["virtual time" + (timed ? " from the run's start" : " from the shard's start"), "network", "event", "cause", "failures", "retry at"] + (timed ? [] : ["shard"])
        let rows = events.map { event in
            [
                SimulationText.clock(event.atMilliseconds), event.network, event.event, event.cause ?? "-",
                event.failures.map { "\($0) of \(event.outcomes ?? 0)" } ?? "-",
                event.retryAtMilliseconds.map(SimulationText.clock) ?? "-",
            ] + (timed ? [] : [String(event.shard)])
        }
        let more = report.health.pauses + report.health.resumes - events.count
        return SimulationHTML.table(head, rows) + (more > 0 ? "<p>\(HTML.escape("… \(more) more, counted but not listed"))</p>" : "")
    }

    /// One row per window: requests, fill, time to ad p50, revenue, and per network its wins
    /// over the requests made to it, its requests not made (paused) and its timeouts.
    private static func windowTable(_ windows: [WindowFigures], networks: [String]) -> String {
        let head = ["start", "requests", "fill", "p50 ms", "revenue / 1000, USD"] + networks.flatMap { ["\($0) wins/asked", "\($0) paused", "\($0) timeouts"] }
        let rows = windows.map { window in
            [
                SimulationText.clock(Int64((window.startSeconds * 1000).rounded())), String(window.requests), SimulationText.fixed(window.fillRate, 3),
                SimulationText.ms(window.timeToAd.p50), SimulationText.fixed(window.revenuePer1000Requests, 4),
            ] + networks.flatMap { name in
                let figures = window.network(name)
                return [figures.map { "\($0.wins)/\($0.asked)" } ?? "-", figures.map { String($0.paused) } ?? "-", figures.map { String($0.timeouts) } ?? "-"]
            }
        }
        return SimulationHTML.table(head, rows)
    }

    /// One row per window of two timed runs on the same draws: fill, time to ad p50, and per
    /// network its wins and its requests not made, A / B.
    private static func windowComparison(_ a: [WindowFigures], _ b: [WindowFigures], networks: [String]) -> String {
        let byStart = Dictionary(b.map { ($0.startSeconds, $0) }, uniquingKeysWith: { first, _ in first })
        let head = ["start", "requests", "fill A / B", "p50 ms A / B"] + networks.flatMap { ["\($0) wins A / B", "\($0) paused A / B"] }
        let rows = a.map { window in
            let other = byStart[window.startSeconds]
            func pair(_ value: (WindowFigures) -> String?) -> String {
                (value(window) ?? "-") + " / " + (other.flatMap(value) ?? "-")
            }
            return [
                SimulationText.clock(Int64((window.startSeconds * 1000).rounded())), String(window.requests),
                pair { SimulationText.fixed($0.fillRate, 3) }, pair { SimulationText.ms($0.timeToAd.p50) },
            ] + networks.flatMap { name in
                [pair { $0.network(name).map { String($0.wins) } }, pair { $0.network(name).map { String($0.paused) } }]
            }
        }
        return SimulationHTML.table(head, rows)
    }
}
