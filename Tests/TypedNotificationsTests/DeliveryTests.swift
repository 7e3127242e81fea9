import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Asynchronous delivery on queues and on the main actor.
@Suite struct DeliveryTests {
    // MARK: - Dispatch queues

    @Test func queueDeliveryNeverMakesPostWait() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "observer")
        let gate = DispatchSemaphore(value: 0)
        let handled = Counter()
        let done = Signal()
        let token = CounterDidChange.observe(in: center, delivery: .async(on: queue)) { _ in
            gate.wait()  // blocks until the test has seen `post` return
            handled.increment()
            done.fire()
        }
        CounterDidChange(count: 1).post(in: center)
        // Reaching this line with the handler still blocked proves `post` did not wait for it.
        #expect(handled.count == 0)
        gate.signal()
        await done.wait()
        #expect(handled.count == 1)
        withExtendedLifetime(token) {}
    }

    // MARK: - Fairness

    enum SerialQueue: CaseIterable, CustomTestStringConvertible {
        case dispatch
        case operation

        var testDescription: String { self == .dispatch ? "DispatchQueue" : "OperationQueue" }
    }

    /// An observer whose producer outpaces its handler must not monopolise its queue: after a batch of deliveries,
    /// work submitted to the queue meanwhile runs before the rest of the backlog.
    @Test(arguments: SerialQueue.allCases)
    func busyObserverLetsOtherWorkOnItsQueueRunBetweenBatches(queue: SerialQueue) async throws {
        let center = NotificationCenter()
        let backlog = 1_000
        let log = Recorded<Int>()  // payload counts, and -1 for the unrelated work
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let done = Signal()
        let dispatchQueue = DispatchQueue(label: "DeliveryTests.fairness")
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        let delivery: NotificationDelivery =
            queue == .dispatch ? .async(on: dispatchQueue) : .async(on: operationQueue)
        let submitUnrelated: @Sendable (Int) -> Void = { marker in
            let unrelated: @Sendable () -> Void = { log.append(marker) }
            if queue == .dispatch {
                dispatchQueue.async(execute: unrelated)
            } else {
                operationQueue.addOperation(unrelated)
            }
        }
        let token = CounterDidChange.observe(in: center, delivery: delivery) { change in
            if change.count == 1 {
                started.signal()
                gate.wait()  // holds the queue until the backlog and the unrelated work are queued
            }
            // Submitted while a full batch is being delivered: it runs once that batch is done.
            if change.count == 2 { submitUnrelated(-2) }
            log.append(change.count)
            if change.count == backlog { done.fire() }
        }
        CounterDidChange(count: 1).post(in: center)
        started.wait()
        for count in 2...backlog { CounterDidChange(count: count).post(in: center) }
        submitUnrelated(-1)
        gate.signal()
        await done.wait()
        let values = log.values
        // The first drain delivered one full batch (payload 1, then what was queued meanwhile), and the next one was
        // scheduled behind the unrelated work submitted before and during that batch. Before batches, a drain ran
        // until the whole backlog was delivered, and the unrelated work waited behind it.
        let first = try #require(values.firstIndex(of: -1))
        let second = try #require(values.firstIndex(of: -2))
        #expect(first == DeliveryTarget.batchLimit)
        #expect(second == first + 1)
        #expect(values.filter { $0 > 0 } == Array(1...backlog))
        withExtendedLifetime(token) {}
    }

    @Test(arguments: [false, true])
    func queueDeliveryKeepsPostOrderPerObserver(concurrentQueue: Bool) async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "observer", attributes: concurrentQueue ? .concurrent : [])
        let received = Recorded<Int>()
        let total = 2_000
        let done = Signal()
        let token = CounterDidChange.observe(in: center, delivery: .async(on: queue)) { change in
            received.append(change.count)
            if change.count == total - 1 { done.fire() }
        }
        for count in 0..<total { CounterDidChange(count: count).post(in: center) }
        await done.wait()
        #expect(received.values == Array(0..<total))
        withExtendedLifetime(token) {}
    }

    @Test func cancelledQueueObservationReceivesNothingStillQueued() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "observer")
        let gate = DispatchSemaphore(value: 0)
        queue.async { gate.wait() }  // holds the queue until everything is posted and cancelled
        let received = Counter()
        let token = CounterDidChange.observe(in: center, delivery: .async(on: queue)) { _ in received.increment() }
        for count in 0..<10 { CounterDidChange(count: count).post(in: center) }
        token.cancel()
        gate.signal()
        await withCheckedContinuation { done in queue.async { done.resume() } }  // the queue has drained
        #expect(received.count == 0)
    }

    // MARK: - Operation queues

    @Test func operationQueueDeliveryNeverMakesPostWaitAndKeepsOrder() async {
        let center = NotificationCenter()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 4
        let gate = DispatchSemaphore(value: 0)
        let received = Recorded<Int>()
        let done = Signal()
        let token = CounterDidChange.observe(in: center, delivery: .async(on: queue)) { change in
            if change.count == 0 { gate.wait() }
            received.append(change.count)
            if change.count == 99 { done.fire() }
        }
        for count in 0..<100 { CounterDidChange(count: count).post(in: center) }
        #expect(received.count == 0)  // the first handler is still blocked: post did not wait
        gate.signal()
        await done.wait()
        #expect(received.values == Array(0..<100))
        withExtendedLifetime(token) {}
    }

    // MARK: - Main actor

    @Test func mainActorHandlerRunsOnTheMainActorInPostOrder() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let model = await CounterViewModel()
        let done = Signal()
        let token = CounterDidChange.observeOnMainActor(in: center) { change in
            // Main-actor state, mutated without `await`: the handler is isolated to the main actor. The package
            // enters it with `MainActor.assumeIsolated`, which traps if it is not actually on the main actor.
            model.updates += 1
            received.append(change.count)
            if change.count == 499 { done.fire() }
        }
        DispatchQueue.global().async {
            for count in 0..<500 { CounterDidChange(count: count).post(in: center) }
        }
        await done.wait()
        #expect(received.values == Array(0..<500))
        #expect(await model.updates == 500)
        withExtendedLifetime(token) {}
    }

    @MainActor final class CounterViewModel {
        var text = ""
        var updates = 0
        var onUpdate: (() -> Void)?
    }

    @Test @MainActor func mainActorOwnerBoundObservationUpdatesAViewModel() async {
        let center = NotificationCenter()
        let model = CounterViewModel()
        let done = Signal()
        model.onUpdate = { done.fire() }
        CounterDidChange.observeOnMainActor(for: model, in: center) { model, change in
            model.text = "\(change.count)"
            model.updates += 1
            model.onUpdate?()
        }
        CounterDidChange(count: 42).post(in: center)
        await done.wait()
        #expect(model.text == "42")
        #expect(model.updates == 1)
    }
}

