import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Mediation
import Testing
@testable import MediationCLI

/// Counts the elements of an XHTML report by name and class; parsing fails on malformed XML.
private final class ReportCounter: NSObject, XMLParserDelegate {
    var counts: [String: Int] = [:]
    var scripts = 0
    var externalReferences = 0

    func parser(_ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        counts[name, default: 0] += 1
        if let classes = attributes["class"] {
            for item in classes.split(separator: " ") { counts["\(name).\(item)", default: 0] += 1 }
        }
        if name == "script" { scripts += 1 }
        for key in ["src", "href"] where attributes[key] != nil { externalReferences += 1 }
    }

    static func count(_ html: String) throws -> ReportCounter {
        let counter = ReportCounter()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = counter
        #expect(parser.parse(), "not well-formed: \(parser.parserError.map { "\($0)" } ?? "")")
        return counter
    }
}

@Suite("--report and the watch summary")
struct ReportAndSummaryTests {
    @Test("a one-shot report parses as XHTML: one bar per asked source, one deadline line, one table row per source, no script or external resource")
    func oneShotReport() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "coin_flips", "--report", "out/../r.html"])
        #expect(result.code == .success || result.code == .noFill)
        let html = try String(contentsOf: workspace.directory.appendingPathComponent("r.html"), encoding: .utf8)
        let counter = try ReportCounter.count(html)
        #expect(counter.counts["rect.bar"] == 3)
        #expect(counter.counts["line.deadline"] == 1)
        #expect(counter.counts["line.end"] == 1)
        #expect(counter.counts["tr.source"] == 3)
        #expect(counter.counts["svg"] == 1)
        #expect(counter.counts["style"] == 1)
        #expect(counter.counts["table.stats"] == nil)
        #expect(counter.scripts == 0)
        #expect(counter.externalReferences == 0)
        #expect(html.contains("deadline 3000 ms"))
    }

    @Test("text from the config is escaped in the report")
    func escaping() async throws {
        let workspace = try Workspace()
        try workspace.write("""
        {
          "networks": { "always": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } } },
          "placements": { "p": { "format": "interstitial", "sources": [
            { "id": "<script>alert('x')</script>&\\u001b[31m", "network": "always", "ad_unit_id": "a", "ecpm": 1 } ] } }
        }
        """, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "p", "--report", "r.html"])
        #expect(result.code == .success)
        let html = try String(contentsOf: workspace.directory.appendingPathComponent("r.html"), encoding: .utf8)
        _ = try ReportCounter.count(html)
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;&amp;\\u{1B}[31m"))
    }

    @Test("a watch report adds the summary tables: one row per network and per line item, one timeline per auction")
    func watchReport() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130", "--report", "w.html"])
        #expect(result.code == .success)
        let html = try String(contentsOf: workspace.directory.appendingPathComponent("w.html"), encoding: .utf8)
        let counter = try ReportCounter.count(html)
        #expect(counter.counts["svg"] == 3)
        #expect(counter.counts["line.deadline"] == 3)
        #expect(counter.counts["rect.bar"] == 6)
        #expect(counter.counts["table.networks"] == 1)
        #expect(counter.counts["table.line-items"] == 1)
        #expect(counter.counts["tr.stat"] == 4) // 2 networks + 2 line items
    }

    @Test("an unwritable report path exits 73 and says so")
    func unwritableReport() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let result = await workspace.run(["--placement", "home_banner", "--report", "missing-dir/r.html"])
        #expect(result.code == .cannotCreate)
        #expect(result.error.contains("mediate: cannot write the report missing-dir/r.html"))
    }

    @Test("the report and the event log are written in place, never renamed over their path: a symbolic link stays a link and its target gets the content (so /dev/full fails with 73 rather than being replaced)")
    func outputFilesAreWrittenInPlace() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        try workspace.write("", to: "target.html")
        try workspace.write("", to: "target.ndjson")
        let manager = FileManager.default
        try manager.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("r.html").path, withDestinationPath: "target.html")
        try manager.createSymbolicLink(atPath: workspace.directory.appendingPathComponent("ev.ndjson").path, withDestinationPath: "target.ndjson")
        let report = await workspace.run(["--placement", "home_banner", "--report", "r.html"])
        #expect(report.code == .success, "\(report.error)")
        let watch = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "61", "--events", "ev.ndjson"])
        #expect(watch.code == .success, "\(watch.error)")
        for (link, target) in [("r.html", "target.html"), ("ev.ndjson", "target.ndjson")] {
            let attributes = try manager.attributesOfItem(atPath: workspace.directory.appendingPathComponent(link).path)
            #expect(attributes[.type] as? FileAttributeType == .typeSymbolicLink, "\(link) was replaced")
            let written = try String(contentsOf: workspace.directory.appendingPathComponent(target), encoding: .utf8)
            #expect(!written.isEmpty, "\(target) got nothing")
        }
    }

    @Test("the watch summary: exact figures per network and line item, in the text and in --json")
    func watchSummary() async throws {
        let workspace = try Workspace()
        try workspace.write(Workspace.instantConfig, to: "Config/mediation.json")
        let text = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130"])
        #expect(text.code == .success)
        let lines = text.output.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let networkHeader = try #require(lines.firstIndex { $0.hasPrefix("summary per network") })
        #expect(lines[networkHeader + 1] == "ID      NETWORK  REQUESTS  FILLS  FILL RATE  WINS  WIN RATE  TIMEOUTS  ERRORS  P50 MS  P95 MS  P99 MS  IMPRESSIONS  REVENUE USD")
        #expect(lines[networkHeader + 2] == "never   never    3         0      0.0%       0     -         0         0       0       0       0       0            0.000000")
        #expect(lines[networkHeader + 3] == "always  always   3         3      100.0%     3     100.0%    0         0       0       0       0       3            0.001500")
        let lineItemHeader = try #require(lines.firstIndex { $0 == "summary per line item:" })
        #expect(lines[lineItemHeader + 2].hasPrefix("high  never    3         0      0.0%"))
        #expect(lines[lineItemHeader + 3].hasPrefix("low   always   3         3      100.0%     3     100.0%"))

        let json = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130", "--json"])
        #expect(json.code == .success)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        #expect(summary["auctions"] as? Int == 3)
        #expect(summary["filled_auctions"] as? Int == 3)
        #expect(summary["impressions"] as? Int == 3)
        let rows = try #require(summary["line_items"] as? [[String: Any]])
        #expect(rows.map { $0["id"] as? String } == ["high", "low"])
        #expect(rows[1]["requests"] as? Int == 3)
        #expect(rows[1]["wins"] as? Int == 3)
        #expect(rows[1]["fill_rate"] as? Double == 1)
        #expect(rows[1]["latency_p99_ms"] as? Double == 0)
        #expect(rows[1]["impressions"] as? Int == 3)
        #expect(abs((rows[1]["revenue_usd"] as? Double ?? 0) - 0.0015) < 1e-12)
        #expect(rows[0]["win_rate"] == nil) // no fill: no win rate
        #expect((object["auctions"] as? [Any])?.count == 3)
        #expect(!json.output.contains("] auction 1 started"))
    }

    @Test("caps in the watch summary: each rule with when it frees and how often it refused, in the text, --json and the HTML report (escaped)")
    func watchCaps() async throws {
        let workspace = try Workspace()
        let config = Workspace.instantConfig.replacingOccurrences(of: #""format": "banner", "sizing": "anchored","#, with: #""format": "banner", "caps": [{ "impressions": 1, "per_seconds": 7200 }], "sizing": "anchored","#)
        #expect(config != Workspace.instantConfig)
        try workspace.write(config, to: "Config/mediation.json")
        let json = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130", "--json", "--report", "r.html"])
        #expect(json.code == .success, "\(json.error)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let summary = try #require(object["summary"] as? [String: Any])
        let caps = try #require(summary["caps"] as? [[String: Any]])
        let row = try #require(caps.first { $0["rule"] as? String == "placement:home_banner 1/7200s" })
        // The one impression at 0 s: the cap frees at 7,200 s, past every banner refresh of the run.
        #expect(row["free_at_ms"] as? Double == 7_200_000)
        let refused = try #require(row["refused"] as? Int)
        #expect(refused >= 1)
        let html = try String(contentsOf: workspace.directory.appendingPathComponent("r.html"), encoding: .utf8)
        #expect(html.contains("<table class=\"caps\">"))
        #expect(html.contains("<tr><td>placement:home_banner 1/7200s</td><td>\(refused)</td><td>at 7200000 ms</td></tr>"))
        let text = await workspace.run(["--placement", "home_banner", "--watch", "--fast", "--duration", "130"])
        #expect(text.output.contains("caps (docs/caps.md):\n  placement:home_banner 1/7200s: refused \(refused) time"))
        #expect(text.output.contains("; free at 7200000 ms\n"))
        // Text from the configuration is escaped in the HTML table.
        let table = HTMLReport.capsTable([CapsReport.Row(rule: "app <b>&", freeAtMilliseconds: nil, refused: 2)])
        #expect(table.contains("<td>app &lt;b&gt;&amp;</td><td>2</td><td>at a new session or dismissal</td>"))
        #expect(!table.contains("<b>"))
    }
}
