import Foundation
import TypedNotificationsTestSupport

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// How much work the reliability tests do, read once from the environment.
///
/// | variable | effect |
/// |---|---|
/// | `TYPED_NOTIFICATIONS_LONG=1` | the opt-in long run: many more random sequences, threads' operations and cycles |
/// | `TYPED_NOTIFICATIONS_SEED=<n>` | replays one model-based sequence (decimal or `0x` hex), as printed on failure |
/// | `TYPED_NOTIFICATIONS_TRACE=1` | with a seed: prints every step of the replayed sequence |
/// | `TYPED_NOTIFICATIONS_SANITIZER=1` | scales the work down as under a sanitizer (also detected automatically) |
enum TestEnvironment {
    static let isLongRun = flag("TYPED_NOTIFICATIONS_LONG")

    static var replaySeed: UInt64? { TestSeed.replayed }

    static let tracesReplay = flag("TYPED_NOTIFICATIONS_TRACE")

    /// Whether ThreadSanitizer or AddressSanitizer instruments this process (they slow it down 5-20 times).
    static let isSanitized = flag("TYPED_NOTIFICATIONS_SANITIZER") || isThreadSanitized || isAddressSanitized

    static let isThreadSanitized = hasSymbol("__tsan_init")

    /// AddressSanitizer keeps freed memory in quarantine, so addresses are not reused soon and `malloc` statistics
    /// describe glibc's heap, which it does not use.
    static let isAddressSanitized = hasSymbol("__asan_init")

    /// The seed of this run: the replayed one, or a fresh one (printed with every failure).
    static var runSeed: UInt64 { TestSeed.run }

    /// `normal` in a plain debug run, `long` in the opt-in long run, `sanitized` under a sanitizer (long or not).
    static func scaled(normal: Int, long: Int, sanitized: Int) -> Int {
        if isSanitized { return isLongRun ? max(sanitized, long / 10) : sanitized }
        return isLongRun ? long : normal
    }

    /// The command that replays `seed`, for failure messages.
    static func replayHint(seed: UInt64, test: String) -> String {
        TestSeed.replayHint(seed: seed, test: test)
    }

    static func hex(_ seed: UInt64) -> String {
        TestSeed.hex(seed)
    }

    private static func flag(_ name: String) -> Bool {
        guard let value = ProcessInfo.processInfo.environment[name] else { return false }
        return !["", "0", "false", "no"].contains(value.lowercased())
    }

    private static func hasSymbol(_ name: String) -> Bool {
        #if canImport(Darwin) || canImport(Glibc)
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, name) != nil
        #else
        return false
        #endif
    }
}
