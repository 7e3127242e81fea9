import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Once `cancel()` has returned, on any thread, no handler of the observation starts, on every target. A call already
/// running may finish; a `where:` condition counts as part of a call that has not started.
///
/// Serialized: a handler or condition held on an actor or an `async` handler's task blocks a thread of the cooperative
/// pool, which has as many threads as cores (two on CI); one such test at a time leaves the others free. What
/// releases it runs on a thread of its own, never waiting for the pool.
@Suite(.serialized) struct CancellationIsFinalTests {
    @Test(arguments: ObservingTarget.allCases)
    func aConditionRunningWhenCancelReturnsNeverLeadsToItsHandler(target: ObservingTarget) async {
        let center = NotificationCenter()
        let conditionEntered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Counter()
        let releases = Releases(expecting: 1)
        let observation = observeTracked(
            on: target, in: center,
            where: { _ in
                conditionEntered.signal()
                proceed.wait()
                return true
            },
            { _ in calls.increment() })
        // The post from a thread of its own (on the posting thread, the condition blocks it), made there so that
        // nothing else holds the payload; the cancellation from another, so that nothing here waits for a thread of
        // the cooperative pool, which the condition may be blocking.
        _ = onNewThread { releases.payload(0).post(in: center) }
        _ = onNewThread {
            conditionEntered.wait()
            observation.cancel()
            proceed.signal()
        }
        await releases.wait()
        #expect(calls.value == 0, "the condition was running when cancel() returned, so the handler must not start")
        withExtendedLifetime(observation) {}
    }

    @Test(arguments: ObservingTarget.queued)
    func aBacklogQueuedBeforeCancelNeverRuns(target: ObservingTarget) async {
        let center = NotificationCenter()
        let backlog = 100
        let firstCallRunning = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let received = Recorded<Int>()
        let releases = Releases(expecting: backlog + 1)
        let observation = observeTracked(on: target, in: center) { payload in
            received.append(payload.index)
            if payload.index == 0 {
                firstCallRunning.signal()
                proceed.wait()
            }
        }
        _ = onNewThread { releases.payload(0).post(in: center) }
        _ = onNewThread {
            firstCallRunning.wait()
            // The target is busy with the first call: these queue behind it.
            for index in 1...backlog { releases.payload(index).post(in: center) }
            observation.cancel()
            proceed.signal()
        }
        await releases.wait()
        #expect(received.values == [0], "the call running when cancel() returned finishes; nothing queued starts")
        withExtendedLifetime(observation) {}
    }

    /// Cancelled by another observer on the same target, at a seeded point: that target's later entries for the
    /// cancelled observer never run, however the posts were batched.
    @Test(arguments: ObservingTarget.queued.filter { $0 != .asyncHandler })
    func cancelFromTheSameTargetEndsDeliveryAtThatPoint(target: ObservingTarget) async {
        let seed = SplitMix64.derivedSeed(TestSeed.run, index: ObservingTarget.allCases.firstIndex(of: target)!)
        var random = SplitMix64(seed: seed)
        let posts = 300
        let cancelAt = random.below(posts)
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let releases = Releases(expecting: posts)
        let cancelled = Slot<TargetObservation>()
        let observation = observeTracked(on: target, in: center) { received.append($0.index) }
        cancelled.set(observation)
        let canceller = observeCanceller(on: target, sharingWith: observation, in: center) { payload in
            if payload.index == cancelAt { cancelled.value?.cancel() }
        }
        await onThread { for index in 0..<posts { releases.payload(index).post(in: center) } }
        await releases.wait()
        #expect(
            received.values == Array(0...cancelAt),
            """
            cancelled after post \(cancelAt) on its own target; \
            \(TestSeed.replayHint(seed: TestSeed.run, test: "cancelFromTheSameTargetEndsDeliveryAtThatPoint"))
            """)
        withExtendedLifetime((observation, canceller)) {}
    }

    /// A second observer on the same serial target as `observation`.
    private func observeCanceller(
        on target: ObservingTarget,
        sharingWith observation: TargetObservation,
        in center: NotificationCenter,
        _ handler: @escaping @Sendable (Tracked) -> Void
    ) -> TargetObservation {
        switch target {
        case .dispatchQueue:
            let queue = observation.host as! DispatchQueue
            let token = Tracked.observe(in: center, delivery: .async(on: queue), handler)
            return TargetObservation(cancel: { token.cancel() }, host: queue)
        case .operationQueue:
            let queue = observation.host as! OperationQueue
            let token = Tracked.observe(in: center, delivery: .async(on: queue), handler)
            return TargetObservation(cancel: { token.cancel() }, host: queue)
        case .actor:
            let host = observation.host as! Host
            let bound = Tracked.observe(for: host, in: center) { _, payload in handler(payload) }
            return TargetObservation(cancel: { bound.cancel() }, host: host)
        default:
            return observeTracked(on: target, in: center, handler)
        }
    }
}

