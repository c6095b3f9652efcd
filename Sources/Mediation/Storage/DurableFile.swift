import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The project's one durable writer: replaces a file whole, so that a crash, a power loss or a
/// full disk leaves the old content or the new, never a mix. The bytes go to a new temporary
/// file in the same directory (`.<name>.<pid>.<counter>.tmp`, created exclusively, never through
/// a symbolic link), which is flushed to disk (`fsync`), renamed over the target (`rename`,
/// atomic on POSIX file systems), and the directory is flushed. On failure the temporary file
/// is removed and the target is as it was.
///
/// Used by ``FileStateStore`` for every stored value and by `mediate` for the files it replaces
/// (`optimize --write`).
package enum DurableFile {
    /// Numbers the temporary files of this process.
    private static let counter = Locked(0)

    /// Replaces the file `name` in `directory` with `bytes`.
    /// - Parameters:
    ///   - name: the target's file name (no slash).
    ///   - directory: the target's directory.
    ///   - bytes: the new content.
    ///   - mode: the permissions of the new file (e.g. `0o600`).
    /// - Returns: `nil` when done, else the system's reason for the failure.
    package static func replace(_ name: String, in directory: String, with bytes: Data, mode: mode_t) -> String? {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        let temporary = (directory as NSString).appendingPathComponent(".\(name).\(getpid()).\(number).tmp")
        if let failure = writeFlushed(bytes, to: temporary, mode: mode) {
            _ = unlink(temporary)
            return failure
        }
        guard rename(temporary, (directory as NSString).appendingPathComponent(name)) == 0 else {
            let failure = errorText()
            _ = unlink(temporary)
            return failure
        }
        syncDirectory(directory)
        return nil
    }

    /// Deletes the file `name` in `directory` (none there is no failure) and flushes the
    /// directory.
    /// - Returns: `nil` when done, else the system's reason.
    package static func remove(_ name: String, in directory: String) -> String? {
        guard unlink((directory as NSString).appendingPathComponent(name)) == 0 || errno == ENOENT else { return errorText() }
        syncDirectory(directory)
        return nil
    }

    /// Whether `name` is the name of a temporary file ``replace(_:in:with:mode:)`` makes.
    /// - Parameter name: a file name.
    package static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.hasSuffix(".tmp")
    }

    /// Writes `bytes` to a new file at `path` and flushes it to disk; the reason on failure.
    private static func writeFlushed(_ bytes: Data, to path: String, mode: mode_t) -> String? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode)
        guard descriptor >= 0 else { return errorText() }
        defer { close(descriptor) }
        let failure: String? = bytes.withUnsafeBytes { buffer in
            guard let base = buffer.baseAddress else { return nil }
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0, errno == EINTR {
                    continue
                } else {
                    return written < 0 ? errorText() : "short write"
                }
            }
            return nil
        }
        if let failure { return failure }
        guard fsync(descriptor) == 0 else { return errorText() }
        return nil
    }

    /// Flushes the directory entry changes (a rename, an unlink) to disk; best effort.
    private static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }
}
