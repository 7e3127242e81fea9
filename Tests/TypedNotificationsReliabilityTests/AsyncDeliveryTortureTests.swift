import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Queue delivery and async sequences under posts from many threads: nothing lost, nothing duplicated, each
/// thread's posts in order, a handler never concurrent with itself, and cancelling drops what is queued.
@Suite struct AsyncDeliveryTortureTests {
    static let threadCount = 4
    static let postsPerThread = TestEnvironment.scaled(normal: 1_000, long: 100_000, sanitized: 300)

    // MARK: - Queues

    enum Queue: CaseIterable, CustomTestStringConvertible {
        case serialDispatchQueue
        case concurrentDispatchQueue
        case operationQueue

        var testDescription: String { "\(self)" }

        /// A delivery on a new queue of this kind, and a function that returns once that queue has run everything
        /// submitted to it so far.
        func makeDelivery() -> (delivery: NotificationDelivery, waitUntilIdle: @Sendable () -> Void) {
            switch self {
            case .serialDispatchQueue:
                let queue = DispatchQueue(label: "AsyncDeliveryTortureTests.serial")
                return (.async(on: queue), { queue.sync {} })
            case .concurrentDispatchQueue:
                let queue = DispatchQueue(label: "AsyncDeliveryTortureTests.concurrent", attributes: .concurrent)
                return (.async(on: queue), { queue.sync(flags: .barrier) {} })
            case .operationQueue:
                let queue = OperationQueue()
                return (.async(on: queue), { queue.waitUntilAllOperationsAreFinished() })
            }
        }
    }

    @Test(arguments: Queue.allCases)
    func queueDeliveryKeepsEachThreadsOrderAndNeverOverlapsItself(queue: Queue) async {
        let center = NotificationCenter()
        let check = DeliveryCheck(threads: Self.threadCount, postsPerThread: Self.postsPerThread)
        let token = Numbered.observe(in: center, delivery: queue.makeDelivery().delivery) { numbered in
            check.enter()
            check.leave(numbered)
        }
        await onThreads(Self.threadCount) { thread in
            for index in 0..<Self.postsPerThread {
                let numbered = Numbered(thread: thread, index: index)
                if index.isMultiple(of: 3) {
                    let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: numbered]
                    center.post(name: Numbered.notificationName, object: nil, userInfo: userInfo)
                } else {
                    numbered.post(in: center)
                }
            }
        }
        await wait(for: check.allReceived)
        token.cancel()
        check.expectEveryPostOnceInOrderWithoutOverlap()
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    // MARK: - Actors and async handlers

    enum Isolation: CaseIterable, CustomTestStringConvertible {
        /// `observeOnMainActor`; one thread's posts are made on the main actor, so they run during the post.
        case mainActor
        /// `observe(for: actor)`; one thread's posts are made on that actor.
        case actor
        /// An `async` handler that suspends in the middle of each delivery.
        case asyncHandler

        var testDescription: String { "\(self)" }
    }

    /// The observer's own actor, from which one of the posting threads posts.
    actor Host {
        func post(_ numbered: Numbered, in center: NotificationCenter) {
            numbered.post(in: center)
        }
    }

