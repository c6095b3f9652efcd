import Adapters
import Foundation
import Mediation

/// Where `mediate` writes text.
protocol TextOutput: Sendable {
    /// Writes `text` as it is (callers add the newline).
    func write(_ text: String)
}

/// Standard output or standard error.
struct FileHandleOutput: TextOutput {
    /// The handle written to.
    let handle: FileHandle

    /// Writes the UTF-8 bytes of `text`.
    func write(_ text: String) {
        handle.write(Data(text.utf8))
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
        CommandEnvironment(
            standardOutput: FileHandleOutput(handle: .standardOutput),
            standardError: FileHandleOutput(handle: .standardError),
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
