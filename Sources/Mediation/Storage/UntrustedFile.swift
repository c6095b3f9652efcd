import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one bounded file reader. It reads a file the engine or an adapter keeps on disk as
/// untrusted input (engine rule R21), and (``BoundedFile``) a file a person names: only a
/// regular file, never blocking (a FIFO or a device at the path is refused, not opened for a
/// read that waits), and never more than a bound, cut one byte past it for a file that grows
/// while read. Stored files are never read through a symbolic link; the bound holds whatever
/// sits at the path: a link to a larger file, or to `/dev/zero`, is refused before a byte is
/// read.
package enum UntrustedFile {
    /// Why a file was not read.
    package enum Failure: Error, Sendable, Hashable {
        /// The file exists but cannot be read (permissions, I/O): the reason.
        case unreadable(String)
        /// The file must not be trusted (a symbolic link, not a regular file): why.
        case refused(String)
        /// The path is a directory.
        case directory
        /// The file is larger than the limit: its size in bytes.
        case tooLarge(Int)

        /// What is wrong, for a person.
        package var reason: String {
            switch self {
            case .unreadable(let reason), .refused(let reason): reason
            case .directory: "it is a directory, not a regular file"
            case .tooLarge(let size): "the file of \(size) bytes is over the limit"
            }
        }
    }

    /// Reads the regular file at `path`.
    /// - Parameters:
    ///   - path: the file.
    ///   - limit: the most bytes accepted (a larger file is refused); `nil` for no bound (only
    ///     with `prefix`).
    ///   - prefix: read only the file's first `prefix` bytes.
    ///   - followingLinks: whether a symbolic link at the path is followed (a file a person
    ///     names); by default it is refused (a stored file).
    /// - Returns: the bytes, `nil` when there is no file, or why it was not read.
    package static func contents(_ path: String, limit: Int?, prefix: Int? = nil, followingLinks: Bool = false) -> Result<Data?, Failure> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else {
            if errno == ENOENT { return .success(nil) }
            if errno == ELOOP { return .failure(.refused("it is a symbolic link")) }
            return .failure(.unreadable(errorText()))
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return .failure(.unreadable(errorText())) }
        if (status.st_mode & S_IFMT) == S_IFDIR { return .failure(.directory) }
        guard (status.st_mode & S_IFMT) == S_IFREG else { return .failure(.refused("it is not a regular file")) }
        if let limit, Int(status.st_size) > limit {
            return .failure(.tooLarge(Int(status.st_size)))
        }
        let wanted = max(0, prefix ?? (limit.map { $0 + 1 } ?? Int(status.st_size)))
        // Room for the file's size and one byte more (to see the end), grown only if the file
        // grows while read: memory follows the file, not the limit.
        var bytes = [UInt8](repeating: 0, count: min(wanted, max(0, Int(status.st_size)) + 1))
        var count = 0
        while count < wanted {
            if count == bytes.count {
                bytes.append(contentsOf: repeatElement(0, count: min(wanted - count, max(bytes.count, 1 << 16))))
            }
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return read(descriptor, base + count, buffer.count - count)
            }
            if got > 0 {
                count += got
            } else if got < 0, errno == EINTR {
                continue
            } else if got < 0 {
                return .failure(.unreadable(errorText()))
            } else {
                break
            }
        }
        if let limit, prefix == nil, count > limit {
            return .failure(.tooLarge(count))
        }
        return .success(Data(bytes[0..<count]))
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
