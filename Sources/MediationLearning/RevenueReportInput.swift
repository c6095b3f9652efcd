import Foundation

/// A revenue report to read (``ReportAssembly/init(reading:events:eventsStart:asOf:configuration:)``):
/// its name and its bytes, handed over a chunk at a time as the report is parsed, so that a
/// report read from a file is never held whole.
public struct RevenueReportInput {
    /// The size of the chunks read from a file: 64 KiB.
    static let chunkSize = 64 << 10

    /// The report's name, for locations (e.g. its path as given on the command line).
    public var file: String
    /// The next chunk of the report, `nil` at its end.
    let read: () throws(ReportError) -> [UInt8]?

    /// A report from a function that gives its bytes a chunk at a time.
    init(file: String, read: @escaping () throws(ReportError) -> [UInt8]?) {
        self.file = file
        self.read = read
    }

    /// A report already in memory.
    /// - Parameters:
    ///   - file: its name, for locations.
    ///   - bytes: its bytes.
    public init(file: String, bytes: [UInt8]) {
        var remaining: [UInt8]? = bytes
        self.init(file: file) { () throws(ReportError) -> [UInt8]? in
            defer { remaining = nil }
            return remaining
        }
    }

    /// A report read from `url` 64 KiB at a time as it is parsed (the file is opened now and
    /// closed once this input is gone).
    /// - Parameters:
    ///   - file: its name, for locations.
    ///   - url: the file.
    /// - Throws: ``ReportError`` when the file cannot be opened; reading it later throws one
    ///   when it cannot be read.
    public init(file: String, contentsOf url: URL) throws(ReportError) {
        let handle: FileHandle
        do {
            handle = try FileHandle(forReadingFrom: url)
        } catch {
            throw ReportError(ReportLocation(file: file), "cannot open the report")
        }
        let reader = ChunkReader(handle: handle)
        self.init(file: file) { () throws(ReportError) -> [UInt8]? in
            do {
                return try reader.next()
            } catch {
                throw ReportError(ReportLocation(file: file), "cannot read the report")
            }
        }
    }
}

/// Reads a file a chunk at a time and closes it when it is gone.
private final class ChunkReader {
    private let handle: FileHandle

    init(handle: FileHandle) {
        self.handle = handle
    }

    deinit {
        try? handle.close()
    }

    /// The next chunk, `nil` at the end of the file.
    func next() throws -> [UInt8]? {
        guard let data = try handle.read(upToCount: RevenueReportInput.chunkSize), !data.isEmpty else { return nil }
        return [UInt8](data)
    }
}
