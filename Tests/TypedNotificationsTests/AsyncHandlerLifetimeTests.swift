import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// An `async` observation ends when its owner or its center goes, and releases what it holds.
@Suite struct AsyncHandlerLifetimeTests {
    /// The owner is released on another thread while a call holds it and five posts are queued: once the call
    /// returns the owner goes, no further call runs, the queued payloads are released, and the observation ends.
    @Test func ownerReleasedOnAnotherThreadWhilePostsAreQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = CountdownTally(6)
        let ownerGone = Signal()
        let ownerDead = AtomicWord.make()
        let started = Signal()
        let gate = Signal()
        let ranAfterDeath = Counter()
        let ownerSlot = Slot<DeinitReportingOwner>()
        ownerSlot.set(DeinitReportingOwner(isDead: ownerDead, onDeinit: { ownerGone.fire() }))
        ReleaseReportingPosted.observe(for: ownerSlot.value!, in: center) { owner, _ async in
            if owner.isDead.isSet || ownerDead.isSet { ranAfterDeath.increment() }
            calls.increment()
            started.fire()
            await gate.wait()
        }
        await queueReleaseReportingBehindARunningCall(5, in: center, started: started, released: released)
        #expect(runOnAnotherThreadAndWait { ownerSlot.set(nil) })
        #expect(!ownerDead.isSet, "the running call holds its owner")
        gate.fire()
        await waitOrRecordTimeout(ownerGone, "the owner deinitialised once the call returned")
        await waitOrRecordTimeout(released.reached, "the queued payloads released")
        #expect(calls.count == 1, "the handler ran after its owner was gone")
        #expect(ranAfterDeath.value == 0)
        #expect(center.typedObservations.isEmpty, "the observation outlived its owner")
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
    }

    /// Seeded: several threads post while another releases the owner at a random point. The handler never runs for a
    /// dead owner, every payload is released, and the observation ends.
    @Test(.seeded) func ownerDiesDuringConcurrentPosts() async {
        let seed = TestSeed.run
        for iteration in 0..<10 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let center = NotificationCenter()
            let perThread = 150
            let spin = random.below(20_000)
            let released = CountdownTally(2 * perThread)
            let ownerGone = Signal()
            let ownerDead = AtomicWord.make()
            let ranAfterDeath = Counter()
            let ownerSlot = Slot<DeinitReportingOwner>()
            ownerSlot.set(DeinitReportingOwner(isDead: ownerDead, onDeinit: { ownerGone.fire() }))
            ReleaseReportingPosted.observe(for: ownerSlot.value!, in: center) { owner, payload async in
                if owner.isDead.isSet { ranAfterDeath.increment() }
                if payload.id % 3 == 0 { await Task.yield() }
                withExtendedLifetime(owner) {}
            }
            await onThreads(3) { thread in
                if thread == 2 {
                    busyWait(spin)
                    ownerSlot.set(nil)
                    return
                }
                for index in 0..<perThread {
                    ReleaseReportingPosted.post(
                        ReleaseReporting(thread * 1_000_000 + index) { released.bump() }, in: center)
                }
            }
            await waitOrRecordTimeout(ownerGone, "the owner gone (seed \(TestSeed.hex(seed)))")
            // Introspection sweeps dead owners too, so this only checks it is over; the payloads must all be released.
            #expect(center.typedObservations.isEmpty, "seed \(TestSeed.hex(seed))")
            await waitOrRecordTimeout(released.reached, "every payload released (seed \(TestSeed.hex(seed)))")
            #expect(ranAfterDeath.value == 0, "seed \(TestSeed.hex(seed))")
        }
    }

    /// Without introspection: the owner dies between posts, and the next post's delivery alone ends the observation
    /// (its task finds the owner gone), releasing the payload.
    @Test func ownerDeathEndsTheObservationOnTheNextPost() async {
        let center = NotificationCenter()
        let calls = Counter()
        let firstDone = Signal()
        let ownerSlot = Slot<DeinitReportingOwner>()
        ownerSlot.set(DeinitReportingOwner())
        let observation = ReleaseReportingPosted.observe(for: ownerSlot.value!, in: center) { _, _ async in
            calls.increment()
            firstDone.fire()
        }
        let released = CountdownTally(2)
        ReleaseReportingPosted.post(ReleaseReporting { released.bump() }, in: center)
        await waitOrRecordTimeout(firstDone, "the first call")
        ownerSlot.set(nil)
        ReleaseReportingPosted.post(ReleaseReporting(1) { released.bump() }, in: center)
        await waitOrRecordTimeout(released.reached, "both payloads released")
        #expect(calls.count == 1)
        // The observation ended: cancelling it again is harmless, and the center has no observer left.
        observation.cancel()
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
    }

    /// The center is deallocated while a call is suspended and five posts are queued: the five are released with the
    /// center, the running call finishes, nothing else runs.
    @Test func centerDeallocatedWhileAsyncDeliveriesAreQueued() async {
        let calls = Counter()
        let released = CountdownTally(6)
        let started = Signal()
        let gate = Signal()
        weak var weakCenter: NotificationCenter?
        var token: NotificationToken?
        do {
            let center = NotificationCenter()
            weakCenter = center
            token = ReleaseReportingPosted.observe(in: center) { _ async in
                calls.increment()
                started.fire()
                await gate.wait()
            }
            await queueReleaseReportingBehindARunningCall(5, in: center, started: started, released: released)
            #expect(released.count == 0)
        }
        #expect(weakCenter == nil, "the center outlived its last reference")
        #expect(released.count == 5, "the queued payloads outlived the center")
        gate.fire()
        await waitOrRecordTimeout(released.reached, "the running call's payload released")
        #expect(calls.count == 1, "the handler ran after its center was deallocated")
        token?.cancel()
        token = nil
    }

    /// An owner-bound `async` observation is checked for its owner before its sender filter, as an owner-bound
    /// observer on the posting thread is: any post of its type ends it once its owner is gone, during that post,
    /// releasing what the handler captured, even a post from another sender than the filter's.
    @Test func postFromAnotherSenderEndsAnAsyncObservationWhoseOwnerIsGone() async {
        let center = NotificationCenter()
        let filter = Sender()
        let other = Sender()
        let capturedGone = AtomicWord.make()
        let immediateCapturedGone = AtomicWord.make()
        do {
            let owner = DeinitReportingOwner()
            let captured = DeinitReportingOwner(isDead: capturedGone)
            let immediateCaptured = DeinitReportingOwner(isDead: immediateCapturedGone)
            NumberPosted.observe(for: owner, from: filter, in: center) { _, _ async in withExtendedLifetime(captured) {}
            }
            NumberPosted.observe(for: owner, from: filter, in: center) { _, _ in
                withExtendedLifetime(immediateCaptured) {}
            }
        }
        NumberPosted.post(1, from: other, in: center)
        #expect(immediateCapturedGone.isSet, "the immediate observer's post-time owner check")
        #expect(
            capturedGone.isSet,
            "a post from another sender left the dead owner's async observation, and its handler's captures, in place")
    }

    /// The same without a sender filter: the post that finds the owner gone ends the observation during the post,
    /// rather than queueing the payload for the observation's task.
    @Test func postEndsAnAsyncObservationWhoseOwnerIsGoneDuringThePost() async {
        let center = NotificationCenter()
        let capturedGone = AtomicWord.make()
        do {
            let owner = DeinitReportingOwner()
            let captured = DeinitReportingOwner(isDead: capturedGone)
            NumberPosted.observe(for: owner, in: center) { _, _ async in withExtendedLifetime(captured) {} }
        }
        NumberPosted.post(1, in: center)
        #expect(capturedGone.isSet, "the observation whose owner is gone was not ended by the post")
    }
}

extension AsyncHandlerLifetimeTests {
    struct Numbered: Notifiable, Equatable {
        let id: Int
    }

    @Test func asyncObserverDoesNotKeepTheSenderAlive() async {
        let center = NotificationCenter()
        let gate = Gate()
        let done = Signal()
        let token = Numbered.observe(in: center) { tick in
            if tick.id == 1 { await gate.wait() }
            if tick.id == 2 { done.fire() }
        }
        weak var sender: Sender?
        do {
            let posting = Sender()
            sender = posting
            Numbered(id: 1).post(from: posting, in: center)
            Numbered(id: 2).post(from: posting, in: center)
        }
        #expect(sender == nil, "the queued delivery keeps the payload only")
        await gate.open()
        await done.wait()
        withExtendedLifetime(token) {}
    }
}
