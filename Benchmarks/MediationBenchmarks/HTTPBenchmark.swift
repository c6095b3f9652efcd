import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Adapters
import Mediation

/// Benchmark 6: the engine fetching through ``HTTP/SystemTransport`` from the loopback server
/// (an auction with one bidder whose adapter makes one GET), against raw URLSession calls of the
/// same request. Requests run one at a time; the count is bounded.
enum HTTPBenchmark {
    static let body = #"{"id":"bench","seatbid":[{"bid":[{"price":1.25,"adm":"<div>ad</div>","w":320,"h":50}]}]}"#

    static func run(quick: Bool) async -> BenchmarkResult {
        var result = BenchmarkResult(name: BenchmarkName.http.rawValue, title: "engine over HTTP.SystemTransport vs raw URLSession, loopback HTTP")
        let routes = #"{"GET /bid": {"status": 200, "body": \#(jsonString(body)), "headers": {"Content-Type": "application/json"}}}"#
        let server: LoopbackProcess
        do {
            server = try LoopbackProcess(routesJSON: routes)
        } catch {
            result.notes.append("skipped: could not start the loopback server: \(error)")
            return result
        }
        defer { server.stop() }
        guard let url = URL(string: "http://127.0.0.1:\(server.port)/bid") else { return result }

        let ledger = AdLedger()
        let adapter = HTTPBidAdapter(transport: HTTP.SystemTransport(), url: url, ledger: ledger)
        let lineItem = LineItem.bidder("loopback")
        let placement = MediationConfiguration.Placement(id: "bench_http", format: .interstitial, sources: [lineItem])
        let auction = BenchAuction(placement: placement, adapters: [adapter])
        let request = AdRequest(placementID: "bench_http", format: .interstitial)
        let raw = RawFetcher(url: url)

        let rounds = quick ? 5 : 25
        let perRound = 20
        let wall = ContinuousClock()
        var engine: [Double] = []
        var direct: [Double] = []
        var transportOnly: [Double] = []
        var engineFailures = 0
        var rawFailures = 0

        func engineCall() async -> Double {
            let start = wall.now
            let outcome = await auction.run()
            let elapsed = (wall.now - start).microseconds
            if let ad = outcome?.winner?.ad { ad.releaseResources() } else { engineFailures += 1 }
            return elapsed
        }
        func transportCall() async -> Double {
            let start = wall.now
            let result = await adapter.loadAd(for: request)
            let elapsed = (wall.now - start).microseconds
            if let ad = result.ad { ad.releaseResources() } else { engineFailures += 1 }
            return elapsed
        }
        func rawCall() async -> Double {
            let start = wall.now
            let ok = await raw.fetch()
            let elapsed = (wall.now - start).microseconds
            if !ok { rawFailures += 1 }
            return elapsed
        }

        // Warm both connections up.
        for _ in 0..<20 {
            _ = await engineCall()
            _ = await rawCall()
        }
        engineFailures = 0
        rawFailures = 0
        for round in 0..<rounds {
            for _ in 0..<perRound {
                if round % 2 == 0 {
                    engine.append(await engineCall())
                    direct.append(await rawCall())
                    transportOnly.append(await transportCall())
                } else {
                    transportOnly.append(await transportCall())
                    direct.append(await rawCall())
                    engine.append(await engineCall())
                }
            }
        }
        let engineSummary = Summary(engine)
        let rawSummary = Summary(direct)
        let ratio = engineSummary.median / rawSummary.median
        result.figures = [
            Figure(name: "engine auction over HTTP", unit: "µs/request", summary: engineSummary),
            Figure(name: "raw URLSession", unit: "µs/request", summary: rawSummary),
            Figure(name: "adapter + transport, no auction", unit: "µs/request (the caller awaits the adapter itself)", summary: Summary(transportOnly)),
            Figure(name: "overhead ratio", unit: "engine / raw, per request pair", summary: Summary(zip(engine, direct).map { $0 / $1 })),
        ]
        result.targets = [
            TargetCheck(target: "HTTP overhead ratio <= 1.1", measured: "median engine / median raw = \(TablePrinter.format(ratio)) (+\(TablePrinter.format(engineSummary.median - rawSummary.median)) µs)", met: ratio <= 1.1),
        ]
        result.notes.append("\(engine.count) requests each way, one at a time, interleaved; 40 warm-up requests; server: loopback_server.py (Python standard library, TCP_NODELAY, keep-alive)")
        if engineFailures > 0 || rawFailures > 0 {
            result.failures.append("requests without an answer: engine \(engineFailures), raw \(rawFailures)")
        }
        await settleLedger(ledger)
        result.failures += ledger.violations()
        return result
    }

    private static func jsonString(_ text: String) -> String {
        guard let data = try? JSONEncoder().encode(text) else { return "\"\"" }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A bidder that GETs `url` through an ``HTTP/Transport`` and bids 1.25 on a 200 with a body.
struct HTTPBidAdapter: AdNetworkAdapter {
    let network = "loopback"
    let pricing = LineItem.Pricing.bidder
    let transport: any HTTP.Transport
    let url: URL
    let ledger: AdLedger

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        do {
            let response = try await transport.send(HTTP.Request(method: "GET", url: url))
            guard response.statusCode == 200, !response.body.isEmpty else {
                return .failure(AdLoadResult.Error(kind: .server, code: response.statusCode, message: "status \(response.statusCode)"))
            }
            return .bid(BenchAd(network: network, format: request.format, ledger: ledger), eCPM: 1.25)
        } catch {
            return .failure(AdLoadResult.Error(kind: .network, message: error.description))
        }
    }
}

/// The same GET with a plain URLSession (same configuration as the transport's) and a
/// completion handler: the floor.
final class RawFetcher: Sendable {
    private let session: URLSession
    private let url: URL

    init(url: URL) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 30
        configuration.timeoutIntervalForResource = 30
        configuration.httpMaximumConnectionsPerHost = 8
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
        self.url = url
    }

    deinit { session.finishTasksAndInvalidate() }

    /// Whether a 200 with a body came back.
    func fetch() async -> Bool {
        let request = URLRequest(url: url)
        return await withCheckedContinuation { continuation in
            session.dataTask(with: request) { data, response, error in
                let ok = error == nil && (response as? HTTPURLResponse)?.statusCode == 200 && !(data ?? Data()).isEmpty
                continuation.resume(returning: ok)
            }.resume()
        }
    }
}
