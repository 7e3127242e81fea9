import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// A `where:` condition runs where its handler runs: in the observation's task, on the queue, on the main actor or
/// on the actor, never concurrently with itself, and never after a cancel.
@Suite struct WhereConditionTests {
    /// A queue-specific key set on a queue, to tell from inside a closure which queue runs it.
    private static let queueName = DispatchSpecificKey<String>()

    /// Marks the main queue, once, so that code can tell it runs there (on Linux the main actor's jobs run on it).
    private static let mainQueueMarked: Bool = {
        DispatchQueue.main.setSpecific(key: queueName, value: "main")
        return true
    }()

    private static var currentQueueName: String? {
        DispatchQueue.getSpecific(key: queueName)
    }

    // MARK: - `where:` conditions run where the handler runs

    /// The `async` forms document that the condition runs in the observation's task, just before the handler is
    /// called, before the handler hops to its own isolation (here the main actor).
    @Test(.timeLimit(.minutes(1))) func anAsyncConditionRunsInTheTaskBeforeAMainActorHandlerHops() async {
        _ = Self.mainQueueMarked
        let center = NotificationCenter()
        let conditionQueue = Recorded<String>()
        let handlerQueue = Recorded<String>()
        let done = Signal()
        let token = CounterDidChange.observe(
            in: center,
            where: .matching { _ in
                conditionQueue.append(Self.currentQueueName ?? "elsewhere")
                return true
            }
        ) { @MainActor _ async in
            handlerQueue.append(Self.currentQueueName ?? "elsewhere")
            done.fire()
        }
        CounterDidChange(count: 1).post(in: center)
        await done.wait()
        #expect(handlerQueue.values == ["main"], "the handler runs on the main actor")
        #expect(conditionQueue.values == ["elsewhere"], "the condition runs in the observation's task")
        withExtendedLifetime(token) {}
    }

