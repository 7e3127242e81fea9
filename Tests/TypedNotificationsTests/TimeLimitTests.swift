import Dispatch
import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Every time limit a wait accepts: zero and below, NaN, tiny, huge and infinite ones.
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
