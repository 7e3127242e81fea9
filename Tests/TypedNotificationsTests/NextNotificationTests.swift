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
            } catch let error as NextNotificationError {
                #expect(error.reason == .timedOut(seconds: 0.0005))
            }
        }
    }

    @Test func aWaitCancelledBeforeTheCallThrowsCancellationError() async {
        let center = NotificationCenter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await Burst.next(in: center, timeout: 60) {}
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
        await expectWaitEnds(.timedOut(seconds: 0.01)) {
            try await upcoming.next(where: .matching { _ in false }, timeout: 0.01)
        }
        await expectWaitEnds(.observationEnded) { try await upcoming.next(timeout: 5) }
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

// MARK: - Waiting for what work posts

extension NextNotificationTests {
    /// The ways work can post: on the waiting task, in a task it starts, in a detached task, on a queue.
    private static func start(_ round: Int, in center: NotificationCenter) {
        let post: @Sendable () -> Void = {
            Burst(n: -1).post(in: center)  // rejected by the condition
            Burst(n: round).post(in: center)
        }
        switch round % 4 {
        case 0: post()
        case 1: Task { post() }
        case 2: Task.detached { post() }
        default: DispatchQueue.global().async { post() }
        }
    }

    @Test func theWaitGetsThePostItsWorkCausesInEveryOneOfAThousandRuns() async throws {
        var received = 0
        for round in 0..<1_000 {
            let center = NotificationCenter()
            // A bound against a lost post only: under a sanitizer on 2 cores the round's post from a task or a global
            // queue has waited over a minute for a thread while the model-based tests held the cooperative pool.
            let burst = try await Burst.next(in: center, where: .matching { $0.n >= 0 }, timeout: 300) {
                Self.start(round, in: center)
            }
            if burst.n == round { received += 1 }
        }
        #expect(received == 1_000)
    }

    @Test @MainActor func theWorkRunsOnceObservationHasBegunInTheCallersIsolation() async throws {
        let center = NotificationCenter()
        var observedDuringWork = 0
        let burst = try await Burst.next(in: center, timeout: 60) {
            MainActor.assertIsolated()
            observedDuringWork = center.typedObservations.count
            Burst(n: 1).post(in: center)
        }
        #expect(burst == Burst(n: 1))
        #expect(observedDuringWork == 1)
        #expect(center.typedObservations.isEmpty, "the wait ended its observation")
    }

    struct WorkFailed: Error {}

    @Test func workThatThrowsEndsTheObservationAndTheCallRethrows() async {
        let center = NotificationCenter()
        await #expect(throws: WorkFailed.self) {
            try await Burst.next(in: center, timeout: 60) { throw WorkFailed() }
        }
        #expect(center.typedObservations.isEmpty)
    }

    @Test func postsMadeDuringTheWorkAreExaminedEvenWithAPassedLimit() async throws {
        let center = NotificationCenter()
        let burst = try await Burst.next(in: center, where: .matching { $0.n == 2 }, timeout: 0) {
            for n in 1...3 { Burst(n: n).post(in: center) }
        }
        #expect(burst == Burst(n: 2))
    }

    // MARK: - What the error says

    @Test func aTimeoutNamesTheTypeTheLimitAndTheLastPostTheConditionRejected() async throws {
        let center = NotificationCenter()
        let error = try #require(
            await expectWaitEnds(.timedOut(seconds: 0.01)) {
                try await Burst.next(in: center, where: .matching { $0.n > 10 }, timeout: 0.01) {
                    for n in 1...3 { Burst(n: n).post(in: center) }
                }
            })
        #expect(error.waitedFor == "Burst")
        #expect(error.hasCondition)
        #expect(error.rejectedCount == 3)
        #expect(error.lastRejected == "Burst(n: 3)")
        let expected =
            "Timed out after 0.01 seconds waiting for the next Burst matching the condition; 3 posts did not match, "
            + "the last: Burst(n: 3)"
        #expect(error.description == expected)
        #expect((error as any Error).localizedDescription == expected)
    }

    @Test func aTimeoutWithoutAConditionSaysNothingWasPosted() async throws {
        let center = NotificationCenter()
        let thermometer = Thermometer()
        let error = try #require(
            await expectWaitEnds(.timedOut(seconds: 0)) {
                try await Burst.next(from: thermometer, in: center, timeout: 0) { Burst(n: 1).post(in: center) }
            })
        #expect(error.rejectedCount == 0)
        #expect(error.lastRejected == nil)
        #expect(
            error.description
                == "Timed out after 0.0 seconds waiting for the next Burst from the given sender; none was posted")
    }

    @Test func aLongRejectedPostIsDescribedBriefly() async throws {
        let center = NotificationCenter()
        let changes = UserDidLogIn.notifications(in: center)
        UserDidLogIn.post(User(name: String(repeating: "a", count: 500)), in: center)
        let error = try #require(
            await expectWaitEnds(.timedOut(seconds: 0)) {
                try await changes.next(where: .matching { $0.name.isEmpty }, timeout: 0)
            })
        let described = try #require(error.lastRejected)
        #expect(described.count == 120)
        #expect(described.hasPrefix("User(name: \"aaa"))
        #expect(described.hasSuffix("…"))
    }

    @Test func anEndedObservationSaysSoAndNamesTheType() async throws {
        let center = NotificationCenter()
        let changes = Burst.notifications(in: center)
        Burst(n: 1).post(in: center)
        await expectWaitEnds(.timedOut(seconds: 0)) { try await changes.next(where: .equals(Burst(n: 2)), timeout: 0) }
        let error = try #require(await expectWaitEnds(.observationEnded) { try await changes.next(timeout: 60) })
        #expect(error.description.hasPrefix("The observation ended"))
        #expect(error.description.contains("waiting for the next Burst; none was posted"))
    }
}
