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