// Cancellation during a synchronous main-actor run, of a pending replay, from a condition, by re-subscribing, and by an
// owner's death.
extension CancellationIsFinalTests {
    /// Posts made on the main actor run the backlog synchronously; a handler there has another thread cancel a second
    /// observer of the same target, and waits for `cancel()` to return: that observer's later entries never start.
    @Test @MainActor func aCancelFromAnotherThreadDuringASynchronousMainActorBacklogIsFinal() async {
        let center = NotificationCenter()
        let first = Recorded<Int>()
        let second = Recorded<Int>()
        let secondToken = Slot<NotificationToken>()
        let cancelReturned = Counter()
        let tokenA = Tracked.observeOnMainActor(in: center) { payload in
            first.append(payload.index)
            if payload.index == 3 {
                let done = onNewThread { secondToken.value?.cancel() }
                if done.wait(timeout: .now() + 10) == .success { cancelReturned.increment() }
            }
        }
        secondToken.set(Tracked.observeOnMainActor(in: center) { payload in second.append(payload.index) })
        // Queued from a thread while the main thread is held here, then run by a post made on the main actor.
        let queued = onNewThread { for index in 0..<10 { Tracked(index).post(in: center) } }.wait(timeout: .now() + 10)
        #expect(queued == .success)
        Tracked(10).post(in: center)
        #expect(cancelReturned.value == 1)
        #expect(first.values == Array(0...10))
        #expect(second.values == [0, 1, 2], "entries of the cancelled observer started after cancel() returned")
        withExtendedLifetime(tokenA) {}
    }

    /// A latest value replayed to a late observer waits behind a running handler of its target; the observation is
    /// cancelled (on another thread) before it runs: the replay never starts.
    @Test(.capturesReports, arguments: [ObservingTarget.dispatchQueue, .operationQueue, .mainActor])
    func aReplayCancelledBeforeItRunsNeverStarts(target: ObservingTarget) async {
        let center = NotificationCenter()
        LatestTracked(index: 42).post(in: center)
        let firstRunning = Signal()
        let proceed = DispatchSemaphore(value: 0)
        let blocker = observeTracked(on: target, in: center) { _ in
            firstRunning.fire()
            // A bound against a test that failed before it signals, not a pace (see the test below).
            _ = proceed.wait(timeout: .now() + 120)
        }
        let replays = Counter()
        let drained = Signal()
        _ = onNewThread { Tracked(0).post(in: center) }
        #expect(await finishes(within: 10) { await firstRunning.wait() })
        // The late observation, on the same target, and a marker behind its replay.
        let cancel: @Sendable () -> Void
        let marker: TargetObservation
        switch target {
        case .dispatchQueue:
            let queue = blocker.host as! DispatchQueue
            let token = LatestTracked.observe(in: center, delivery: .async(on: queue)) { _ in replays.increment() }
            cancel = { token.cancel() }
            let markerToken = LatestTracked.observe(in: center, delivery: .async(on: queue)) { _ in drained.fire() }
            marker = TargetObservation(cancel: { markerToken.cancel() }, host: nil)
        case .operationQueue:
            let queue = blocker.host as! OperationQueue
            let token = LatestTracked.observe(in: center, delivery: .async(on: queue)) { _ in replays.increment() }
            cancel = { token.cancel() }
            let markerToken = LatestTracked.observe(in: center, delivery: .async(on: queue)) { _ in drained.fire() }
            marker = TargetObservation(cancel: { markerToken.cancel() }, host: nil)
        case .mainActor:
            let token = LatestTracked.observeOnMainActor(in: center) { _ in replays.increment() }
            cancel = { token.cancel() }
            let markerToken = LatestTracked.observeOnMainActor(in: center) { _ in drained.fire() }
            marker = TargetObservation(cancel: { markerToken.cancel() }, host: nil)
        default:
            let host = blocker.host as! Host
            let bound = LatestTracked.observe(for: host, in: center) { _, _ in replays.increment() }
            cancel = { bound.cancel() }
            let markerBound = LatestTracked.observe(for: host, in: center) { _, _ in drained.fire() }
            marker = TargetObservation(cancel: { markerBound.cancel() }, host: nil)
        }
        await onThread { cancel() }
        proceed.signal()
        #expect(await finishes(within: 10) { await drained.wait() })
        #expect(replays.value == 0, "a replay queued before cancel() started after it returned")
        withExtendedLifetime((blocker, marker)) {}
    }

