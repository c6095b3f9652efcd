import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether this test process runs under the thread sanitizer (`swift test --sanitize=thread`),
/// found by looking up the sanitizer runtime's entry point.
///
/// The suites that race real HTTP round trips on the wall clock against deadlines of 800 ms to
/// 3 s (the hostile-network scenarios, the Elo loopback tests) run in the plain pass only: under
/// the sanitizer every instruction is several times slower and, on a 2-core machine running the
/// other suites in parallel, a loopback answer can take longer than any deadline a config may
/// set (3 s), so the deadlines, not the code, would fail. Every virtual-time test still runs
/// under the sanitizer.
enum ThreadSanitizer {
    static let isOn: Bool = {
        #if os(Linux)
        return dlsym(nil, "__tsan_init") != nil
        #else
        return dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil
        #endif
    }()
}
