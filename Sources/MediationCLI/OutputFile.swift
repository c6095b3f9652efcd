import Foundation
import Mediation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Opens the files `mediate` writes (`--report`, `--events`) in place: created with mode 0644
/// or truncated, never replaced. Foundation's atomic writes (and `createFile`) write a new file
/// and rename it over the path, which would replace a device such as `/dev/full` or
/// `/dev/stdout` with a regular file instead of writing to it (and failing where it fails).
enum OutputFile {
    /// Why a file could not be opened or written, in the system's words.
    struct Failure: Error {
        var message: String
    }

    /// Opens `url` for writing: created if missing, truncated if a regular file, written in
    /// place if a device or pipe.
    /// - Throws: ``Failure`` naming the system error (e.g. a missing directory, a directory).
    static func open(_ url: URL) throws(Failure) -> FileHandle {
        let descriptor = url.path.withCString { path in
            #if canImport(Glibc)
            Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            #else
            Darwin.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            #endif
        }
        guard descriptor >= 0 else {
            throw Failure(message: String(cString: strerror(errno)))
        }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }

    /// Writes `text` to `url` in place (see the type) and closes it.
    /// - Throws: ``Failure`` when the file cannot be opened, written (e.g. no space left) or
    ///   closed.
    static func write(_ text: String, to url: URL) throws(Failure) {
        let handle = try open(url)
        do {
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } catch {
            try? handle.close()
            throw Failure(message: (error as NSError).localizedDescription)
        }
    }

    /// Writes `text` to `url` so that a failure (a full disk, a size limit) leaves the old file
    /// as it was: the project's durable writer (`DurableFile`) replaces the target (after
    /// following a symbolic link, which is kept). A target that exists and
    /// is not a regular file (`/dev/stdout`, a FIFO) is written in place with ``write(_:to:)``.
    static func writeAtomically(_ text: String, to url: URL) throws(Failure) {
        let target = url.resolvingSymlinksInPath()
        var status = stat()
        if lstat(target.path, &status) == 0, (status.st_mode & S_IFMT) != S_IFREG {
            if (status.st_mode & S_IFMT) == S_IFDIR { throw Failure(message: String(cString: strerror(EISDIR))) }
            try write(text, to: target)
            return
        }
        if let failure = DurableFile.replace(target.lastPathComponent, in: target.deletingLastPathComponent().path, with: Data(text.utf8), mode: 0o644) {
            throw Failure(message: failure)
        }
    }
}
