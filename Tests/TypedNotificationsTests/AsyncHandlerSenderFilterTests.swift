import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// An `async` observer's sender filter, with owners that die while posts arrive from several threads.
@Suite struct AsyncHandlerSenderFilterTests {
    /// Seeded: two threads post from the filter's sender and from another (typed and plain), while a third drops the
    /// owner at a random point. The handler never runs for a dead owner, never sees another sender's post, sees each
    /// thread's accepted posts as an in-order prefix, exactly once; every payload is released; the observation ends.
    @Test(.seeded) func asyncSenderFilterWithOwnerDyingDuringPostsFromSeveralThreads() async {
        let seed = TestSeed.run
        for iteration in 0..<10 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let center = NotificationCenter()
            let perThread = 200
            let spin = random.below(30_000)
            let choices = (0..<2).map { _ in (0..<perThread).map { _ in random.below(4) } }
            let right = Sender()
            let wrong = Sender()
            let received = Recorded<Int>()
            let overlap = AsyncHandlerTests.Overlap()
            let ranAfterDeath = Counter()
            let ownerGone = Signal()
            let ownerDead = AtomicWord.make()
            let capturedGone = Signal()
            let ownerSlot = Slot<DeinitReportingOwner>()
            ownerSlot.set(DeinitReportingOwner(isDead: ownerDead, onDeinit: { ownerGone.fire() }))
            do {
                let captured = DeinitReportingOwner(onDeinit: { capturedGone.fire() })
                SenderFilterRace.observe(for: ownerSlot.value!, from: right, in: center) { owner, value async in
                    overlap.enter()
                    withExtendedLifetime(captured) {}
                    if owner.isDead.isSet { ranAfterDeath.increment() }
                    received.append(value)
                    if value % 3 == 0 { await Task.yield() }
                    overlap.leave()
                }
            }
            let hint = "seed \(TestSeed.hex(seed)), iteration \(iteration)"
            await onThreads(3) { thread in
                if thread == 2 {
                    busyWait(spin)
                    ownerSlot.set(nil)
                    return
                }
                for index in 0..<perThread {
                    let value = thread * 1_000_000 + index
                    // 0, 1: typed from right / wrong; 2, 3: plain from right / wrong.
                    let choice = choices[thread][index]
                    let sender = choice % 2 == 0 ? right : wrong
                    if choice < 2 {
                        SenderFilterRace.post(value, from: sender, in: center)
                    } else {
                        center.post(
                            name: SenderFilterRace.notificationName, object: sender,
                            userInfo: SenderFilterRace.userInfo(for: value))
                    }
                }
            }
            await waitOrRecordTimeout(ownerGone, "the owner gone (\(hint))")
            // Any post, from any sender, now ends the observation if nothing else has (no sweep before this check).
            SenderFilterRace.post(-1, from: wrong, in: center)
            #expect(
                ObserverRegistry.shared.channelCount(of: SenderFilterRace.self) == 0,
                "a post from another sender left the dead owner's async observation in place; \(hint)")
            await waitOrRecordTimeout(capturedGone, "the handler's captures released (\(hint))")
            let values = received.values
            #expect(Set(values).count == values.count, "duplicate delivery; \(hint)")
            #expect(!values.contains(-1), "\(hint)")
            for thread in 0..<2 {
                let accepted = (0..<perThread).filter { choices[thread][$0] % 2 == 0 }.map { thread * 1_000_000 + $0 }
                let mine = values.filter { $0 / 1_000_000 == thread }
                #expect(
                    Array(accepted.prefix(mine.count)) == mine,
                    "thread \(thread): not an in-order prefix of the accepted posts, or another sender's post; \(hint)")
            }
            #expect(ranAfterDeath.value == 0, "\(hint)")
            #expect(!overlap.everOverlapped, "\(hint)")
            #expect(center.typedObservations.isEmpty, "\(hint)")
        }
    }

    /// Without a race: posts from the wrong sender never reach the async observer; a post from the wrong sender once
    /// the owner is gone ends it during that post (payload not queued, captures released at once).
    @Test func wrongSenderPostsNeverReachAnAsyncObserverAndEndItOnceTheOwnerIsGone() async {
        let center = NotificationCenter()
        let right = Sender()
        let wrong = Sender()
        let seen = Recorded<Int>()
        let done = CountdownTally(2)
        let ownerSlot = Slot<DeinitReportingOwner>()
        ownerSlot.set(DeinitReportingOwner())
        let capturedGone = AtomicWord.make()
        do {
            let captured = DeinitReportingOwner(isDead: capturedGone)
            SenderFilterPlain.observe(for: ownerSlot.value!, from: right, in: center) { _, payload async in
                withExtendedLifetime(captured) {}
                seen.append(payload.id)
                done.bump()
            }
        }
        let wrongReleased = CountdownTally(3)
        SenderFilterPlain.post(ReleaseReporting(100) { wrongReleased.bump() }, from: wrong, in: center)
        SenderFilterPlain.post(ReleaseReporting(1) {}, from: right, in: center)
        SenderFilterPlain.post(ReleaseReporting(101) { wrongReleased.bump() }, in: center)  // no sender
        SenderFilterPlain.post(ReleaseReporting(2) {}, from: right, in: center)
        center.post(
            name: SenderFilterPlain.notificationName, object: wrong,
            userInfo: SenderFilterPlain.userInfo(for: ReleaseReporting(102) { wrongReleased.bump() }))
        #expect(wrongReleased.count == 3, "a post from another sender was queued")
        await waitOrRecordTimeout(done.reached, "the two accepted posts")
        #expect(seen.values == [1, 2])
        ownerSlot.set(nil)
        let lastReleased = AtomicWord.make()
        SenderFilterPlain.post(ReleaseReporting(103) { lastReleased.store(1) }, from: wrong, in: center)
        #expect(lastReleased.isSet)
        #expect(
            ObserverRegistry.shared.channelCount(of: SenderFilterPlain.self) == 0,
            "a post from another sender did not end the async observation whose owner is gone")
        #expect(center.typedObservations.isEmpty)
        // The subscription may still be held by the task that ran the last call, for a moment; not by the registry.
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
        #expect(seen.values == [1, 2])
        _ = capturedGone
    }
}
