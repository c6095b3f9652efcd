import Foundation
import Mediation
import MediationSimulation
import Testing

/// The market file is read strictly: every mistake fails the load with its JSON path.
@Suite("Market file")
struct MarketFileTests {
    static let base = """
    {
      "$schema": "./market.schema.json",
      "description": "test",
      "networks": {
        "bid": { "fill_rate": 0.5, "price": { "median": 1.5, "spread": 0.5 }, "latency": { "median_ms": 200, "spread": 0.4 }, "never_answers": 0.01, "error": 0.02 },
        "neta": {
          "latency": { "median_ms": 100 },
          "line_items": { "neta": { "fill_rate": 0.8, "price": { "median": 1.1 } } }
        },
        "netb": { "fill_rate": 1, "price": { "median": 0.7, "spread": 0 }, "latency": { "median_ms": 0 } }
      }
    }
    """

    static func edited(_ old: String, _ new: String) -> String {
        #expect(base.contains(old), "fixture has no \(old)")
        return base.replacingOccurrences(of: old, with: new)
    }

    @Test func readsEveryField() throws {
        let market = try Market(json: Self.base)
        #expect(market.networks.map(\.id) == ["bid", "neta", "netb"])
        #expect(market.network("bid")?.behaviour == MarketBehaviour(fillRate: 0.5, price: LogNormal(median: 1.5, spread: 0.5), latency: LogNormal(median: 200, spread: 0.4), neverAnswers: 0.01, error: 0.02))
        let netA = try market.behaviour(of: .fixedPrice("neta", eCPM: 1.2))
        #expect(netA == SourceBehaviour(fillRate: 0.8, price: LogNormal(median: 1.1), latency: LogNormal(median: 100)))
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        try market.check(against: [configuration])
    }

    @Test(arguments: [
        // (old text, new text, error code, path)
        ("\"fill_rate\": 0.5", "\"fil_rate\": 0.5", "unknown_key", "networks.bid.fil_rate"),
        ("\"fill_rate\": 0.5", "\"fill_rate\": 1.5", "invalid_value", "networks.bid.fill_rate"),
        ("\"fill_rate\": 0.5", "\"fill_rate\": \"0.5\"", "wrong_type", "networks.bid.fill_rate"),
        ("\"error\": 0.02", "\"error\": -0.1", "invalid_value", "networks.bid.error"),
        ("\"never_answers\": 0.01", "\"never_answers\": null", "wrong_type", "networks.bid.never_answers"),
        ("\"median\": 1.5, \"spread\": 0.5", "\"median\": 0, \"spread\": 0.5", "invalid_value", "networks.bid.price.median"),
        ("\"median\": 1.5, \"spread\": 0.5", "\"median\": 1.5, \"spread\": 5", "invalid_value", "networks.bid.price.spread"),
        ("\"median\": 1.5, \"spread\": 0.5", "\"spread\": 0.5", "missing_field", "networks.bid.price.median"),
        ("{ \"median_ms\": 200, \"spread\": 0.4 }", "{ \"median\": 200 }", "unknown_key", "networks.bid.latency.median"),
        ("{ \"median_ms\": 100 }", "{ \"median_ms\": 1e400 }", "invalid_value", "networks.neta.latency.median_ms"),
        ("\"price\": { \"median\": 1.1 }", "\"price\": { \"median\": 1.1 }, \"line_items\": {}", "unknown_key", "networks.neta.line_items.neta.line_items"),
        ("\"neta\": { \"fill_rate\": 0.8", "\"\": { \"fill_rate\": 0.8", "invalid_value", "networks.neta.line_items[\"\"]"),
        ("\"networks\": {", "\"networks\": [", "syntax", "networks"),
        ("\"description\": \"test\",", "\"description\": \"test\", \"description\": \"again\",", "duplicate_key", "description"),
        ("\"$schema\": \"./market.schema.json\",", "\"$schema\": \"./market.schema.json\", \"markets\": {},", "unknown_key", "markets"),
        ("\"netb\": { \"fill_rate\": 1,", "\"bid\": { \"fill_rate\": 1,", "duplicate_id", "networks.bid"),
    ])
    func mistakesNameTheirPath(old: String, new: String, code: String, path: String) {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: Self.edited(old, new))
        }
        #expect(error?.code.rawValue == code, "\(error?.description ?? "")")
        #expect(error?.path == path, "\(error?.description ?? "")")
    }

    @Test func syntaxErrorsGiveTheLineAndColumn() {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Market(json: "{\n  \"networks\": { \"a\": { \"fill_rate\": 0.5, } }\n}")
        }
        #expect(error?.code == .syntax)
        #expect(error?.path == "networks.a")
        #expect(error?.message.contains("line 2") == true)
    }

    /// Checked against a configuration: the gaps of the market name the path that should hold
    /// them; an override of a line item no configuration has is a mistake too.
    @Test func checkedAgainstTheConfiguration() throws {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        func checkError(_ json: String) -> ConfigurationError? {
            #expect(throws: ConfigurationError.self) {
                try Market(json: json).check(against: [configuration])
            }
        }
        let noNetB = checkError(Self.edited("\"netb\": { \"fill_rate\": 1, \"price\": { \"median\": 0.7, \"spread\": 0 }, \"latency\": { \"median_ms\": 0 } }", "\"netc\": {}"))
        #expect(noNetB?.code == .missingField && noNetB?.path == "networks.netb")
        let noPrice = checkError(Self.edited("\"price\": { \"median\": 1.1 }", "\"error\": 0"))
        #expect(noPrice?.code == .missingField && noPrice?.path == "networks.neta.price")
        #expect(noPrice?.message.contains("neta") == true)
        let typo = checkError(Self.edited("\"line_items\": { \"neta\":", "\"line_items\": { \"net_a\":"))
        #expect(typo?.path.hasPrefix("networks.neta") == true)

        let ghost = checkError(Self.edited("\"line_items\": { \"neta\":", "\"line_items\": { \"ghost\": { \"error\": 0 }, \"neta\":"))
        #expect(ghost?.code == .invalidValue && ghost?.path == "networks.neta.line_items.ghost")
    }

    @Test func aRunReportsMarketErrorsWithTheirPath() async throws {
        let configuration = SimulationFixture.configuration(sources: SimulationFixture.scenarioSources)
        let market = try Market(json: Self.edited("\"line_items\": { \"neta\":", "\"line_items\": { \"ghost\": { \"error\": 0 }, \"neta\":"))
        let error = await #expect(throws: SimulationError.self) {
            _ = try await Simulation.run(configuration: configuration, market: market, placementID: "level_end", auctions: 10, seed: 1)
        }
        #expect(error?.code == .invalidMarket)
        #expect(error?.path == "networks.neta.line_items.ghost")
    }

    @Test func missingFile() {
        let error = #expect(throws: ConfigurationError.self) {
            _ = try Market.load(contentsOf: URL(fileURLWithPath: "/nonexistent/market.json"))
        }
        #expect(error?.code == .fileNotFound)
    }
}
