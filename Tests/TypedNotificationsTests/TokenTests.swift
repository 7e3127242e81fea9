import Foundation
import Testing

@testable import TypedNotifications

@Suite struct TokenTests {
    @Test func releasedTokenEndsTheObservation() {
        let center = NotificationCenter()
        let calls = Counter()
        var token: NotificationToken? = center.observe(CounterDidChange.self) { _ in calls.increment() }
        center.post(CounterDidChange(count: 1))
        token = nil
        center.post(CounterDidChange(count: 2))
        #expect(calls.count == 1)
        #expect(token == nil)
    }

    @Test func tokenThatIsNotKeptNeverDelivers() {
        let center = NotificationCenter()
        let calls = Counter()
        _ = center.observe(CounterDidChange.self) { _ in calls.increment() }
        center.post(CounterDidChange(count: 1))
        #expect(calls.count == 0)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func cancelEndsTheObservationAndIsIdempotent() {
        let center = NotificationCenter()
        let calls = Counter()
        let token = center.observe(CounterDidChange.self) { _ in calls.increment() }
        token.cancel()
        token.cancel()
        center.post(CounterDidChange(count: 1))
        #expect(calls.count == 0)
    }

    @Test func cancellingAStaleTokenTwiceNeverRemovesAnotherObserver() {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let stale = center.observe(CounterDidChange.self) { _ in calls.append("stale") }
        stale.cancel()
        // Foundation on Linux reuses the removed observer's key; a second removal there removes the newcomer.
        let newer = center.observe(CounterDidChange.self) { _ in calls.append("newer") }
        stale.cancel()
        stale.cancel()
        center.post(CounterDidChange(count: 1))
        #expect(calls.values == ["newer"])
        withExtendedLifetime(newer) {}
    }

    @Test func tokenReleasedOnAnotherThreadAffectsOnlyItsObservation() async {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let keeper = center.observe(CounterDidChange.self) { _ in calls.append("keeper") }
        let released = Slot<NotificationToken>()
        released.set(center.observe(CounterDidChange.self) { _ in calls.append("released") })
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                released.set(nil)
                continuation.resume()
            }
        }
        center.post(CounterDidChange(count: 1))
        #expect(calls.values == ["keeper"])
        withExtendedLifetime(keeper) {}
    }

    @Test func tokensStoredInASetLiveAsLongAsTheSet() {
        let center = NotificationCenter()
        let calls = Counter()
        var tokens: Set<NotificationToken> = []
        center.observe(CounterDidChange.self) { _ in calls.increment() }.store(in: &tokens)
        center.observe(AppDidBecomeActive.self) { calls.increment() }.store(in: &tokens)
        #expect(tokens.count == 2)
        center.post(CounterDidChange(count: 1))
        center.post(AppDidBecomeActive.self)
        tokens.removeAll()
        center.post(CounterDidChange(count: 2))
        center.post(AppDidBecomeActive.self)
        #expect(calls.count == 2)
    }

    @Test func tokensCompareByIdentity() {
        let center = NotificationCenter()
        let first = center.observe(CounterDidChange.self) { _ in }
        let second = center.observe(CounterDidChange.self) { _ in }
        #expect(first == first)
        #expect(first != second)
        #expect(Set([first, first, second]).count == 2)
    }

    // MARK: - removeObserver

    @Test func removeObserverWithATokenEndsItsObservation() {
        let center = NotificationCenter()
        let counts = Recorded<Int>()
        let token = center.observe(CounterDidChange.self) { counts.append($0.count) }
        center.post(CounterDidChange(count: 1))
        center.removeObserver(token)
        center.post(CounterDidChange(count: 2))
        #expect(counts.values == [1])
        center.removeObserver(token)  // again: nothing left to end
        withExtendedLifetime(token) {}
    }

    @Test func removeObserverOnAnotherCenterLeavesTheObservationAlone() {
        let center = NotificationCenter()
        let other = NotificationCenter()
        let counts = Recorded<Int>()
        let token = center.observe(CounterDidChange.self) { counts.append($0.count) }
        other.removeObserver(token)
        center.post(CounterDidChange(count: 1))
        #expect(counts.values == [1])
        withExtendedLifetime(token) {}
    }

    @Test func removeObserverEndsAnOwnerBoundObservation() {
        let center = NotificationCenter()
        let owner = Sender()
        let counts = Recorded<Int>()
        let token = center.observe(CounterDidChange.self, for: owner) { _, change in counts.append(change.count) }
        center.removeObserver(token)
        center.post(CounterDidChange(count: 1))
        #expect(counts.values == [])
        withExtendedLifetime(owner) {}
    }
}
