import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under the thread sanitizer (`swift test --sanitize=thread`),
/// found by looking up the sanitizer runtime's entry point.
///
/// The tests that race real HTTP round trips on the wall clock against deadlines of 800 ms to
/// 3 s (the hostile-network scenarios, the Elo loopback tests, the `networks --state-dir` runs) run in the plain pass only: under
/// the sanitizer every instruction is several times slower and, on a 2-core machine running the
/// other suites in parallel, a loopback answer can take longer than any deadline a config may
/// set (3 s), so the deadlines, not the code, would fail. Every virtual-time test still runs
/// under the sanitizer.
package enum ThreadSanitizer {
    /// `true` under `swift test --sanitize=thread`.
    package static let isOn: Bool = {
        #if os(Linux)
        return dlsym(nil, "__tsan_init") != nil
        #else
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil
        #endif
    }()
}
