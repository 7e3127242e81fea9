import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Observers isolated to the main actor or to any actor: synchronous during a post made on their actor, queued in
/// post order otherwise, and never waiting for the actor.
@Suite struct ActorDeliveryTests {
    @MainActor final class Badge {
        var seen: [Int] = []
    }

    // MARK: - Main actor

    @Test @MainActor func postOnTheMainActorReturnsWithMainActorObserversUpdatedQueuedPayloadsFirst() {
        let center = NotificationCenter()
        let badge = Badge()
        let token = CounterDidChange.observeOnMainActor(in: center) { change in badge.seen.append(change.count) }
        // Posted from another thread while this test holds the main actor: the post must queue and return, or
        // this wait would time out (the main actor cannot run anything until the test returns).
        #expect(runOnAnotherThreadAndWait { CounterDidChange(count: 1).post(in: center) })
        #expect(badge.seen == [], "nothing can run on the main actor while the test holds it")
        CounterDidChange(count: 2).post(in: center)
        #expect(
            badge.seen == [1, 2], "the queued payload first, then the post made on the main actor, before it returned")
        CounterDidChange(count: 3).post(in: center)
        #expect(badge.seen == [1, 2, 3])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func ownerBoundMainActorObserverBehavesTheSame() {
        let center = NotificationCenter()
        let badge = Badge()
        CounterDidChange.observeOnMainActor(for: badge, in: center) { badge, change in badge.seen.append(change.count) }
        #expect(runOnAnotherThreadAndWait { CounterDidChange(count: 1).post(in: center) })
        CounterDidChange(count: 2).post(in: center)
        #expect(badge.seen == [1, 2])
    }

    @Test @MainActor func mainActorObserverRunsDuringAPostFromAMainActorTask() async {
        let center = NotificationCenter()
        let badge = Badge()
        let token = CounterDidChange.observeOnMainActor(in: center) { change in badge.seen.append(change.count) }
        await Task { @MainActor in CounterDidChange(count: 7).post(in: center) }.value
        #expect(badge.seen == [7])
        withExtendedLifetime(token) {}
    }

    @Test func postFromAnotherThreadReturnsWhileTheMainActorIsBlocked() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let done = Signal()
        let token = CounterDidChange.observeOnMainActor(in: center) { change in
            received.append(change.count)
            if change.count == 99 { done.fire() }
        }
        let returned = await MainActor.run {
            // The main actor is held for the whole loop of posts; each post must return without it.
            runOnAnotherThreadAndWait {
                for count in 0..<100 { CounterDidChange(count: count).post(in: center) }
            }
        }
        #expect(returned)
        await done.wait()
        #expect(received.values == Array(0..<100))
        withExtendedLifetime(token) {}
    }

    /// A post whose caller the compiler does not know to be on the main actor, made on the main thread: on Apple
    /// platforms (and in the build that simulates them) the main thread is the main actor, so the observer runs
    /// during the post; elsewhere it is queued.
    @Test @MainActor func postFromNonisolatedCodeOnTheMainThreadFollowsThePlatformRule() async {
        let center = NotificationCenter()
        let badge = Badge()
        let done = Signal()
        let token = CounterDidChange.observeOnMainActor(in: center) { change in
            badge.seen.append(change.count)
            done.fire()
        }
        let onMainThread = Thread.isMainThread
        postNonisolated(CounterDidChange(count: 5), in: center)
        let duringPost = badge.seen
        await done.wait()
        #expect(badge.seen == [5])
        if Platform.mainThreadIsMainActor && onMainThread {
            #expect(duringPost == [5], "the main thread counts as the main actor here")
        } else {
            #expect(duringPost == [], "only the compiler's isolation counts here")
        }
        withExtendedLifetime(token) {}
    }

    @Test func cancellingAMainActorObserverDropsWhatIsStillQueued() async {
        let center = NotificationCenter()
        let received = Counter()
        let done = Signal()
        let sentinel = Slot<NotificationToken>()
        let returned = await MainActor.run {
            let token = CounterDidChange.observeOnMainActor(in: center) { _ in received.increment() }
            // Posted from another thread while this code holds the main actor, so all ten are still queued.
            let returned = runOnAnotherThreadAndWait {
                for count in 0..<10 { CounterDidChange(count: count).post(in: center) }
            }
            token.cancel()
            // Queued behind the cancelled deliveries: when it runs, they have had their chance.
            sentinel.set(AppDidBecomeActive.observeOnMainActor(in: center) { done.fire() })
            _ = runOnAnotherThreadAndWait { AppDidBecomeActive.post((), in: center) }
            return returned
        }
        #expect(returned)
        await done.wait()
        #expect(received.count == 0)
    }

    // MARK: - Any actor

    actor Tally {
        var seen: [Int] = []
        var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

        func record(_ value: Int) {
            seen.append(value)
            let ready = waiters.filter { $0.0 <= seen.count }
            waiters.removeAll { $0.0 <= seen.count }
            for (_, continuation) in ready { continuation.resume() }
        }

        func waitForCount(_ count: Int) async {
            if seen.count >= count { return }
            await withCheckedContinuation { waiters.append((count, $0)) }
        }

        /// Posts on this actor and returns what the observer had seen when the post returned.
        func postHere(_ value: Int, in center: NotificationCenter) -> [Int] {
            CounterDidChange(count: value).post(in: center)
            return seen
        }
    }

    @Test func actorIsolatedObserverSeesEachThreadsPostsInOrder() async {
        let center = NotificationCenter()
        let tally = Tally()
        let perThread = 300
        let observation = CounterDidChange.observe(for: tally, in: center) { tally, change in
            // Isolated to `tally`: its state is mutated without `await`, and never by two deliveries at once.
            tally.record(change.count)
        }
        let returned = await withTaskGroup(of: Bool.self) { group in
            for thread in 0..<2 {
                group.addTask {
                    runOnAnotherThreadAndWait {
                        for index in 0..<perThread { CounterDidChange(count: thread * 10_000 + index).post(in: center) }
                    }
                }
            }
            return await group.reduce(true) { $0 && $1 }
        }
        #expect(returned)
        await tally.waitForCount(2 * perThread)
        let seen = await tally.seen
        #expect(seen.count == 2 * perThread)
        for thread in 0..<2 {
            #expect(seen.filter { $0 / 10_000 == thread } == (0..<perThread).map { thread * 10_000 + $0 })
        }
        observation.cancel()
    }

    @Test func actorIsolatedObserverRunsDuringAPostMadeOnItsActorAfterWhatIsQueued() async {
        let center = NotificationCenter()
        let tally = Tally()
        let observation = CounterDidChange.observe(for: tally, in: center) { tally, change in
            tally.record(change.count)
        }
        let seen = await tally.postHere(1, in: center)
        #expect(seen == [1])
        observation.cancel()
    }

    @Test func ownerBoundActorObservationEndsWhenTheActorIsDeallocated() async {
        let center = NotificationCenter()
        var tally: Tally? = Tally()
        weak var weakTally: Tally?
        weakTally = tally
        CounterDidChange.observe(for: tally!, in: center) { tally, change in tally.record(change.count) }
        _ = await tally?.postHere(1, in: center)
        #expect(await tally?.seen == [1])
        tally = nil
        #expect(weakTally == nil, "the observation does not keep its actor alive")
        CounterDidChange(count: 2).post(in: center)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test func actorTokenFormDoesNotRetainTheActor() async {
        let center = NotificationCenter()
        var tally: Tally? = Tally()
        weak var weakTally: Tally?
        weakTally = tally
        // What the actor form returns, kept: it does not keep the actor alive either.
        let observation = CounterDidChange.observe(for: tally!, in: center) { tally, change in
            tally.record(change.count)
        }
        tally = nil
        #expect(weakTally == nil)
        CounterDidChange(count: 1).post(in: center)
        #expect(
            ObserverRegistry.shared.registrationCounts(in: center) == (0, 0),
            "its actor gone, the observation has ended")
        withExtendedLifetime(observation) {}
    }
}

/// Posts from a function the compiler does not know to be isolated to any actor.
private nonisolated func postNonisolated(_ change: CounterDidChange, in center: NotificationCenter) {
    change.post(in: center)
}

/// Runs `body` on a new thread and blocks the caller until it returns; `false` if it did not return within a minute
/// (which a post that waited for a blocked actor would never do).
func runOnAnotherThreadAndWait(_ body: @escaping @Sendable () -> Void) -> Bool {
    onNewThread(body).wait(timeout: .now() + 60) == .success
}
