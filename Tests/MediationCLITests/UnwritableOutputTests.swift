import Foundation
import MediationTestKit
import Testing

/// `mediate` run as a process, the way a shell runs it: a report that cannot be written is an
/// internal error (exit 70), never a crash (SIGILL from an uncaught write exception).
@Suite("mediate with unwritable output")
struct UnwritableOutputTests {
    /// The built `mediate` executable: beside the test bundle (the build directory), else in
    /// the repository's `.build/debug`.
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mediate"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("mediate"),
            Bundle.main.bundleURL.appendingPathComponent("mediate"),
            Workspace.repositoryRoot.appendingPathComponent(".build/debug/mediate"),
        ]
        return try #require(
            candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) },
            "the mediate executable was not found in the build directory (build it with swift build): \(candidates.map(\.path))"
        )
    }

    /// Runs `/bin/sh -c script` with `$0` set to the `mediate` executable, in the repository's
    /// root; returns the exit status and standard error. The process is awaited on a thread of
    /// its own (``onOwnThread(_:)``).
    static func run(_ script: String) async throws -> (status: Int32, reason: Process.TerminationReason, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, try executable().path]
        process.currentDirectoryURL = Workspace.repositoryRoot
        let errorPipe = Pipe()
        process.standardError = errorPipe
        process.standardInput = FileHandle.nullDevice
        let error = try await TestGate.shared.with(exclusive: false) {
            try process.run()
            return await onOwnThread {
                let error = errorPipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                return error
            }
        }
        return (process.terminationStatus, process.terminationReason, String(decoding: error, as: UTF8.self))
    }

    @Test("mediate --placement home_banner --json > /dev/full exits 70 and says why on standard error")
    func standardOutputOnAFullDevice() async throws {
        let result = try await Self.run(#"exec "$0" --placement home_banner --json > /dev/full"#)
        #expect(result.reason == .exit)
        #expect(result.status == 70)
        #expect(result.error.contains("mediate: cannot write to standard output: No space left on device"))
    }

    @Test("the human report to /dev/full, and validate to /dev/full, exit 70 too")
    func otherCommandsOnAFullDevice() async throws {
        for command in [#"exec "$0" --placement home_banner > /dev/full"#, #"exec "$0" validate > /dev/full"#, #"exec "$0" --help > /dev/full"#] {
            let result = try await Self.run(command)
            #expect(result.reason == .exit, "\(command)")
            #expect(result.status == 70, "\(command)")
        }
    }

    @Test("a closed standard output exits 70; closed standard output and error exit 70 without a crash")
    func closedStandardOutput() async throws {
        let closed = try await Self.run(#"exec "$0" --placement home_banner --json >&-"#)
        #expect(closed.reason == .exit)
        #expect(closed.status == 70)
        #expect(closed.error.contains("mediate: cannot write to standard output"))
        let both = try await Self.run(#"exec "$0" --placement home_banner --json >&- 2>&-"#)
        #expect(both.reason == .exit)
        #expect(both.status == 70)
    }

    @Test("a reader that closes the pipe early does not kill mediate with SIGPIPE: it exits 70 (or 0 if the pipe took it all)")
    func closedPipe() async throws {
        // `true` exits at once without reading; the report then meets a closed pipe (EPIPE).
        let result = try await Self.run(#"{ "$0" --placement home_banner --json; echo "status=$?" >&2; } | true"#)
        #expect(result.reason == .exit)
        let status = result.error.split(separator: "\n").last { $0.hasPrefix("status=") }
        #expect(status == "status=70" || status == "status=0", "\(result.error)")
    }
}
