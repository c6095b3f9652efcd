import Foundation
import Testing
@testable import Mediation

/// A small valid config with a bidder network and a fixed-price one; each test case edits its
/// text so every R15 error kind is checked against the exact JSON path.
enum ConfigurationFixture {
    /// Network kinds that only state their pricing (the loader needs nothing else).
    static let registry = NetworkRegistry([
        PricingOnlyFactory(kind: "fallback", pricing: .fixedPrice),
        PricingOnlyFactory(kind: "bidkind", pricing: .bidder),
    ])

    static let base = """
    {
      "$schema": "./mediation.schema.json",
      "networks": {
        "fb": { "adapter": "fallback", "credentials": { "app_id": "a1" }, "endpoint": "sandbox", "timeout_ms": 2500, "options": { "fill_rate": 0.5, "sizes": ["320x50"] } },
        "bid": { "adapter": "bidkind", "endpoint": "https://bid.example.com/v1" }
      },
      "placements": {
        "home_banner": {
          "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 }, "refresh_seconds": 60,
          "sources": [
            { "id": "bid_1", "network": "bid", "ad_unit_id": "u1", "floor": 0.5 },
            { "id": "fb_a", "network": "fb", "ad_unit_id": "u2", "ecpm": 1.2 },
            { "id": "fb_b", "network": "fb", "ad_unit_id": "u3", "ecpm": 0.8 }
          ]
        },
        "level_end": {
          "format": "interstitial", "deadline_ms": 2000, "mode": "waterfall", "floor": 0.1,
          "sources": [ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 5, "timeout_ms": 1500 } ]
        }
      },
      "currency_rates": { "EUR": 1.08 }
    }
    """

    /// `base` with `old` replaced by `new` (the test fails when `old` is not in it).
    static func edited(_ old: String, _ new: String) -> String {
        #expect(base.contains(old), "fixture has no \(old)")
        return base.replacingOccurrences(of: old, with: new)
    }

    static func load(_ json: String) throws(ConfigurationError) -> MediationConfiguration {
        try MediationConfiguration(json: json, registry: registry)
    }
}

/// A network kind whose adapters are never built: it only states its pricing, for loader tests.
struct PricingOnlyFactory: NetworkAdapterFactory {
    let kind: String
    let pricing: LineItem.Pricing

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        throw ConfigurationError(code: .unknownAdapter, path: "networks.\(network.id).adapter", message: "loader-test kind")
    }
}

