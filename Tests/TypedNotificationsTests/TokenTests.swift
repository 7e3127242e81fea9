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
