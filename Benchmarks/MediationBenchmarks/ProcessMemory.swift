import Foundation

/// The process's resident memory from `/proc/self/status` (Linux), in kibibytes.
struct ProcessMemory {
    /// `VmRSS`: resident now.
    var residentKiB: Int
    /// `VmHWM`: the peak resident size so far.
    var peakKiB: Int

    static func current() -> ProcessMemory? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        var rss: Int?
        var hwm: Int?
        for line in status.split(separator: "\n") {
            if line.hasPrefix("VmRSS:") { rss = kibibytes(line) }
            if line.hasPrefix("VmHWM:") { hwm = kibibytes(line) }
        }
        guard let rss, let hwm else { return nil }
        return ProcessMemory(residentKiB: rss, peakKiB: hwm)
    }

    private static func kibibytes(_ line: Substring) -> Int? {
        line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
