import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Observers with an `async` handler: one delivery at a time, in post order, never blocking the poster.
@Suite struct AsyncHandlerTests {
    /// Tracks how many handler calls are in progress at once.
    final class Overlap: Sendable {
        private let running = AtomicWord.make()
        private let overlapped = AtomicWord.make()

        func enter() {
            if running.add(1) > 1 { overlapped.store(1) }
        }

        func leave() {
            running.add(UInt64.max)  // wraps around: minus one
        }

        var everOverlapped: Bool { overlapped.isSet }
    }

    @Test func asyncHandlerSeesEachThreadsPostsInOrderOneAtATime() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let overlap = Overlap()
        let done = Signal()
        let perThread = 200
        let token = CounterDidChange.observe(in: center) { change async in
            overlap.enter()
            await Task.yield()  // suspends mid-delivery: the next delivery must still wait for this one
            received.append(change.count)
            overlap.leave()
            if received.count == 2 * perThread { done.fire() }
        }
        for thread in 0..<2 {
            let returned = runOnAnotherThreadAndWait {
                for index in 0..<perThread { CounterDidChange(count: thread * 10_000 + index).post(in: center) }
            }
            #expect(returned)
        }
        await done.wait()
        let values = received.values
        #expect(values.count == 2 * perThread)
        for thread in 0..<2 {
            #expect(values.filter { $0 / 10_000 == thread } == (0..<perThread).map { thread * 10_000 + $0 })
        }
        #expect(!overlap.everOverlapped)
        withExtendedLifetime(token) {}
    }

    @Test func postNeverWaitsForAnAsyncHandler() async {
        let center = NotificationCenter()
        let gate = AsyncStream.makeStream(of: Void.self)
        let started = Signal()
        let token = CounterDidChange.observe(in: center) { _ async in
            started.fire()
            for await _ in gate.stream {}  // suspended until the test has seen every post return
        }
        let returned = runOnAnotherThreadAndWait {
            for count in 0..<10 { CounterDidChange(count: count).post(in: center) }
        }
        #expect(returned)
        await started.wait()
        gate.continuation.finish()
        withExtendedLifetime(token) {}
    }

    /// A payload that says when it is released, so that the test sees queued deliveries dropped, not merely late.
    final class Tracked: Sendable {
        let onRelease: @Sendable () -> Void
        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    enum TrackedPost: Notifiable { typealias Payload = Tracked }

    @Test func cancellingDropsWhatIsStillQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = Counter()
        let started = Signal()
        let finished = Signal()
        let gate = AsyncStream.makeStream(of: Void.self)
        let token = TrackedPost.observe(in: center) { _ async in
            calls.increment()
            started.fire()
            for await _ in gate.stream {}
            finished.fire()
        }
        TrackedPost.post(Tracked { released.increment() }, in: center)
        await started.wait()
        for _ in 0..<5 { TrackedPost.post(Tracked { released.increment() }, in: center) }
        #expect(released.count == 0, "five payloads are queued behind the running call")
        token.cancel()
        #expect(released.count == 5, "cancelling released the five queued payloads: they can never be delivered")
        gate.continuation.finish()
        await finished.wait()
        #expect(calls.count == 1)
    }
}

/// Handlers that take the sender.
@Suite struct SenderHandlerTests {
    @Test func handlerReceivesTheTypedSenderOfTypedAndPlainPosts() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let seen = Recorded<String>()
        let token = Reading.observe(in: center) { thermometer, reading in
            seen.append("\(reading.celsius) \(thermometer === kitchen ? "kitchen" : thermometer == nil ? "nil" : "?")")
        }
        Reading(celsius: 1).post(from: kitchen, in: center)
        Reading(celsius: 2).post(in: center)
        center.post(
            name: Reading.notificationName, object: kitchen, userInfo: Reading.userInfo(for: Reading(celsius: 3)))
        // A plain post whose object is not a `Thermometer`: the handler gets `nil`, not a wrong cast.
        center.post(
            name: Reading.notificationName, object: Sender(), userInfo: Reading.userInfo(for: Reading(celsius: 4)))
        #expect(seen.values == ["1.0 kitchen", "2.0 nil", "3.0 kitchen", "4.0 nil"])
        withExtendedLifetime(token) {}
    }

    @Test func queuedHandlerReceivesTheSender() async {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let seen = Recorded<Bool>()
        let done = Signal()
        let token = Reading.observe(in: center, delivery: .async(on: DispatchQueue(label: "readings"))) {
            thermometer, _ in
            seen.append(thermometer === kitchen)
            done.fire()
        }
        Reading(celsius: 1).post(from: kitchen, in: center)
        await done.wait()
        #expect(seen.values == [true])
        withExtendedLifetime(token) {}
    }

    @Test func senderFilterStillApplies() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let seen = Recorded<Double>()
        let token = Reading.observe(from: kitchen, in: center) { thermometer, reading in
            #expect(thermometer === kitchen)
            seen.append(reading.celsius)
        }
        Reading(celsius: 1).post(from: Thermometer(), in: center)
        Reading(celsius: 2).post(from: kitchen, in: center)
        #expect(seen.values == [2])
        withExtendedLifetime(token) {}
    }
}

