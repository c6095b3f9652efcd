import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs `work` on a thread of its own and returns its result, for this package's tests. Seconds
/// of blocking or CPU work (a child process, parsing megabytes of JSON in a debug build) go
/// there, not onto the Swift concurrency pool or dispatch's global queues: on a two-core machine
/// both have two worker threads, shared with the other tests, some of which run auctions on the
/// real clock. The thread runs at the lowest scheduling priority (nice 19), so that the
/// real-clock tests keep the CPU they need.
package func onOwnThread<Result: Sendable>(_ work: @escaping @Sendable () -> Result) async -> Result {
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
