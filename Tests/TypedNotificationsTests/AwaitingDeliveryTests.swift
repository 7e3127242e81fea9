import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// `awaitDelivery { … }`: the wait ends once every delivery its posts made has run or been dropped, on every target;
// it never deadlocks where the handlers run on the awaiting task's own actor or task; the awaiting task's
// cancellation ends the wait, not the deliveries.

// Serialized: several of these tests block a dispatch queue (a worker thread) while a delivery waits behind it, and on
// Linux the cooperative executor runs on the same workers; run at once, they could hold up every other test's tasks.
@Suite(.serialized) struct AwaitingDeliveryTests {
    @Test(arguments: ObservingTarget.allCases)
    func whenTheWaitEndsEveryHandlerHasRun(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let observation = observeTracked(on: target, in: center) { payload in seen.append(payload.index) }
        try await awaitDelivery {
            for index in 0..<3 { Tracked(index).post(in: center) }
        }
        #expect(seen.values == [0, 1, 2])
        withExtendedLifetime(observation) {}
    }

    @Test func awaitedOnTheMainActorWithMainActorObserversPostedThereAndElsewhere() async throws {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let token = await MainActor.run {
            Tracked.observeOnMainActor(in: center) { payload in seen.append("main \(payload.index)") }
        }
        // On the main actor: the handler runs during the post, and the wait has nothing left.
        try await awaitMainActorPosts(in: center)
        #expect(seen.values == ["main 0"])
        // From a nonisolated task: queued for the main actor, which runs it while the task waits.
        try await awaitDelivery { Tracked(1).post(in: center) }
        #expect(seen.values == ["main 0", "main 1"])
        withExtendedLifetime(token) {}
    }

    @MainActor private func awaitMainActorPosts(in center: NotificationCenter) async throws {
        try await awaitDelivery { Tracked(0).post(in: center) }
    }

    /// An actor that observes ``Tracked`` and posts it inside `awaitDelivery`, from a closure that does not capture the
    /// actor (so the compiler passes the posts no isolation).
    actor PostingObserver {
        let seen = Recorded<Int>()
        private var observation: OwnerBoundObservation?

        func observe(in center: NotificationCenter) {
            let seen = seen
            observation = Tracked.observe(for: self, in: center) { _, payload in seen.append(payload.index) }
        }

        /// What the actor's observer had received right after a post that a task started with `Task.immediate` made,
        /// inside the closure: that task runs synchronously on this thread, but on an executor of its own.
        @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)  // `Task.immediate`
        func postFromAnImmediateTask(_ index: Int, in center: NotificationCenter) async throws -> [Int] {
            let seen = seen
            return try await awaitDelivery(in: center) {
                Task.immediate { Tracked(index).post(in: center) }
                return seen.values
            }
        }

