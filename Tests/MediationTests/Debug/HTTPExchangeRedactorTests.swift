import Foundation
import Mediation
import MediationTestKit
import Testing

@Suite("HTTPExchangeRedactor and RecordingTransport")
struct HTTPExchangeRedactorTests {
    @Test("JSON bodies: identifiers, contact data, geo, consent strings and chat content are redacted by key; privacy flags stay")
    func jsonBody() throws {
        let body = Data(#"""
        {"device":{"ifa":"AAAA-1111","idfv":"V-1","ip":"10.0.0.1","lmt":1,"geo":{"lat":41.7,"lon":44.8,"country":"GE"}},
         "user":{"id":"U-42","email":"jane@example.com","data":[{"seg":1}],"consent":"CP-TCF"},
         "visitor":{"id":"visitor-9","consent":null},"visitor_id":"visitor-9",
         "regs":{"coppa":1,"gdpr":1,"us_privacy":"1YNN"},"tmax":2900,
         "imp":[{"id":"1","tagid":"slot"}],
         "messages":[{"role":"user","content":"my phone is 555"}]}
        """#.utf8)
        let text = HTTPExchangeRedactor.bodyText(body)
        for secret in ["AAAA-1111", "V-1", "10.0.0.1", "41.7", "44.8", "U-42", "jane@example.com", "CP-TCF", "visitor-9", "1YNN", "my phone is 555", "seg"] {
            #expect(!text.contains(secret), "\(secret) leaked: \(text)")
        }
        for kept in [#""coppa":1"#, #""gdpr":1"#, #""tmax":2900"#, #""lmt":1"#, #""country":"GE""#, #""tagid":"slot""#, #""id":"1""#, #""role":"user""#, #""consent":null"#] {
            #expect(text.contains(kept), "\(kept) missing: \(text)")
        }
        #expect(HTTPExchangeRedactor.bodyText(body, redact: false) == String(decoding: body, as: UTF8.self))
    }

    @Test("URLs, form bodies and headers are redacted by parameter or header name")
    func urlsFormsAndHeaders() throws {
        let url = try #require(URL(string: "https://t.example/ping?ad=7&visitor_id=v-1&ifa=AAAA&lat=1.5"))
        #expect(HTTPExchangeRedactor.url(url) == "https://t.example/ping?ad=7&visitor_id=[redacted]&ifa=[redacted]&lat=[redacted]")
        #expect(HTTPExchangeRedactor.bodyText(Data("slot=a&email=x%40y.z&coppa=1".utf8)) == "slot=a&email=[redacted]&coppa=1")
        #expect(HTTPExchangeRedactor.headers(["Cookie": "s=1", "X-Forwarded-For": "1.2.3.4", "Accept": "application/json"])
            == ["Cookie": "[redacted]", "X-Forwarded-For": "[redacted]", "Accept": "application/json"])
        #expect(HTTPExchangeRedactor.bodyText(Data("plain text".utf8)) == "plain text")
    }

    private struct EchoTransport: HTTP.Transport {
        let clock: ManualClock
        func send(_ request: HTTP.Request) async throws(HTTP.TransportError) -> HTTP.Response {
            do { try await clock.sleep(until: clock.now + .milliseconds(40)) } catch { throw HTTP.TransportError(kind: .cancelled, message: "cancelled") }
            return .json(Data(#"{"ok":true}"#.utf8))
        }
    }

    @Test("the recording transport keeps each exchange with its source, status, bodies and virtual-clock times")
    func recordingTransport() async throws {
        let clock = ManualClock()
        let recorder = HTTPExchangeRecorder(capacity: 2)
        let environment = MediationEnvironment(clock: clock, exchangeRecorder: recorder)
        let transport = environment.instrumented(EchoTransport(clock: clock), networkID: "net")
        let url = try #require(URL(string: "https://net.example/ad"))
        let attribution = SourceAttribution(auctionID: "A", placementID: "p", lineItemID: "li")
        let task = clock.startTask {
            await SourceAttribution.$current.withValue(attribution) {
                _ = try? await transport.send(HTTP.Request(method: "POST", url: url, body: Data("{}".utf8)))
            }
        }
        await clock.runUntilIdle()
        #expect(recorder.exchanges.first?.error == "no response yet") // in flight
        await clock.advance(by: .milliseconds(40))
        await task.value
        let exchange = try #require(recorder.exchanges.first)
        #expect(exchange.networkID == "net")
        #expect(exchange.source == attribution)
        #expect(exchange.statusCode == 200)
        #expect(exchange.error == nil)
        #expect(exchange.requestBody == Data("{}".utf8))
        #expect(String(decoding: exchange.responseBody, as: UTF8.self) == #"{"ok":true}"#)
        #expect(exchange.durationMilliseconds == 40)
        // Outside an auction there is no source; past the capacity exchanges are counted only.
        for _ in 0..<2 {
            let more = clock.startTask { _ = try? await transport.send(HTTP.Request(url: url)) }
            await clock.runUntilIdle()
            await clock.advance(by: .milliseconds(40))
            await more.value
        }
        #expect(recorder.exchanges.count == 2)
        #expect(recorder.exchanges[1].source == nil)
        #expect(recorder.droppedCount == 1)
        // Without a recorder the transport is handed back as it is.
        #expect(MediationEnvironment(clock: clock).instrumented(EchoTransport(clock: clock), networkID: "net") is EchoTransport)
    }
}