    /// A `where:` condition that cancels its own observation and observes anew, on every target: no deadlock (no
    /// package lock is held while it runs), the handler of the cancelled observation never starts, and the new
    /// observation gets the next post exactly once.
    @Test(arguments: ObservingTarget.allCases)
    func aConditionThatCancelsItsOwnObservationAndObservesAnew(target: ObservingTarget) async {
        let center = NotificationCenter()
        let oldCalls = Counter()
        let newCalls = Recorded<Int>()
        let renewed = Slot<TargetObservation>()
        let mine = Slot<TargetObservation>()
        let conditionDone = Signal()
        let secondDelivered = Signal()
        mine.set(
            observeTracked(
                on: target, in: center,
                where: { payload in
                    guard payload.index == 0, renewed.value == nil else { return true }
                    mine.value?.cancel()
                    renewed.set(
                        observeTracked(on: target, in: center) { payload in
                            newCalls.append(payload.index)
                            if payload.index == 1 { secondDelivered.fire() }
                        })
                    conditionDone.fire()
                    return true
                },
                { _ in oldCalls.increment() }))
        _ = onNewThread { Tracked(0).post(in: center) }
        #expect(await finishes(within: 10) { await conditionDone.wait() }, "the condition deadlocked")
        await onThread { Tracked(1).post(in: center) }
        #expect(await finishes(within: 10) { await secondDelivered.wait() })
        #expect(oldCalls.value == 0, "the handler ran although its condition had cancelled the observation")
        #expect(newCalls.values == [1])
        renewed.value?.cancel()
    }

    /// Re-subscribing inside a handler on a shared serial target with a backlog: the old observation gets exactly the
    /// posts up to the one that ended it, the new one none of those and every post made after it.
    @Test(arguments: [ObservingTarget.dispatchQueue, .operationQueue, .mainActor, .actor])
    func reSubscribingInsideAHandlerSplitsTheStreamCleanly(target: ObservingTarget) async {
        let center = NotificationCenter()
        let old = Recorded<Int>()
        let renewedRecord = Recorded<Int>()
        let renewed = Slot<TargetObservation>()
        let current = Slot<TargetObservation>()
        let resubscribed = Signal()
        let lastDelivered = Signal()
        let switchAt = 50
        let first = observeTracked(on: target, in: center) { payload in
            old.append(payload.index)
            guard payload.index == switchAt else { return }
            current.value?.cancel()
            renewed.set(
                observeTracked(on: target, in: center) { payload in
                    renewedRecord.append(payload.index)
                    if payload.index == 209 { lastDelivered.fire() }
                })
            resubscribed.fire()
        }
        current.set(first)
        await onThread { for index in 0..<200 { Tracked(index).post(in: center) } }
        #expect(await finishes(within: 10) { await resubscribed.wait() })
        await onThread { for index in 200..<210 { Tracked(index).post(in: center) } }
        #expect(await finishes(within: 10) { await lastDelivered.wait() })
        #expect(old.values == Array(0...switchAt))
        let later = renewedRecord.values
        #expect(later.allSatisfy { $0 > switchAt }, "the new observation got a post from before it: \(later)")
        #expect(later == later.sorted() && Set(later).count == later.count, "out of order or twice: \(later)")
        #expect(Array(later.suffix(10)) == Array(200..<210))
        renewed.value?.cancel()
    }

