#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Mediation
import MediationSimulation

/// A progress bar on standard error for a simulation that runs longer than a second, drawn only
/// when standard error is a terminal (never into a file, a pipe or a test's captured output):
/// `[##########----------]  50%  500000 / 1000000 auctions, about 25 s left`, redrawn in place
/// five times a second and erased when the run ends.
final class ProgressBar: Sendable {
    /// How long a run goes before the bar appears.
    static let delay: Duration = .seconds(1)
    /// How often it is redrawn.
    static let interval: Duration = .milliseconds(200)
    /// The bar's width in characters.
    static let width = 30

    private let output: any TextOutput
    private let task: Task<Void, Never>
    private let shown: Locked<Bool>

    private init(output: any TextOutput, task: Task<Void, Never>, shown: Locked<Bool>) {
        self.output = output
        self.task = task
        self.shown = shown
    }

    /// Starts drawing `progress` on the environment's standard error when it is a terminal.
    /// - Returns: the bar, or `nil` when standard error is not a terminal.
    static func start(_ progress: SimulationProgress, environment: CommandEnvironment) -> ProgressBar? {
        guard let output = environment.standardError as? FileDescriptorOutput, isatty(output.descriptor) == 1 else { return nil }
        let clock = environment.clock
        let shown = Locked(false)
        let task = Task {
            let start = clock.now
            while !Task.isCancelled {
                do {
                    try await clock.sleep(until: clock.now + interval)
                } catch {
                    return
                }
                let elapsed = clock.now - start
                guard elapsed >= delay else { continue }
                output.write("\r" + line(done: progress.auctionsDone, total: progress.auctionsTotal, elapsed: elapsed) + "\u{1B}[K")
                shown.withLock { $0 = true }
            }
        }
        return ProgressBar(output: output, task: task, shown: shown)
    }

    /// Stops drawing and erases the bar.
    func finish() async {
        task.cancel()
        await task.value
        if shown.withLock({ $0 }) { output.write("\r\u{1B}[K") }
    }

    /// The bar's text for `done` of `total` auctions after `elapsed`.
    static func line(done: Int, total: Int, elapsed: Duration) -> String {
        let fraction = total > 0 ? min(1, Double(done) / Double(total)) : 0
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = Int((fraction * 100).rounded(.down))
        var text = "[\(bar)] \(percent < 10 ? "  " : percent < 100 ? " " : "")\(percent)%  \(done) / \(total) auctions"
        let seconds = elapsed.milliseconds / 1000
        if fraction > 0, fraction < 1, seconds.isFinite {
            let left = seconds * (1 - fraction) / fraction
            if left.isFinite, left < 1e7 { text += ", about \(Int(left.rounded(.up))) s left" }
        }
        return text
    }
}
