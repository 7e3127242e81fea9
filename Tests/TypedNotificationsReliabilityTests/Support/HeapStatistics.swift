import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
import TypedNotificationsTestSupport
#endif

/// How many bytes the process has allocated with `malloc` and not freed: glibc's `mallinfo2().uordblks`, or on Apple
/// platforms the malloc zones' `size_in_use` (`malloc_zone_statistics`).
///
/// Swift's `Glibc` module does not import `<malloc.h>`, so `mallinfo2` is looked up with `dlsym` and called through
/// the x86-64 System V convention for a function returning a large structure: the caller passes the address of the
/// result as a hidden first argument. Elsewhere (other architectures, other C libraries) the function returns
/// `nil` and the caller falls back to ``residentBytes()``.
///
/// Under AddressSanitizer or ThreadSanitizer, `malloc` is the sanitizer's, and glibc's statistics say nothing.
enum HeapStatistics {
    /// What ``measuredBytes()`` measures, and the growth a leak test may allow over its cycles.
    enum Measure: String {
        /// `mallinfo2().uordblks`: exact to the byte, so a small bound.
        case allocatedBytes
        /// The resident set size: whole pages, and freed memory is not always returned, so a larger bound.
        case residentBytes

        var allowedGrowth: Int { self == .allocatedBytes ? 1 << 20 : 8 << 20 }
    }

    /// The best available measure of this process's memory, or `nil` under a sanitizer or without either source.
    static func measuredBytes() -> (bytes: Int, measure: Measure)? {
        guard !TestEnvironment.isSanitized else { return nil }
        if let bytes = allocatedBytes() { return (bytes, .allocatedBytes) }
        if let bytes = residentBytes() { return (bytes, .residentBytes) }
        return nil
    }

    static func allocatedBytes() -> Int? {
        #if canImport(Darwin)
        guard !TestEnvironment.isSanitized else { return nil }
        var statistics = malloc_statistics_t()
        malloc_zone_statistics(nil, &statistics)  // nil: all zones
        return Int(statistics.size_in_use)
        #elseif canImport(Glibc) && arch(x86_64)
        guard !TestEnvironment.isSanitized, let mallinfo2 else { return nil }
        // struct mallinfo2 { size_t arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks,
        //                    keepcost; }
        var fields = [Int](repeating: 0, count: 10)
        fields.withUnsafeMutableBytes { buffer in _ = mallinfo2(buffer.baseAddress!) }
        return fields[7]
        #else
        return nil
        #endif
    }

    /// The resident set size, from `/proc/self/statm`; coarse (whole pages, and freed memory is not always returned
    /// to the system), but available wherever `/proc` is.
    static func residentBytes() -> Int? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    #if canImport(Glibc) && arch(x86_64)
    private typealias MallInfo2 = @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?

    private static let mallinfo2: MallInfo2? = {
        guard let process = dlopen(nil, RTLD_NOW) else { return nil }
        defer { dlclose(process) }
        return dlsym(process, "mallinfo2").map { unsafeBitCast($0, to: MallInfo2.self) }
    }()
    #endif
}
