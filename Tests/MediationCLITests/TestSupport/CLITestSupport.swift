import Adapters
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Mediation
@testable import MediationCLI

/// Text written by `mediate`, kept for the test to read.
final class CapturedOutput: TextOutput {
    private let text = Locked("")

    func write(_ text: String) {
        self.text.withLock { $0 += text }
    }

    var contents: String { text.withLock { $0 } }
}

/// A fixed-price adapter kind that records every request and fills at once, and counts how
/// many adapters were built (none must be for an invalid config, R15).
final class RecordingFactory: NetworkAdapterFactory {
    private let requests = Locked<[AdRequest]>([])
    private let builds = Locked(0)

    var kind: String { "recorder" }
    var pricing: LineItem.Pricing { .fixedPrice }

    func makeAdapter(for network: MediationConfiguration.Network, environment: MediationEnvironment) throws(ConfigurationError) -> any AdNetworkAdapter {
        builds.withLock { $0 += 1 }
        return RecordingAdapter(network: network.id, factory: self)
    }

    fileprivate func record(_ request: AdRequest) {
        requests.withLock { $0.append(request) }
    }

    var recordedRequests: [AdRequest] { requests.withLock { $0 } }
    var adaptersBuilt: Int { builds.withLock { $0 } }
}

private struct RecordingAdapter: AdNetworkAdapter {
    let network: String
    let factory: RecordingFactory
    var pricing: LineItem.Pricing { .fixedPrice }

    func loadAd(for request: AdRequest) async -> AdLoadResult {
        factory.record(request)
        return .fill(FallbackAd(id: "rec-\(request.adUnitID)", creativeID: "rec-creative", network: network, format: request.format, size: AdSize(width: 320, height: 50)))
    }
}

/// A temporary directory with `Config/mediation.json` and other files, removed on deinit.
final class Workspace {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mediate-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("Config"), withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(path))
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: directory.appendingPathComponent(path))
    }

    /// Runs `mediate arguments` in this directory, sharing ``TestGate`` (unless `gated` is
    /// false: the caller holds it already); a `--fast` watch or a `simulate`, seconds of CPU
    /// work on virtual time, takes it exclusively.
    func run(_ arguments: [String], registry: NetworkRegistry = .standard, gated: Bool = true) async -> (code: ExitCode, output: String, error: String) {
        let output = CapturedOutput()
        let error = CapturedOutput()
        let environment = CommandEnvironment(standardOutput: output, standardError: error, currentDirectory: directory, clock: SystemClock(), registry: registry)
        let code = gated
            ? await TestGate.shared.with(exclusive: arguments.contains("--fast") || arguments.first == "simulate") { await MediateCommand.run(arguments: arguments, environment: environment) }
            : await MediateCommand.run(arguments: arguments, environment: environment)
        return (code, output.contents, error.contents)
    }

    /// Runs `mediate arguments` in the repository's root, with its shipped `Config/mediation.json`.
    static func runInRepository(_ arguments: [String], registry: NetworkRegistry = .standard) async -> (code: ExitCode, output: String, error: String) {
        let output = CapturedOutput()
        let error = CapturedOutput()
        let environment = CommandEnvironment(standardOutput: output, standardError: error, currentDirectory: repositoryRoot, clock: SystemClock(), registry: registry)
        let code = await TestGate.shared.with(exclusive: arguments.contains("--fast")) { await MediateCommand.run(arguments: arguments, environment: environment) }
        return (code, output.contents, error.contents)
    }

    /// A config whose fallback networks answer at once: `home_banner` fills from `low`
    /// (0.50; `high` at 2.00 never fills); `empty_slot` never fills.
    static let instantConfig = """
    {
      "networks": {
        "always": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 1, "latency_ms": 0 } },
        "never": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 0, "latency_ms": 0 } },
        "coin": { "adapter": "fallback", "endpoint": "sandbox", "options": { "fill_rate": 0.5, "latency_ms": 0 } }
      },
      "placements": {
        "home_banner": {
          "format": "banner", "sizing": "anchored", "slot": { "max_height": 90 },
          "sources": [
            { "id": "high", "network": "never", "ad_unit_id": "h", "ecpm": 2.0 },
            { "id": "low", "network": "always", "ad_unit_id": "l", "ecpm": 0.5 }
          ]
        },
        "empty_slot": {
          "format": "interstitial",
          "sources": [ { "id": "none", "network": "never", "ad_unit_id": "n", "ecpm": 1 } ]
        },
        "coin_flips": {
          "format": "interstitial",
          "sources": [
            { "id": "c1", "network": "coin", "ad_unit_id": "c1", "ecpm": 3 },
            { "id": "c2", "network": "coin", "ad_unit_id": "c2", "ecpm": 2 },
            { "id": "c3", "network": "coin", "ad_unit_id": "c3", "ecpm": 1 }
          ]
        }
      }
    }
    """

    /// The repository's root, found from this file's path.
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// Keeps this target's CPU-heavy tests (a corpus of thousands of configs, 40,000 sources, a
/// virtual hour of `--watch --fast`) apart from its real-clock runs of `mediate` (auctions with
/// a 3000 ms deadline): a heavy test takes the gate exclusively, a real-clock run shares it.
/// Waiters are served in arrival order.
actor TestGate {
    /// The one gate of the test process.
    static let shared = TestGate()

    private var readers = 0
    private var writing = false
    private var queue: [(exclusive: Bool, continuation: CheckedContinuation<Void, Never>)] = []

    /// Runs `body` holding the gate, exclusively or shared.
    func with<Result: Sendable>(exclusive: Bool, _ body: @Sendable () async throws -> Result) async rethrows -> Result {
        await acquire(exclusive: exclusive)
        do {
            let result = try await body()
            release(exclusive: exclusive)
            return result
        } catch {
            release(exclusive: exclusive)
            throw error
        }
    }

    private func acquire(exclusive: Bool) async {
        if queue.isEmpty, !writing, !exclusive || readers == 0 {
            if exclusive { writing = true } else { readers += 1 }
            return
        }
        await withCheckedContinuation { queue.append((exclusive, $0)) }
    }

    private func release(exclusive: Bool) {
        if exclusive { writing = false } else { readers -= 1 }
        while let first = queue.first, !writing {
            if first.exclusive {
                guard readers == 0 else { return }
                writing = true
            } else {
                readers += 1
            }
            queue.removeFirst()
            first.continuation.resume()
        }
    }
}
