import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

@Suite struct TokenTests {
    @Test func releasedTokenEndsTheObservation() {
        let center = NotificationCenter()
        let calls = Counter()
        var token: NotificationToken? = CounterDidChange.observe(in: center) { _ in calls.increment() }
        CounterDidChange(count: 1).post(in: center)
        token = nil
        CounterDidChange(count: 2).post(in: center)
        #expect(calls.count == 1)
        #expect(token == nil)
    }

    @Test(.capturesReports) func tokenThatIsNotKeptNeverDelivers() {
        let center = NotificationCenter()
        let calls = Counter()
        _ = CounterDidChange.observe(in: center) { _ in calls.increment() }
        CounterDidChange(count: 1).post(in: center)
        #expect(calls.count == 0)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func cancelEndsTheObservationAndIsIdempotent() {
        let center = NotificationCenter()
        let calls = Counter()
        let token = CounterDidChange.observe(in: center) { _ in calls.increment() }
        token.cancel()
        token.cancel()
        CounterDidChange(count: 1).post(in: center)
        #expect(calls.count == 0)
    }

    @Test func cancellingAStaleTokenTwiceNeverRemovesAnotherObserver() {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let stale = CounterDidChange.observe(in: center) { _ in calls.append("stale") }
        stale.cancel()
        // Foundation on Linux reuses the removed observer's key; a second removal there removes the newcomer.
        let newer = CounterDidChange.observe(in: center) { _ in calls.append("newer") }
        stale.cancel()
        stale.cancel()
        CounterDidChange(count: 1).post(in: center)
        #expect(calls.values == ["newer"])
        withExtendedLifetime(newer) {}
    }

    @Test func tokenReleasedOnAnotherThreadAffectsOnlyItsObservation() async {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let keeper = CounterDidChange.observe(in: center) { _ in calls.append("keeper") }
        let released = Slot<NotificationToken>()
        released.set(CounterDidChange.observe(in: center) { _ in calls.append("released") })
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                released.set(nil)
                continuation.resume()
            }
        }
        CounterDidChange(count: 1).post(in: center)
        #expect(calls.values == ["keeper"])
        withExtendedLifetime(keeper) {}
    }

    /// Several threads end one token's observation at the same moment, by `cancel()` and by `removeObserver(_:)`: as
    /// each call returns the observation has ended, whichever thread ended it, so the post that thread makes next
    /// never reaches the handler; the token is released on whichever thread lets go of it last, and other
    /// observations are untouched.
    @Test(.seeded) func tokenCancelledFromSeveralThreadsAtOnceHasEndedWhenEachCancelReturns() async {
        var random = SplitMix64(seed: TestSeed.run)
        let center = NotificationCenter()
        let calls = Recorded<Int>()
        let kept = Counter()
        let keeper = CounterDidChange.observe(in: center) { _ in kept.increment() }
        let rounds = 200
        for round in 0..<rounds {
            let token = Slot<NotificationToken>()
            token.set(CounterDidChange.observe(in: center) { change in calls.append(change.count) })
            let remover = random.below(4)
            // The threads' closure holds the token too, so the last to let go of it is one of them, after thread 0
            // has emptied the slot.
            guard let shared = token.value else {
                Issue.record("no token")
                return
            }
            await onThreads(4) { thread in
                if thread == remover { center.removeObserver(shared) } else { shared.cancel() }
                CounterDidChange(count: round * 4 + thread).post(in: center)
                if thread == 0 { token.set(nil) }
            }
        }
        #expect(
            calls.values.isEmpty, "posts made after a cancel() returned reached the handler: \(calls.values.prefix(5))")
        #expect(kept.count == rounds * 4)
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 1)
        withExtendedLifetime(keeper) {}
    }

    @Test func tokensStoredInASetLiveAsLongAsTheSet() {
        let center = NotificationCenter()
        let calls = Counter()
        var tokens: Set<NotificationToken> = []
        CounterDidChange.observe(in: center) { _ in calls.increment() }.store(in: &tokens)
        AppDidBecomeActive.observe(in: center) { calls.increment() }.store(in: &tokens)
        #expect(tokens.count == 2)
        CounterDidChange(count: 1).post(in: center)
        AppDidBecomeActive.post((), in: center)
        tokens.removeAll()
        CounterDidChange(count: 2).post(in: center)
        AppDidBecomeActive.post((), in: center)
        #expect(calls.count == 2)
    }

    @Test(.capturesReports) func tokensCompareByIdentity() {
        let center = NotificationCenter()
        let first = CounterDidChange.observe(in: center) { _ in }
        let second = CounterDidChange.observe(in: center) { _ in }
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, first, second]).count == 2)
    }

    // MARK: - removeObserver

    @Test func removeObserverWithATokenEndsItsObservation() {
        let center = NotificationCenter()
        let counts = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { counts.append($0.count) }
        CounterDidChange(count: 1).post(in: center)
        center.removeObserver(token)
        CounterDidChange(count: 2).post(in: center)
        #expect(counts.values == [1])
        center.removeObserver(token)  // again: nothing left to end
        withExtendedLifetime(token) {}
    }

    @Test func removeObserverOnAnotherCenterLeavesTheObservationAlone() {
        let center = NotificationCenter()
        let other = NotificationCenter()
        let counts = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { counts.append($0.count) }
        other.removeObserver(token)
        CounterDidChange(count: 1).post(in: center)
        #expect(counts.values == [1])
        withExtendedLifetime(token) {}
    }

    @Test func removeObserverEndsAnOwnerBoundObservation() {
        let center = NotificationCenter()
        let owner = Sender()
        let counts = Recorded<Int>()
        let token = CounterDidChange.observe(for: owner, in: center) { _, change in counts.append(change.count) }
        center.removeObserver(token)
        CounterDidChange(count: 1).post(in: center)
        #expect(counts.values == [])
        withExtendedLifetime(owner) {}
    }
}
