import Foundation

/// The one way an input file given by a person is read (a configuration, a key, a signed
/// configuration, a revenue report, an event log): only a regular file (through a symbolic
/// link; a FIFO's open would block until a writer came, a device would never end), refused
/// unread when its size is over the limit, and read at most one byte past the limit (a file
/// that grows while read).
package enum BoundedFile {
    /// Why a file was not read.
    package enum Failure: Error, Equatable, Sendable {
        /// Nothing at the path.
        case notFound
        /// The path is a directory.
        case directory
        /// A device, FIFO, socket or other file that is not a regular file.
        case notRegular
        /// Opening or reading failed, with the system's reason.
        case unreadable(String)
        /// Larger than the limit, in bytes.
        case tooLarge(limit: Int)

        /// What is wrong, for a message that names the file before it: "not found",
        /// "it is a directory", "larger than 4194304 bytes (4 MiB)".
        package var reason: String {
            switch self {
            case .notFound: "not found"
            case .directory: "it is a directory"
            case .notRegular: "not a regular file"
            case .unreadable(let reason): reason
            case .tooLarge(let limit): "larger than \(limit) bytes (\(BoundedFile.mebibytes(limit)))"
            }
        }
    }

    /// `limit` bytes in MiB for a message: `4 MiB`, `0.06 MiB` for 64 KiB.
    package static func mebibytes(_ limit: Int) -> String {
        limit % (1 << 20) == 0 ? "\(limit >> 20) MiB" : "\(DecimalText.trimmed(Double(limit) / Double(1 << 20), minimumDigits: 0, maximumDigits: 2)) MiB"
    }

    /// The bytes of the regular file at `url`, at most `limit` of them.
    /// - Parameters:
    ///   - url: a file URL.
    ///   - limit: the most bytes accepted.
    /// - Returns: the bytes, or why they were not read.
    package static func read(_ url: URL, limit: Int) -> Result<Data, Failure> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else { return .failure(.notFound) }
        guard !isDirectory.boolValue else { return .failure(.directory) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.resolvingSymlinksInPath().path)
        guard (attributes?[.type] as? FileAttributeType) == .typeRegular else { return .failure(.notRegular) }
        // A file the system says is larger is refused unread; one that grows while read is cut
        // one byte past the limit.
        if let size = (attributes?[.size] as? NSNumber)?.uint64Value, size > UInt64(limit) { return .failure(.tooLarge(limit: limit)) }
        do {
            let handle = try FileHandle(forReadingFrom: url)
            defer { try? handle.close() }
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            return data.count <= limit ? .success(data) : .failure(.tooLarge(limit: limit))
        } catch {
            return .failure(.unreadable((error as NSError).localizedDescription))
        }
    }
}
