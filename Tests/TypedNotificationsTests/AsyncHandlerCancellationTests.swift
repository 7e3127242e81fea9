import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Cancelling an `async` observation, from its handler, another thread or by releasing its token, drops what is queued.
@Suite struct AsyncHandlerCancellationTests {
    /// The handler cancels its own token on its first call, with nine more queued: they are released inside
    /// `cancel()`, and never delivered.
    @Test func cancellingFromInsideTheHandlerDropsWhatIsQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = CountdownTally(10)
        let releasedAtCancel = Protected(-1)
        let started = Signal()
        let gate = Signal()
        let tokenSlot = Slot<NotificationToken>()
        let token = ReleaseReportingPosted.observe(in: center) { _ async in
            calls.increment()
            started.fire()
            await gate.wait()
            tokenSlot.value?.cancel()
            releasedAtCancel.set(released.count)
        }
        tokenSlot.set(token)
        await queueReleaseReportingBehindARunningCall(9, in: center, started: started, released: released)
        #expect(released.count == 0)
        gate.fire()
        await waitOrRecordTimeout(released.reached, "every payload released")
        #expect(
            releasedAtCancel.value == 9, "cancel() inside the handler did not release the nine queued payloads at once")
        #expect(calls.count == 1, "the handler ran after its token was cancelled")
        // A post after the cancel is never delivered either (a new tracked payload is released at once).
        let late = CountdownTally(1)
        ReleaseReportingPosted.post(ReleaseReporting { late.bump() }, in: center)
        await waitOrRecordTimeout(late.reached, "the late payload released")
        #expect(calls.count == 1)
        #expect(center.typedObservations.isEmpty)
    }

    /// Cancelled from another thread while a call is suspended and five more are queued: the five are released inside
    /// `cancel()`; the running call finishes; nothing else runs; the handler's captures go once the call returns.
    @Test func cancellingFromAnotherThreadWhileQueuedReleasesPayloadsAndCaptures() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = CountdownTally(6)
        let capturedGone = Signal()
        let started = Signal()
        let gate = Signal()
        let tokenSlot = Slot<NotificationToken>()
        do {
            let captured = DeinitReportingOwner(onDeinit: { capturedGone.fire() })
            tokenSlot.set(
                ReleaseReportingPosted.observe(in: center) { _ async in
                    withExtendedLifetime(captured) {}
                    calls.increment()
                    started.fire()
                    await gate.wait()
                })
        }
        await queueReleaseReportingBehindARunningCall(5, in: center, started: started, released: released)
        #expect(released.count == 0, "five payloads are queued behind the running call")
        let returned = runOnAnotherThreadAndWait {
            tokenSlot.value?.cancel()
            tokenSlot.set(nil)  // and released
        }
        #expect(returned)
        #expect(released.count == 5, "cancel() on another thread did not release the five queued payloads at once")
        #expect(center.typedObservations.isEmpty)
        gate.fire()
        await waitOrRecordTimeout(released.reached, "the running call's payload released")
        await waitOrRecordTimeout(capturedGone, "the handler's captures released after its last call")
        #expect(calls.count == 1, "the handler ran after its token was cancelled")
    }

    /// Releasing the token (not calling cancel) while deliveries are queued behaves the same.
    @Test func releasingTheTokenWhileQueuedDropsTheQueue() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = CountdownTally(4)
        let started = Signal()
        let gate = Signal()
        var token: NotificationToken? = ReleaseReportingPosted.observe(in: center) { _ async in
            calls.increment()
            started.fire()
            await gate.wait()
        }
        await queueReleaseReportingBehindARunningCall(3, in: center, started: started, released: released)
        withExtendedLifetime(token) {}
        token = nil
        #expect(released.count == 3)
        gate.fire()
        await waitOrRecordTimeout(released.reached, "every payload released")
        #expect(calls.count == 1)
    }

    /// Cancels race posts from several threads (seeded): once the drain is over, every payload has been released, none
    /// was delivered twice, each thread's deliveries are a prefix of its posts in order, and the handler never
    /// overlapped itself. Posts made after `cancel()` returned are never delivered.
    @Test(.seeded) func cancelRacingPostsFromSeveralThreads() async {
        let seed = TestSeed.run
        for iteration in 0..<12 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let center = NotificationCenter()
            let perThread = 150
            let threads = 3
            let cancelAfter = random.below(perThread)
            let received = Recorded<Int>()
            let overlap = AsyncHandlerTests.Overlap()
            let released = CountdownTally(threads * perThread)
            let cancelled = AtomicWord.make()
            let afterCancelDelivered = Counter()
            let tokenSlot = Slot<NotificationToken>()
            tokenSlot.set(
                ReleaseReportingPosted.observe(in: center) { payload async in
                    overlap.enter()
                    received.append(payload.id)
                    if payload.id >= 100_000_000 { afterCancelDelivered.increment() }
                    if payload.id % 5 == 0 { await Task.yield() }
                    overlap.leave()
                })
            await onThreads(threads) { thread in
                for index in 0..<perThread {
                    if thread == 0, index == cancelAfter {
                        tokenSlot.value?.cancel()
                        cancelled.store(1)
                    }
                    // Posts on thread 0 after its own cancel() returned are marked: they must never be delivered.
                    let mark = (thread == 0 && cancelled.isSet) ? 100_000_000 : 0
                    ReleaseReportingPosted.post(
                        ReleaseReporting(mark + thread * 1_000_000 + index) { released.bump() }, in: center)
                }
            }
            await waitOrRecordTimeout(
                released.reached, "every payload released (iteration \(iteration), seed \(TestSeed.hex(seed)))")
            let values = received.values.map { $0 % 100_000_000 }
            #expect(Set(values).count == values.count, "duplicate delivery; seed \(TestSeed.hex(seed))")
            for thread in 0..<threads {
                let mine = values.filter { $0 / 1_000_000 == thread }
                #expect(
                    mine == (0..<mine.count).map { thread * 1_000_000 + $0 },
                    "thread \(thread) not a prefix in order; seed \(TestSeed.hex(seed))")
            }
            #expect(
                afterCancelDelivered.value == 0,
                "a post made after cancel() returned was delivered; seed \(TestSeed.hex(seed))")
            #expect(!overlap.everOverlapped, "seed \(TestSeed.hex(seed))")
            #expect(center.typedObservations.isEmpty)
            tokenSlot.set(nil)
        }
    }
}

