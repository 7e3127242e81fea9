import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Adversarial review of the change that gave each `async` handler a `DeliveryTarget` of its own (`Executor.task`) and
// cached the default `notificationName` in the type's record. The review found two defects, fixed since: a post no
// longer ended an `async` observation whose owner was gone (`review21PostFromAnotherSender…`, `review21PostEnds…`), and
// a post scanned all its observers once per `async` observer (measured by the reviewer with a timing test, which is
// not kept here: timing belongs in benchmarks; the fix queues for an `async` handler's task without any scan).

// MARK: - Fixtures

enum R21Int: Notifiable { typealias Payload = Int }

/// A payload that says when it is released.
final class R21Tracked: Sendable {
    let id: Int
    let onRelease: @Sendable () -> Void
    init(_ id: Int = 0, onRelease: @escaping @Sendable () -> Void) {
        self.id = id
        self.onRelease = onRelease
    }
    deinit { onRelease() }
}

enum R21TrackedPost: Notifiable { typealias Payload = R21Tracked }

/// An owner (or captured object) that says when it is deinitialised.
final class R21Owner: Sendable {
    let isDead: AtomicWord
    let onDeinit: @Sendable () -> Void
    init(isDead: AtomicWord = AtomicWord.make(), onDeinit: @escaping @Sendable () -> Void = {}) {
        self.isDead = isDead
        self.onDeinit = onDeinit
    }
    deinit {
        isDead.store(1)
        onDeinit()
    }
}

struct R21Latest: LatestValueNotifiable, Equatable { let value: Int }

/// Counts to `target`, then fires `reached`.
final class R21Tally: Sendable {
    let counter = Counter()
    let target: Int
    let reached = Signal()
    init(_ target: Int) {
        self.target = target
        if target == 0 { reached.fire() }
    }
    func bump() { if counter.increment() == target { reached.fire() } }
    var count: Int { counter.value }
}

/// Waits for `signal`, recording an issue (instead of hanging) if it does not fire within `seconds`. The timeout is a
/// failure bound only; it never stands in for synchronisation.
@discardableResult
func r21Wait(
    _ signal: Signal, _ what: String, seconds: UInt64 = 60, sourceLocation: SourceLocation = #_sourceLocation
) async -> Bool {
    let fired = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await signal.wait()
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: seconds * 1_000_000_000)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    if !fired { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    return fired
}

/// Posts a tracked payload, waits until the handler has started on it (it then waits on a gate of the test's), and
/// queues `backlog` more tracked payloads behind that running call; each payload bumps `released` when released.
func r21QueueBehindARunningCall(_ backlog: Int, in center: NotificationCenter, started: Signal, released: R21Tally)
    async
{
    R21TrackedPost.post(R21Tracked { released.bump() }, in: center)
    await r21Wait(started, "the first call")
    for index in 1...backlog { R21TrackedPost.post(R21Tracked(index) { released.bump() }, in: center) }
}

/// Busy-waits `iterations` steps: a seeded delay that moves where a race lands, never a synchronisation.
func r21Spin(_ iterations: Int) {
    var sink = 0
    for index in 0..<iterations { sink &+= index }
    withExtendedLifetime(sink) {}
}

/// The run's seed, printed with how to replay it.
func r21Seed(_ what: String, test: String) -> UInt64 {
    let seed = TestSeed.run
    print("Review21 \(what) seed: \(TestSeed.hex(seed)) — \(TestSeed.replayHint(seed: seed, test: test))")
    return seed
}

/// Whether `values`, restricted to those of `source` (`value / 1_000_000`), are exactly `expected`.
func r21Check(
    _ values: [Int], source: Int, expected: [Int], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let mine = values.filter { $0 / 1_000_000 == source }
    #expect(
        mine == expected,
        "\(label): source \(source) out of order, lost or duplicated (\(mine.count) of \(expected.count))",
        sourceLocation: sourceLocation)
}

// MARK: - Order, overlap, re-posts

