import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

@Suite struct AsyncSequenceTests {
    @Test func postRightAfterMakingTheSequenceIsNeverMissed() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 1).post(in: center)
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == CounterDidChange(count: 1))
    }

    @Test func tenThousandPostsBeforeTheFirstNextAllArriveInOrder() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        for count in 0..<10_000 { CounterDidChange(count: count).post(in: center) }
        var received: [Int] = []
        for await change in changes {
            received.append(change.count)
            if received.count == 10_000 { break }
        }
        #expect(received == Array(0..<10_000))
    }

    @Test func senderFilterAppliesToSequences() async {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        var iterator = Reading.notifications(from: kitchen, in: center).makeAsyncIterator()
        Reading(celsius: 1).post(in: center)
        Reading(celsius: 2).post(from: kitchen, in: center)
        #expect(await iterator.next() == Reading(celsius: 2))
    }

    @Test func boundedPolicyKeepsTheNewest() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center, bufferingPolicy: .bufferingNewest(2))
        for count in 0..<5 { CounterDidChange(count: count).post(in: center) }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.count == 3)
        #expect(await iterator.next()?.count == 4)
    }

    @Test func boundedPolicyKeepsTheOldest() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center, bufferingPolicy: .bufferingOldest(2))
        for count in 0..<5 { CounterDidChange(count: count).post(in: center) }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next()?.count == 0)
        #expect(await iterator.next()?.count == 1)
    }

    // MARK: - When observation ends

    @Test func releasingTheSequenceRemovesTheObserver() {
        let center = NotificationCenter()
        var changes: NotificationSequence<CounterDidChange>? = CounterDidChange.notifications(in: center)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (1, 1))
        changes = nil
        #expect(changes == nil)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func exitingTheLoopRemovesTheObserver() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 1).post(in: center)
        for await _ in changes { break }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        withExtendedLifetime(changes) {}
    }

    @Test func cancellingTheIteratingTaskEndsTheLoopAndRemovesTheObserver() async {
        let center = NotificationCenter()
        let started = Signal()
        let task = Task {
            var received = 0
            let changes = CounterDidChange.notifications(in: center)
            started.fire()
            for await _ in changes { received += 1 }
            return received
        }
        await started.wait()
        task.cancel()
        #expect(await task.value == 0)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    // MARK: - next()

    @Test func nextReturnsTheFirstPayloadPostedAfterTheCall() async throws {
        let center = NotificationCenter()
        UserDidLogIn.post(User(name: "Before"), in: center)
        let user = Task { try await UserDidLogIn.next(in: center) {} }
        // Waits until the task has registered its observer: a condition on the registry, not a timed sleep.
        while ObserverRegistry.shared.registrationCounts(in: center).observers == 0 { await Task.yield() }
        UserDidLogIn.post(User(name: "Ada"), in: center)
        UserDidLogIn.post(User(name: "Grace"), in: center)
        #expect(try await user.value == User(name: "Ada"))
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func nextThrowsCancellationErrorWhenCancelled() async {
        let center = NotificationCenter()
        let waiting = Task { try await CounterDidChange.next(in: center) {} }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func nextSkipsPayloadsTheConditionRejects() async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        for count in 1...4 { CounterDidChange(count: count).post(in: center) }
        #expect(try await changes.next(where: .matching { $0.count.isMultiple(of: 2) }) == CounterDidChange(count: 2))
        // The rejected payload (1) is consumed; the one after the match (3) is still buffered.
        #expect(try await changes.next() == CounterDidChange(count: 3))
    }

    @Test func aWaitSetUpFirstAndAwaitedInAnotherTaskMissesNothing() async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)  // step one: observing from here on
        CounterDidChange(count: 1).post(in: center)  // made before anyone awaits
        CounterDidChange(count: 7).post(in: center)
        let waiter = Task { try await changes.next(where: .equals(CounterDidChange(count: 7)), timeout: 60) }
        #expect(try await waiter.value == CounterDidChange(count: 7))
    }

    @Test func nextWithAConditionOnTheTypeReturnsTheFirstMatchingPost() async throws {
        let center = NotificationCenter()
        let waiter = Task { try await CounterDidChange.next(in: center, where: .matching { $0.count > 2 }) {} }
        while ObserverRegistry.shared.registrationCounts(in: center).observers == 0 { await Task.yield() }
        for count in 1...5 { CounterDidChange(count: count).post(in: center) }
        #expect(try await waiter.value == CounterDidChange(count: 3))
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func nextThrowsTimedOutAtTheTimeLimitAndEndsTheObservation() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        await expectWaitEnds(.timedOut(seconds: 0.01)) {
            try await changes.next(where: .matching { $0.count > 100 }, timeout: 0.01)
        }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        await expectWaitEnds(.observationEnded) { try await changes.next() }
    }

    @Test func aTimeLimitThatHasNotPassedDoesNotKeepTheObservationAfterNextReturns() async throws {
        let center = NotificationCenter()
        let waiter = Task {
            try await CounterDidChange.next(in: center, where: .matching { $0.count == 2 }, timeout: 3_600) {}
        }
        while ObserverRegistry.shared.registrationCounts(in: center).observers == 0 { await Task.yield() }
        CounterDidChange(count: 2).post(in: center)
        #expect(try await waiter.value == CounterDidChange(count: 2))
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func aBufferedPayloadIsReturnedEvenWithAZeroTimeLimit() async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 1).post(in: center)
        #expect(try await changes.next(timeout: 0) == CounterDidChange(count: 1))
    }

    @Test func nextThrowsObservationEndedWhenTheCenterIsDeallocated() async {
        var center: NotificationCenter? = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center!)
        center = nil
        await expectWaitEnds(.observationEnded) { try await changes.next(timeout: 60) }
    }

    @Test func nextWithATimeLimitThrowsCancellationErrorWhenCancelled() async {
        let center = NotificationCenter()
        let waiting = Task { try await CounterDidChange.next(in: center, timeout: 60) {} }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    /// As `Task.sleep` does, a cancelled task does not wait, even for a payload already buffered, and the throw ends
    /// the sequence. As after any end, what was buffered is still handed out, then the sequence is over.
    @Test func aCancelledTaskThrowsAtOnceWhateverIsBufferedAndEndsTheSequence() async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 1).post(in: center)
        let waiting = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await changes.next(timeout: 60)
        }
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        CounterDidChange(count: 2).post(in: center)
        #expect(try await changes.next(timeout: 60) == CounterDidChange(count: 1))
        await expectWaitEnds(.observationEnded) { try await changes.next(timeout: 60) }
    }

    /// An infinite time limit sets a timer that never fires, rather than trapping.
    @Test func anInfiniteTimeLimitWaitsForThePost() async throws {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        let waiting = Task { try await changes.next(timeout: .infinity) }
        CounterDidChange(count: 5).post(in: center)
        #expect(try await waiting.value == CounterDidChange(count: 5))
    }

    @Test func sequenceIsSendableAcrossTasks() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        let consumer = Task { () -> Int? in
            for await change in changes { return change.count }
            return nil
        }
        CounterDidChange(count: 9).post(in: center)
        #expect(await consumer.value == 9)
    }

    // MARK: - After the observation ends

    /// `first(where:)` makes an iterator and drops it, which ends the observation; a later loop over the same sequence
    /// receives what was buffered, then ends, instead of waiting for posts that can no longer arrive.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // the time-limit trait, which turns a hang into a failure
    @Test(.timeLimit(.minutes(1)))
    func loopAfterTheObservationEndedDrainsTheBufferThenEnds() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }
        let first = await changes.first { _ in true }
        #expect(first == CounterDidChange(count: 1))
        CounterDidChange(count: 4).post(in: center)  // after the observation ended: not received
        var rest: [Int] = []
        for await change in changes { rest.append(change.count) }
        #expect(rest == [2, 3])
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // the time-limit trait, which turns a hang into a failure
    @Test(.timeLimit(.minutes(1)))
    func loopAfterReleasingTheFirstIteratorEnds() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)
        do {
            var iterator = changes.makeAsyncIterator()
            CounterDidChange(count: 1).post(in: center)
            #expect(await iterator.next() == CounterDidChange(count: 1))
        }
        var later: [Int] = []
        for await change in changes { later.append(change.count) }
        #expect(later == [])
    }

    #if !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
    @Test func twoTasksWaitingAtOnceTrapWithAClearMessage() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let center = NotificationCenter()
            let changes = CounterDidChange.notifications(in: center)
            let first = Task { for await _ in changes {} }
            let second = Task { for await _ in changes {} }
            _ = await (first.value, second.value)
        }
        let message = result.map { String(decoding: $0.standardErrorContent, as: UTF8.self) } ?? ""
        #expect(message.contains("is iterated by two tasks at once; make one sequence per task"))
    }
    #endif
}

extension AsyncSequenceTests {
    struct Numbered: Notifiable, Equatable {
        let id: Int
    }

    @Test func sequenceOfADeallocatedCenterEnds() async {
        var center: NotificationCenter? = NotificationCenter()
        let sequence = Numbered.notifications(in: center!)
        Numbered(id: 1).post(in: center!)
        weak var gone: NotificationCenter?
        gone = center
        center = nil
        #expect(gone == nil)
        var received: [Int] = []
        for await tick in sequence { received.append(tick.id) }
        #expect(received == [1], "the buffered payload, then the end")
    }
}