extension AsyncHandlerCancellationTests {
    /// A posting-thread observer registered before an async one cancels it during a post. The async observer's task
    /// is blocked on its first call, so anything queued for it would stay queued: the payload must be released when
    /// the post returns (nothing queued), and the handler must not run again.
    @Test func asyncObserverCancelledEarlierInThePostGetsNothingQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let started = Signal()
        let gate = Signal()
        let asyncSlot = Slot<NotificationToken>()
        let earlier = ReleaseReportingPosted.observe(in: center) { payload in
            if payload.id == 1 { asyncSlot.value?.cancel() }
        }
        asyncSlot.set(
            ReleaseReportingPosted.observe(in: center) { _ async in
                calls.increment()
                started.fire()
                await gate.wait()
            })
        let firstReleased = CountdownTally(1)
        ReleaseReportingPosted.post(ReleaseReporting(0) { firstReleased.bump() }, in: center)
        await waitOrRecordTimeout(started, "the first call")
        let secondReleased = AtomicWord.make()
        ReleaseReportingPosted.post(ReleaseReporting(1) { secondReleased.store(1) }, in: center)
        #expect(
            secondReleased.isSet,
            "the post queued its payload for an async observer that an earlier observer cancelled in the same post")
        #expect(center.typedObservations.map(\.delivery) == [.immediate])
        gate.fire()
        await waitOrRecordTimeout(firstReleased.reached, "the running call's payload released")
        #expect(calls.count == 1, "the cancelled async handler ran again")
        withExtendedLifetime(earlier) {}
    }

    /// Several async observers (plain, owner-bound, sender-filtered) after a posting-thread observer that cancels all
    /// of them during one post: none gets anything queued (each task is blocked on its first call).
    @Test func severalAsyncObserversCancelledEarlierInThePost() async {
        let center = NotificationCenter()
        let sender = Sender()
        let owner = DeinitReportingOwner()
        let calls = Counter()
        let started = CountdownTally(3)
        let gate = Signal()
        let slots = Slot<[@Sendable () -> Void]>()
        let earlier = ReleaseReportingPosted.observe(in: center) { payload in
            if payload.id == 1 { for cancel in slots.value ?? [] { cancel() } }
        }
        let body: @Sendable () async -> Void = {
            calls.increment()
            started.bump()
            await gate.wait()
        }
        let plain = ReleaseReportingPosted.observe(in: center) { _ async in await body() }
        let bound = ReleaseReportingPosted.observe(for: owner, in: center) { _, _ async in await body() }
        let filtered = ReleaseReportingPosted.observe(from: sender, in: center) { _ async in await body() }
        slots.set([{ plain.cancel() }, { bound.cancel() }, { filtered.cancel() }])
        let firstReleased = CountdownTally(1)
        ReleaseReportingPosted.post(ReleaseReporting(0) { firstReleased.bump() }, from: sender, in: center)
        await waitOrRecordTimeout(started.reached, "the three first calls")
        let secondReleased = AtomicWord.make()
        ReleaseReportingPosted.post(ReleaseReporting(1) { secondReleased.store(1) }, from: sender, in: center)
        #expect(secondReleased.isSet, "a payload was queued for an async observer cancelled earlier in the post")
        gate.fire()
        await waitOrRecordTimeout(firstReleased.reached, "the first payload released")
        #expect(calls.count == 3)
        withExtendedLifetime((earlier, owner)) {}
    }

    /// An earlier posting-thread observer drops the last reference to an async observation's owner during a post: the
    /// same post ends the observation (its captures go before the post returns) and queues nothing.
    @Test func ownerDroppedEarlierInThePostEndsTheAsyncObservation() async {
        let center = NotificationCenter()
        let calls = Counter()
        let ownerSlot = Slot<DeinitReportingOwner>()
        let capturedGone = AtomicWord.make()
        let earlier = ReleaseReportingPosted.observe(in: center) { payload in
            if payload.id == 1 { ownerSlot.set(nil) }
        }
        do {
            let owner = DeinitReportingOwner()
            ownerSlot.set(owner)
            let captured = DeinitReportingOwner(isDead: capturedGone)
            ReleaseReportingPosted.observe(for: owner, in: center) { _, _ async in
                withExtendedLifetime(captured) {}
                calls.increment()
            }
        }
        let released = AtomicWord.make()
        ReleaseReportingPosted.post(ReleaseReporting(1) { released.store(1) }, in: center)
        #expect(released.isSet, "the payload was queued for an observation whose owner died earlier in the post")
        #expect(capturedGone.isSet, "the post did not end the observation whose owner died earlier in it")
        #expect(calls.count == 0)
        #expect(center.typedObservations.map(\.delivery) == [.immediate])
        withExtendedLifetime(earlier) {}
    }

    /// A posting-thread handler makes an async observation and cancels it during the same post, and another makes one
    /// that a later observer cancels in that post: neither receives that post or any later one; an async observation
    /// made during a post and kept receives later posts only, exactly once each.
    @Test func asyncObservationMadeAndCancelledInsideAHandlerDuringAPost() async {
        let center = NotificationCenter()
        let madeAndCancelled = Counter()
        let cancelledLater = Counter()
        let kept = Recorded<Int>()
        let keptDone = CountdownTally(3)
        let later = Slot<NotificationToken>()
        let keptSlot = Slot<NotificationToken>()
        let tailSeen = Recorded<Int>()
        let maker = NumberPosted.observe(in: center) { value in
            guard value == 0 else { return }
            let token = NumberPosted.observe(in: center) { _ async in madeAndCancelled.increment() }
            token.cancel()
            later.set(NumberPosted.observe(in: center) { _ async in cancelledLater.increment() })
            keptSlot.set(
                NumberPosted.observe(in: center) { value async in
                    kept.append(value)
                    keptDone.bump()
                })
            // A post made inside the post, after the new observations: reaches the kept one only.
            NumberPosted.post(1, in: center)
        }
        let canceller = NumberPosted.observe(in: center) { value in
            if value == 0 { later.value?.cancel() }
            tailSeen.append(value)
        }
        NumberPosted.post(0, in: center)
        NumberPosted.post(2, in: center)
        NumberPosted.post(3, in: center)
        await waitOrRecordTimeout(keptDone.reached, "the kept observation's three posts")
        #expect(kept.values == [1, 2, 3], "\(kept.values)")
        #expect(madeAndCancelled.value == 0)
        #expect(cancelledLater.value == 0)
        #expect(tailSeen.values == [1, 0, 2, 3], "\(tailSeen.values)")
        #expect(center.typedObservations.map(\.delivery) == [.immediate, .immediate, .async])
        withExtendedLifetime((maker, canceller)) {}
    }

    #if DEBUG
    /// The owner dies while the post holds it (the post's load is its last reference): the post has queued the
    /// payload, but the task finds the owner gone, never calls the handler, and ends the observation.
    @Test func ownerDyingInsideThePostsOwnerLoad() async {
        let center = NotificationCenter()
        let calls = Counter()
        let ownerGone = AtomicWord.make()
        let ownerSlot = Slot<DeinitReportingOwner>()
        ownerSlot.set(DeinitReportingOwner(isDead: ownerGone))
        let ownerID = ObjectIdentifier(ownerSlot.value!)
        ReleaseReportingPosted.observe(for: ownerSlot.value!, in: center) { _, _ async in calls.increment() }
        TestHooks.on(.ownerLoad, in: ownerSlot.value!) { ownerSlot.set(nil) }
        defer { TestHooks.removeHook(at: .ownerLoad, for: ownerID) }
        let released = CountdownTally(1)
        ReleaseReportingPosted.post(ReleaseReporting(1) { released.bump() }, in: center)
        #expect(ownerGone.isSet, "the owner outlived the post that held its last reference")
        await waitOrRecordTimeout(released.reached, "the payload released")
        #expect(calls.count == 0, "the handler ran for an owner that died during the post")
        #expect(center.typedObservations.isEmpty)
    }

    /// The observation is cancelled between the post's check that it has not ended and the queueing (pinned with the
    /// owner-load hook, which runs between them): the handler never runs, the payload is released, nothing is left.
    @Test func cancelBetweenThePostsChecksAndItsQueueing() async {
        let center = NotificationCenter()
        let calls = Counter()
        let owner = DeinitReportingOwner()
        let observation = ReleaseReportingPosted.observe(for: owner, in: center) { _, _ async in calls.increment() }
        TestHooks.on(.ownerLoad, in: owner) { observation.cancel() }
        defer { TestHooks.removeHook(at: .ownerLoad, for: ObjectIdentifier(owner)) }
        let released = CountdownTally(1)
        ReleaseReportingPosted.post(ReleaseReporting(1) { released.bump() }, in: center)
        await waitOrRecordTimeout(released.reached, "the payload released")
        #expect(calls.count == 0, "the handler ran after cancel() returned")
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(owner) {}
    }
    #endif
}