@Suite struct Review21AsyncOrderTests {
    /// Posts from three threads, the main actor, and re-posts from inside the handler: each source in order, every
    /// post exactly once, the handler never overlapping itself.
    @Test func review21AsyncHandlerOrderNoOverlapWithRepostsThreadsAndMainActor() async {
        let center = NotificationCenter()
        let perSource = 300
        let reposts = perSource / 4
        let total = 4 * perSource + reposts
        let received = Recorded<Int>()
        let overlap = AsyncHandlerTests.Overlap()
        let tally = R21Tally(total)
        let token = R21Int.observe(in: center) { value async in
            overlap.enter()
            if value % 7 == 0 { await Task.yield() }  // suspends mid-delivery: the next one must still wait
            received.append(value)
            // Re-posts from inside the handler (source 9), for every fourth post of source 0.
            if value / 1_000_000 == 0, value % 4 == 0 { R21Int.post(9_000_000 + value / 4, in: center) }
            overlap.leave()
            tally.bump()
        }
        async let mainActorPosts: Void = { @MainActor in
            for index in 0..<perSource { R21Int.post(3_000_000 + index, in: center) }
        }()
        await onThreads(3) { thread in
            for index in 0..<perSource { R21Int.post(thread * 1_000_000 + index, in: center) }
        }
        await mainActorPosts
        await r21Wait(tally.reached, "all \(total) deliveries")
        let values = received.values
        #expect(values.count == total, "\(values.count) deliveries, \(total) expected")
        #expect(Set(values).count == values.count, "a delivery was duplicated")
        for source in 0..<4 {
            r21Check(values, source: source, expected: (0..<perSource).map { source * 1_000_000 + $0 }, "thread")
        }
        r21Check(values, source: 9, expected: (0..<reposts).map { 9_000_000 + $0 }, "re-posts")
        // Each re-post comes after the delivery that made it.
        for repost in 0..<reposts {
            if let made = values.firstIndex(of: repost * 4), let delivered = values.firstIndex(of: 9_000_000 + repost) {
                #expect(made < delivered)
            }
        }
        #expect(!overlap.everOverlapped, "the async handler overlapped itself")
        withExtendedLifetime(token) {}
    }

    /// Posts in pairs from one thread, so that the drain task often ends (nothing queued) and the next post starts
    /// another: the hand-over never reorders or overlaps.
    @Test func review21DrainTaskHandOverKeepsOrder() async {
        let center = NotificationCenter()
        let rounds = 400
        let received = Recorded<Int>()
        let overlap = AsyncHandlerTests.Overlap()
        let tally = R21Tally(rounds * 2)
        let token = R21Int.observe(in: center) { value async in
            overlap.enter()
            received.append(value)
            overlap.leave()
            tally.bump()
        }
        // Posts in pairs from one thread, with the drain task often ending between them (nothing queued).
        let returned = runOnAnotherThreadAndWait {
            for round in 0..<rounds {
                R21Int.post(2 * round, in: center)
                R21Int.post(2 * round + 1, in: center)
            }
        }
        #expect(returned)
        await r21Wait(tally.reached, "all deliveries")
        #expect(received.values == Array(0..<(2 * rounds)))
        #expect(!overlap.everOverlapped)
        withExtendedLifetime(token) {}
    }
}

// MARK: - Cancelling

