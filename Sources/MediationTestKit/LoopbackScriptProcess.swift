import Foundation

/// The tests' scripted loopback HTTP server (`Tests/AdaptersTests/Loopback/loopback_server.py`,
/// Python's standard library) as a child process on 127.0.0.1: started with its routes as one
/// argument, it prints `PORT n` on standard output and exits once its standard input closes.
/// One launcher for the adapter tests, the CLI tests and the benchmark.
///
/// `@unchecked Sendable`: the `Process` and `Pipe` are handed over once from the launching
/// thread and only closed or waited for afterwards.
package struct LoopbackScriptProcess: @unchecked Sendable {
    /// Why the server did not start.
    package enum StartError: Error, CustomStringConvertible {
        /// The server printed something other than `PORT n` (or nothing) before exiting.
        case noPort(String)

        /// What went wrong, in one line.
        package var description: String {
            switch self {
            case .noPort(let line): "the loopback server did not print its port (got \"\(line)\")"
            }
        }
    }

    /// The port the server listens on, on 127.0.0.1.
    package let port: Int
    private let process: Process
    private let stdin: Pipe

    /// Starts `python3 script routesArgument` and reads its port. Blocks until the server has
    /// printed its port: call it off the concurrency pool.
    /// - Throws: the process's launch error, or ``StartError/noPort(_:)``.
    package static func launch(script: String, routesArgument: String) throws -> LoopbackScriptProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, routesArgument]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("PORT "), let port = Int(text.dropFirst(5)) else {
            process.terminate()
            throw StartError.noPort(text)
        }
        return LoopbackScriptProcess(port: port, process: process, stdin: stdin)
    }

    /// Launches on a thread of its own, so the concurrency pool never blocks on the child.
    /// - Throws: as ``launch(script:routesArgument:)``.
    package static func start(script: String, routesArgument: String) async throws -> LoopbackScriptProcess {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<LoopbackScriptProcess, any Error>) in
            Thread.detachNewThread {
                continuation.resume(with: Result { try launch(script: script, routesArgument: routesArgument) })
            }
        }
    }

    /// Closes the server's standard input (it exits) and terminates it if it still runs; does
    /// not wait.
    package func stop() {
        try? stdin.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
    }

    /// Blocks until the process has exited: call it off the concurrency pool.
    package func waitUntilExit() {
        process.waitUntilExit()
    }
}
