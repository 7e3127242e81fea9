import Dispatch

/// A wait's time limit, normalised so that every value a caller can pass means something, and the package's one
/// clock: the only place that reads the time or starts a timer, for ``NotificationSequence/next(where:timeout:)``,
/// the testing kit's waits, coalescing windows and pauses, and the discarded-token window.
///
/// **The clock** is Dispatch's default one, `DispatchTime`: the uptime clock (`mach_absolute_time` on Apple platforms,
/// `CLOCK_MONOTONIC` on Linux, the clock `SuspendingClock` reads), which does not count while the system sleeps. It is
/// the one clock that every supported system can both read and time a wait on: before iOS 16 / macOS 13 no
/// `ContinuousClock` exists to sleep on, and Dispatch's public API times only the uptime clock or the wall clock,
/// which jumps when the time is set. `Task.sleep(nanoseconds:)` is no fixed clock: the concurrency runtime waits on
/// the uptime clock before Swift 6.2 and on the continuous clock from 6.2 (iOS 26, macOS 26, and Linux toolchains),
/// so waits sleep on a Dispatch timer instead (``sleep()``).
///
/// One kind of limit works in both modules on every supported system: seconds, a `TimeInterval`
/// (``init(seconds:)``). The testing kit also takes a `Duration` (``init(_:)``) where the system has it (macOS 13,
/// iOS 16); the library does not, because each `Duration` form of its waits would be one more public entry point, for
/// what `timeout: 5` already says.
///
/// - At or below zero, and NaN: the limit has passed before the wait begins (``hasPassed``), so the wait takes what is
///   already there and never waits. A NaN limit is a computation gone wrong; ending at once makes it visible, where
///   waiting without a limit could hang a test. So is a positive limit shorter than a nanosecond.
/// - Longer than ``longestNanoseconds`` (about 146 years), `.infinity` included: saturated to it, so that no
///   conversion below can overflow or wrap. In practice such a wait has no limit.
///
/// ``seconds`` is the limit that errors report: the one given, or 0 for a negative or NaN one, so that an error
/// compares equal to itself.
package struct TimeLimit: Sendable, Equatable {
    /// The longest timer started, in nanoseconds: half of `Int64.max`, about 146 years, so that no sum with a reading
    /// of the clock overflows; a deadline that far ahead never comes (``dispatchDeadline``).
    package static let longestNanoseconds = UInt64(Int64.max) / 2

    /// The limit in seconds, as errors report it: the one given, or 0 for a negative or NaN one.
    package let seconds: Double
    /// How long the timer runs: 0 if the limit has passed already, at most ``longestNanoseconds``.
    package let nanoseconds: UInt64

    /// Whether two limits that errors carry are the same, every NaN alike, so that an error made by hand with a NaN
    /// limit still equals itself (a wait reports 0 for one).
    package static func isSame(_ left: Double, _ right: Double) -> Bool {
        left == right || (left.isNaN && right.isNaN)
    }

    /// Hashes a limit that an error carries consistently with ``isSame(_:_:)``: NaNs differ in their bits but must
    /// hash alike; `Double` hashes 0 and -0 alike.
    package static func hash(_ seconds: Double, into hasher: inout Hasher) {
        hasher.combine(seconds.isNaN)
        if !seconds.isNaN { hasher.combine(seconds) }
    }

    /// Whether the limit has passed before the wait begins: it was zero, negative, NaN or under a nanosecond.
    package var hasPassed: Bool { nanoseconds == 0 }

    /// A limit of `seconds`, as ``NotificationSequence/next(where:timeout:)`` and the testing kit's waits take it.
    package init(seconds: Double) {
        // `!(seconds > 0)` is true for NaN as well as for zero and negative limits.
        guard seconds > 0 else {
            self.seconds = 0
            nanoseconds = 0
            return
        }
        self.seconds = seconds
        let longest = Double(Self.longestNanoseconds)
        let requested = seconds * 1e9
        nanoseconds = requested >= longest ? Self.longestNanoseconds : UInt64(requested)
    }

    /// A limit of `duration`, as the testing kit's waits also take it.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    package init(_ duration: Duration) {
        // A negative `Duration` has a negative part (`.milliseconds(-1)` is 0 s and -10^15 attoseconds).
        let (wholeSeconds, attoseconds) = duration.components
        guard wholeSeconds >= 0, attoseconds >= 0, duration > .zero else {
            seconds = 0
            nanoseconds = 0
            return
        }
        let whole = UInt64(wholeSeconds).multipliedReportingOverflow(by: 1_000_000_000)
        let total = whole.partialValue.addingReportingOverflow(UInt64(attoseconds / 1_000_000_000))
        if whole.overflow || total.overflow || total.partialValue > Self.longestNanoseconds {
            nanoseconds = Self.longestNanoseconds
            seconds = Double(wholeSeconds) + Double(attoseconds) / 1e18
        } else {
            nanoseconds = total.partialValue
            // One correctly rounded division, so that `.milliseconds(20)` reports exactly `0.02`.
            seconds = Double(total.partialValue) / 1e9
        }
    }

    // MARK: - The clock

    /// The clock's reading now, in nanoseconds from an unspecified start: only ever compared with another reading,
    /// through ``nanoseconds(since:)``.
    static func now() -> UInt64 {
        DispatchTime.now().uptimeNanoseconds
    }

    /// The nanoseconds the clock has counted since `reading`, one of ``now()``'s; 0 for a reading not in the past.
    static func nanoseconds(since reading: UInt64) -> UInt64 {
        let current = now()
        return current > reading ? current - reading : 0
    }

    /// Where the package's timers fire: a serial queue of its own, which Dispatch runs on a thread it adds when its
    /// global queues' threads are all busy or blocked (a private serial queue overcommits), so that a time limit or a
    /// coalescing window ends on time whatever other work holds the global queues.
    static let timers = DispatchQueue(label: "TypedNotifications.timers")

    /// When a Dispatch timer started now should fire.
    var dispatchDeadline: DispatchTime {
        dispatchDeadline(after: Self.now())
    }

    /// When a Dispatch timer started at `reading` should fire: ``nanoseconds`` later, rounded up to the clock's tick,
    /// never sooner. Dispatch's times end below ``longestNanoseconds`` (2^62 - 1; above, its encoding means other
    /// clocks), so a deadline that reaches that far, as a saturated limit's always does, is `.distantFuture`: a timer
    /// that never fires.
    func dispatchDeadline(after reading: UInt64) -> DispatchTime {
        let (deadline, overflow) = reading.addingReportingOverflow(nanoseconds)
        guard !overflow, deadline < Self.longestNanoseconds else { return .distantFuture }
        return DispatchTime(uptimeNanoseconds: deadline)
    }

    /// Suspends the task for the limit, on a Dispatch timer (see the clock, above); returns at once if the limit has
    /// passed. Throws `CancellationError` if the task is cancelled first, or was already, as `Task.sleep` does: a
    /// stream's iteration ends when its task is cancelled, or when the timer finishes the stream.
    package func sleep() async throws {
        guard !hasPassed else { return try Task.checkCancellation() }
        let (timer, fired) = AsyncStream.makeStream(of: Never.self)
        Self.timers.asyncAfter(deadline: dispatchDeadline) { fired.finish() }
        for await _ in timer {}
        // Kept to here: a timer that never fires (a huge limit's) is dropped by Dispatch at once.
        withExtendedLifetime(fired) {}
        try Task.checkCancellation()
    }
}