@Suite struct Review21AsyncCancelTests {
    /// The handler cancels its own token on its first call, with nine more queued: they are released inside
    /// `cancel()`, and never delivered.
    @Test func review21CancellingFromInsideTheHandlerDropsWhatIsQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = R21Tally(10)
        let releasedAtCancel = Protected(-1)
        let started = Signal()
        let gate = Signal()
        let tokenSlot = Slot<NotificationToken>()
        let token = R21TrackedPost.observe(in: center) { _ async in
            calls.increment()
            started.fire()
            await gate.wait()
            tokenSlot.value?.cancel()
            releasedAtCancel.set(released.count)
        }
        tokenSlot.set(token)
        await r21QueueBehindARunningCall(9, in: center, started: started, released: released)
        #expect(released.count == 0)
        gate.fire()
        await r21Wait(released.reached, "every payload released")
        #expect(
            releasedAtCancel.value == 9, "cancel() inside the handler did not release the nine queued payloads at once")
        #expect(calls.count == 1, "the handler ran after its token was cancelled")
        // A post after the cancel is never delivered either (a new tracked payload is released at once).
        let late = R21Tally(1)
        R21TrackedPost.post(R21Tracked { late.bump() }, in: center)
        await r21Wait(late.reached, "the late payload released")
        #expect(calls.count == 1)
        #expect(center.typedObservations.isEmpty)
    }

    /// Cancelled from another thread while a call is suspended and five more are queued: the five are released inside
    /// `cancel()`; the running call finishes; nothing else runs; the handler's captures go once the call returns.
    @Test func review21CancellingFromAnotherThreadWhileQueuedReleasesPayloadsAndCaptures() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = R21Tally(6)
        let capturedGone = Signal()
        let started = Signal()
        let gate = Signal()
        let tokenSlot = Slot<NotificationToken>()
        do {
            let captured = R21Owner(onDeinit: { capturedGone.fire() })
            tokenSlot.set(
                R21TrackedPost.observe(in: center) { _ async in
                    withExtendedLifetime(captured) {}
                    calls.increment()
                    started.fire()
                    await gate.wait()
                })
        }
        await r21QueueBehindARunningCall(5, in: center, started: started, released: released)
        #expect(released.count == 0, "five payloads are queued behind the running call")
        let returned = runOnAnotherThreadAndWait {
            tokenSlot.value?.cancel()
            tokenSlot.set(nil)  // and released
        }
        #expect(returned)
        #expect(released.count == 5, "cancel() on another thread did not release the five queued payloads at once")
        #expect(center.typedObservations.isEmpty)
        gate.fire()
        await r21Wait(released.reached, "the running call's payload released")
        await r21Wait(capturedGone, "the handler's captures released after its last call")
        #expect(calls.count == 1, "the handler ran after its token was cancelled")
    }

    /// Releasing the token (not calling cancel) while deliveries are queued behaves the same.
    @Test func review21ReleasingTheTokenWhileQueuedDropsTheQueue() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = R21Tally(4)
        let started = Signal()
        let gate = Signal()
        var token: NotificationToken? = R21TrackedPost.observe(in: center) { _ async in
            calls.increment()
            started.fire()
            await gate.wait()
        }
        await r21QueueBehindARunningCall(3, in: center, started: started, released: released)
        withExtendedLifetime(token) {}
        token = nil
        #expect(released.count == 3)
        gate.fire()
        await r21Wait(released.reached, "every payload released")
        #expect(calls.count == 1)
    }

    /// Cancels race posts from several threads (seeded): once the drain is over, every payload has been released, none
    /// was delivered twice, each thread's deliveries are a prefix of its posts in order, and the handler never
    /// overlapped itself. Posts made after `cancel()` returned are never delivered.
    @Test func review21CancelRacingPostsFromSeveralThreads() async {
        let seed = r21Seed("cancel race", test: "review21CancelRacingPostsFromSeveralThreads")
        for iteration in 0..<12 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let center = NotificationCenter()
            let perThread = 150
            let threads = 3
            let cancelAfter = random.below(perThread)
            let received = Recorded<Int>()
            let overlap = AsyncHandlerTests.Overlap()
            let released = R21Tally(threads * perThread)
            let cancelled = AtomicWord.make()
            let afterCancelDelivered = Counter()
            let tokenSlot = Slot<NotificationToken>()
            tokenSlot.set(
                R21TrackedPost.observe(in: center) { payload async in
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
                    R21TrackedPost.post(R21Tracked(mark + thread * 1_000_000 + index) { released.bump() }, in: center)
                }
            }
            await r21Wait(
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

// MARK: - Owners and centers

@Suite struct Review21AsyncLifetimeTests {
    /// The owner is released on another thread while a call holds it and five posts are queued: once the call
    /// returns the owner goes, no further call runs, the queued payloads are released, and the observation ends.
    @Test func review21OwnerReleasedOnAnotherThreadWhilePostsAreQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let released = R21Tally(6)
        let ownerGone = Signal()
        let ownerDead = AtomicWord.make()
        let started = Signal()
        let gate = Signal()
        let ranAfterDeath = Counter()
        let ownerSlot = Slot<R21Owner>()
        ownerSlot.set(R21Owner(isDead: ownerDead, onDeinit: { ownerGone.fire() }))
        R21TrackedPost.observe(for: ownerSlot.value!, in: center) { owner, _ async in
            if owner.isDead.isSet || ownerDead.isSet { ranAfterDeath.increment() }
            calls.increment()
            started.fire()
            await gate.wait()
        }
        await r21QueueBehindARunningCall(5, in: center, started: started, released: released)
        #expect(runOnAnotherThreadAndWait { ownerSlot.set(nil) })
        #expect(!ownerDead.isSet, "the running call holds its owner")
        gate.fire()
        await r21Wait(ownerGone, "the owner deinitialised once the call returned")
        await r21Wait(released.reached, "the queued payloads released")
        #expect(calls.count == 1, "the handler ran after its owner was gone")
        #expect(ranAfterDeath.value == 0)
        #expect(center.typedObservations.isEmpty, "the observation outlived its owner")
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
    }

    /// Seeded: several threads post while another releases the owner at a random point. The handler never runs for a
    /// dead owner, every payload is released, and the observation ends.
    @Test func review21OwnerDiesDuringConcurrentPosts() async {
        let seed = r21Seed("owner race", test: "review21OwnerDiesDuringConcurrentPosts")
        for iteration in 0..<10 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let center = NotificationCenter()
            let perThread = 150
            let spin = random.below(20_000)
            let released = R21Tally(2 * perThread)
            let ownerGone = Signal()
            let ownerDead = AtomicWord.make()
            let ranAfterDeath = Counter()
            let ownerSlot = Slot<R21Owner>()
            ownerSlot.set(R21Owner(isDead: ownerDead, onDeinit: { ownerGone.fire() }))
            R21TrackedPost.observe(for: ownerSlot.value!, in: center) { owner, payload async in
                if owner.isDead.isSet { ranAfterDeath.increment() }
                if payload.id % 3 == 0 { await Task.yield() }
                withExtendedLifetime(owner) {}
            }
            await onThreads(3) { thread in
                if thread == 2 {
                    r21Spin(spin)
                    ownerSlot.set(nil)
                    return
                }
                for index in 0..<perThread {
                    R21TrackedPost.post(R21Tracked(thread * 1_000_000 + index) { released.bump() }, in: center)
                }
            }
            await r21Wait(ownerGone, "the owner gone (seed \(TestSeed.hex(seed)))")
            // Introspection sweeps dead owners too, so this only checks it is over; the payloads must all be released.
            #expect(center.typedObservations.isEmpty, "seed \(TestSeed.hex(seed))")
            await r21Wait(released.reached, "every payload released (seed \(TestSeed.hex(seed)))")
            #expect(ranAfterDeath.value == 0, "seed \(TestSeed.hex(seed))")
        }
    }

    /// Without introspection: the owner dies between posts, and the next post's delivery alone ends the observation
    /// (its task finds the owner gone), releasing the payload.
    @Test func review21OwnerDeathEndsTheObservationOnTheNextPost() async {
        let center = NotificationCenter()
        let calls = Counter()
        let firstDone = Signal()
        let ownerSlot = Slot<R21Owner>()
        ownerSlot.set(R21Owner())
        let observation = R21TrackedPost.observe(for: ownerSlot.value!, in: center) { _, _ async in
            calls.increment()
            firstDone.fire()
        }
        let released = R21Tally(2)
        R21TrackedPost.post(R21Tracked { released.bump() }, in: center)
        await r21Wait(firstDone, "the first call")
        ownerSlot.set(nil)
        R21TrackedPost.post(R21Tracked(1) { released.bump() }, in: center)
        await r21Wait(released.reached, "both payloads released")
        #expect(calls.count == 1)
        // The observation ended: cancelling it again is harmless, and the center has no observer left.
        observation.cancel()
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
    }

    /// The center is deallocated while a call is suspended and five posts are queued: the five are released with the
    /// center, the running call finishes, nothing else runs.
    @Test func review21CenterDeallocatedWhileAsyncDeliveriesAreQueued() async {
        let calls = Counter()
        let released = R21Tally(6)
        let started = Signal()
        let gate = Signal()
        weak var weakCenter: NotificationCenter?
        var token: NotificationToken?
        do {
            let center = NotificationCenter()
            weakCenter = center
            token = R21TrackedPost.observe(in: center) { _ async in
                calls.increment()
                started.fire()
                await gate.wait()
            }
            await r21QueueBehindARunningCall(5, in: center, started: started, released: released)
            #expect(released.count == 0)
        }
        #expect(weakCenter == nil, "the center outlived its last reference")
        #expect(released.count == 5, "the queued payloads outlived the center")
        gate.fire()
        await r21Wait(released.reached, "the running call's payload released")
        #expect(calls.count == 1, "the handler ran after its center was deallocated")
        token?.cancel()
        token = nil
    }
}

