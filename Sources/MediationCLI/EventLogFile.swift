import Foundation
import Mediation

/// `mediate --watch --events FILE`: every engine event of the run, one JSON object a line
/// (``MediationEvent/NDJSONWriter``), for `mediate simulate --replay FILE`. The file is created (or
/// truncated) before the engine starts; a write that fails is remembered and reported when the
/// run ends (exit 70), never trapped on.
final class EventLogFile: Sendable {
    private let handle: FileHandle
    private let failure = Locked<String?>(nil)
    /// The writer to hand the engine's events to.
    let writer: MediationEvent.NDJSONWriter

    private init(handle: FileHandle) {
        self.handle = handle
        let failure = self.failure
        writer = MediationEvent.NDJSONWriter { line in
            guard failure.withLock({ $0 == nil }) else { return }
            do {
                try handle.write(contentsOf: Data(line.utf8))
            } catch {
                failure.withLock { $0 = (error as NSError).localizedDescription }
            }
        }
    }

    /// Creates (or truncates) the file at `url`.
    /// - Returns: the log, or why the file cannot be written.
    static func create(at url: URL) -> Result<EventLogFile, MediateCommand.Exit.Reason> {
        do throws(OutputFile.Failure) {
            return .success(EventLogFile(handle: try OutputFile.open(url)))
        } catch {
            return .failure(.init(message: "cannot create \(url.path): \(error.message)"))
        }
    }

    /// Closes the file.
    /// - Returns: why a write or the close failed, or `nil`.
    func close() -> String? {
        do {
            try handle.close()
        } catch {
            failure.withLock { if $0 == nil { $0 = (error as NSError).localizedDescription } }
        }
        return failure.withLock { $0 }
    }
}

extension MediateCommand.Exit {
    /// Why an output file could not be written.
    struct Reason: Error {
        var message: String
    }
}
