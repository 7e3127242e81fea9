import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Where ending an observation meets the rest of the package, on every target a handler runs on: `cancel()` or a
// released token on another thread while deliveries queue behind a busy handler (once `cancel()` returns, no call
// starts, and what was queued is released), cancel racing posts from many threads inside `awaitDelivery(in:)`,
// handlers that end their own observation and observe again while other threads post, owners that die while a
// delivery is queued, and a type's observers on two centers coming and going while both are posted (the lock-free
// "nobody observes this type" check). Every wait is bounded by `finishes(within:)`.

/// A type that never goes through Foundation: a post that wrongly finds no observer loses the delivery.
struct EndingTypedOnlyStamp: Notifiable {
    static var postsThroughFoundation: Bool { false }
    let stamp: Int
}

/// Each queued target, cancelled (`false`) or with its token released (`true`); an actor's observation is only
/// cancelled, since releasing its `OwnerBoundObservation` does not end it.
let endingCases: [(SeamTarget, Bool)] = SeamTarget.queued.flatMap { target in
    target == .actor ? [(target, false)] : [(target, false), (target, true)]
}

/// Waits for `semaphore` without blocking a cooperative thread.
private func waitOff(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            done.resume()
        }
    }
}

// Serialized: a handler held busy on an actor blocks a thread of the cooperative pool, which has as many as there are
// cores; one at a time leaves the pool to the tests' own tasks.
@Suite(.capturesReports, .serialized) struct EndingObservationsSeamTests {
    // MARK: - Cancel while deliveries queue behind a busy handler