// MARK: - Several observers on one center

@Suite struct Review21AsyncMixTests {
    /// Re-subscribing inside an async handler, and re-posting after it: the new observer receives the re-post and
    /// later posts; a handler that cancels itself and observes anew stops at once, and its replacement takes over.
    @Test func review21ResubscribingInsideAnAsyncHandler() async {
        let center = NotificationCenter()
        let outerSeen = Recorded<Int>()
        let innerSeen = Recorded<Int>()
        let replacementSeen = Recorded<Int>()
        let inner = Slot<NotificationToken>()
        let replacement = Slot<NotificationToken>()
        let outerSlot = Slot<NotificationToken>()
        let innerReady = Signal()
        let replacementReady = Signal()
        let finished = R21Tally(2)
        outerSlot.set(
            R21Int.observe(in: center) { value async in
                outerSeen.append(value)
                if value == 0 {
                    inner.set(
                        R21Int.observe(in: center) { value async in
                            innerSeen.append(value)
                            if value == 4 { finished.bump() }
                        })
                    R21Int.post(1, in: center)
                    innerReady.fire()
                }
                if value == 2 {
                    // Cancels itself and observes anew: the replacement sees later posts; this one sees no more.
                    outerSlot.value?.cancel()
                    replacement.set(
                        R21Int.observe(in: center) { value async in
                            replacementSeen.append(value)
                            if value == 4 { finished.bump() }
                        })
                    R21Int.post(3, in: center)
                    replacementReady.fire()
                }
            })
        R21Int.post(0, in: center)
        await r21Wait(innerReady, "the inner observer")
        R21Int.post(2, in: center)
        await r21Wait(replacementReady, "the replacement observer")
        R21Int.post(4, in: center)
        await r21Wait(finished.reached, "4 at the inner and replacement observers")
        #expect(outerSeen.values == [0, 1, 2], "the outer handler ran after cancelling itself: \(outerSeen.values)")
        #expect(innerSeen.values == [1, 2, 3, 4], "\(innerSeen.values)")
        #expect(replacementSeen.values == [3, 4], "\(replacementSeen.values)")
        let kinds = center.typedObservations.map(\.delivery)
        #expect(kinds == [.async, .async], "inner and replacement: \(kinds)")
    }

