import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTesting

@Suite struct NotificationRecorderWaitingTests {
    // MARK: - next()

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextReturnsRecordedPayloadsOldestFirst() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        center.post(Saved(id: 1))
        center.post(Saved(id: 2))
        #expect(try await recorder.next() == Saved(id: 1))
        #expect(try await recorder.next() == Saved(id: 2))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextWaitsForAPostMadeOnAnotherThread() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        async let next = recorder.next(timeout: .safetyNet)
        await recorder.untilWaiting(1)
        DispatchQueue.global().async { center.post(Saved(id: 7)) }
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
        center.post(Saved(id: 1))
        center.post(Saved(id: 2))
        #expect(try await first.value == Saved(id: 1))
        #expect(try await second.value == Saved(id: 2))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func nextRacingWithPostsNeverLosesOrRepeatsAPayload() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let rounds = 300
        DispatchQueue.global().async {
            for id in 0..<rounds { center.post(Saved(id: id)) }
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
        center.post(Saved(id: 1))
        #expect(try await recorder.next() == Saved(id: 1))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aCancelledTaskGetsRecordedPayloadsButDoesNotWait() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        center.post(Saved(id: 1))
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
        center.post(Saved(id: 1))
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
        center.post(Saved(id: 1))
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
        center.post(Saved(id: 1))
        center.post(Saved(id: 2))
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
        center.post(Refreshed.self)
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
        center.post(ReadingTaken.self, payload: Celsius(value: 9), from: Thermometer())
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
        center.post(Saved(id: 1))
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
        center.post(Saved(id: 1))
        #expect(try await next == Saved(id: 1))
        // Far below the timeout: the timer is cancelled as soon as the post arrives.
        #expect(clock.now - start < .seconds(30))
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
        center.post(Saved(id: 1))
        center.post(Saved(id: 2))
        #expect(try await all.count == 2)
        #expect(try await recorder.next() == Saved(id: 1))
    }
}