extension DeliveryTests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    // MARK: - Lost wake-ups

    /// "Observers on one queue ... nothing is lost." A drain on an `OperationQueue` is an operation like any other:
    /// `cancelAllOperations()` (what a screen's queue does when it goes away, or a reset) cancels it before it
    /// starts, so it never runs; the target still believes a drain is scheduled (`isScheduled`), so no later post
    /// schedules another, and every later delivery to every observer on that queue (for that center) is lost for
    /// good. Foundation's own `addObserver(forName:object:queue:using:)` loses only the cancelled posts.
    @Test func observerOnAnOperationQueueStillReceivesPostsMadeAfterCancelAllOperations() {
        let center = NotificationCenter()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let received = Recorded<Int>()
        let token = Play.observe(in: center, delivery: .async(on: queue)) { index in received.append(index) }
        queue.isSuspended = true
        Play.post(1, in: center)
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        // Whatever happened to 1, a post made now must arrive: the queue is running and empty.
        Play.post(2, in: center)
        // Serial queue: a drain scheduled by the post runs before this barrier finishes.
        queue.addOperation {}
        queue.waitUntilAllOperationsAreFinished()
        #expect(received.values.contains(2), "a post made after cancelAllOperations() never reached the observer")
        withExtendedLifetime(token) {}
    }

    // MARK: - The main queue is told by identity

    /// "`DispatchQueue.main` is one target however it is read", and main-queue handlers run on the main thread. On
    /// Linux the main queue is told by its label, so a queue of the user's that happens to carry the main queue's
    /// label ("com.apple.main-thread") is taken for the main queue: when it registers first, the shared target drains
    /// on it, and the handlers of `DispatchQueue.main` observers run on that queue's thread, off the main thread.
    @Test func aQueueLabelledLikeTheMainQueueIsNotTheMainQueue() async {
        let center = NotificationCenter()
        let impostor = DispatchQueue(label: DispatchQueue.main.label)
        let onImpostor = DispatchSpecificKey<Bool>()
        impostor.setSpecific(key: onImpostor, value: true)
        let mainHandlerOnImpostor = Recorded<Bool>()
        let done = Signal()
        let tokens = [
            Play.observe(in: center, delivery: .async(on: impostor)) { _ in },
            Play.observe(in: center, delivery: .async(on: DispatchQueue.main)) { _ in
                mainHandlerOnImpostor.append(DispatchQueue.getSpecific(key: onImpostor) == true)
                done.fire()
            },
        ]
        Play.post(1, in: center)
        await done.wait()
        #expect(mainHandlerOnImpostor.values == [false], "a DispatchQueue.main handler ran on another queue")
        withExtendedLifetime(tokens) {}
    }
}