    /// Three async observers, one main-actor observer and one queue observer on one center, posts from two threads:
    /// each sees every post of each thread in order; one async observer blocked on its first call holds up nobody
    /// else; introspection lists each async observer as `.async`.
    @Test func review21SeveralAsyncObserversWithMainActorAndQueueObservers() async {
        let center = NotificationCenter()
        let perThread = 200
        let total = 2 * perThread
        let names = ["asyncA", "asyncB", "asyncC", "main", "queue"]
        let seen = names.map { _ in Recorded<Int>() }
        let tallies = names.map { _ in R21Tally(total) }
        let overlaps = names.map { _ in AsyncHandlerTests.Overlap() }
        let gate = Signal()
        var tokens: [NotificationToken] = []
        for index in 0..<3 {
            tokens.append(
                R21Int.observe(in: center) { value async in
                    overlaps[index].enter()
                    if index == 2, seen[2].count == 0 { await gate.wait() }  // asyncC blocks on its first call
                    if value % 5 == 0 { await Task.yield() }
                    seen[index].append(value)
                    overlaps[index].leave()
                    tallies[index].bump()
                })
        }
        tokens.append(
            R21Int.observeOnMainActor(in: center) { value in
                seen[3].append(value)
                tallies[3].bump()
            })
        tokens.append(
            R21Int.observe(in: center, delivery: .async(on: DispatchQueue(label: "review21"))) { value in
                seen[4].append(value)
                tallies[4].bump()
            })
        let kinds = center.typedObservations.map(\.delivery)
        #expect(kinds.filter { $0 == .async }.count == 3, "\(kinds)")
        #expect(kinds.filter { $0 == .mainActor }.count == 1, "\(kinds)")
        #expect(kinds.filter { $0 == .queue }.count == 1, "\(kinds)")
        await onThreads(2) { thread in
            for index in 0..<perThread { R21Int.post(thread * 1_000_000 + index, in: center) }
        }
        for index in [0, 1, 3, 4] {
            await r21Wait(tallies[index].reached, "\(names[index]) while asyncC is blocked")
        }
        #expect(seen[2].count == 0, "asyncC is still blocked on its first call")
        gate.fire()
        await r21Wait(tallies[2].reached, "asyncC")
        for (index, name) in names.enumerated() {
            let values = seen[index].values
            #expect(values.count == total, "\(name): \(values.count) of \(total)")
            for thread in 0..<2 {
                r21Check(values, source: thread, expected: (0..<perThread).map { thread * 1_000_000 + $0 }, name)
            }
            #expect(!overlaps[index].everOverlapped, "\(name) overlapped itself")
        }
        // The main-actor and queue observers see one order each (one target each); the async ones are independent.
        withExtendedLifetime(tokens) {}
    }

    /// The registry never stores an async handler's target, so it never takes (or drops) the main actor's entry,
    /// whose key has the same `executor: nil`: main-actor observers made before and after async ones that come and
    /// go share one target.
    @Test func review21AsyncTargetsAreNeverTheMainActorsTarget() {
        let center = NotificationCenter()
        func site(_ line: UInt = #line) -> ObservationSite { ObservationSite(fileID: #fileID, line: line) }
        let firstAsync = center.register(R21Int.self, sender: nil, on: .task, handler: .async { _ in }, site: site())
        let main = center.register(R21Int.self, sender: nil, on: .mainActor, handler: .payload { _ in }, site: site())
        let secondAsync = center.register(R21Int.self, sender: nil, on: .task, handler: .async { _ in }, site: site())
        #expect(main.target != nil && firstAsync.target != nil && secondAsync.target != nil)
        #expect(firstAsync.target !== main.target, "an async observer was merged into the main actor's target")
        #expect(secondAsync.target !== main.target, "an async observer was merged into the main actor's target")
        #expect(firstAsync.target !== secondAsync.target, "two async observers share a target")
        #expect(main.target?.key == firstAsync.target?.key, "the keys do collide; the registry must not store .task")
        firstAsync.cancel()
        secondAsync.cancel()
        let mainAgain = center.register(
            R21Int.self, sender: nil, on: .mainActor, handler: .payload { _ in }, site: site())
        #expect(mainAgain.target === main.target, "cancelling async observers dropped the main actor's target entry")
        // And on another type of the same center (targets are per center, not per type).
        let otherAsync = center.register(
            R21TrackedPost.self, sender: nil, on: .task, handler: .async { _ in }, site: site())
        otherAsync.cancel()
        let mainOther = center.register(
            R21TrackedPost.self, sender: nil, on: .mainActor, handler: .payload { _ in }, site: site())
        #expect(mainOther.target === main.target)
        #expect(
            center.typedObservations.map(\.delivery).sorted { $0.rawValue < $1.rawValue } == [
                .mainActor, .mainActor, .mainActor,
            ])
        main.cancel()
        mainAgain.cancel()
        mainOther.cancel()
        #expect(center.typedObservations.isEmpty)
    }

