import Dispatch
import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Every time limit a wait accepts: zero and below, NaN, tiny, huge and infinite ones; and the one clock that every
/// limit and timer of the package measures.
@Suite struct TimeLimitTests {
    /// Limits that have passed before the wait begins.
    static let passedLimits: [TimeInterval] = [0, -0.0, -1, -.infinity, -.greatestFiniteMagnitude, .nan]

    /// Limits no test could wait out: no limit, in practice.
    static let hugeLimits: [TimeInterval] = [
        .infinity, .greatestFiniteMagnitude, 1e300, 18_446_744_073.709_551_617, Double(UInt64.max), 1e12,
    ]

    // MARK: - Zero, negative and NaN limits

    @Test(arguments: passedLimits)
    func aLimitAtOrBelowZeroOrNaNThrowsTimedOutZeroAtOnce(limit: TimeInterval) async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        let error = await expectWaitEnds(.timedOut(seconds: 0)) { try await changes.next(timeout: limit) }
        #expect(error == error)
        // The wait ended the sequence, as any time limit does, and with it the observation.
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        await expectWaitEnds(.observationEnded) { try await changes.next() }
    }

    @Test(arguments: passedLimits)
    func aTypeWideWaitWithAPassedLimitThrowsTimedOutZeroAtOnce(limit: TimeInterval) async {
        let center = NotificationCenter()
        await expectWaitEnds(.timedOut(seconds: 0)) {
            try await CounterDidChange.next(in: center, timeout: limit) {}
        }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test(arguments: passedLimits)
    func aPassedLimitStillReturnsAPayloadAlreadyBuffered(limit: TimeInterval) async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        CounterDidChange(count: 3).post(in: center)
        #expect(try await changes.next(where: .matching { $0.count > 1 }, timeout: limit) == CounterDidChange(count: 2))
        // The limit has passed, so the sequence ended; what it had buffered is still handed out, then it times out.
        CounterDidChange(count: 4).post(in: center)
        #expect(try await changes.next(timeout: limit) == CounterDidChange(count: 3))
        await expectWaitEnds(.timedOut(seconds: 0)) { try await changes.next(timeout: limit) }
        await expectWaitEnds(.observationEnded) { try await changes.next(timeout: 60) }
    }

    @Test(arguments: passedLimits)
    func aPassedLimitThrowsWhenTheConditionRejectsEverythingBuffered(limit: TimeInterval) async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 1).post(in: center)
        await expectWaitEnds(.timedOut(seconds: 0)) {
            try await changes.next(where: .matching { $0.count > 1 }, timeout: limit)
        }
    }

    @Test(arguments: passedLimits)
    func aPassedLimitReturnsTheLatestValueOfALatestValueType(limit: TimeInterval) async throws {
        let center = NotificationCenter()
        LimitLevel(value: 5).post(in: center)
        #expect(try await LimitLevel.next(in: center, timeout: limit) {} == LimitLevel(value: 5))
        await expectWaitEnds(.timedOut(seconds: 0)) {
            try await LimitLevel.next(in: center, where: .matching { $0.value > 5 }, timeout: limit) {}
        }
    }

    @Test func aLimitShorterThanANanosecondHasPassedAndIsReportedAsGiven() async {
        let center = NotificationCenter()
        await expectWaitEnds(.timedOut(seconds: 1e-10)) {
            try await CounterDidChange.next(in: center, timeout: 1e-10) {}
        }
    }

    // MARK: - Huge and infinite limits

    @Test(arguments: hugeLimits)
    func aHugeOrInfiniteLimitWaitsForAPostMadeLater(limit: TimeInterval) async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        let waiting = Task { try await changes.next(timeout: limit) }
        // Posted from another thread once the wait has been scheduled and a round trip through Dispatch has passed:
        // a limit that wrapped to a few nanoseconds would have ended the wait by then.
        await Task.yield()
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
        DispatchQueue.global().async { CounterDidChange(count: 1).post(in: center) }
        #expect(try await waiting.value == CounterDidChange(count: 1))
    }

    // MARK: - Every limit and window lasts at least as long as it says

    /// The limit of the tests below, in seconds: long against a timer's jitter, short for the suite.
    static let measuredLimit: TimeInterval = 0.3

    /// A debounce's pause and a trailing throttle's window, each as long as ``measuredLimit``.
    static let windows: [NotificationCoalescing<Tracked>] = [
        .afterPause(measuredLimit), .within(measuredLimit).trailingOnly,
    ]

    /// Nanoseconds since `start`, a reading of Dispatch's uptime clock.
    static func nanoseconds(since start: UInt64) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds - start
    }

    @Test func aSequencesWaitTimesOutNoSoonerThanItsLimit() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        let start = DispatchTime.now().uptimeNanoseconds
        await expectWaitEnds(.timedOut(seconds: Self.measuredLimit)) {
            try await changes.next(timeout: Self.measuredLimit)
        }
        #expect(Self.nanoseconds(since: start) >= TimeLimit(seconds: Self.measuredLimit).nanoseconds)
    }

    @Test func aTypeWideWaitTimesOutNoSoonerThanItsLimit() async {
        let center = NotificationCenter()
        let start = DispatchTime.now().uptimeNanoseconds
        await expectWaitEnds(.timedOut(seconds: Self.measuredLimit)) {
            try await CounterDidChange.next(in: center, timeout: Self.measuredLimit) {}
        }
        #expect(Self.nanoseconds(since: start) >= TimeLimit(seconds: Self.measuredLimit).nanoseconds)
    }

    /// A debounce's pause and a trailing throttle's window, each begun by one post: delivered once it has passed.
    @Test(arguments: windows)
    func anObserversCoalescingWindowEndsNoSoonerThanItsLimit(coalescing: NotificationCoalescing<Tracked>) async {
        let center = NotificationCenter()
        let delivered = Signal()
        let elapsed = Recorded<UInt64>()
        let start = DispatchTime.now().uptimeNanoseconds
        let token = Tracked.observe(in: center, coalescing: coalescing) { _ in
            elapsed.append(Self.nanoseconds(since: start))
            delivered.fire()
        }
        Tracked(1).post(in: center)
        #expect(await finishes(within: 30) { await delivered.wait() })
        #expect(elapsed.count == 1)
        #expect((elapsed.values.first ?? 0) >= TimeLimit(seconds: Self.measuredLimit).nanoseconds)
        token.cancel()
    }

    @Test(arguments: windows)
    func aPostersCoalescingWindowEndsNoSoonerThanItsLimit(coalescing: NotificationCoalescing<Tracked>) async {
        let center = NotificationCenter()
        let delivered = Signal()
        let elapsed = Recorded<UInt64>()
        let start = DispatchTime.now().uptimeNanoseconds
        let token = Tracked.observe(in: center) { _ in
            elapsed.append(Self.nanoseconds(since: start))
            delivered.fire()
        }
        Tracked(1).post(in: center, coalescing: coalescing)
        #expect(await finishes(within: 30) { await delivered.wait() })
        #expect(elapsed.count == 1)
        #expect((elapsed.values.first ?? 0) >= TimeLimit(seconds: Self.measuredLimit).nanoseconds)
        token.cancel()
    }

    // MARK: - The clock

    /// Every limit and timer reads one clock, Dispatch's uptime clock (see ``TimeLimit``).
    @Test func theClockIsDispatchsUptimeClock() {
        let before = DispatchTime.now().uptimeNanoseconds
        let reading = TimeLimit.now()
        let after = DispatchTime.now().uptimeNanoseconds
        #expect(before <= reading)
        #expect(reading <= after)
    }

    @Test func theTimeSinceAReadingIsNeverNegative() {
        let reading = TimeLimit.now()
        #expect(TimeLimit.nanoseconds(since: reading + 3_600_000_000_000) == 0)
        let later = TimeLimit.now()
        #expect(later >= reading)
        #expect(TimeLimit.nanoseconds(since: reading) >= later - reading)
    }

    @Test(arguments: [1e-9, 0.5, 0.500_000_001, 1, 1.999_999_999, 3600, 86_400 * 365 * 100] as [TimeInterval])
    func aDeadlineIsNeverSoonerThanTheReadingPlusTheLimit(limit: TimeInterval) {
        let converted = TimeLimit(seconds: limit)
        let reading = TimeLimit.now()
        #expect(converted.dispatchDeadline(after: reading).uptimeNanoseconds >= reading + converted.nanoseconds)
        let beforeNow = TimeLimit.now()
        #expect(converted.dispatchDeadline.uptimeNanoseconds >= beforeNow + converted.nanoseconds)
    }

    /// A deadline at the end of Dispatch's range (2^62 - 1 ns) or past it never comes; one past 64 bits does not wrap
    /// into the past.
    @Test(arguments: hugeLimits)
    func aHugeLimitsDeadlineIsTheDistantFuture(limit: TimeInterval) {
        let converted = TimeLimit(seconds: limit)
        #expect(converted.dispatchDeadline == .distantFuture)
        #expect(converted.dispatchDeadline(after: 0) == .distantFuture)
        #expect(TimeLimit(seconds: 1).dispatchDeadline(after: UInt64.max - 1) == .distantFuture)
        #expect(TimeLimit(seconds: 1).dispatchDeadline(after: (1 << 62) - 1_000_000_001) == .distantFuture)
        #expect(TimeLimit(seconds: 1).dispatchDeadline(after: (1 << 62) - 1_000_000_002) != .distantFuture)
    }

    @Test func aSleepLastsAtLeastItsLimit() async throws {
        let start = DispatchTime.now().uptimeNanoseconds
        try await TimeLimit(seconds: Self.measuredLimit).sleep()
        #expect(Self.nanoseconds(since: start) >= TimeLimit(seconds: Self.measuredLimit).nanoseconds)
    }

    /// A limit that has passed sleeps not at all: it returns (else this test would hang until its time limit).
    @Test(.timeLimit(.minutes(1)), arguments: passedLimits + [1e-10])
    func aSleepWithAPassedLimitEndsAtOnce(limit: TimeInterval) async throws {
        try await TimeLimit(seconds: limit).sleep()
    }

    @Test(.timeLimit(.minutes(1)), arguments: [0, measuredLimit, .infinity] as [TimeInterval])
    func aSleepInACancelledTaskThrowsCancellationError(limit: TimeInterval) async {
        let sleeping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await TimeLimit(seconds: limit).sleep()
        }
        await #expect(throws: CancellationError.self) { try await sleeping.value }
    }

    /// A huge limit does not wrap into a short one: its sleep outlasts a short one, and ends when its task is
    /// cancelled.
    @Test(.timeLimit(.minutes(1))) func aHugeSleepLastsUntilItsTaskIsCancelled() async throws {
        let ended = Counter()
        let sleeping = Task {
            defer { ended.increment() }
            try await TimeLimit(seconds: .infinity).sleep()
        }
        try await TimeLimit(seconds: Self.measuredLimit).sleep()
        #expect(ended.value == 0)
        sleeping.cancel()
        await #expect(throws: CancellationError.self) { try await sleeping.value }
        #expect(ended.value == 1)
    }

    // MARK: - Errors

    @Test func everyTimedOutReasonEqualsItselfAndHashesAlike() {
        let reasons: [NextNotificationError.Reason] = [
            .timedOut(seconds: .nan), .timedOut(seconds: -.nan), .timedOut(seconds: 0), .timedOut(seconds: -0.0),
            .timedOut(seconds: .infinity), .timedOut(seconds: 2), .observationEnded,
        ]
        for reason in reasons {
            #expect(reason == reason, "\(reason)")
        }
        #expect(NextNotificationError.Reason.timedOut(seconds: .nan) == .timedOut(seconds: -.nan))
        #expect(NextNotificationError.Reason.timedOut(seconds: 0) == .timedOut(seconds: -0.0))
        #expect(NextNotificationError.Reason.timedOut(seconds: .nan) != .timedOut(seconds: 0))
        #expect(NextNotificationError.Reason.timedOut(seconds: 2) != .observationEnded)
        #expect(Set(reasons).count == 5)
    }

    // MARK: - The conversion

    @Test(arguments: passedLimits)
    func secondsAtOrBelowZeroOrNaNHavePassedAndReportZero(limit: TimeInterval) {
        let converted = TimeLimit(seconds: limit)
        #expect(converted.hasPassed)
        #expect(converted.seconds == 0)
        #expect(converted.seconds.sign == .plus)
    }

    @Test(arguments: hugeLimits)
    func hugeSecondsSaturateWithoutWrapping(limit: TimeInterval) {
        let converted = TimeLimit(seconds: limit)
        #expect(converted.nanoseconds == TimeLimit.longestNanoseconds)
        #expect(converted.seconds == limit)
        // A deadline more than a century ahead, not a wrapped one in the past or the near future.
        let century: UInt64 = 100 * 365 * 24 * 3600 * 1_000_000_000
        #expect(converted.dispatchDeadline.uptimeNanoseconds > DispatchTime.now().uptimeNanoseconds + century)
    }

    @Test func ordinarySecondsConvertToNanoseconds() {
        #expect(TimeLimit(seconds: 0.5).nanoseconds == 500_000_000)
        #expect(TimeLimit(seconds: 0.5).seconds == 0.5)
        #expect(TimeLimit(seconds: 1e-10).hasPassed)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test func durationsConvertWithoutTrappingOrWrapping() {
        let passed: [Duration] = [
            .zero, .milliseconds(-1), .nanoseconds(-1), .seconds(-1), .seconds(Int64.min),
            Duration(secondsComponent: 0, attosecondsComponent: -1),
            Duration(secondsComponent: 0, attosecondsComponent: 1),
        ]
        for duration in passed {
            let converted = TimeLimit(duration)
            #expect(converted.hasPassed, "\(duration)")
            #expect(converted.seconds == 0, "\(duration)")
        }
        #expect(TimeLimit(.milliseconds(20)).nanoseconds == 20_000_000)
        #expect(TimeLimit(.milliseconds(20)).seconds == 0.02)
        #expect(TimeLimit(.nanoseconds(1)).seconds == 1e-9)
        let huge: [Duration] = [
            .seconds(Int64.max),
            // Just past 2^64 ns, and just under 2^64 ns plus the part below a second: wrapped, 1 ns and 0.28 s.
            .seconds(18_446_744_073) + .nanoseconds(709_551_617),
            .seconds(18_446_744_074) - .milliseconds(10),
            .nanoseconds(UInt64.max),
            .seconds(4_611_686_019),
        ]
        for duration in huge {
            let converted = TimeLimit(duration)
            #expect(converted.nanoseconds == TimeLimit.longestNanoseconds, "\(duration)")
            #expect(converted.seconds >= 4.6e9, "\(duration)")
        }
    }
}

/// A latest-value type of this suite's own.
struct LimitLevel: LatestValueNotifiable, Equatable {
    let value: Int
}