    /// An owner-bound observation whose owner dies while its `where:` condition runs, the package observing the death
    /// (a sweep) before the condition returns: the handler never starts.
    @Test(arguments: [ObservingTarget.postingThread, .dispatchQueue, .operationQueue])
    func anOwnerDyingWhileItsConditionRunsNeverReachesTheHandler(target: ObservingTarget) async {
        let center = NotificationCenter()
        var owner: Sender? = Sender()
        let probe = WeakReference(owner)
        let entered = Signal()
        let proceed = DispatchSemaphore(value: 0)
        let calls = Counter()
        let releases = Releases(expecting: 1)
        let delivery: NotificationDelivery =
            switch target {
            case .dispatchQueue: .async(on: DispatchQueue(label: "owner"))
            case .operationQueue: .async(on: OperationQueue())
            default: .immediate
            }
        let observation = Tracked.observe(
            for: owner!, in: center, delivery: delivery,
            where: .matching { _ in
                entered.fire()
                // A bound against a test that failed before it signals, not a pace: under load (sanitizers, a busy
                // machine) the test's task can take more than 10 s to get there.
                _ = proceed.wait(timeout: .now() + 120)
                return true
            }
        ) { _, _ in calls.increment() }
        _ = onNewThread { releases.payload(0).post(in: center) }
        #expect(await finishes(within: 10) { await entered.wait() })
        owner = nil
        #expect(probe.object == nil)
        // The package observes the death: introspection sweeps ended owners.
        #expect(center.typedObservations.isEmpty)
        proceed.signal()
        #expect(await finishes(within: 10) { await releases.wait() })
        #expect(calls.value == 0)
        withExtendedLifetime(observation) {}
    }
}

extension CancellationIsFinalTests {
    // MARK: - What is queued for an ended observation

    @MainActor final class SeenOnMainActor {
        var seen: [Int] = []
    }

    struct Tick: Notifiable, Equatable {
        let id: Int
    }

    /// During a post made on the main actor, the main actor's backlog runs first; a handler that cancels its own
    /// observation on a queued payload gets nothing more, not even the post being made.
    @Test @MainActor func observerThatCancelsItselfOnAQueuedPayloadGetsNothingMore() {
        let center = NotificationCenter()
        let model = SeenOnMainActor()
        let token = Slot<NotificationToken>()
        token.set(
            Tick.observeOnMainActor(in: center) { tick in
                model.seen.append(tick.id)
                token.value?.cancel()
            })
        #expect(runOnAnotherThreadAndWait { Tick(id: 1).post(in: center) })
        Tick(id: 2).post(in: center)
        #expect(model.seen == [1])
        token.set(nil)
    }

    final class Heavy: Sendable {}

    struct Carrying: Notifiable {
        let heavy: Heavy
    }

    /// A target's queue is shared by its observers: cancelling one drops (and releases) what is queued for it, and
    /// leaves the others' deliveries in place.
    @Test func cancellingAQueueObserverReleasesItsQueuedPayloadsAndKeepsTheOthers() async {
        let center = NotificationCenter()
        let (queue, gate) = busyQueue()
        let kept = Recorded<Int>()
        let done = Signal()
        let cancelled = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in kept.append(-1) }
        let other = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in
            kept.append(1)
            done.fire()
        }
        weak var heavy: Heavy?
        do {
            let posted = Heavy()
            heavy = posted
            Carrying(heavy: posted).post(in: center)
        }
        #expect(heavy != nil, "queued for both observers")
        cancelled.cancel()
        #expect(heavy != nil, "still queued for the other observer")
        gate.signal()
        await done.wait()
        #expect(kept.values == [1])
        withExtendedLifetime(other) {}
    }

    @Test func cancellingReleasesWhatIsQueuedAtOnce() {
        let center = NotificationCenter()
        let (queue, gate) = busyQueue()
        let token = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in }
        weak var heavy: Heavy?
        do {
            let posted = Heavy()
            heavy = posted
            Carrying(heavy: posted).post(in: center)
        }
        #expect(heavy != nil)
        token.cancel()
        #expect(heavy == nil, "released by cancel(), not when the queue gets to it")
        gate.signal()
    }

    /// A `cancel()` that comes after a post found the observer active and before the post queued its delivery (as
    /// another thread's may; the debug hook makes it happen there) leaves nothing queued: the post drops what it
    /// queued for the ended observation, so the payload goes when the post returns, not when the busy queue gets to it.
    #if DEBUG
    @Test func aCancelBetweenAPostsCheckAndItsQueueingLeavesNothingQueued() {
        let center = NotificationCenter()
        let (queue, gate) = busyQueue()
        let token = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in }
        let cancels = Counter()
        TestHooks.on(.queueing, in: center) {
            cancels.increment()
            token.cancel()
        }
        defer { TestHooks.removeHook(at: .queueing, for: ObjectIdentifier(center)) }
        weak var heavy: Heavy?
        do {
            let posted = Heavy()
            heavy = posted
            Carrying(heavy: posted).post(in: center)
        }
        #expect(cancels.count == 1, "the post queued once, after its check")
        #expect(heavy == nil, "queued for an observation that had ended")
        gate.signal()
    }
    #endif
}
