import Foundation
import Mediation
import MediationSimulation
import Testing

/// A network's `outages` in the market file: read strictly, every mistake named by its path.
@Suite("Market outages")
struct OutageMarketTests {
    static let base = """
    {
      "networks": {
        "neta": {
          "fill_rate": 1, "price": { "median": 2 }, "latency": { "median_ms": 100 },
          "outages": [
            { "start": 600, "end": "40m", "kind": "hang", "description": "down" },
            { "start": "1h", "end": "3660s", "kind": "slow", "latency_factor": 4 },
            { "start": "7200000ms", "end": "2.5h", "kind": "error" }
          ]
        }
      }
    }
    """

    static func edited(_ old: String, _ new: String) -> String {
        #expect(base.contains(old), "fixture has no \(old)")
        return base.replacingOccurrences(of: old, with: new)
    }

    @Test func readsSecondsAndUnits() throws {
        let market = try Market(json: Self.base)
        #expect(market.hasOutages)
        #expect(market.network("neta")?.outages == [
            Outage(start: .seconds(600), end: .seconds(2400), kind: .hang),
            Outage(start: .seconds(3600), end: .seconds(3660), kind: .slow(latencyFactor: 4)),
            Outage(start: .seconds(7200), end: .seconds(9000), kind: .error),
        ])
        let hang = Outage(start: .seconds(600), end: .seconds(2400), kind: .hang)
        #expect(!hang.contains(.milliseconds(599_999)) && hang.contains(.seconds(600)) && hang.contains(.milliseconds(2_399_999)) && !hang.contains(.seconds(2400)))
        let draw = SourceDraw(answer: .ad, priceMicros: 2_000_000, latencyMilliseconds: 101)
        #expect(hang.applied(to: draw).answer == .never)
        #expect(Outage(start: .zero, end: .seconds(1), kind: .error).applied(to: draw) == SourceDraw(answer: .error, priceMicros: 2_000_000, latencyMilliseconds: 101))
        #expect(Outage(start: .zero, end: .seconds(1), kind: .slow(latencyFactor: 2.5)).applied(to: draw) == SourceDraw(answer: .ad, priceMicros: 2_000_000, latencyMilliseconds: 253))
        #expect(try Market(json: "{\"networks\": {\"a\": {}}}").hasOutages == false)
        #expect(try Market(json: "{\"networks\": {\"a\": {\"outages\": []}}}").hasOutages == false)
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: "{\"networks\": {\"a\": {\"outages\": {\"start\": 1}}}}")
        }
        #expect(error?.code == .wrongType && error?.path == "networks.a.outages", "\(error?.description ?? "")")
    }

    @Test func readsDaysLikeTheOtherUnits() throws {
        let days = try Market(json: Self.edited(#"{ "start": "7200000ms", "end": "2.5h", "kind": "error" }"#, #"{ "start": "0.5d", "end": "1d", "kind": "error" }"#))
        #expect(days.network("neta")?.outages.last == Outage(start: .seconds(43_200), end: .seconds(86_400), kind: .error))
        let year = try Market(json: Self.edited(#""end": "2.5h""#, #""end": "366d""#))
        #expect(year.network("neta")?.outages.last?.end == .seconds(31_622_400))
        let beyond = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: Self.edited(#""end": "2.5h""#, #""end": "367d""#))
        }
        #expect(beyond?.path == "networks.neta.outages[2].end" && beyond?.message.contains("a year") == true, "\(beyond?.description ?? "")")
        let unknown = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: Self.edited(#""end": "2.5h""#, #""end": "1w""#))
        }
        #expect(unknown?.message.contains(#""1.5h", "1d" or "500ms""#) == true, "\(unknown?.description ?? "")")
        // The grammar the command line's --duration and --window read too.
        #expect(VirtualTimeText.seconds("1.5d") == 129_600)
        #expect(VirtualTimeText.seconds("90") == 90 && VirtualTimeText.seconds("90", unitRequired: true) == nil)
        #expect(VirtualTimeText.seconds("500ms") == 0.5 && VirtualTimeText.seconds("10m") == 600 && VirtualTimeText.seconds("2h") == 7200)
        for bad in ["", "d", ".5d", "5.d", "-1d", "1e3s", "1 d", "1D", "nand"] {
            #expect(VirtualTimeText.seconds(bad) == nil, "\(bad)")
        }
    }

    @Test(arguments: [
        // (old text, new text, error code, path)
        ("\"start\": 600,", "\"start\": 600, \"begin\": 1,", "unknown_key", "networks.neta.outages[0].begin"),
        ("\"start\": 600,", "", "missing_field", "networks.neta.outages[0].start"),
        ("\"start\": 600,", "\"start\": -1,", "invalid_value", "networks.neta.outages[0].start"),
        ("\"start\": 600,", "\"start\": true,", "wrong_type", "networks.neta.outages[0].start"),
        ("\"end\": \"40m\"", "\"end\": \"40 minutes\"", "invalid_value", "networks.neta.outages[0].end"),
        ("\"end\": \"40m\"", "\"end\": \"m\"", "invalid_value", "networks.neta.outages[0].end"),
        ("\"end\": \"40m\"", "\"end\": \"400d\"", "invalid_value", "networks.neta.outages[0].end"),
        ("\"end\": \"40m\"", "\"end\": \"10m\"", "invalid_value", "networks.neta.outages[0].end"),
        ("\"kind\": \"hang\"", "\"kind\": \"down\"", "invalid_value", "networks.neta.outages[0].kind"),
        ("\"kind\": \"hang\"", "\"kind\": 1", "wrong_type", "networks.neta.outages[0].kind"),
        ("\"kind\": \"hang\",", "", "missing_field", "networks.neta.outages[0].kind"),
        ("\"kind\": \"hang\"", "\"kind\": \"hang\", \"latency_factor\": 2", "invalid_value", "networks.neta.outages[0].latency_factor"),
        (", \"latency_factor\": 4", "", "missing_field", "networks.neta.outages[1].latency_factor"),
        ("\"latency_factor\": 4", "\"latency_factor\": 0.5", "invalid_value", "networks.neta.outages[1].latency_factor"),
        ("\"start\": \"1h\"", "\"start\": \"39m\"", "invalid_value", "networks.neta.outages[1].start"),
        ("{ \"start\": 600", "7, { \"start\": 600", "wrong_type", "networks.neta.outages[0]"),
        ("\"latency\": { \"median_ms\": 100 },", "\"latency\": { \"median_ms\": 100 }, \"line_items\": { \"neta\": { \"outages\": [] } },", "unknown_key", "networks.neta.line_items.neta.outages"),
    ])
    func mistakesNameTheirPath(old: String, new: String, code: String, path: String) {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: Self.edited(old, new))
        }
        #expect(error?.code.rawValue == code, "\(error?.description ?? "")")
        #expect(error?.path == path, "\(error?.description ?? "")")
    }

    @Test func anOutageNeedsATimedRun() async throws {
        let market = try Market(json: Self.base)
        let configuration = SimulationFixture.configuration(sources: [.fixedPrice("neta", eCPM: 2)])
        let error = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: SimulationOptions(auctions: 10))
        }
        #expect(error?.code == .invalidOptions)
        #expect(error?.message.contains("networks.neta.outages") == true, "\(error?.message ?? "")")
        // A timed run takes it.
        let report = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", options: .timed(duration: .seconds(10), rate: 1))
        #expect(report.requests == 10 && report.rate == 1 && report.windows?.count == 1)
    }

    @Test func theShippedOutageMarketsRead() throws {
        let root = SimulationFixture.packageRoot.appendingPathComponent("Config")
        let outage = try Market.load(contentsOf: root.appendingPathComponent("market-outage-premium.json"))
        #expect(outage.network("admob_premium")?.outages == [Outage(start: .seconds(600), end: .seconds(2400), kind: .hang)])
        let down = try Market.load(contentsOf: root.appendingPathComponent("market-premium-down.json"))
        #expect(down.network("admob_premium")?.behaviour.neverAnswers == 1)
        let shipped = try SimulationFixture.shippedConfiguration()
        try outage.check(against: [shipped])
        try down.check(against: [shipped])
    }
}