    @Test(arguments: Isolation.allCases)
    func isolatedDeliveryKeepsEachThreadsOrderAndNeverOverlapsItself(isolation: Isolation) async {
        let center = NotificationCenter()
        let check = DeliveryCheck(threads: Self.threadCount, postsPerThread: Self.postsPerThread)
        let host = Host()
        // Ends the observation: a token's, or the actor form's owner-bound observation's.
        let cancel: () -> Void
        switch isolation {
        case .mainActor:
            let token = Numbered.observeOnMainActor(in: center) { numbered in
                check.enter()
                check.leave(numbered)
            }
            cancel = token.cancel
        case .actor:
            let observation = Numbered.observe(for: host, in: center) { _, numbered in
                check.enter()
                check.leave(numbered)
            }
            cancel = observation.cancel
        case .asyncHandler:
            let token = Numbered.observe(in: center) { numbered async in
                check.enter()
                await Task.yield()
                check.leave(numbered)
            }
            cancel = token.cancel
        }
        // Thread 0 posts from the observer's actor (for the actor kinds), the others from plain threads.
        let fromActor = Task {
            for index in 0..<Self.postsPerThread {
                let numbered = Numbered(thread: 0, index: index)
                switch isolation {
                case .mainActor: await MainActor.run { numbered.post(in: center) }
                case .actor: await host.post(numbered, in: center)
                case .asyncHandler: numbered.post(in: center)
                }
            }
        }
        await onThreads(Self.threadCount - 1) { thread in
            for index in 0..<Self.postsPerThread {
                let numbered = Numbered(thread: thread + 1, index: index)
                if index.isMultiple(of: 3) {
                    let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: numbered]
                    center.post(name: Numbered.notificationName, object: nil, userInfo: userInfo)
                } else {
                    numbered.post(in: center)
                }
            }
        }
        await fromActor.value
        await wait(for: check.allReceived)
        cancel()
        check.expectEveryPostOnceInOrderWithoutOverlap()
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    /// The first delivery blocks the queue while a hundred more are queued behind it and the observation is
    /// cancelled: once the queue is idle again, only the first has reached the handler.
    @Test(arguments: Queue.allCases)
    func cancellingDropsQueuedDeliveries(queue: Queue) {
        let center = NotificationCenter()
        let (delivery, waitUntilIdle) = queue.makeDelivery()
        let inHandler = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Counter()
        let token = Tick.observe(in: center, delivery: delivery) { tick in
            calls.increment()
            if tick.id == 0 {
                inHandler.signal()
                proceed.wait()
            }
        }
        Tick(id: 0).post(in: center)
        inHandler.wait()
        for id in 1...100 { Tick(id: id).post(in: center) }
        token.cancel()
        proceed.signal()
        waitUntilIdle()
        #expect(calls.value == 1, "deliveries queued when cancel() returned still ran")
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    // MARK: - Async sequences

    @Test func sequenceReceivesEveryConcurrentPostOnceInEachThreadsOrder() async {
        let center = NotificationCenter()
        let total = Self.threadCount * Self.postsPerThread
        let sequence = Numbered.notifications(in: center)
        let posting = Task.detached {
            await onThreads(Self.threadCount) { thread in
                for index in 0..<Self.postsPerThread {
                    let numbered = Numbered(thread: thread, index: index)
                    if index.isMultiple(of: 4) {
                        let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: numbered]
                        center.post(name: Numbered.notificationName, object: nil, userInfo: userInfo)
                    } else {
                        numbered.post(in: center)
                    }
                }
            }
        }
        var next = Array(repeating: 0, count: Self.threadCount)
        var received = 0
        for await numbered in sequence {
            guard numbered.index == next[numbered.thread] else {
                let expected = next[numbered.thread]
                Issue.record("thread \(numbered.thread)'s post \(numbered.index) came instead of \(expected)")
                break
            }
            next[numbered.thread] = numbered.index + 1
            received += 1
            if received == total { break }
        }
        await posting.value
        #expect(next == Array(repeating: Self.postsPerThread, count: Self.threadCount))
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0), "the loop's exit ends observation")
    }
}

/// Waits for `semaphore` without blocking a thread of Swift's cooperative pool.
/// What one observer's handler saw of `Numbered` posts from several threads: whether it ever ran concurrently with
/// itself, whether a thread's posts arrived out of order, and when all have arrived.
final class DeliveryCheck: Sendable {
    let allReceived = DispatchSemaphore(value: 0)
    private let total: Int
    private let running = AtomicWord.make()
    private let overlaps = Counter()
    private let nextIndex: Protected<[Int]>
    private let outOfOrder = Counter()
    private let received = Counter()

    init(threads: Int, postsPerThread: Int) {
        total = threads * postsPerThread
        nextIndex = Protected(Array(repeating: 0, count: threads))
    }

    /// Called first in the handler.
    func enter() {
        if !running.set() { overlaps.increment() }
    }

    /// Called last in the handler, with the payload.
    func leave(_ numbered: Numbered) {
        nextIndex.withLock { next in
            if numbered.index != next[numbered.thread] { outOfOrder.increment() }
            next[numbered.thread] = numbered.index + 1
        }
        running.store(0)
        if received.increment() == total { allReceived.signal() }
    }

    func expectEveryPostOnceInOrderWithoutOverlap() {
        #expect(received.value == total)
        #expect(overlaps.value == 0, "the handler ran concurrently with itself")
        #expect(outOfOrder.value == 0, "a thread's posts arrived out of order")
    }
}

func wait(for semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            done.resume()
        }
    }
}
