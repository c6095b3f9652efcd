import Adapters
import Foundation
import Mediation
#if canImport(Glibc)
import Glibc

/// POSIX `write(2)`.
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin

/// POSIX `write(2)`.
private let systemWrite = Darwin.write
#endif

/// Where `mediate` writes text.
protocol TextOutput: Sendable {
    /// Writes `text` as it is (callers add the newline). A failure is remembered, never thrown
    /// or trapped on: see ``failure``.
    func write(_ text: String)

    /// Why a write failed (e.g. `"No space left on device"`), or `nil` when every write so far
    /// went through.
    var failure: String? { get }
}

extension TextOutput {
    /// Outputs that cannot fail.
    var failure: String? { nil }
}

/// Standard output or standard error, written with POSIX `write(2)`: every byte is written
/// (short writes and `EINTR` are retried), and an error (`ENOSPC` on `/dev/full`, `EPIPE` on a
/// closed pipe, `EBADF` on a closed descriptor) is remembered in ``failure`` instead of
/// killing the process, so `mediate` can exit 70 (`EX_SOFTWARE`). After a failure nothing more
/// is written to the descriptor.
final class FileDescriptorOutput: TextOutput {
    /// The descriptor written to.
    let descriptor: Int32
    private let state: Locked<String?>

    /// Creates an output on `descriptor`.
    /// - Parameters:
    ///   - descriptor: e.g. `STDOUT_FILENO`.
    ///   - failure: a failure known before the first write (e.g. the descriptor was closed
    ///     when the process started).
    init(descriptor: Int32, failure: String? = nil) {
        self.descriptor = descriptor
        state = Locked(failure)
    }

    var failure: String? { state.withLock { $0 } }

    func write(_ text: String) {
        state.withLock { failure in
            guard failure == nil else { return }
            var bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let written = bytes.withUnsafeMutableBytes { buffer -> Int in
                    guard let base = buffer.baseAddress else { return 0 }
                    return systemWrite(descriptor, base + offset, buffer.count - offset)
                }
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    let code = written < 0 ? errno : EIO
                    failure = String(cString: strerror(code))
                    return
                }
            }
            bytes.removeAll()
        }
    }

    /// Standard output and standard error as the process has them. `SIGPIPE` is ignored (a
    /// closed pipe is an `EPIPE` error, reported). A descriptor that is closed at start is
    /// reported as failed, and `/dev/null` is opened in its place so that no file the command
    /// opens later can take its number and receive the report.
    static func standardStreams() -> (output: FileDescriptorOutput, error: FileDescriptorOutput) {
        signal(SIGPIPE, SIG_IGN)
        var closed: [Int32: String] = [:]
        for descriptor in [STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            closed[descriptor] = "the descriptor is closed"
            let placeholder = open("/dev/null", O_WRONLY)
            if placeholder >= 0, placeholder != descriptor {
                dup2(placeholder, descriptor)
                close(placeholder)
            }
        }
        return (
            FileDescriptorOutput(descriptor: STDOUT_FILENO, failure: closed[STDOUT_FILENO]),
            FileDescriptorOutput(descriptor: STDERR_FILENO, failure: closed[STDERR_FILENO])
        )
    }
}

/// What `mediate` needs from the process, injected so tests run it with captured output.
struct CommandEnvironment: Sendable {
    /// Standard output: reports, help, version.
    var standardOutput: any TextOutput
    /// Standard error: one line per error.
    var standardError: any TextOutput
    /// Relative paths (the default `Config/mediation.json` included) resolve against it.
    var currentDirectory: URL
    /// The clock one-shot runs use (the real `SystemClock` in the executable).
    var clock: any MediationClock
    /// The network kinds.
    var registry: NetworkRegistry

    /// The process's real environment.
    /// - Parameter registry: the network kinds.
    static func live(registry: NetworkRegistry) -> CommandEnvironment {
        let streams = FileDescriptorOutput.standardStreams()
        return CommandEnvironment(
            standardOutput: streams.output,
            standardError: streams.error,
            currentDirectory: URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true),
            clock: SystemClock(),
            registry: registry
        )
    }

    /// `path` as a file URL, relative to ``currentDirectory`` unless absolute.
    func resolve(_ path: String) -> URL {
        if path.hasPrefix("/") { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: path, relativeTo: currentDirectory).standardizedFileURL
    }
}