@Suite("Configuration loader")
struct ConfigurationLoaderTests {
    @Test func loadsEveryFieldOfAValidConfig() throws {
        let configuration = try ConfigurationFixture.load(ConfigurationFixture.base)

        #expect(configuration.networks.map(\.id) == ["fb", "bid"])
        let fallback = try #require(configuration.network("fb"))
        #expect(fallback.adapter == "fallback")
        #expect(fallback.credentials == ["app_id": "a1"])
        #expect(fallback.endpoint == .sandbox)
        #expect(fallback.timeout == .milliseconds(2500))
        #expect(fallback.options == ["fill_rate": .number(0.5), "sizes": .array([.string("320x50")])])
        let bidder = try #require(configuration.network("bid"))
        #expect(bidder.endpoint == .url(try #require(URL(string: "https://bid.example.com/v1"))))
        #expect(bidder.timeout == nil)

        #expect(configuration.placements.map(\.id) == ["home_banner", "level_end"])
        let banner = try #require(configuration.placement("home_banner"))
        #expect(banner.format == .banner)
        #expect(banner.bannerSizing == .anchored)
        #expect(banner.slot == SlotSize(maxWidth: nil, maxHeight: 90))
        #expect(banner.refreshSeconds == 60)
        #expect(banner.deadline == .milliseconds(3000))
        #expect(banner.mode == .parallel)
        #expect(banner.floor == nil)
        #expect(banner.sources == [
            LineItem(id: "bid_1", network: "bid", adUnitID: "u1", pricing: .bidder, floor: 0.5),
            LineItem(id: "fb_a", network: "fb", adUnitID: "u2", pricing: .fixedPrice, eCPM: 1.2),
            LineItem(id: "fb_b", network: "fb", adUnitID: "u3", pricing: .fixedPrice, eCPM: 0.8),
        ])

        let interstitial = try #require(configuration.placement("level_end"))
        #expect(interstitial.format == .interstitial)
        #expect(interstitial.bannerSizing == nil)
        #expect(interstitial.refreshSeconds == nil)
        #expect(interstitial.deadline == .milliseconds(2000))
        #expect(interstitial.mode == .waterfall)
        #expect(interstitial.floor == 0.1)
        #expect(interstitial.sources.first?.timeout == .milliseconds(1500))
        #expect(configuration.currencyRates == ["EUR": 1.08])
    }

    /// One row per R15 error kind: the edit, the code, the exact path.
    struct ErrorCase: CustomTestStringConvertible, Sendable {
        var name: String
        var old: String
        var new: String
        var code: ConfigurationError.Code
        var path: String
        var testDescription: String { name }
    }

    static let errorCases: [ErrorCase] = [
        ErrorCase(name: "unknown top-level key", old: #""networks": {"#, new: #""netwroks": {}, "networks": {"#, code: .unknownKey, path: "netwroks"),
        ErrorCase(name: "unknown source key", old: #""ecpm": 0.8 }"#, new: #""ecpm": 0.8, "ecmp": 1 }"#, code: .unknownKey, path: "placements.home_banner.sources[2].ecmp"),
        ErrorCase(name: "unknown slot key", old: #""max_height": 90"#, new: #""max_height": 90, "height": 50"#, code: .unknownKey, path: "placements.home_banner.slot.height"),
        ErrorCase(name: "eCPM written as a string", old: #""ecpm": 0.8"#, new: #""ecpm": "0.8""#, code: .wrongType, path: "placements.home_banner.sources[2].ecpm"),
        ErrorCase(name: "refresh 30.5", old: #""refresh_seconds": 60"#, new: #""refresh_seconds": 30.5"#, code: .wrongType, path: "placements.home_banner.refresh_seconds"),
        ErrorCase(name: "refresh \"60\"", old: #""refresh_seconds": 60"#, new: #""refresh_seconds": "60""#, code: .wrongType, path: "placements.home_banner.refresh_seconds"),
        ErrorCase(name: "refresh 3e1", old: #""refresh_seconds": 60"#, new: #""refresh_seconds": 3e1"#, code: .wrongType, path: "placements.home_banner.refresh_seconds"),
        ErrorCase(name: "refresh 10", old: #""refresh_seconds": 60"#, new: #""refresh_seconds": 10"#, code: .invalidRefresh, path: "placements.home_banner.refresh_seconds"),
        ErrorCase(name: "refresh 29", old: #""refresh_seconds": 60"#, new: #""refresh_seconds": 29"#, code: .invalidRefresh, path: "placements.home_banner.refresh_seconds"),
        ErrorCase(name: "refresh beyond Int", old: #""refresh_seconds": 60"#, new: #""refresh_seconds": 99999999999999999999999"#, code: .invalidRefresh, path: "placements.home_banner.refresh_seconds"),
        ErrorCase(name: "refresh on an interstitial", old: #""deadline_ms": 2000"#, new: #""deadline_ms": 2000, "refresh_seconds": 60"#, code: .invalidRefresh, path: "placements.level_end.refresh_seconds"),
        ErrorCase(name: "credentials not strings", old: #""app_id": "a1""#, new: #""app_id": 1"#, code: .wrongType, path: "networks.fb.credentials.app_id"),
        ErrorCase(name: "sources not an array", old: #"[ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 5, "timeout_ms": 1500 } ]"#, new: #"{ "id": "fb_x" }"#, code: .wrongType, path: "placements.level_end.sources"),
        ErrorCase(name: "missing ad unit id", old: #""ad_unit_id": "u3", "#, new: "", code: .missingField, path: "placements.home_banner.sources[2].ad_unit_id"),
        ErrorCase(name: "missing format", old: #""format": "interstitial", "#, new: "", code: .missingField, path: "placements.level_end.format"),
        ErrorCase(name: "missing adapter", old: #""adapter": "bidkind", "#, new: "", code: .missingField, path: "networks.bid.adapter"),
        ErrorCase(name: "null is the wrong type", old: #""id": "fb_b""#, new: #""id": null"#, code: .wrongType, path: "placements.home_banner.sources[2].id"),
        ErrorCase(name: "null for an optional field is the wrong type", old: #""mode": "waterfall""#, new: #""mode": null"#, code: .wrongType, path: "placements.level_end.mode"),
        ErrorCase(name: "an eCPM above one million USD CPM", old: #""ecpm": 0.8"#, new: #""ecpm": 1e7"#, code: .invalidPrice, path: "placements.home_banner.sources[2].ecpm"),
        ErrorCase(name: "a floor too large to compare", old: #""floor": 0.1"#, new: #""floor": 1e12"#, code: .invalidPrice, path: "placements.level_end.floor"),
        ErrorCase(name: "empty source list", old: #"[ { "id": "fb_x", "network": "fb", "ad_unit_id": "u4", "ecpm": 5, "timeout_ms": 1500 } ]"#, new: "[]", code: .emptySources, path: "placements.level_end.sources"),
        ErrorCase(name: "duplicate placement id", old: #""level_end": {"#, new: #""level_end": { "format": "native", "sources": [ { "id": "n", "network": "fb", "ad_unit_id": "n", "ecpm": 1 } ] }, "level_end": {"#, code: .duplicateID, path: "placements.level_end"),
        ErrorCase(name: "duplicate network id", old: #""bid": { "adapter""#, new: #""fb": { "adapter": "fallback" }, "bid": { "adapter""#, code: .duplicateID, path: "networks.fb"),
        ErrorCase(name: "duplicate source id", old: #""id": "fb_b""#, new: #""id": "fb_a""#, code: .duplicateID, path: "placements.home_banner.sources[2].id"),
        ErrorCase(name: "duplicate key", old: #""format": "interstitial","#, new: #""format": "interstitial", "format": "banner","#, code: .duplicateKey, path: "placements.level_end.format"),
        ErrorCase(name: "source names an unknown network", old: #""network": "fb", "ad_unit_id": "u3""#, new: #""network": "nitx", "ad_unit_id": "u3""#, code: .unknownNetwork, path: "placements.home_banner.sources[2].network"),
        ErrorCase(name: "eCPM 0", old: #""ecpm": 0.8"#, new: #""ecpm": 0"#, code: .invalidPrice, path: "placements.home_banner.sources[2].ecpm"),
        ErrorCase(name: "eCPM -1", old: #""ecpm": 0.8"#, new: #""ecpm": -1"#, code: .invalidPrice, path: "placements.home_banner.sources[2].ecpm"),
        ErrorCase(name: "eCPM 1e400 (infinite)", old: #""ecpm": 0.8"#, new: #""ecpm": 1e400"#, code: .invalidPrice, path: "placements.home_banner.sources[2].ecpm"),
        ErrorCase(name: "placement floor 0", old: #""floor": 0.1"#, new: #""floor": 0"#, code: .invalidPrice, path: "placements.level_end.floor"),
        ErrorCase(name: "source floor -0.5", old: #""floor": 0.5"#, new: #""floor": -0.5"#, code: .invalidPrice, path: "placements.home_banner.sources[0].floor"),
        ErrorCase(name: "currency rate 0", old: #""EUR": 1.08"#, new: #""EUR": 0"#, code: .invalidPrice, path: "currency_rates.EUR"),
        ErrorCase(name: "unknown adapter kind", old: #""adapter": "fallback""#, new: #""adapter": "admob""#, code: .unknownAdapter, path: "networks.fb.adapter"),
        ErrorCase(name: "fixed-price source without eCPM", old: #", "ecpm": 0.8"#, new: "", code: .pricingMismatch, path: "placements.home_banner.sources[2].ecpm"),
        ErrorCase(name: "bidder with eCPM", old: #""floor": 0.5 }"#, new: #""floor": 0.5, "ecpm": 2 }"#, code: .pricingMismatch, path: "placements.home_banner.sources[0].ecpm"),
        ErrorCase(name: "floor on a fixed-price source", old: #""ecpm": 1.2 }"#, new: #""ecpm": 1.2, "floor": 0.3 }"#, code: .pricingMismatch, path: "placements.home_banner.sources[1].floor"),
        ErrorCase(name: "deadline 3001", old: #""deadline_ms": 2000"#, new: #""deadline_ms": 3001"#, code: .invalidDeadline, path: "placements.level_end.deadline_ms"),
        ErrorCase(name: "deadline 0", old: #""deadline_ms": 2000"#, new: #""deadline_ms": 0"#, code: .invalidDeadline, path: "placements.level_end.deadline_ms"),
        ErrorCase(name: "deadline -5", old: #""deadline_ms": 2000"#, new: #""deadline_ms": -5"#, code: .invalidDeadline, path: "placements.level_end.deadline_ms"),
        ErrorCase(name: "deadline 1500.5", old: #""deadline_ms": 2000"#, new: #""deadline_ms": 1500.5"#, code: .wrongType, path: "placements.level_end.deadline_ms"),
        ErrorCase(name: "source timeout 5000", old: #""timeout_ms": 1500"#, new: #""timeout_ms": 5000"#, code: .invalidDeadline, path: "placements.level_end.sources[0].timeout_ms"),
        ErrorCase(name: "network timeout 0", old: #""timeout_ms": 2500"#, new: #""timeout_ms": 0"#, code: .invalidDeadline, path: "networks.fb.timeout_ms"),
        ErrorCase(name: "currency without a rate", old: #""ecpm": 0.8"#, new: #""ecpm": 0.8, "currency": "GBP""#, code: .unknownCurrency, path: "placements.home_banner.sources[2].currency"),
        ErrorCase(name: "currency not ISO 4217", old: #""ecpm": 0.8"#, new: #""ecpm": 0.8, "currency": "euro""#, code: .invalidValue, path: "placements.home_banner.sources[2].currency"),
        ErrorCase(name: "a rate for USD", old: #""EUR": 1.08"#, new: #""USD": 1"#, code: .invalidValue, path: "currency_rates.USD"),
        ErrorCase(name: "banner without sizing", old: #""sizing": "anchored", "#, new: "", code: .invalidSizing, path: "placements.home_banner.sizing"),
        ErrorCase(name: "sizing on an interstitial", old: #""format": "interstitial","#, new: #""format": "interstitial", "sizing": "inline","#, code: .invalidSizing, path: "placements.level_end.sizing"),
        ErrorCase(name: "inline banner under 32 pt", old: #""sizing": "anchored", "slot": { "max_height": 90 }"#, new: #""sizing": "inline", "slot": { "max_height": 31 }"#, code: .invalidSizing, path: "placements.home_banner.slot.max_height"),
        ErrorCase(name: "unknown sizing", old: #""sizing": "anchored""#, new: #""sizing": "adaptive""#, code: .invalidValue, path: "placements.home_banner.sizing"),
        ErrorCase(name: "unknown format", old: #""format": "interstitial""#, new: #""format": "video""#, code: .invalidValue, path: "placements.level_end.format"),
        ErrorCase(name: "unknown mode", old: #""mode": "waterfall""#, new: #""mode": "serial""#, code: .invalidValue, path: "placements.level_end.mode"),
        ErrorCase(name: "endpoint not sandbox or http(s)", old: #""endpoint": "sandbox""#, new: #""endpoint": "ftp://x.example""#, code: .invalidValue, path: "networks.fb.endpoint"),
        ErrorCase(name: "slot height 0", old: #""max_height": 90"#, new: #""max_height": 0"#, code: .invalidValue, path: "placements.home_banner.slot.max_height"),
        ErrorCase(name: "empty source id", old: #""id": "fb_b""#, new: #""id": """#, code: .invalidValue, path: "placements.home_banner.sources[2].id"),
        ErrorCase(name: "missing endpoint (sandbox must be said)", old: #""endpoint": "sandbox", "#, new: "", code: .missingField, path: "networks.fb.endpoint"),
        ErrorCase(name: "endpoint with a space", old: #""endpoint": "https://bid.example.com/v1""#, new: #""endpoint": "https://bid.example.com/v 1""#, code: .invalidValue, path: "networks.bid.endpoint"),
        ErrorCase(name: "endpoint scheme in capitals", old: #""endpoint": "https://bid.example.com/v1""#, new: #""endpoint": "HTTPS://bid.example.com/v1""#, code: .invalidValue, path: "networks.bid.endpoint"),
        ErrorCase(name: "endpoint without a host", old: #""endpoint": "https://bid.example.com/v1""#, new: #""endpoint": "https:///v1""#, code: .invalidValue, path: "networks.bid.endpoint"),
        ErrorCase(name: "blank ad unit id", old: #""ad_unit_id": "u3""#, new: #""ad_unit_id": " ""#, code: .invalidValue, path: "placements.home_banner.sources[2].ad_unit_id"),
        ErrorCase(name: "blank ad unit id (tab and newline)", old: #""ad_unit_id": "u3""#, new: #""ad_unit_id": "\t\n""#, code: .invalidValue, path: "placements.home_banner.sources[2].ad_unit_id"),
        ErrorCase(name: "empty ad unit id", old: #""ad_unit_id": "u3""#, new: #""ad_unit_id": """#, code: .invalidValue, path: "placements.home_banner.sources[2].ad_unit_id"),
        ErrorCase(name: "a floor above every fixed eCPM with no bidder (R19)", old: #""floor": 0.1"#, new: #""floor": 5.01"#, code: .unfillable, path: "placements.level_end.floor"),
        ErrorCase(name: "key with a dot is quoted", old: #""networks": {"#, new: #""net.works": 1, "networks": {"#, code: .unknownKey, path: #"["net.works"]"#),
    ]

    @Test(arguments: errorCases)
    func everyErrorKindNamesItsPath(_ errorCase: ErrorCase) {
        let json = ConfigurationFixture.edited(errorCase.old, errorCase.new)
        #expect {
            _ = try ConfigurationFixture.load(json)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            #expect(error.code == errorCase.code)
            #expect(error.path == errorCase.path)
            #expect(error.description.hasPrefix("\(errorCase.path): "))
            return error.code == errorCase.code && error.path == errorCase.path
        }
    }

    @Test func aRateConvertsANonUSDSourceOnce() throws {
        let json = ConfigurationFixture.edited(#""ecpm": 0.8"#, #""ecpm": 0.8, "currency": "EUR""#)
        let source = try #require(try ConfigurationFixture.load(json).placement("home_banner")?.sources.last)
        #expect(source.currency == "EUR")
        #expect(source.usdRate == 1.08)
        #expect(source.eCPM == 0.8)
    }

    @Test func theFirstMistakeInTheFileIsReported() {
        var json = ConfigurationFixture.edited(#""ecpm": 0.8"#, #""ecpm": -1"#)
        json = json.replacingOccurrences(of: #""deadline_ms": 2000"#, with: #""deadline_ms": 0"#)
        #expect(throws: ConfigurationError(code: .invalidPrice, path: "placements.home_banner.sources[2].ecpm", message: "must be a positive finite number, found -1")) {
            _ = try ConfigurationFixture.load(json)
        }
    }

    @Test func theDocumentMustBeAnObject() {
        #expect(throws: ConfigurationError(code: .wrongType, path: "$", message: "expected an object, found an array")) {
            _ = try ConfigurationFixture.load("[]")
        }
    }

    @Test func aMissingFileIsFileNotFound() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("no-such-\(UUID().uuidString).json")
        let loader = ConfigurationLoader(registry: ConfigurationFixture.registry)
        #expect {
            _ = try loader.load(contentsOf: url)
        } throws: { error in
            (error as? ConfigurationError)?.code == .fileNotFound
        }
    }

    /// A new user's attack: a server's URL given as the file. It says so, not "no such file"
    /// under the URL's path, and never echoes the URL (it may carry credentials).
    @Test func aURLThatIsNotAFilesSaysSo() throws {
        let url = try #require(URL(string: "https://user:secret@example.com/mediation.json"))
        #expect {
            _ = try MediationConfiguration(contentsOf: url, registry: ConfigurationFixture.registry)
        } throws: { error in
            guard let error = error as? ConfigurationError else { return false }
            return error.code == .unreadableFile && error.path == "$" && error.message.hasPrefix("not a file URL (scheme \"https\")") && !error.message.contains("secret") && !error.message.contains("example.com")
        }
    }
}

/// Engine-rules scenario 12, the configuration half: refresh values.
@Suite("Scenario 12: refresh values")
struct RefreshValueTests {
    @Test(arguments: [("10", ConfigurationError.Code.invalidRefresh), ("29", .invalidRefresh), ("30.5", .wrongType), ("\"60\"", .wrongType)])
    func rejected(_ value: String, _ code: ConfigurationError.Code) {
        let json = ConfigurationFixture.edited(#""refresh_seconds": 60"#, #""refresh_seconds": \#(value)"#)
        #expect {
            _ = try ConfigurationFixture.load(json)
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.code == code && error?.path == "placements.home_banner.refresh_seconds"
        }
    }

    @Test(arguments: [("30", 30), ("300", 300)])
    func accepted(_ value: String, _ seconds: Int) throws {
        let json = ConfigurationFixture.edited(#""refresh_seconds": 60"#, #""refresh_seconds": \#(value)"#)
        #expect(try ConfigurationFixture.load(json).placement("home_banner")?.refreshSeconds == seconds)
    }

    @Test func inlineBannerWithoutMaxHeightLoadsWith250Points() throws {
        let json = ConfigurationFixture.edited(#""sizing": "anchored", "slot": { "max_height": 90 }"#, #""sizing": "inline""#)
        let placement = try #require(try ConfigurationFixture.load(json).placement("home_banner"))
        #expect(placement.bannerSizing == .inline)
        #expect(placement.slot.maxHeight == 250)
        #expect(placement.slot.maxHeight == ConfigurationLoader.inlineDefaultMaxHeight)
    }

    @Test(arguments: [32.0, 90.0, 400.0])
    func inlineBannerKeepsItsOwnMaxHeight(_ maxHeight: Double) throws {
        let json = ConfigurationFixture.edited(#""sizing": "anchored", "slot": { "max_height": 90 }"#, #""sizing": "inline", "slot": { "max_height": \#(maxHeight) }"#)
        #expect(try ConfigurationFixture.load(json).placement("home_banner")?.slot.maxHeight == maxHeight)
    }

    @Test func absentDefaultsTo60() throws {
        let json = ConfigurationFixture.edited(#", "refresh_seconds": 60"#, "")
        #expect(try ConfigurationFixture.load(json).placement("home_banner")?.refreshSeconds == 60)
    }

    @Test("a credential with a control character (NUL, line break) is refused at its path: it would split a header")
    func credentialControlCharacters() {
        for bad in ["a\\u0000b", "a\\nX-Injected: 1", "tab\\there"] {
            #expect {
                _ = try ConfigurationFixture.load(ConfigurationFixture.edited("\"app_id\": \"a1\"", "\"app_id\": \"\(bad)\""))
            } throws: { error in
                (error as? ConfigurationError).map { $0.code == .invalidValue && $0.path == "networks.fb.credentials.app_id" && $0.message.contains("control characters") } ?? false
            }
        }
    }

    @Test("a network endpoint in plain http is refused unless it is this device (127.0.0.1, localhost)")
    func plainHTTPOnlyToLoopback() throws {
        #expect {
            _ = try ConfigurationFixture.load(ConfigurationFixture.edited("https://bid.example.com/v1", "http://bid.example.com/v1"))
        } throws: { error in
            (error as? ConfigurationError).map { $0.code == .invalidValue && $0.path == "networks.bid.endpoint" && $0.message.contains("loopback host only") } ?? false
        }
        for host in ["http://127.0.0.1:8080/v1", "http://localhost:9000"] {
            let configuration = try ConfigurationFixture.load(ConfigurationFixture.edited("https://bid.example.com/v1", host))
            #expect(configuration.networks.first { $0.id == "bid" }?.endpoint == .url(try #require(URL(string: host))))
        }
    }

}
