import Foundation
import Testing

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
        let token = center.observe(CounterDidChange.self, delivery: .async(on: queue)) { _ in
            gate.wait()  // blocks until the test has seen `post` return
            handled.increment()
            done.fire()
        }
        center.post(CounterDidChange(count: 1))
        // Reaching this line with the handler still blocked proves `post` did not wait for it.
        #expect(handled.count == 0)
        gate.signal()
        await done.wait()
        #expect(handled.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test(arguments: [false, true])
    func queueDeliveryKeepsPostOrderPerObserver(concurrentQueue: Bool) async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "observer", attributes: concurrentQueue ? .concurrent : [])
        let received = Recorded<Int>()
        let total = 2_000
        let done = Signal()
        let token = center.observe(CounterDidChange.self, delivery: .async(on: queue)) { change in
            received.append(change.count)
            if change.count == total - 1 { done.fire() }
        }
        for count in 0..<total { center.post(CounterDidChange(count: count)) }
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
        let token = center.observe(CounterDidChange.self, delivery: .async(on: queue)) { _ in received.increment() }
        for count in 0..<10 { center.post(CounterDidChange(count: count)) }
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
        let token = center.observe(CounterDidChange.self, delivery: .async(on: queue)) { change in
            if change.count == 0 { gate.wait() }
            received.append(change.count)
            if change.count == 99 { done.fire() }
        }
        for count in 0..<100 { center.post(CounterDidChange(count: count)) }
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
        let token = center.observeOnMainActor(CounterDidChange.self) { change in
            // Main-actor state, mutated without `await`: the handler is isolated to the main actor. The package
            // enters it with `MainActor.assumeIsolated`, which traps if it is not actually on the main actor.
            model.updates += 1
            received.append(change.count)
            if change.count == 499 { done.fire() }
        }
        DispatchQueue.global().async {
            for count in 0..<500 { center.post(CounterDidChange(count: count)) }
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
        center.post(CounterDidChange(count: 42))
        await done.wait()
        #expect(model.text == "42")
        #expect(model.updates == 1)
    }

    @Test func cancelledMainActorObservationReceivesNothingStillQueued() async {
        let center = NotificationCenter()
        let received = Counter()
        let done = Signal()
        let sentinel = Slot<NotificationToken>()
        await MainActor.run {
            let token = center.observeOnMainActor(CounterDidChange.self) { _ in received.increment() }
            // Posted while this code holds the main actor, so no delivery can run before the cancel.
            for count in 0..<10 { center.post(CounterDidChange(count: count)) }
            token.cancel()
            // Queued behind the cancelled deliveries: when it runs, they have had their chance.
            sentinel.set(center.observeOnMainActor(AppDidBecomeActive.self) { done.fire() })
            center.post(AppDidBecomeActive.self)
        }
        await done.wait()
        #expect(received.count == 0)
    }
}