/// What owner-bound observations return.
@Suite struct OwnerBoundObservationTests {
    @Test func releasingTheResultDoesNotEndTheObservationButCancelDoes() {
        let center = NotificationCenter()
        let owner = Sender()
        let counts = Recorded<Int>()
        do {
            _ = CounterDidChange.observe(for: owner, in: center) { _, change in counts.append(change.count) }
        }
        CounterDidChange(count: 1).post(in: center)
        let observation = CounterDidChange.observe(for: owner, in: center) { _, change in counts.append(-change.count) }
        observation.cancel()
        CounterDidChange(count: 2).post(in: center)
        #expect(counts.values == [1, 2])
        withExtendedLifetime(owner) {}
    }
}

extension OwnerBoundObservationTests {
    // MARK: - The owner-bound `async` form

    /// The owner is released on another thread while its handler is suspended: the call finishes holding it, the
    /// owner dies when it returns, and neither the condition nor the handler runs again, for queued payloads either.
    @Test(.timeLimit(.minutes(1))) func anOwnerReleasedMidHandlerOnAnotherThreadDiesAfterTheCallAndNothingRunsAfter()
        async
    {
        let center = NotificationCenter()
        let started = Signal()
        let gate = Signal()
        let died = Signal()
        let conditionCalls = Recorded<Int>()
        let finished = Recorded<Int>()
        let finishedWhenDied = Recorded<[Int]>()
        let held = Slot<CallbackOwner>()
        held.set(
            CallbackOwner {
                finishedWhenDied.append(finished.values)
                died.fire()
            })
        CounterDidChange.observe(
            for: held.value!, in: center,
            where: .matching { change in
                #expect(LockDiscipline.locksHeld == 0)
                conditionCalls.append(change.count)
                return true
            }
        ) { _, change async in
            if change.count == 1 {
                started.fire()
                await gate.wait()
            }
            finished.append(change.count)
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }
        await started.wait()
        #expect(runOnAnotherThreadAndWait { held.set(nil) })
        #expect(finishedWhenDied.values.isEmpty, "the owner died while its handler was suspended")
        gate.fire()
        await died.wait()
        #expect(finishedWhenDied.values == [[1]])
        #expect(center.typedObservations.isEmpty)
        CounterDidChange(count: 4).post(in: center)
        #expect(conditionCalls.values == [1])
        #expect(finished.values == [1])
    }

    /// `cancel()` while a call is suspended: that call finishes, what was queued is dropped, and nothing more runs.
    @Test(.timeLimit(.minutes(1))) func cancellingTheOwnerBoundAsyncFormDuringASuspendedCallDropsTheRest() async {
        let center = NotificationCenter()
        let owner = CallbackOwner {}
        let started = Signal()
        let gate = Signal()
        let firstDone = Signal()
        let calls = Recorded<Int>()
        let observation = CounterDidChange.observe(for: owner, in: center) { _, change async in
            calls.append(change.count)
            if change.count == 1 {
                started.fire()
                await gate.wait()
                firstDone.fire()
            }
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }
        await started.wait()
        observation.cancel()
        gate.fire()
        await firstDone.wait()
        CounterDidChange(count: 4).post(in: center)
        #expect(calls.values == [1])
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(owner) {}
    }

    /// The center goes while a call is suspended and payloads are queued: the call finishes, the rest are dropped.
    @Test(.timeLimit(.minutes(1))) func aCenterDeallocatedWhileTheOwnerBoundAsyncFormIsSuspendedDropsTheRest() async {
        var center: NotificationCenter? = NotificationCenter()
        let owner = CallbackOwner {}
        let started = Signal()
        let gate = Signal()
        let firstDone = Signal()
        let calls = Recorded<Int>()
        CounterDidChange.observe(for: owner, in: center!) { _, change async in
            calls.append(change.count)
            if change.count == 1 {
                started.fire()
                await gate.wait()
                firstDone.fire()
            }
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center!) }
        await started.wait()
        center = nil
        gate.fire()
        await firstDone.wait()
        // A marker on a new center: an async observer's queue is drained in order, so once it has run, any call that
        // the dead center's queue could still make would be racing a finished drain.
        let probe = NotificationCenter()
        let markerRan = Signal()
        let marker = CounterDidChange.observe(in: probe) { _ async in markerRan.fire() }
        CounterDidChange(count: 0).post(in: probe)
        await markerRan.wait()
        #expect(calls.values == [1])
        withExtendedLifetime((owner, marker)) {}
    }

    @MainActor final class ViewModel: Sendable {
        nonisolated let onDeinit: @Sendable () -> Void
        var seen: [Int] = []
        init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
        func show(_ count: Int) { seen.append(count) }
        deinit { onDeinit() }
    }
}

extension AsyncHandlerTests {
    // MARK: - Overload resolution in `async` code

    /// In an `async` function, a handler written without `await` still picks the synchronous form: delivered before
    /// `post` returns.
    @Test(.timeLimit(.minutes(1))) func aSynchronousHandlerInAsyncCodeIsCalledDuringThePost() async {
        let center = NotificationCenter()
        let owner = CallbackOwner {}
        let plain = Recorded<Int>()
        let owned = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { change in plain.append(change.count) }
        CounterDidChange.observe(for: owner, in: center) { _, change in owned.append(change.count) }
        CounterDidChange(count: 1).post(in: center)
        #expect(plain.values == [1])
        #expect(owned.values == [1])
        await Task.yield()
        withExtendedLifetime((token, owner)) {}
    }
}