    @Test(.timeLimit(.minutes(1))) func aQueueConditionRunsOnTheQueueAndNeverAfterCancel() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        queue.setSpecific(key: Self.queueName, value: "busy")
        let conditionCalls = Recorded<String>()
        let delivered = Recorded<Int>()
        let cancelled = CounterDidChange.observe(
            in: center, delivery: .async(on: queue),
            where: .matching { _ in
                conditionCalls.append(Self.currentQueueName ?? "elsewhere")
                return true
            }
        ) { delivered.append($0.count) }
        let done = Signal()
        let marker = CounterDidChange.observe(
            in: center, delivery: .async(on: queue),
            where: .matching { change in
                #expect(LockDiscipline.locksHeld == 0)
                #expect(Self.currentQueueName == "busy")
                return change.count == 99
            }
        ) { _ in done.fire() }
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        cancelled.cancel()
        CounterDidChange(count: 99).post(in: center)
        release.signal()
        await done.wait()
        #expect(conditionCalls.values.isEmpty, "a cancelled observation's condition was called")
        #expect(delivered.values.isEmpty)
        withExtendedLifetime(marker) {}
    }

    /// On a concurrent queue, one observer's condition and handler never overlap, even under posts from two threads.
    @Test(.timeLimit(.minutes(1))) func aConditionOnAConcurrentQueueNeverRunsConcurrentlyWithItself() async {
        let center = NotificationCenter()
        let inFlight = Gauge()
        let seen = Counter()
        let done = Signal()
        let total = 400
        let token = CounterDidChange.observe(
            in: center, delivery: .async(on: .global()),
            where: .matching { _ in
                inFlight.enter()
                for _ in 0..<200 { _ = Thread.current }
                inFlight.leave()
                return true
            }
        ) { _ in
            seen.increment()
            if seen.count == total { done.fire() }
        }
        await withTaskGroup(of: Void.self) { group in
            for half in 0..<2 {
                group.addTask {
                    for count in 0..<(total / 2) { CounterDidChange(count: half * 1000 + count).post(in: center) }
                }
            }
        }
        await done.wait()
        #expect(inFlight.maximum == 1)
        withExtendedLifetime(token) {}
    }

    /// Both main-actor forms run their condition on the main actor, before the handler, for a post queued from
    /// another thread.
    @Test(.timeLimit(.minutes(1))) func mainActorConditionsRunOnTheMainActor() async {
        _ = Self.mainQueueMarked
        let center = NotificationCenter()
        let owner = CallbackOwner {}
        let seen = Recorded<String>()
        let done = Signal()
        let token = CounterDidChange.observeOnMainActor(
            in: center,
            where: .matching { _ in
                seen.append("condition:" + (Self.currentQueueName ?? "elsewhere"))
                return true
            }
        ) { _ in seen.append("handler") }
        CounterDidChange.observeOnMainActor(
            for: owner, in: center,
            where: .matching { _ in
                seen.append("owner condition:" + (Self.currentQueueName ?? "elsewhere"))
                return LockDiscipline.locksHeld == 0
            }
        ) { _, _ in
            seen.append("owner handler")
            done.fire()
        }
        #expect(runOnAnotherThreadAndWait { CounterDidChange(count: 1).post(in: center) })
        await done.wait()
        #expect(seen.values == ["condition:main", "handler", "owner condition:main", "owner handler"])
        withExtendedLifetime((token, owner)) {}
    }

    /// Explicitly spelled main queues are accepted, and their handlers and conditions run on them.
    @Test(.timeLimit(.minutes(1))) func explicitMainQueuesRunConditionAndHandlerThere() async {
        _ = Self.mainQueueMarked
        let center = NotificationCenter()
        let ranOn = Recorded<String>()
        let done = Signal()
        let onDispatchMain = AppDidBecomeActive.observe(
            in: center, delivery: .async(on: DispatchQueue.main),
            where: .matching { _ in
                ranOn.append("condition:" + (Self.currentQueueName ?? "elsewhere"))
                return true
            }
        ) { _ in ranOn.append("handler:" + (Self.currentQueueName ?? "elsewhere")) }
        let onOperationMain = AppDidBecomeActive.observe(
            in: center, delivery: .async(on: OperationQueue.main),
            where: .matching { _ in
                ranOn.append("operation condition:" + (OperationQueue.current === OperationQueue.main ? "main" : "?"))
                return true
            }
        ) { _ in
            ranOn.append("operation handler:" + (OperationQueue.current === OperationQueue.main ? "main" : "?"))
            done.fire()
        }
        AppDidBecomeActive.post((), in: center)
        await done.wait()
        await MainActor.run {}  // the main queue's FIFO has run the other observer's delivery too
        #expect(
            ranOn.values.sorted() == [
                "condition:main", "handler:main", "operation condition:main", "operation handler:main",
            ])
        withExtendedLifetime((onDispatchMain, onOperationMain)) {}
    }

    /// The actor form: the condition runs on the actor, before the handler; the returned value need not be kept;
    /// `cancel()` ends it.
    @Test(.timeLimit(.minutes(1))) func theActorFormRunsItsConditionOnTheActorAndOutlivesItsReturnValue() async {
        let center = NotificationCenter()
        let model = OneThreadModel()
        let onActor = Recorded<Bool>()
        let done = Signal()
        _ = await model.observe(in: center, onActor: onActor, done: done)  // released at once
        for count in 1...4 { CounterDidChange(count: count).post(in: center) }  // queued for the actor
        await done.wait()
        // Conditions for 1, 2, 3, 4 and handlers for 2 and 4, in order, all on the actor's thread.
        #expect(onActor.values == Array(repeating: true, count: 6))
        #expect(center.typedObservations.count == 1, "releasing the OwnerBoundObservation did not end it")
        let second = await model.observe(in: center, onActor: Recorded<Bool>(), done: Signal())
        #expect(center.typedObservations.count == 2)
        second.cancel()
        #expect(center.typedObservations.count == 1)
        center.removeObserver(second)  // a second end is a no-op
        model.executor.stop()
    }
}

/// How many calls are in progress at once, and the most there ever were.
private final class Gauge: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private var highest = 0

    func enter() {
        lock.withLock {
            current += 1
            highest = max(highest, current)
        }
    }

    func leave() {
        lock.withLock { current -= 1 }
    }

    var maximum: Int { lock.withLock { highest } }
}
