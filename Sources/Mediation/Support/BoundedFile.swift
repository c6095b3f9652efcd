import Foundation

/// How an input file given by a person is read (a configuration, a key, a signed
/// configuration, a revenue report, an event log): through the one bounded reader,
/// ``UntrustedFile``, following a symbolic link (a FIFO or a device is refused, a file over the
/// limit refused unread, one that grows while read cut one byte past it), with failures a
/// command can word.
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

    /// The bytes of the regular file at `url` (through a symbolic link), at most `limit` of
    /// them, read by ``UntrustedFile``.
    /// - Parameters:
    ///   - url: a file URL.
    ///   - limit: the most bytes accepted.
    /// - Returns: the bytes, or why they were not read.
    package static func read(_ url: URL, limit: Int) -> Result<Data, Failure> {
        switch UntrustedFile.contents(url.path, limit: limit, followingLinks: true) {
        case .success(let data?): .success(data)
        case .success(nil): .failure(.notFound)
        case .failure(.directory): .failure(.directory)
        case .failure(.refused): .failure(.notRegular)
        case .failure(.tooLarge): .failure(.tooLarge(limit: limit))
        case .failure(.unreadable(let reason)): .failure(.unreadable(reason))
        }
    }
}