    /// Main-actor observers registered before and after async observers are cancelled keep one order between them
    /// (one target): a behavioural form of the check above.
    @Test func review21MainActorObserversKeepOneOrderAcrossAsyncChurn() async {
        let center = NotificationCenter()
        let log = Recorded<String>()
        let done = R21Tally(200)
        let first = R21Int.observeOnMainActor(in: center) { value in
            log.append("first \(value)")
            done.bump()
        }
        for _ in 0..<5 {
            let churn = R21Int.observe(in: center) { _ async in }
            churn.cancel()
        }
        let second = R21Int.observeOnMainActor(in: center) { value in
            log.append("second \(value)")
            done.bump()
        }
        await onThreads(2) { thread in
            for index in 0..<50 { R21Int.post(thread * 50 + index, in: center) }
        }
        await r21Wait(done.reached, "the main-actor observers")
        // One target: every post reaches `first` then `second`, adjacent.
        let values = log.values
        for pair in stride(from: 0, to: values.count, by: 2) {
            let a = values[pair]
            let b = values[pair + 1]
            #expect(a.hasPrefix("first ") && b == "second " + a.dropFirst("first ".count), "\(a), \(b)")
        }
        withExtendedLifetime((first, second)) {}
    }
}

// MARK: - Latest values

@Suite struct Review21AsyncLatestValueTests {
    @Test func review21AsyncObserverOfALatestValueGetsItFirstThenLivePosts() async {
        let center = NotificationCenter()
        R21Latest(value: 7).post(in: center)
        let seen = Recorded<Int>()
        let done = R21Tally(3)
        let token = R21Latest.observe(in: center) { (latest: R21Latest) async in
            seen.append(latest.value)
            done.bump()
        }
        R21Latest(value: 8).post(in: center)
        R21Latest(value: 9).post(in: center)
        await r21Wait(done.reached, "three deliveries")
        #expect(seen.values == [7, 8, 9])
        let ownerSeen = Recorded<Int>()
        let ownerDone = R21Tally(2)
        let owner = R21Owner()
        R21Latest.observe(for: owner, in: center) { _, latest async in
            ownerSeen.append(latest.value)
            ownerDone.bump()
        }
        R21Latest(value: 10).post(in: center)
        await r21Wait(ownerDone.reached, "the owner-bound observer")
        #expect(ownerSeen.values == [9, 10])
        withExtendedLifetime((token, owner)) {}
    }

    /// Seeded: two threads post increasing values while a third observes at a random moment. The observer receives
    /// the latest value first, exactly once, then every later post of each thread: no duplicates, no gaps.
    @Test func review21AsyncLatestValueUnderConcurrentPosting() async {
        let seed = r21Seed("latest", test: "review21AsyncLatestValueUnderConcurrentPosting")
        let center = NotificationCenter()
        let perThread = 300
        for iteration in 0..<15 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let spin = random.below(40_000)
            let base = iteration * 10_000_000
            R21Latest(value: base + 9_000_000).post(in: center)  // the latest before anything else
            let seen = Recorded<Int>()
            let sentinelSeen = Signal()
            let sentinel = 8_000_000
            let tokenSlot = Slot<NotificationToken>()
            await onThreads(3) { thread in
                if thread == 2 {
                    r21Spin(spin)
                    tokenSlot.set(
                        R21Latest.observe(in: center) { (latest: R21Latest) async in
                            seen.append(latest.value)
                            if latest.value == base + sentinel { sentinelSeen.fire() }
                        })
                    return
                }
                for index in 1...perThread { R21Latest(value: base + thread * 1_000_000 + index).post(in: center) }
            }
            // Posted after the observation began: delivered live, last.
            R21Latest(value: base + sentinel).post(in: center)
            await r21Wait(sentinelSeen, "the sentinel (seed \(TestSeed.hex(seed)), iteration \(iteration))")
            let values = seen.values.map { $0 - base }
            let hint = "seed \(TestSeed.hex(seed)), iteration \(iteration): \(values.prefix(8))…"
            #expect(Set(values).count == values.count, "duplicate; \(hint)")
            #expect(values.last == sentinel, "\(hint)")
            #expect(values.count >= 2, "the latest value was not delivered first; \(hint)")
            #expect(!values.dropFirst().contains(9_000_000), "the baseline arrived live; \(hint)")
            for thread in 0..<2 {
                let mine = values.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 }
                // Empty when the observation began after this thread's last post stopped being the latest.
                guard let start = mine.first else { continue }
                #expect(mine == Array(start...perThread), "thread \(thread) has a gap or is out of order; \(hint)")
            }
            tokenSlot.set(nil)
            R21Latest.clearLatest(in: center)
        }
    }
}

