import Foundation
import Mediation

/// How `mediate` reads an input file a person names (a key, a configuration to sign, a revenue
/// report, an events log): ``BoundedFile`` (a regular file, at most a limit), and on failure
/// one message saying what file and why, and its exit code (66 missing or unreadable, 65 too
/// large).
enum InputFile {
    /// The bytes of the file at `path`.
    /// - Parameters:
    ///   - path: as given on the command line (relative to the environment's directory).
    ///   - what: what it is, for the message (`report`, `public key`).
    ///   - limit: the most bytes accepted.
    ///   - environment: where the path is resolved and the error written.
    /// - Returns: the bytes, or the exit code after the message is written.
    static func read(_ path: String, what: String, limit: Int, environment: CommandEnvironment) -> Result<Data, MediateCommand.Exit> {
        switch BoundedFile.read(environment.resolve(path), limit: limit) {
        case .success(let data):
            return .success(data)
        case .failure(let failure):
            let (code, message): (ExitCode, String) = switch failure {
            case .notFound: (.noInput, "\(what) file not found: \(path)")
            case .tooLarge: (.dataError, "\(what) file \(path) is \(failure.reason)")
            case .unreadable: (.noInput, "cannot read \(what) file \(path)")
            case .directory, .notRegular: (.noInput, "cannot read \(what) file \(path): \(failure.reason)")
            }
            return .failure(MediateCommand.Exit(code: MediateCommand.fail(code, message, environment: environment)))
        }
    }
}
