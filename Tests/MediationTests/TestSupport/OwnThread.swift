import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `work` on a low-priority thread of its own and returns its result: a second of CPU work
/// (parsing megabytes of JSON in a debug build) stays off the Swift concurrency pool, whose two
/// threads (on a two-core machine) the other tests share, some of them on the real clock.
func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            #if os(Linux)
            // On Linux the nice value is per thread: PRIO_PROCESS with 0 sets the calling thread's.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            #endif
            continuation.resume(returning: work())
        }
        thread.start()
    }
}
