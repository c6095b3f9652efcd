import Foundation
@testable import MediationCLI
import Testing

/// The configuration fetch's headers, both ways: the `User-Agent` it sends names the version
/// `mediate --version` prints; a response header value that is not UTF-8 does not fail it.
@Suite("mediate's configuration fetch: headers")
struct ConfigFetchHeaderTests {
    @Test("the User-Agent is mediate/<the version mediate --version prints>")
    func userAgentNamesTheVersion() async throws {
        let workspace = try await MalformedConfigServerTests.keyed()
        let version = await workspace.run(["--version"])
        let number = try #require(version.output.split(separator: " ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let server = try await ConfigServer([.init(status: 404)])
        defer { server.stop() }
        let result = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        let agents = try await server.receivedHeaders().map { $0["user-agent"] }
        #expect(agents == ["mediate/\(number)"])
        #expect(number == "0.1.0")
    }

    @Test("a response header value with a byte that is not UTF-8 (X-Note: caf\\xE9) is ignored: the signed configuration is applied")
    func latin1HeaderValue() async throws {
        let workspace = try await MalformedConfigServerTests.keyed()
        let signed = await workspace.run(["config", "sign", "--key", "k", "--version", "2", "Config/mediation.json"])
        #expect(signed.code == .success)
        let body = signed.output
        #expect(!body.unicodeScalars.contains { !$0.isASCII })
        let raw = "HTTP/1.1 200 OK\r\nX-Note: caf\u{E9}\r\nContent-Type: application/json\r\nCache-Control: max-age=300\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body
        let server = try await ConfigServer([.init(raw: raw)])
        defer { server.stop() }
        let result = await workspace.run(["--placement", "home_banner", "--config-url", server.url.absoluteString, "--public-key", "k.pub"])
        #expect(result.code == .success, "\(result.error)")
        #expect(result.error.contains("version 2 applied"), "\(result.error)")
        #expect(!result.error.contains("config refused") && !result.error.contains("header"), "\(result.error)")
    }
}