    /// A handler blocked in its first delivery while `count` more posts queue behind it; its observation is cancelled
    /// (or its token released) on another thread. Once `cancel()` has returned, the queued payloads are released at
    /// once (nothing else is queued on the target) and, when the handler returns, no queued call starts.
    @Test(.seeded, arguments: endingCases)
    func cancelOnAnotherThreadStartsNoQueuedCallAndReleasesWhatWasQueued(target: SeamTarget, releases: Bool) async {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: releases ? 1 : 0))
        let count = 1 + random.below(300)  // across a batch (64) and the backlog bound (128)
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let entered = Signal()
        let gate = SeamGate()
        let received = Recorded<Int>()
        let released = SeamCountDown(count)
        let ending = Slot<@Sendable () -> Void>(
            place.observe(in: center, holdingFirstAt: gate) { ping in
                received.append(ping.index)
                if ping.index == 0 { entered.fire() }
            })
        SeamPing(0).post(in: center)
        #expect(await finishes(within: 10) { await entered.wait() }, "the first delivery never started")
        for index in 1...count { SeamPing(index, onRelease: { released.tick() }).post(in: center) }
        let done = onNewThread {
            if releases { ending.set(nil) } else { ending.value?() }
        }
        await waitOff(done)
        let releasedWhileBusy = await finishes(within: 10) { await released.wait() }
        #expect(releasedWhileBusy, "\(released.ticks) of \(count) queued payloads released while the handler was busy")
        gate.open()
        #expect(await finishes(within: 10) { await released.wait() }, "queued payloads were never released")
        // Every queued payload is released, so no entry is left that could still start a call.
        let late = received.values.dropFirst()
        #expect(late.isEmpty, "\(late.count) calls started after cancel() returned: \(late.prefix(8))")
        #expect(center.typedObservations.isEmpty)
        ending.set(nil)
    }

    // MARK: - Cancel racing posts from many threads, inside a wait

    /// Three threads post while a fourth cancels once the handler has run a random number of times, all inside
    /// `awaitDelivery(in:)`: no post made after `cancel()` returned is delivered (a logical clock orders the two), each
    /// post is delivered at most once, and the wait ends (a dropped delivery ends it too).
    ///
    /// A call whose ended-flag check passed just before `cancel()` stored the flag may still begin just after
    /// `cancel()` returns (the package calls no handler under a lock, and `cancel()` waits for no call): seen for one
    /// call in about one run in three under ThreadSanitizer, on the posting thread and on the main actor. So late
    /// starts are bounded by one per place a check can be in flight (each posting thread), not forbidden.
    @Test(.seeded, arguments: SeamTarget.allCases)
    func cancelRacingPostsFromManyThreadsDeliversNoLaterPost(target: SeamTarget) async {
        let rounds = TestEnvironment.scaled(normal: 12, long: 100, sanitized: 4)
        for round in 0..<rounds {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: round))
            let perThread = 50 + random.below(150)
            let cancelAfter = random.below(perThread)
            let center = NotificationCenter()
            let place = SeamPlace(target)
            let clock = LogicalClock()
            let starts = Recorded<(index: Int, posted: Int, stamp: Int)>()
            let reachedCancelPoint = DispatchSemaphore(value: 0)
            let ending = Slot<@Sendable () -> Void>(
                place.observe(in: center) { ping in
                    starts.append((ping.index, ping.stamp, clock.increment()))
                    if ping.index == cancelAfter { reachedCancelPoint.signal() }
                })
            let cancelStamp = Protected(Int.max)
            let waited = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(4) { thread in
                        if thread == 3 {
                            // Cancels once the handler has run post `cancelAfter`.
                            _ = reachedCancelPoint.wait(timeout: .now() + 30)
                            ending.value?()
                            cancelStamp.set(clock.increment())
                            return
                        }
                        // Thread 0's post `cancelAfter` lets the canceller go once it is delivered.
                        for index in 0..<perThread {
                            SeamPing(thread * 1_000 + index, stamp: clock.increment()).post(in: center)
                        }
                    }
                }
            }
            // Lets the canceller go if the cancel point was never delivered (then the test has failed already).
            reachedCancelPoint.signal()
            #expect(waited, "round \(round): the wait did not end")
            let postedLate = starts.values.filter { $0.posted > cancelStamp.value }
            #expect(postedLate.isEmpty, "round \(round): \(postedLate.count) posts made after cancel() were delivered")
            let late = starts.values.filter { $0.stamp > cancelStamp.value }
            #expect(late.count <= 3, "round \(round): \(late.count) calls started after cancel() returned")
            let indices = starts.values.map(\.index)
            #expect(Set(indices).count == indices.count, "round \(round): a post was delivered twice")
            ending.set(nil)
            if !waited || !postedLate.isEmpty || late.count > 3 { break }
        }
    }

    // MARK: - Ending and observing again inside a handler

    /// Handlers that end their own observation and observe again on the same target, while two threads post: no post
    /// is delivered twice (an ended observation's queued posts never reach its successor), each thread's posts arrive
    /// in order, and one observation is left.
    @Test(.seeded, arguments: SeamTarget.allCases)
    func aHandlerThatEndsAndObservesAgainNeverGetsAPostTwice(target: SeamTarget) async {
        var random = SplitMix64(seed: TestSeed.run)
        let perThread = TestEnvironment.scaled(normal: 400, long: 4_000, sanitized: 100)
        let every = 2 + random.below(8)
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let received = Recorded<Int>()
        // The newest observation's generation and what ends it. Replaced in one step under the test's own lock: on the
        // posting thread two handlers of one observation may run at once, and both would replace it.
        let current = Protected<(generation: Int, end: (@Sendable () -> Void)?)>((0, nil))
        @Sendable func subscribe(replacing mine: Int) {
            let previous = current.withLock { current -> (@Sendable () -> Void)? in
                guard current.generation == mine else { return nil }
                let previous = current.end
                previous?()
                let next = mine + 1
                current.generation = next
                current.end = place.observe(in: center) { ping in
                    received.append(ping.index)
                    // Once per `every` deliveries.
                    if ping.index % every == 0 { subscribe(replacing: next) }
                }
                return previous
            }
            withExtendedLifetime(previous) {}
        }
        subscribe(replacing: 0)
        let waited = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) {
                await onThreads(2) { thread in
                    for index in 0..<perThread { SeamPing(thread * 100_000 + index).post(in: center) }
                }
            }
        }
        #expect(waited, "the wait did not end")
        let values = received.values
        #expect(Set(values).count == values.count, "a post was delivered twice")
        for thread in 0..<2 {
            let mine = values.filter { $0 / 100_000 == thread }
            #expect(mine == mine.sorted(), "thread \(thread)'s posts out of order")
        }
        #expect(center.typedObservations.count == 1)
        current.set((-1, nil))
    }

    // MARK: - Owners dying with deliveries queued

    /// An owner-bound observation whose owner is released on another thread while its handler is busy and more
    /// deliveries queue: no handler call starts after the owner is gone, and the queued payloads are released.
    @Test(.seeded, arguments: [SeamTarget.dispatchQueue, .operationQueue, .mainActor, .asyncHandler])
    func anOwnerDyingWhileDeliveriesQueueEndsThemAll(target: SeamTarget) async {
        var random = SplitMix64(seed: TestSeed.run)
        let count = 1 + random.below(300)
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "EndingObservationsSeamTests.owner")
        let entered = Signal()
        let gate = SeamGate()
        let ownerGone = Protected(false)
        let lateCalls = Counter()
        let released = SeamCountDown(count)
        let owner = Slot<SeamOwner>(SeamOwner(gone: { ownerGone.set(true) }))
        let handler: @Sendable (SeamPing) -> Void = { ping in
            if ping.index == 0 {
                entered.fire()
                gate.block()
            }
        }
        switch target {
        case .dispatchQueue:
            SeamPing.observe(for: owner.value!, in: center, delivery: .async(on: queue)) { _, ping in
                if ping.index > 0 { lateCalls.increment() }
                handler(ping)
            }
        case .operationQueue:
            let operationQueue = OperationQueue()
            operationQueue.maxConcurrentOperationCount = 1
            SeamPing.observe(for: owner.value!, in: center, delivery: .async(on: operationQueue)) { _, ping in
                if ping.index > 0 { lateCalls.increment() }
                handler(ping)
            }
        case .mainActor:
            SeamPing.observeOnMainActor(for: owner.value!, in: center) { _, ping in
                if ping.index > 0 { lateCalls.increment() }
                handler(ping)
            }
        default:
            SeamPing.observe(for: owner.value!, in: center) { (_: SeamOwner, ping: SeamPing) async in
                if ping.index > 0 { lateCalls.increment() }
                if ping.index == 0 {
                    entered.fire()
                    await gate.wait()
                }
            }
        }
        SeamPing(0).post(in: center)
        #expect(await finishes(within: 10) { await entered.wait() })
        for index in 1...count { SeamPing(index, onRelease: { released.tick() }).post(in: center) }
        await waitOff(onNewThread { owner.set(nil) })
        gate.open()
        // The running call holds the owner until it returns; the queued ones find it gone.
        #expect(await finishes(within: 10) { await released.wait() }, "queued payloads were never released")
        #expect(ownerGone.value)
        #expect(lateCalls.value == 0, "\(lateCalls.value) calls after the owner was released")
        #expect(center.typedObservations.isEmpty)
    }

    // MARK: - A type's observers coming and going on two centers while both are posted

    /// On each of two centers, one thread observes a typed-only type and ends the observation, over and over, while
    /// another posts it: a post made after `observe` returned that returns before `cancel()` starts reaches that
    /// observation, and none reaches it after `cancel()` returned, though the type's count of observed centers goes
    /// between 0, 1 and 2 (the lock-free check that skips a type nobody observes).
    @Test(.seeded) func observersComingAndGoingOnTwoCentersMissNoPostMadeWhileTheyLive() async {
        let cycles = TestEnvironment.scaled(normal: 2_000, long: 20_000, sanitized: 300)
        let centers = [NotificationCenter(), NotificationCenter()]
        let clock = LogicalClock()
        let stop = Protected(false)
        // Per center and cycle: when it began, when its end started and returned, and the stamps it received.
        let windows = Recorded<(center: Int, begun: Int, ending: Int, ended: Int, received: [Int])>()
        // Per post: its stamp, taken before it starts, and a stamp taken after it returned.
        let posted = Recorded<(center: Int, stamp: Int, returned: Int)>()
        let seed = TestSeed.run
        await onThreads(4) { thread in
            let side = thread % 2
            let center = centers[side]
            if thread < 2 {
                var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
                for _ in 0..<cycles {
                    let received = Recorded<Int>()
                    let token = EndingTypedOnlyStamp.observe(in: center) { received.append($0.stamp) }
                    let begun = clock.increment()
                    for _ in 0..<random.below(3) { sched_yield() }  // varies the window, orders nothing
                    let ending = clock.increment()
                    token.cancel()
                    let ended = clock.increment()
                    windows.append((side, begun, ending, ended, received.values))
                }
                stop.withLock { $0 = true }
            } else {
                while !stop.value {
                    let stamp = clock.increment()
                    EndingTypedOnlyStamp(stamp: stamp).post(in: center)
                    posted.append((side, stamp, clock.increment()))
                }
            }
        }
        var missed: [String] = []
        var late: [String] = []
        // One poster per center, so each center's posts are in stamp order: a window's due posts are found from the
        // first one after it began, not by a scan of every post per window.
        let posts = posted.values
        let postsOf = (0..<2).map { side in posts.filter { $0.center == side } }
        for window in windows.values {
            let mine = postsOf[window.center]
            var low = 0
            var high = mine.count
            while low < high {
                let middle = (low + high) / 2
                if mine[middle].stamp > window.begun { high = middle } else { low = middle + 1 }
            }
            let got = Set(window.received)
            var index = low
            while index < mine.count, mine[index].returned < window.ending {
                if !got.contains(mine[index].stamp) { missed.append("center \(window.center) \(mine[index].stamp)") }
                index += 1
            }
            for stamp in window.received where stamp > window.ended { late.append("center \(window.center) \(stamp)") }
            #expect(got.count == window.received.count, "a post delivered twice")
        }
        #expect(missed.isEmpty, "\(missed.count) posts made while an observation lived missed it: \(missed.prefix(5))")
        #expect(late.isEmpty, "\(late.count) posts made after cancel() returned reached it: \(late.prefix(5))")
        for center in centers { #expect(center.typedObservations.isEmpty) }
    }

    // MARK: - Cancel racing a coalesced burst's end

    /// An observer coalescing on each target (`nextTurn`, or a throttle) while two threads post without a pause, cancelled on
    /// a third once it has had a random number of deliveries: at most one call per posting thread starts after
    /// `cancel()` returned (one whose check passed just before the flag was stored; see
    /// ``cancelRacingPostsFromManyThreadsDeliversNoLaterPost(target:)``), and the wait around
    /// the posts ends.
    @Test(.seeded, arguments: SeamTarget.allCases, [3, 0])
    func cancelRacingABurstsEndLeavesNoLateCallsOrWait(target: SeamTarget, coalescingIndex: Int) async {
        let rounds = TestEnvironment.scaled(normal: 4, long: 40, sanitized: 2)
        for round in 0..<rounds {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: round))
            let cancelAfter = 1 + random.below(3)
            let center = NotificationCenter()
            let clock = LogicalClock()
            let starts = Recorded<Int>()
            let reached = DispatchSemaphore(value: 0)
            let observation = observePing(on: target, in: center, coalescing: seamCoalescings[coalescingIndex]) { _ in
                if starts.withLock({ starts -> Int in
                    starts.append(clock.increment())
                    return starts.count
                }) == cancelAfter {
                    reached.signal()
                }
            }
            let cancelStamp = Protected(Int.max)
            let posting = Protected(true)
            let waited = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { thread in
                        if thread == 2 {
                            let delivered = reached.wait(timeout: .now() + 30) == .success
                            observation.cancel()
                            cancelStamp.set(clock.increment())
                            posting.set(false)
                            if !delivered { Issue.record("round \(round): \(cancelAfter) deliveries never came") }
                            return
                        }
                        var index = 0
                        while posting.value {
                            SeamPing(thread * 1_000_000 + index).post(in: center)
                            index += 1
                        }
                    }
                }
            }
            #expect(waited, "round \(round): the wait did not end")
            let late = starts.values.filter { $0 > cancelStamp.value }
            #expect(late.count <= 2, "round \(round): \(late.count) calls started after cancel() returned")
            #expect(center.typedObservations.isEmpty)
            if !waited || late.count > 2 { break }
        }
    }
}
