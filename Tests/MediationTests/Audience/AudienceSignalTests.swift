import Testing
@testable import Mediation

@Suite("Audience signals")
struct AudienceSignalTests {
    @Test func versionsCompareAsVersions() throws {
        let v2_10 = try #require(Version("2.10.0"))
        let v2_9 = try #require(Version("2.9.0"))
        #expect(v2_10 > v2_9)
        #expect(Version("2.9") == v2_9)
        #expect(Version("2.9")?.hashValue == v2_9.hashValue)
        #expect(try #require(Version("1.2.3.4")) > #require(Version("1.2.3")))
        #expect(Version("17") == Version("17.0.0.0"))
    }

    @Test(arguments: ["", "2.", ".2", "2..1", "1.2.3.4.5", "2.4.0-beta", "v2", "1234567890", " 2.1"])
    func anythingElseIsNoVersion(_ text: String) {
        #expect(Version(text) == nil)
    }

    @Test func countriesNormaliseToUpperCaseAlpha2() {
        #expect(CountryCode.alpha2("us") == "US")
        #expect(CountryCode.alpha2("USA") == "US")
        #expect(CountryCode.alpha2("ind") == "IN")
        #expect(CountryCode.alpha2("GBR") == "GB")
        #expect(CountryCode.alpha2("XYZ") == nil)
        #expect(CountryCode.alpha2("U1") == nil)
        #expect(CountryCode.alpha2("") == nil)
        #expect(CountryCode.alpha2("Ünited") == nil)
    }

    @Test func theTemplateResolvesItsAudience() {
        var template = RequestTemplate(
            device: AdRequest.Device(osVersion: "17.4", kind: .tablet, country: "usa"),
            app: RequestTemplate.App(version: "2.10.1"),
            privacy: AdRequest.Privacy(coppa: true, gdprApplies: nil, limitAdTracking: false),
            audience: ["level": .number(12), "tier": .string("gold")]
        )
        let audience = template.resolvedAudience
        #expect(audience.country == "US")
        #expect(audience.deviceKind == .tablet)
        #expect(audience.osVersion == Version("17.4"))
        #expect(audience.appVersion == Version("2.10.1"))
        #expect(audience.custom == ["level": .number(12), "tier": .string("gold")])
        #expect(audience.gdprApplies == nil)
        #expect(audience.coppa == true)
        #expect(audience.limitAdTracking == false)
        #expect(template.droppedAudienceKeys.isEmpty)

        // A change of any signal resolves the audience again.
        template.device.country = "nowhere"
        #expect(template.resolvedAudience.country == nil)
        template.app.version = "2.x"
        #expect(template.resolvedAudience.appVersion == nil)
    }

    @Test func customKeysOutOfBoundsAreDroppedWithAReason() {
        var audience: [String: AudienceValue] = [
            "Bad": .number(1),
            "9lives": .number(1),
            "ok_key": .string(String(repeating: "x", count: 128)),
            "long_value": .string(String(repeating: "x", count: 129)),
            "nan": .number(.nan),
            "inf": .number(.infinity),
            String(repeating: "a", count: 40): .number(1),
            String(repeating: "b", count: 41): .number(1),
        ]
        let template = RequestTemplate(audience: audience)
        #expect(Set(template.resolvedAudience.custom.keys) == ["ok_key", String(repeating: "a", count: 40)])
        #expect(template.droppedAudienceKeys.count == 6)
        #expect(template.droppedAudienceKeys.contains { $0.contains("\"long_value\"") && $0.contains("129 UTF-8 bytes") })
        #expect(template.droppedAudienceKeys.contains { $0.contains("\"nan\"") && $0.contains("not finite") })

        // At most 20 keys: the first 20 in key order are kept.
        audience = [:]
        for index in 0..<25 { audience["k\(index < 10 ? "0" : "")\(index)"] = .number(Double(index)) }
        let many = RequestTemplate(audience: audience)
        #expect(many.resolvedAudience.custom.count == 20)
        #expect(many.resolvedAudience.custom["k19"] == .number(19))
        #expect(many.resolvedAudience.custom["k20"] == nil)
        #expect(many.droppedAudienceKeys.count == 5)
    }
}
