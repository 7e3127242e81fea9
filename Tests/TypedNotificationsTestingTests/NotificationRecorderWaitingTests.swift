import Foundation
import Testing
import TypedNotificationsTestSupport
import TypedNotificationsTesting

@testable import TypedNotifications

@Suite struct NotificationRecorderWaitingTests {
    // MARK: - next()

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextReturnsRecordedPayloadsOldestFirst() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        Saved(id: 2).post(in: center)
        #expect(try await recorder.next() == Saved(id: 1))
        #expect(try await recorder.next() == Saved(id: 2))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextWaitsForAPostMadeOnAnotherThread() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        async let next = recorder.next(timeout: .safetyNet)
        await recorder.untilWaiting(1)
        DispatchQueue.global().async { Saved(id: 7).post(in: center) }
        #expect(try await next == Saved(id: 7))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func waitingNextCallsAreServedInTheOrderTheyBegan() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let first = Task { try await recorder.next(timeout: .safetyNet) }
        await recorder.untilWaiting(1)
        let second = Task { try await recorder.next(timeout: .safetyNet) }
        await recorder.untilWaiting(2)
        Saved(id: 1).post(in: center)
        Saved(id: 2).post(in: center)
        #expect(try await first.value == Saved(id: 1))
        #expect(try await second.value == Saved(id: 2))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextRacingWithPostsNeverLosesOrRepeatsAPayload() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let rounds = 300
        DispatchQueue.global().async {
            for id in 0..<rounds { Saved(id: id).post(in: center) }
        }
        var received: [Int] = []
        for _ in 0..<rounds {
            received.append(try await recorder.next(timeout: .safetyNet).id)
        }
        #expect(received == Array(0..<rounds))
    }

    // MARK: - Cancellation

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func cancellingTheWaitingTaskThrowsCancellationError() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let waiting = Task { try await recorder.next(timeout: .safetyNet) }
        await recorder.untilWaiting(1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }

        // The cancelled wait consumed nothing: the next post goes to the next call.
        Saved(id: 1).post(in: center)
        #expect(try await recorder.next() == Saved(id: 1))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aCancelledTaskGetsRecordedPayloadsButDoesNotWait() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        let outcome = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            let recorded = try await recorder.next()
            await #expect(throws: CancellationError.self) { try await recorder.next(timeout: .safetyNet) }
            await #expect(throws: CancellationError.self) {
                try await recorder.waitForCount(2, timeout: .safetyNet)
            }
            return recorded
        }
        #expect(try await outcome.value == Saved(id: 1))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func cancellingTheRecorderEndsWaitsWithADescriptiveError() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        let waiting = Task { try await recorder.waitForCount(2, timeout: .safetyNet) }
        await recorder.untilWaiting(1)
        recorder.cancel()

        let error = try await #require(throws: NotificationWaitError.self) { try await waiting.value }
        #expect(error.reason == .recorderCancelled)
        #expect(error.expectedCount == 2)
        #expect(error.postedCount == 1)
        #expect(
            error.description
                == "The recorder was cancelled while waiting for 2 posts of Saved; 1 was posted: Saved(id: 1)"
        )
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aCancelledRecorderStillReturnsWhatItRecorded() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        recorder.cancel()
        #expect(try await recorder.next() == Saved(id: 1))
        let error = try await #require(throws: NotificationWaitError.self) { try await recorder.next() }
        #expect(error.reason == .recorderCancelled)
        #expect(error.expectedCount == 2)
    }

    // MARK: - Timeouts

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextTimesOutWithAMessageNamingTheTypeAndThePosts() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        Saved(id: 2).post(in: center)
        _ = try await recorder.next()
        _ = try await recorder.next()

        let error = try await #require(throws: NotificationWaitError.self) {
            try await recorder.next(timeout: .milliseconds(20))
        }
        #expect(error.reason == .timedOut(seconds: 0.02))
        #expect(error.expectedCount == 3)
        #expect(error.postedCount == 2)
        #expect(
            error.description
                == "Timed out after 0.02 seconds waiting for post 3 of Saved in next(); "
                + "2 were posted: Saved(id: 1), Saved(id: 2)"
        )
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func waitForCountTimesOutWithAMessageNamingTheTypeAndThePosts() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Refreshed.self, in: center)
        Refreshed.post((), in: center)
        let error = try await #require(throws: NotificationWaitError.self) {
            try await recorder.waitForCount(3, timeout: .milliseconds(20))
        }
        #expect(error.description == "Timed out after 0.02 seconds waiting for 3 posts of Refreshed; 1 was posted")
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func timeoutMessagesMentionTheSenderAndWhatElseWasPosted() async throws {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let recorder = NotificationRecorder(ReadingTaken.self, from: kitchen, in: center)
        ReadingTaken.post(Celsius(value: 9), from: Thermometer(), in: center)
        let error = try await #require(throws: NotificationWaitError.self) {
            try await recorder.next(timeout: .milliseconds(20))
        }
        #expect(
            error.description
                == "Timed out after 0.02 seconds waiting for post 1 of ReadingTaken from the given sender in next(); "
                + "none was posted; 1 post from other senders was ignored: 9.0 °C"
        )
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aTimedOutWaitConsumesNothing() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        await #expect(throws: NotificationWaitError.self) { try await recorder.next(timeout: .zero) }
        Saved(id: 1).post(in: center)
        #expect(try await recorder.next(timeout: .zero) == Saved(id: 1))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aWaitThatSucceedsDoesNotWaitOutItsTimeout() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let clock = ContinuousClock()
        let start = clock.now
        async let next = recorder.next(timeout: .seconds(60))
        await recorder.untilWaiting(1)
        Saved(id: 1).post(in: center)
        #expect(try await next == Saved(id: 1))
        // Far below the timeout: the timer is cancelled as soon as the post arrives.
        #expect(clock.now - start < .seconds(30))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func failureMessagesDescribePayloadsOutsideTheRecordersLock() async throws {
        // Describing a payload runs user code, which must never run under one of the package's locks.
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Described.self, in: center)
        let locksHeld = Recorded<Int>()
        Described(locksHeldWhenDescribed: locksHeld).post(in: center)

        let timedOut = try await #require(throws: NotificationWaitError.self) {
            try await recorder.waitForCount(2, timeout: .milliseconds(1))
        }
        #expect(timedOut.description.hasSuffix("1 was posted: Described"))

        let waiting = Task { try await recorder.waitForCount(2, timeout: .safetyNet) }
        await recorder.untilWaiting(1)
        recorder.cancel()
        let cancelled = try await #require(throws: NotificationWaitError.self) { try await waiting.value }
        #expect(cancelled.description.hasSuffix("1 was posted: Described"))

        #expect(locksHeld.values == [0, 0])
    }

    // MARK: - Timeouts racing the wait

    /// How many times the racing tests below try; each try is bounded by ``finishes(within:_:)``.
    private static let racingTries = 2_000

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1)), arguments: [Duration.zero, .nanoseconds(1)])
    func aTinyTimeoutEndsTheWaitWhicheverComesFirst(timeout: Duration) async throws {
        // The timer may fire before the wait is set up, or after; on a busy pool, either is common. Both must end the
        // wait with the timeout error.
        try await withBusyCooperativePool(tasks: 4) {
            for attempt in 0..<Self.racingTries {
                // Locked: written by the guarded task, read here once `finishes` returns.
                let outcome = Locked<Result<[Saved], any Error>?>(nil)
                let finished = await finishes(within: 10) {
                    let recorder = NotificationRecorder(Saved.self, in: NotificationCenter())
                    let result: Result<[Saved], any Error>
                    do {
                        result = .success(
                            attempt.isMultiple(of: 2)
                                ? [try await recorder.next(timeout: timeout)]
                                : try await recorder.waitForCount(1, timeout: timeout)
                        )
                    } catch {
                        result = .failure(error)
                    }
                    outcome.withLock { $0 = result }
                }
                guard finished else {
                    Issue.record("try \(attempt): a wait with a timeout of \(timeout) was still waiting after 10 s")
                    return
                }
                let result = outcome.withLock { $0 }
                let error = try #require(throws: NotificationWaitError.self, "try \(attempt)") { try result?.get() }
                #expect(error.reason == .timedOut(seconds: Double(timeout.components.attoseconds) / 1e18))
                #expect(error.expectedCount == 1)
                #expect(error.postedCount == 0)
            }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsRacingTinyTimeoutsAreNeverLostOrRepeated() async throws {
        // Each `next` either takes the oldest unreturned payload or times out having consumed nothing.
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let posts = Self.racingTries
        DispatchQueue.global().async {
            for id in 0..<posts { Saved(id: id).post(in: center) }
        }
        var received: [Int] = []
        var timeouts = 0
        try await withBusyCooperativePool(tasks: 4) {
            while received.count < posts, timeouts < 100 * posts {
                do {
                    received.append(try await recorder.next(timeout: .nanoseconds(1)).id)
                } catch let error as NotificationWaitError {
                    #expect(error.expectedCount == received.count + 1)
                    timeouts += 1
                }
            }
        }
        #expect(received == Array(0..<posts))
    }

    // MARK: - Cancellation racing the wait

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func cancellingAtAnyMomentEndsTheWaitWithCancellationError() async {
        // The task is cancelled before the wait begins, while it is being set up, or once it is suspended.
        await withBusyCooperativePool(tasks: 4) {
            for attempt in 0..<Self.racingTries {
                let recorder = NotificationRecorder(Saved.self, in: NotificationCenter())
                let waiting = Task {
                    if attempt.isMultiple(of: 2) {
                        _ = try await recorder.next(timeout: .safetyNet)
                    } else {
                        _ = try await recorder.waitForCount(1, timeout: .safetyNet)
                    }
                }
                for _ in 0..<(attempt % 5) { await Task.yield() }
                waiting.cancel()
                let finished = await finishes(within: 10) {
                    let result = await waiting.result
                    #expect(throws: CancellationError.self, "try \(attempt)") { try result.get() }
                }
                guard finished else {
                    Issue.record("try \(attempt): a cancelled wait was still waiting after 10 s")
                    return
                }
                #expect(recorder.isWaitingForNothing, "try \(attempt): the cancelled wait was left registered")
            }
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func cancellingAWaitWithoutATimeoutEndsIt() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let waiting = Task { try await recorder.waitForCount(1) }
        await recorder.untilWaiting(1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(recorder.isWaitingForNothing)
    }

    // MARK: - waitForCount(_:)

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func waitForCountReturnsAtOnceWhenEnoughWereRecorded() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        #expect(try await recorder.waitForCount(0).isEmpty)
        Store(center: center).save([1, 2, 3])
        #expect(try await recorder.waitForCount(2).map(\.id) == [1, 2, 3])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func waitForCountWaitsForPostsFromTheBackground() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Store(center: center).saveInBackground([1, 2, 3])
        let saved = try await recorder.waitForCount(3, timeout: .safetyNet)
        #expect(saved.map(\.id) == [1, 2, 3])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func waitForCountLeavesNextUntouched() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        async let all = recorder.waitForCount(2, timeout: .safetyNet)
        await recorder.untilWaiting(1)
        Saved(id: 1).post(in: center)
        Saved(id: 2).post(in: center)
        #expect(try await all.count == 2)
        #expect(try await recorder.next() == Saved(id: 1))
    }
}

/// A payload that notes, each time it is described, how many of the package's locks the describing thread holds.
private struct Described: Notifiable, CustomStringConvertible {
    let locksHeldWhenDescribed: Recorded<Int>

    var description: String {
        locksHeldWhenDescribed.append(LockDiscipline.locksHeld)
        return "Described"
    }
}
