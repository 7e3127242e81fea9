import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// `awaitDelivery(in: center) { … }`: the wait covers every post made on its center while the closure runs, from the
// threads and tasks the closure starts (`concurrentPerform`, threads, detached tasks), on every target, with handlers
// slow enough that deliveries are still queued when the closure returns; a coalescing observer's burst is waited for;
// a dropped delivery and the task's cancellation end the wait; another center's posts are not waited for; inside an
// `async` handler its own observation is not waited for.

// Serialized: these tests block queues and post from many threads at once; run together they would hold up every
// other test's tasks on a two-core machine.
@Suite(.serialized) struct AwaitingDeliveryOnACenterTests {
    /// How the closure makes its posts: from threads it starts, each posting ``postsPerPoster`` times.
    enum Poster: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case concurrentPerform, threads, detachedTasks

        var testDescription: String { rawValue }
    }

    static let posters = 4
    static let postsPerPoster = 25

    /// A handler slow enough that, on every target, deliveries are still queued when the posts have been made.
    static func slowly(_ body: () -> Void) {
        Thread.sleep(forTimeInterval: 0.0002)
        body()
    }

    /// Makes ``posters`` × ``postsPerPoster`` posts on `center` from threads or tasks it starts, and returns once they
    /// have all been made.
    static func post(from poster: Poster, in center: NotificationCenter) async {
        @Sendable func posts(_ poster: Int) {
            for index in 0..<postsPerPoster { Tracked(poster * postsPerPoster + index).post(in: center) }
        }
        switch poster {
        case .concurrentPerform:
            DispatchQueue.concurrentPerform(iterations: posters) { posts($0) }
        case .threads:
            await withTaskGroup(of: Void.self) { group in
                for thread in 0..<posters { group.addTask { await onThread { posts(thread) } } }
            }
        case .detachedTasks:
            let tasks = (0..<posters).map { task in Task.detached { posts(task) } }
            for task in tasks { await task.value }
        }
    }

    @Test(arguments: ObservingTarget.allCases, Poster.allCases)
    func everyPostFromTheThreadsItStartsHasBeenHandled(target: ObservingTarget, poster: Poster) async throws {
        let center = NotificationCenter()
        let seen = Counter()
        let observation = observeTracked(on: target, in: center) { _ in Self.slowly { seen.increment() } }
        try await awaitDelivery(in: center) {
            await Self.post(from: poster, in: center)
        }
        #expect(seen.count == Self.posters * Self.postsPerPoster)
        withExtendedLifetime(observation) {}
    }

    /// A coalescing observer's burst ends after the closure has returned: its delivery, of the last post, is waited for.
    @Test(arguments: ObservingTarget.allCases)
    func aCoalescingObserversBurstIsHandledBeforeTheWaitEnds(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let observation = observeTracked(on: target, in: center, coalescing: .within(0.05)) { payload in
            Self.slowly { seen.append(payload.index) }
        }
        try await awaitDelivery(in: center) {
            await Self.post(from: .concurrentPerform, in: center)
            await onThread { Tracked(-1).post(in: center) }  // after every other post: the last one delivered
        }
        #expect(seen.values.last == -1)
        withExtendedLifetime(observation) {}
    }

    @Test func plainPostsOnTheCenterFromOtherThreadsAreWaitedForToo() async throws {
        let center = NotificationCenter()
        let seen = Counter()
        let token = Tracked.observe(in: center, delivery: .async(on: DispatchQueue(label: "observer"))) { _ in
            Self.slowly { seen.increment() }
        }
        try await awaitDelivery(in: center) {
            DispatchQueue.concurrentPerform(iterations: Self.posters) { poster in
                let userInfo = Tracked.userInfo(for: Tracked(poster))
                center.post(name: Tracked.notificationName, object: nil, userInfo: userInfo)
            }
        }
        #expect(seen.count == Self.posters)
        withExtendedLifetime(token) {}
    }

    @Test func postsOnAnotherCenterAreNotWaitedFor() async throws {
        let center = NotificationCenter()
        let other = NotificationCenter()
        let queue = DispatchQueue(label: "blocked")
        let calls = Counter()
        let token = Tracked.observe(in: other, delivery: .async(on: queue)) { _ in calls.increment() }
        let gate = await block(queue)
        let ended = await finishes(within: 10) {
            _ = try? await awaitDelivery(in: center) {
                await onThread {
                    Tracked(0).post(in: other)
                    Tracked(1).post(in: center)
                }
            }
        }
        #expect(ended, "the wait ended while the other center's delivery was still queued")
        #expect(calls.count == 0)
        gate.signal()
        queue.sync {}
        #expect(calls.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test func aDeliveryDroppedByCancelEndsTheWait() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "blocked")
        let calls = Counter()
        let token = Tracked.observe(in: center, delivery: .async(on: queue)) { _ in calls.increment() }
        let gate = await block(queue)
        let waiting = await waitForAPostFromAnotherThread(in: center)
        token.cancel()  // drops the queued delivery, while the queue is still blocked
        try await waiting.value
        #expect(calls.count == 0)
        gate.signal()
    }

    @Test func cancellingTheAwaitingTaskEndsTheWaitButNotTheDelivery() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "blocked")
        let delivered = Signal()
        let token = Tracked.observe(in: center, delivery: .async(on: queue)) { _ in delivered.fire() }
        let gate = await block(queue)
        let waiting = await waitForAPostFromAnotherThread(in: center)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        gate.signal()
        await delivered.wait()  // the delivery went on
        withExtendedLifetime(token) {}
    }

    @Test func insideAnAsyncHandlerItsOwnObservationIsNotWaitedForButOthersAre() async throws {
        let center = NotificationCenter()
        let other = Recorded<Int>()
        let order = Recorded<String>()
        let done = Signal()
        let otherToken = Tracked.observe(in: center) { (payload: Tracked) async in
            Self.slowly { other.append(payload.index) }
        }
        let token = Tracked.observe(in: center) { (payload: Tracked) async in
            guard payload.index == 0 else {
                order.append("own \(payload.index)")
                return done.fire()
            }
            try? await awaitDelivery(in: center) { await onThread { Tracked(1).post(in: center) } }
            // The other async observer has had post 1; this one gets it once this call returns.
            order.append("awaited; other saw \(other.values)")
        }
        Tracked(0).post(in: center)
        await done.wait()
        #expect(order.values == ["awaited; other saw [0, 1]", "own 1"])
        withExtendedLifetime((token, otherToken)) {}
    }

    @Test func itReturnsWhatTheClosureReturnsAndRethrowsAtOnce() async throws {
        let center = NotificationCenter()
        let value = try await awaitDelivery(in: center) { 42 }
        #expect(value == 42)
        struct Refused: Error {}
        await #expect(throws: Refused.self) { try await awaitDelivery(in: center) { throw Refused() } }
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

    /// Starts a task that waits, on `center`, for a post made on another thread, and returns it once the post is made.
    private func waitForAPostFromAnotherThread(in center: NotificationCenter) async -> Task<Void, any Error> {
        let posted = Signal()
        let waiting = Task {
            try await awaitDelivery(in: center) {
                await onThread { Tracked(0).post(in: center) }
                posted.fire()
            }
        }
        await posted.wait()
        return waiting
    }

}