// MARK: - notificationName

struct R21Generic<A, B>: Notifiable {}
enum R21Fresh<Tag>: Notifiable {}
class R21Base: Notifiable, @unchecked Sendable {}
final class R21Sub: R21Base, @unchecked Sendable {}
class R21Base2: Notifiable, @unchecked Sendable {}
final class R21Sub2: R21Base2, @unchecked Sendable {}
class R21CustomBase: Notifiable, @unchecked Sendable {
    class var notificationName: Notification.Name { .init("Review21.CustomBase") }
}
final class R21CustomSub: R21CustomBase, @unchecked Sendable {
    override class var notificationName: Notification.Name { .init("Review21.CustomSub") }
}
struct R21Custom: Notifiable { static var notificationName: Notification.Name { .init("Review21.Custom") } }
enum R21CustomVoid: Notifiable {
    typealias Payload = Void
    static var notificationName: Notification.Name { .init("Review21.CustomVoid") }
}

func r21GenericName<T: Notifiable>(_: T.Type) -> Notification.Name { T.notificationName }
func r21Expected(_ type: Any.Type) -> String { DerivedNames.stableName(String(reflecting: type)) }

@Suite struct Review21NamingTests {
    @Test func review21DefaultNameIsStableAndDerivedFromTheTypeName() {
        struct LocalPing: Notifiable {}
        enum LocalTag {}
        let types: [any Notifiable.Type] = [
            R21Int.self, R21Generic<Int, String>.self, R21Generic<LocalTag, [Int?]>.self, LocalPing.self,
            R21Fresh<LocalPing>.self, R21Generic<R21Generic<LocalTag, Int>, Void>.self,
        ]
        for type in types {
            let first = type.notificationName
            #expect(first.rawValue == r21Expected(type), "\(first.rawValue)")
            #expect(!first.rawValue.contains("$"))
            #expect(type.notificationName == first, "the name changed between reads")
        }
        #expect(
            R21Generic<LocalTag, [Int?]>.notificationName.rawValue
                == "TypedNotificationsTests.R21Generic<TypedNotificationsTests.Review21NamingTests.LocalTag, Swift.Array<Swift.Optional<Swift.Int>>>"
        )
        #expect(R21Generic<Int, String>.notificationName != R21Generic<String, Int>.notificationName)
    }

    /// A subclass of a conforming class: named after itself, the same through a generic context, its base after
    /// itself; whichever is read first.
    @Test func review21ClassHierarchiesGetTheirOwnDefaultNames() {
        // Subclass read first, then the base.
        let sub = R21Sub.notificationName
        #expect(sub.rawValue == "TypedNotificationsTests.R21Sub", "\(sub.rawValue)")
        #expect(r21GenericName(R21Sub.self) == sub)
        #expect(R21Base.notificationName.rawValue == "TypedNotificationsTests.R21Base")
        #expect(r21GenericName(R21Base.self) == R21Base.notificationName)
        // Base first (through a generic context), then the subclass.
        #expect(r21GenericName(R21Base2.self).rawValue == "TypedNotificationsTests.R21Base2")
        #expect(R21Sub2.notificationName.rawValue == "TypedNotificationsTests.R21Sub2")
        #expect(r21GenericName(R21Sub2.self).rawValue == "TypedNotificationsTests.R21Sub2")
        // Custom names in a hierarchy are kept, statically and generically.
        #expect(r21GenericName(R21CustomSub.self).rawValue == "Review21.CustomSub")
        #expect(R21CustomSub.notificationName.rawValue == "Review21.CustomSub")
        #expect(r21GenericName(R21CustomBase.self).rawValue == "Review21.CustomBase")
    }

    /// Posting a subclass instance as the base uses the base's name; observing the base sees it; the typed post
    /// reaches a plain observer of the base's derived name.
    @Test func review21ClassHierarchyPostsUseTheirDerivedNames() {
        let center = NotificationCenter()
        let typed = Counter()
        let plain = Counter()
        let token = R21Base.observe(in: center) { _ in typed.increment() }
        let observer = center.addObserver(
            forName: Notification.Name("TypedNotificationsTests.R21Base"), object: nil, queue: nil
        ) { _ in
            plain.increment()
        }
        let instance: R21Base = R21Sub()
        instance.post(in: center)
        #expect(typed.value == 1)
        #expect(plain.value == 1)
        center.removeObserver(observer)
        withExtendedLifetime(token) {}
    }

    /// Many threads read the names of types nobody has named yet, all at once, some by posting first: all agree.
    @Test func review21ConcurrentFirstReadsAgree() async {
        let seed = r21Seed("naming", test: "review21ConcurrentFirstReadsAgree")
        enum T0 {}
        enum T1 {}
        enum T2 {}
        enum T3 {}
        enum T4 {}
        enum T5 {}
        enum T6 {}
        enum T7 {}
        let types: [any Notifiable.Type] = [
            R21Fresh<T0>.self, R21Fresh<T1>.self, R21Fresh<T2>.self, R21Fresh<T3>.self,
            R21Generic<T4, T5>.self, R21Generic<T5, T4>.self, R21Fresh<R21Fresh<T6>>.self, R21Fresh<T7>.self,
        ]
        let expected = types.map { r21Expected($0) }
        let center = NotificationCenter()
        let names = Recorded<(Int, String)>()
        let threads = 16
        await onThreads(threads) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            var order = Array(types.indices)
            for index in order.indices.reversed() { order.swapAt(index, random.below(index + 1)) }
            for index in order {
                if thread % 4 == 0 {
                    // Routing a post first makes the record the other way (`cacheName`), racing the readers.
                    _ = ObserverRegistry.shared.route(types[index], in: center)
                }
                names.append((index, types[index].notificationName.rawValue))
            }
        }
        let all = names.values
        #expect(all.count == threads * types.count)
        for (index, name) in all {
            #expect(name == expected[index], "seed \(TestSeed.hex(seed)): \(name) != \(expected[index])")
        }
    }

    /// A custom name: read before anything else, kept after observing and posting; typed and plain posts and
    /// observers use it; the derived name is never used.
    @Test func review21CustomNameIsKept() async {
        let center = NotificationCenter()
        #expect(R21CustomVoid.notificationName.rawValue == "Review21.CustomVoid")
        let typed = R21Tally(2)
        let plainCustom = Counter()
        let plainDerived = Counter()
        let token = R21CustomVoid.observe(in: center) { () async in typed.bump() }
        let custom = center.addObserver(forName: Notification.Name("Review21.CustomVoid"), object: nil, queue: nil) {
            _ in
            plainCustom.increment()
        }
        let derived = center.addObserver(
            forName: Notification.Name(r21Expected(R21CustomVoid.self)), object: nil, queue: nil
        ) { _ in plainDerived.increment() }
        R21CustomVoid.post((), in: center)
        center.post(name: Notification.Name("Review21.CustomVoid"), object: nil)
        await r21Wait(typed.reached, "both posts at the async observer")
        #expect(plainCustom.value == 2)
        #expect(plainDerived.value == 0, "a post used the derived name")
        #expect(center.typedObservations.first?.name.rawValue == "Review21.CustomVoid")
        #expect(R21CustomVoid.notificationName.rawValue == "Review21.CustomVoid")
        #expect(R21Custom.notificationName.rawValue == "Review21.Custom")
        center.removeObserver(custom)
        center.removeObserver(derived)
        withExtendedLifetime(token) {}
    }
}