        /// What the actor's observer had received right after the post, inside the closure.
        func post(_ index: Int, in center: NotificationCenter) async throws -> [Int] {
            let seen = seen
            return try await awaitDelivery {
                Tracked(index).post(in: center)
                return seen.values
            }
        }
    }

    /// `posts` runs on the caller's actor, so observers isolated to it run during its posts, as for any post made
    /// there: on an actor and on the main actor, though the closure does not capture the actor.
    @Test func observersOfTheCallersActorRunDuringThePostsInside() async throws {
        let center = NotificationCenter()
        let observer = PostingObserver()
        await observer.observe(in: center)
        #expect(try await observer.post(3, in: center) == [3])
        let onMain = Recorded<Int>()
        let token = await MainActor.run { Tracked.observeOnMainActor(in: center) { onMain.append($0.index) } }
        #expect(try await Self.postOnTheMainActor(4, in: center, seen: onMain) == [4])
        withExtendedLifetime(token) {}
    }

    /// A task that the closure runs synchronously (`Task.immediate`) is not the caller's actor: its posts are queued
    /// for the actor's observers, which run after the closure (and are waited for, by the center's wait: it is
    /// another task), never on the task's executor.
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)  // `Task.immediate`
    @Test func postsOfAnotherTaskRunInsideAreNotMadeOnTheCallersActor() async throws {
        let center = NotificationCenter()
        let observer = PostingObserver()
        await observer.observe(in: center)
        #expect(try await observer.postFromAnImmediateTask(5, in: center) == [])
        #expect(observer.seen.values == [5])
    }

    @MainActor private static func postOnTheMainActor(
        _ index: Int, in center: NotificationCenter, seen: Recorded<Int>
    ) async throws -> [Int] {
        try await awaitDelivery {
            Tracked(index).post(in: center)
            return seen.values
        }
    }

    @Test func aDeliveryDroppedByCancelEndsTheWait() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "blocked")
        let calls = Counter()
        let token = Tracked.observe(in: center, delivery: .async(on: queue)) { _ in calls.increment() }
        let gate = await block(queue)
        let waiting = Task { try await awaitDelivery { Tracked(0).post(in: center) } }
        token.cancel()  // drops the queued delivery, while the queue is still blocked
        try await waiting.value
        #expect(calls.count == 0)
        gate.signal()
    }

    @Test(.capturesReports, arguments: [ObservingTarget.actor, .asyncHandler, .dispatchQueue])
    func anObservationEndingWhileItsDeliveryWaitsEndsTheWait(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let calls = Counter()
        let waiting: Task<Void, any Error>
        do {
            let observation = observeTracked(on: target, in: center) { _ in calls.increment() }
            waiting = Task { try await awaitDelivery { Tracked(0).post(in: center) } }
            _ = observation
        }
        // The token, or the actor, is gone: the queued delivery is dropped, unless it ran first.
        try await waiting.value
        #expect(calls.count <= 1)
    }

    @Test func aCenterDeallocatedWithDeliveriesQueuedEndsTheWait() async throws {
        var center: NotificationCenter? = NotificationCenter()
        let queue = DispatchQueue(label: "blocked")
        let gate = await block(queue)
        let calls = Counter()
        let token = Tracked.observe(in: center!, delivery: .async(on: queue)) { _ in calls.increment() }
        // The waiting task holds the center only while it posts.
        let lent = Slot<NotificationCenter>(center)
        let posted = Signal()
        let waiting = Task {
            try await awaitDelivery {
                if let center = lent.value { Tracked(0).post(in: center) }
                lent.set(nil)
                posted.fire()
            }
        }
        await posted.wait()
        // The center goes while its delivery waits behind the blocked queue: the delivery is dropped, and the wait
        // ends before the queue is unblocked.
        center = nil
        try await waiting.value
        gate.signal()
        queue.sync {}
        #expect(calls.count == 0)
        withExtendedLifetime(token) {}
    }

    @Test func cancellingTheAwaitingTaskEndsTheWaitButNotTheDelivery() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "blocked")
        let delivered = Signal()
        let token = Tracked.observe(in: center, delivery: .async(on: queue)) { _ in delivered.fire() }
        let gate = await block(queue)
        let waiting = Task { try await awaitDelivery { Tracked(0).post(in: center) } }
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        gate.signal()
        await delivered.wait()  // the delivery went on
        withExtendedLifetime(token) {}
    }

    /// An already cancelled task still makes its posts; it throws only if it would have to wait.
    @Test func aCancelledTaskMakesItsPostsAndThrowsOnlyIfItWouldWait() async throws {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let token = Tracked.observe(in: center) { seen.append($0.index) }
        let nothingToWaitFor = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await awaitDelivery { Tracked(5).post(in: center) }
        }
        try await nothingToWaitFor.value
        #expect(seen.values == [5])
        let queue = DispatchQueue(label: "blocked")
        let gate = await block(queue)
        let queued = Tracked.observe(in: center, delivery: .async(on: queue)) { seen.append($0.index) }
        let mustWait = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await awaitDelivery { Tracked(6).post(in: center) }
        }
        await #expect(throws: CancellationError.self) { try await mustWait.value }
        #expect(seen.values == [5, 6], "the post was made, and reached the observer on the posting thread")
        gate.signal()
        queue.sync {}
        #expect(seen.values == [5, 6, 6])
        withExtendedLifetime((token, queued)) {}
    }

    @Test func insideAnAsyncHandlerItsOwnObservationIsNotWaitedForButOthersAre() async throws {
        let center = NotificationCenter()
        let other = Recorded<Int>()
        let order = Recorded<String>()
        let done = Signal()
        let otherToken = Tracked.observe(in: center) { (payload: Tracked) async in other.append(payload.index) }
        let token = Tracked.observe(in: center) { (payload: Tracked) async in
            guard payload.index == 0 else {
                order.append("own \(payload.index)")
                return done.fire()
            }
            try? await awaitDelivery { Tracked(1).post(in: center) }
            // The other async observer has had post 1; this one gets it once this call returns.
            order.append("awaited; other saw \(other.values)")
        }
        Tracked(0).post(in: center)
        await done.wait()
        #expect(order.values == ["awaited; other saw [0, 1]", "own 1"])
        withExtendedLifetime((token, otherToken)) {}
    }

    /// A coalesced post made inside an `async` handler joins a burst delivered later, by another task: the burst's
    /// delivery to the handler's own observation is not waited for either, and other waiters on that burst are.
    @Test(arguments: [NotificationCoalescing<Tracked>.nextTurn, .within(0.05)])
    func insideAnAsyncHandlerACoalescedPostToItselfIsNotWaitedFor(coalescing: NotificationCoalescing<Tracked>)
        async throws
    {
        let center = NotificationCenter()
        let awaited = Signal()
        let seen = Recorded<Int>()
        let token = Tracked.observe(in: center) { (payload: Tracked) async in
            seen.append(payload.index)
            guard payload.index == 0 else { return }
            try? await awaitDelivery { Tracked(1).post(in: center, coalescing: coalescing) }
            awaited.fire()
        }
        Tracked(0).post(in: center)
        #expect(await finishes(within: 10) { await awaited.wait() }, "the handler waited for its own delivery")
        // An ordinary waiter whose post joins a burst is waited for until the handler has had it.
        try await awaitDelivery { Tracked(2).post(in: center, coalescing: coalescing) }
        #expect(seen.values.last == 2)
        withExtendedLifetime(token) {}
    }

    /// A task that an `async` handler starts is not the handler: it waits for the handler's deliveries too.
    @Test func aTaskStartedInsideAnAsyncHandlerWaitsForThatHandlersDeliveries() async throws {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let result = Slot<[Int]>()
        let done = Signal()
        let token = Tracked.observe(in: center) { (payload: Tracked) async in
            seen.append(payload.index)
            guard payload.index == 0 else { return }
            Task {
                try? await awaitDelivery { Tracked(1).post(in: center) }
                result.set(seen.values)
                done.fire()
            }
        }
        Tracked(0).post(in: center)
        await done.wait()
        #expect(result.value == [0, 1])
        withExtendedLifetime(token) {}
    }

    /// On the main actor, so that the three `.nextTurn` posts are one burst: nonisolated code has no turns, and there
    /// a burst may end between two of its posts.
    @MainActor @Test func aCoalescedPostIsAwaitedUntilItsBurstIsDelivered() async throws {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let queue = DispatchQueue(label: "observer")
        let token = Tracked.observe(in: center, delivery: .async(on: queue)) { seen.append($0.index) }
        try await awaitDelivery {
            for index in 0..<3 { Tracked(index).post(in: center, coalescing: .nextTurn) }
        }
        #expect(seen.values == [2], "the burst's one delivery, of its latest post")
        try await awaitDelivery {
            Tracked(10).post(in: center, coalescing: .within(0.05))
        }
        #expect(seen.values == [2, 10])
        withExtendedLifetime(token) {}
    }

    @Test func postsTheHandlersMakeDuringThePostAreAwaitedToo() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "observer")
        let seen = Recorded<String>()
        let relay = Tracked.observe(in: center) { payload in
            Counted(count: payload.index).post(in: center)
        }
        let queued = Counted.observe(in: center, delivery: .async(on: queue)) { seen.append("count \($0.count)") }
        try await awaitDelivery { Tracked(4).post(in: center) }
        #expect(seen.values == ["count 4"])
        withExtendedLifetime((relay, queued)) {}
    }

    @Test func sequencesAndPlainObserversHaveThePayloadWhenThePostReturns() async throws {
        let center = NotificationCenter()
        let plain = Recorded<String>()
        let sequence = Tracked.notifications(in: center)
        let observer = center.addObserver(forName: Tracked.notificationName, object: nil, queue: nil) { _ in
            plain.append("plain")
        }
        // Nobody iterates the sequence: handing the payload over is all a sequence's delivery is.
        try await awaitDelivery { Tracked(0).post(in: center) }
        #expect(plain.values == ["plain"])
        var iterator = sequence.makeAsyncIterator()
        #expect(await iterator.next()?.index == 0)
        center.removeObserver(observer)
    }

    @Test func itReturnsWhatThePostsReturnAndRethrowsAtOnce() async throws {
        let center = NotificationCenter()
        let value = try await awaitDelivery { () -> Int in
            Tracked(0).post(in: center)
            return 42
        }
        #expect(value == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await awaitDelivery { throw Refused() } }
    }

    /// Blocks `queue` until the returned gate is signalled, once the block has started: deliveries queued for it wait.
    private func block(_ queue: DispatchQueue) async -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let blocked = Signal()
        queue.async {
            blocked.fire()
            gate.wait()
        }
        await blocked.wait()
        return gate
    }
}

private struct Counted: Notifiable { let count: Int }
