import Foundation
import Mediation
import Testing
@testable import Adapters

@Suite("Elo sandbox server")
struct EloSandboxServerTests {
    func bidRequest(height: Int?, floor: Double? = nil) throws -> HTTP.Request {
        let built = EloRequestBuilder.build(EloRequestBuilder.Input(
            configuration: EloFixtures.configuration,
            request: EloFixtures.request(maxHeight: height.map(Double.init)),
            adUnitID: "unit",
            requestID: "req-1",
            sessionID: "s",
            visitorID: "v",
            shareGeoLocation: true,
            now: EloFixtures.now,
            tmaxMilliseconds: 3000,
            maxWidth: 390,
            maxHeight: height
        ))
        var wire = built.request
        wire.imp[0].bidfloor = floor
        return HTTP.Request(method: "POST", url: EloSandboxServer.baseURL.appendingPathComponent("v1/bid"), body: try JSONEncoder().encode(wire))
    }

    @Test(arguments: [(nil, "card"), (192, "card"), (191, "strip"), (72, "strip")] as [(Int?, String)])
    func slotDecidesTheFormat(height: Int?, format: String) async throws {
        let server = EloSandboxServer(seed: 1, noBidRate: 0)
        let response = await server.respond(to: try bidRequest(height: height))
        #expect(response.statusCode == 200)
        let decoded = try JSONDecoder().decode(EloWireBidResponse.self, from: response.body)
        #expect(decoded.id == "req-1")
        #expect(decoded.seatbid?.first?.bid.first?.ext.elo.format == format)
    }

    @Test func slotUnderSeventyTwoPointsIsNoBids() async throws {
        let response = await EloSandboxServer(seed: 1, noBidRate: 0).respond(to: try bidRequest(height: 71))
        #expect(response.statusCode == 204)
    }

    @Test func noBidRateOneAlwaysAnswers204() async throws {
        let server = EloSandboxServer(seed: 1, noBidRate: 1)
        for _ in 0..<5 {
            #expect(await server.respond(to: try bidRequest(height: 100)).statusCode == 204)
        }
    }

    @Test func priceUnderTheFloorIsNoBids() async throws {
        let server = EloSandboxServer(seed: 1, noBidRate: 0, priceRange: 1.0...2.0)
        #expect(await server.respond(to: try bidRequest(height: 100, floor: 5)).statusCode == 204)
        #expect(await server.respond(to: try bidRequest(height: 100, floor: 0.5)).statusCode == 200)
    }

    @Test func malformedRequestIs400AndUnknownPathIs404() async throws {
        let server = EloSandboxServer(seed: 1)
        let bad = HTTP.Request(method: "POST", url: EloSandboxServer.baseURL.appendingPathComponent("v1/bid"), body: Data("nope".utf8))
        #expect(await server.respond(to: bad).statusCode == 400)
        #expect(await server.respond(to: HTTP.Request(url: EloSandboxServer.baseURL.appendingPathComponent("other"))).statusCode == 404)
        #expect(await server.respond(to: HTTP.Request(url: EloSandboxServer.baseURL.appendingPathComponent("t/render"))).statusCode == 204)
        #expect(await server.respond(to: HTTP.Request(method: "POST", url: EloSandboxServer.baseURL.appendingPathComponent("v1/events"))).statusCode == 204)
    }

    @Test func pricesAreWholeCentsInTheRange() async throws {
        let server = EloSandboxServer(seed: 9, noBidRate: 0, priceRange: 0.5...4.0)
        for _ in 0..<20 {
            let response = await server.respond(to: try bidRequest(height: 100))
            let price = try #require(try JSONDecoder().decode(EloWireBidResponse.self, from: response.body).seatbid?.first?.bid.first?.price)
            #expect(price >= 0.5 && price <= 4.0)
            #expect(abs((price * 100).rounded() - price * 100) < 1e-9)
        }
    }
}