// MARK: - Behaviour the Mailbox had, and scaling

@Suite struct Review21AsyncRegressionTests {
    /// Before edc9253 an async handler was called through `Subscription.deliverOther`, which checks the owner before
    /// the sender filter: "any post ends an observation whose owner is gone", during the post, releasing what the
    /// handler captured. Now the post goes through `DeliveryTarget.dispatch`, which applies the sender filter and
    /// never loads the owner: a post from another sender leaves the dead owner's observation (and its captures) in
    /// place. Immediate owner-bound observers still end here.
    @Test func review21PostFromAnotherSenderEndsAnAsyncObservationWhoseOwnerIsGone() async {
        let center = NotificationCenter()
        let filter = Sender()
        let other = Sender()
        let capturedGone = AtomicWord.make()
        let immediateCapturedGone = AtomicWord.make()
        do {
            let owner = R21Owner()
            let captured = R21Owner(isDead: capturedGone)
            let immediateCaptured = R21Owner(isDead: immediateCapturedGone)
            R21Int.observe(for: owner, from: filter, in: center) { _, _ async in withExtendedLifetime(captured) {} }
            R21Int.observe(for: owner, from: filter, in: center) { _, _ in withExtendedLifetime(immediateCaptured) {} }
        }
        R21Int.post(1, from: other, in: center)
        #expect(immediateCapturedGone.isSet, "the immediate observer's post-time owner check")
        #expect(
            capturedGone.isSet,
            "a post from another sender left the dead owner's async observation, and its handler's captures, in place")
    }

    /// The same without a sender filter: the post that finds the owner gone ends the observation during the post
    /// (the behaviour before the change, and again since the fix), rather than queueing the payload for a task.
    @Test func review21PostEndsAnAsyncObservationWhoseOwnerIsGoneDuringThePost() async {
        let center = NotificationCenter()
        let capturedGone = AtomicWord.make()
        do {
            let owner = R21Owner()
            let captured = R21Owner(isDead: capturedGone)
            R21Int.observe(for: owner, in: center) { _, _ async in withExtendedLifetime(captured) {} }
        }
        R21Int.post(1, in: center)
        #expect(capturedGone.isSet, "the observation whose owner is gone was not ended by the post")
    }
}
