import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Waiting for the next notification: conditions, time limits, cancellation, and sequences released while a wait is
/// under way.
@Suite struct NextNotificationTests {
    @Test func aTimeoutRacingAMatchingPostEitherReturnsItOrTimesOut() async throws {
        for round in 0..<200 {
            let center = NotificationCenter()
            let upcoming = Burst.notifications(in: center)
            let poster = Thread { Burst(n: round).post(in: center) }
            poster.start()
            do {
                let value = try await upcoming.next(where: .matching { $0.n == round }, timeout: 0.0005)
                #expect(value.n == round)
            } catch NextNotificationError.timedOut(let seconds) {
                #expect(seconds == 0.0005)
            }
        }
    }

    @Test func aWaitCancelledBeforeTheCallThrowsCancellationError() async {
        let center = NotificationCenter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Burst.next(in: center, timeout: 60)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aSequenceReleasedBeforeItsTwoStepWaitIsAwaitedStillDelivers() async throws {
        let center = NotificationCenter()
        let waiting: Task<Burst, any Error>
        do {
            let upcoming = Burst.notifications(in: center)
            waiting = Task { try await upcoming.next(timeout: 60) }
        }
        Burst(n: 7).post(in: center)
        #expect(try await waiting.value == Burst(n: 7))
    }

    @Test func aConditionRejectingEverythingTimesOutAndEndsTheSequence() async {
        let center = NotificationCenter()
        let upcoming = Burst.notifications(in: center)
        Burst(n: 1).post(in: center)
        await #expect(throws: NextNotificationError.timedOut(seconds: 0.01)) {
            try await upcoming.next(where: .matching { _ in false }, timeout: 0.01)
        }
        await #expect(throws: NextNotificationError.observationEnded) { try await upcoming.next(timeout: 5) }
        #expect(center.typedObservations.isEmpty)
    }
}

extension NextNotificationTests {
    @Test func aWaitWhoseSequenceIsReleasedFirstStillReturnsWhatWasBuffered() async throws {
        let center = NotificationCenter()
        var changes: NotificationSequence<CounterDidChange>? = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 4).post(in: center)
        let kept = changes!
        changes = nil
        #expect(try await kept.next(timeout: 60) == CounterDidChange(count: 4))
    }
}
