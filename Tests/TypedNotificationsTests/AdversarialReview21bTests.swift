import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Re-review of b99a2d2: a post queues for an `async` handler's own task through `Subscription.deliver` →
// `deliverOther` (owner, then sender filter, then `DeliveryTarget.queue`), no longer through `DeliveryTarget.dispatch`.
// These tests aim at what that could have broken: the same-post cancellation check, sender filters with dying owners,
// latest-value replay racing live posts, the Foundation bridge, mixed targets on one center, introspection, and
// observations made and ended inside a post. Fixtures and helpers come from AdversarialReview21Tests.swift.

// MARK: - Fixtures

/// Types that one test each observes, so that `ObserverRegistry.channelCount(of:)` (which, unlike introspection,
/// sweeps no dead owners) says whether a post itself ended the observation.
enum R21bFilterRace: Notifiable { typealias Payload = Int }
enum R21bFilterPlain: Notifiable { typealias Payload = R21Tracked }

// MARK: - Ended earlier in the same post

@Suite struct Review21bSamePostTests {
    /// A posting-thread observer registered before an async one cancels it during a post. The async observer's task
    /// is blocked on its first call, so anything queued for it would stay queued: the payload must be released when
    /// the post returns (nothing queued), and the handler must not run again.
    @Test func review21bAsyncObserverCancelledEarlierInThePostGetsNothingQueued() async {
        let center = NotificationCenter()
        let calls = Counter()
        let started = Signal()
        let gate = Signal()
        let asyncSlot = Slot<NotificationToken>()
        let earlier = R21TrackedPost.observe(in: center) { payload in
            if payload.id == 1 { asyncSlot.value?.cancel() }
        }
        asyncSlot.set(
            R21TrackedPost.observe(in: center) { _ async in
                calls.increment()
                started.fire()
                await gate.wait()
            })
        let firstReleased = R21Tally(1)
        R21TrackedPost.post(R21Tracked(0) { firstReleased.bump() }, in: center)
        await r21Wait(started, "the first call")
        let secondReleased = AtomicWord.make()
        R21TrackedPost.post(R21Tracked(1) { secondReleased.store(1) }, in: center)
        #expect(
            secondReleased.isSet,
            "the post queued its payload for an async observer that an earlier observer cancelled in the same post")
        #expect(center.typedObservations.map(\.delivery) == [.immediate])
        gate.fire()
        await r21Wait(firstReleased.reached, "the running call's payload released")
        #expect(calls.count == 1, "the cancelled async handler ran again")
        withExtendedLifetime(earlier) {}
    }

    /// Several async observers (plain, owner-bound, sender-filtered) after a posting-thread observer that cancels all
    /// of them during one post: none gets anything queued (each task is blocked on its first call).
    @Test func review21bSeveralAsyncObserversCancelledEarlierInThePost() async {
        let center = NotificationCenter()
        let sender = Sender()
        let owner = R21Owner()
        let calls = Counter()
        let started = R21Tally(3)
        let gate = Signal()
        let slots = Slot<[@Sendable () -> Void]>()
        let earlier = R21TrackedPost.observe(in: center) { payload in
            if payload.id == 1 { for cancel in slots.value ?? [] { cancel() } }
        }
        let body: @Sendable () async -> Void = {
            calls.increment()
            started.bump()
            await gate.wait()
        }
        let plain = R21TrackedPost.observe(in: center) { _ async in await body() }
        let bound = R21TrackedPost.observe(for: owner, in: center) { _, _ async in await body() }
        let filtered = R21TrackedPost.observe(from: sender, in: center) { _ async in await body() }
        slots.set([{ plain.cancel() }, { bound.cancel() }, { filtered.cancel() }])
        let firstReleased = R21Tally(1)
        R21TrackedPost.post(R21Tracked(0) { firstReleased.bump() }, from: sender, in: center)
        await r21Wait(started.reached, "the three first calls")
        let secondReleased = AtomicWord.make()
        R21TrackedPost.post(R21Tracked(1) { secondReleased.store(1) }, from: sender, in: center)
        #expect(secondReleased.isSet, "a payload was queued for an async observer cancelled earlier in the post")
        gate.fire()
        await r21Wait(firstReleased.reached, "the first payload released")
        #expect(calls.count == 3)
        withExtendedLifetime((earlier, owner)) {}
    }

    /// An earlier posting-thread observer drops the last reference to an async observation's owner during a post: the
    /// same post ends the observation (its captures go before the post returns) and queues nothing.
    @Test func review21bOwnerDroppedEarlierInThePostEndsTheAsyncObservation() async {
        let center = NotificationCenter()
        let calls = Counter()
        let ownerSlot = Slot<R21Owner>()
        let capturedGone = AtomicWord.make()
        let earlier = R21TrackedPost.observe(in: center) { payload in
            if payload.id == 1 { ownerSlot.set(nil) }
        }
        do {
            let owner = R21Owner()
            ownerSlot.set(owner)
            let captured = R21Owner(isDead: capturedGone)
            R21TrackedPost.observe(for: owner, in: center) { _, _ async in
                withExtendedLifetime(captured) {}
                calls.increment()
            }
        }
        let released = AtomicWord.make()
        R21TrackedPost.post(R21Tracked(1) { released.store(1) }, in: center)
        #expect(released.isSet, "the payload was queued for an observation whose owner died earlier in the post")
        #expect(capturedGone.isSet, "the post did not end the observation whose owner died earlier in it")
        #expect(calls.count == 0)
        #expect(center.typedObservations.map(\.delivery) == [.immediate])
        withExtendedLifetime(earlier) {}
    }

    /// A posting-thread handler makes an async observation and cancels it during the same post, and another makes one
    /// that a later observer cancels in that post: neither receives that post or any later one; an async observation
    /// made during a post and kept receives later posts only, exactly once each.
    @Test func review21bAsyncObservationMadeAndCancelledInsideAHandlerDuringAPost() async {
        let center = NotificationCenter()
        let madeAndCancelled = Counter()
        let cancelledLater = Counter()
        let kept = Recorded<Int>()
        let keptDone = R21Tally(3)
        let later = Slot<NotificationToken>()
        let keptSlot = Slot<NotificationToken>()
        let tailSeen = Recorded<Int>()
        let maker = R21Int.observe(in: center) { value in
            guard value == 0 else { return }
            let token = R21Int.observe(in: center) { _ async in madeAndCancelled.increment() }
            token.cancel()
            later.set(R21Int.observe(in: center) { _ async in cancelledLater.increment() })
            keptSlot.set(
                R21Int.observe(in: center) { value async in
                    kept.append(value)
                    keptDone.bump()
                })
            // A post made inside the post, after the new observations: reaches the kept one only.
            R21Int.post(1, in: center)
        }
        let canceller = R21Int.observe(in: center) { value in
            if value == 0 { later.value?.cancel() }
            tailSeen.append(value)
        }
        R21Int.post(0, in: center)
        R21Int.post(2, in: center)
        R21Int.post(3, in: center)
        await r21Wait(keptDone.reached, "the kept observation's three posts")
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
    @Test func review21bOwnerDyingInsideThePostsOwnerLoad() async {
        let center = NotificationCenter()
        let calls = Counter()
        let ownerGone = AtomicWord.make()
        let ownerSlot = Slot<R21Owner>()
        ownerSlot.set(R21Owner(isDead: ownerGone))
        let ownerID = ObjectIdentifier(ownerSlot.value!)
        R21TrackedPost.observe(for: ownerSlot.value!, in: center) { _, _ async in calls.increment() }
        TestHooks.onOwnerLoad(of: ownerSlot.value!) { _ in ownerSlot.set(nil) }
        defer { TestHooks.removeOwnerLoadHook(for: ownerID) }
        let released = R21Tally(1)
        R21TrackedPost.post(R21Tracked(1) { released.bump() }, in: center)
        #expect(ownerGone.isSet, "the owner outlived the post that held its last reference")
        await r21Wait(released.reached, "the payload released")
        #expect(calls.count == 0, "the handler ran for an owner that died during the post")
        #expect(center.typedObservations.isEmpty)
    }

    /// The observation is cancelled between the post's check that it has not ended and the queueing (pinned with the
    /// owner-load hook, which runs between them): the handler never runs, the payload is released, nothing is left.
    @Test func review21bCancelBetweenThePostsChecksAndItsQueueing() async {
        let center = NotificationCenter()
        let calls = Counter()
        let owner = R21Owner()
        let observation = R21TrackedPost.observe(for: owner, in: center) { _, _ async in calls.increment() }
        TestHooks.onOwnerLoad(of: owner) { _ in observation.cancel() }
        defer { TestHooks.removeOwnerLoadHook(for: ObjectIdentifier(owner)) }
        let released = R21Tally(1)
        R21TrackedPost.post(R21Tracked(1) { released.bump() }, in: center)
        await r21Wait(released.reached, "the payload released")
        #expect(calls.count == 0, "the handler ran after cancel() returned")
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(owner) {}
    }
    #endif
}

// MARK: - Sender filters with owners that die

@Suite struct Review21bSenderFilterTests {
    /// Seeded: two threads post from the filter's sender and from another (typed and plain), while a third drops the
    /// owner at a random point. The handler never runs for a dead owner, never sees another sender's post, sees each
    /// thread's accepted posts as an in-order prefix, exactly once; every payload is released; the observation ends.
    @Test func review21bAsyncSenderFilterWithOwnerDyingDuringPostsFromSeveralThreads() async {
        let seed = r21Seed(
            "sender filter + owner", test: "review21bAsyncSenderFilterWithOwnerDyingDuringPostsFromSeveralThreads")
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
            let ownerSlot = Slot<R21Owner>()
            ownerSlot.set(R21Owner(isDead: ownerDead, onDeinit: { ownerGone.fire() }))
            do {
                let captured = R21Owner(onDeinit: { capturedGone.fire() })
                R21bFilterRace.observe(for: ownerSlot.value!, from: right, in: center) { owner, value async in
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
                    r21Spin(spin)
                    ownerSlot.set(nil)
                    return
                }
                for index in 0..<perThread {
                    let value = thread * 1_000_000 + index
                    // 0, 1: typed from right / wrong; 2, 3: plain from right / wrong.
                    let choice = choices[thread][index]
                    let sender = choice % 2 == 0 ? right : wrong
                    if choice < 2 {
                        R21bFilterRace.post(value, from: sender, in: center)
                    } else {
                        center.post(
                            name: R21bFilterRace.notificationName, object: sender,
                            userInfo: R21bFilterRace.userInfo(for: value))
                    }
                }
            }
            await r21Wait(ownerGone, "the owner gone (\(hint))")
            // Any post, from any sender, now ends the observation if nothing else has (no sweep before this check).
            R21bFilterRace.post(-1, from: wrong, in: center)
            #expect(
                ObserverRegistry.shared.channelCount(of: R21bFilterRace.self) == 0,
                "a post from another sender left the dead owner's async observation in place; \(hint)")
            await r21Wait(capturedGone, "the handler's captures released (\(hint))")
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
    @Test func review21bWrongSenderPostsNeverReachAnAsyncObserverAndEndItOnceTheOwnerIsGone() async {
        let center = NotificationCenter()
        let right = Sender()
        let wrong = Sender()
        let seen = Recorded<Int>()
        let done = R21Tally(2)
        let ownerSlot = Slot<R21Owner>()
        ownerSlot.set(R21Owner())
        let capturedGone = AtomicWord.make()
        do {
            let captured = R21Owner(isDead: capturedGone)
            R21bFilterPlain.observe(for: ownerSlot.value!, from: right, in: center) { _, payload async in
                withExtendedLifetime(captured) {}
                seen.append(payload.id)
                done.bump()
            }
        }
        let wrongReleased = R21Tally(3)
        R21bFilterPlain.post(R21Tracked(100) { wrongReleased.bump() }, from: wrong, in: center)
        R21bFilterPlain.post(R21Tracked(1) {}, from: right, in: center)
        R21bFilterPlain.post(R21Tracked(101) { wrongReleased.bump() }, in: center)  // no sender
        R21bFilterPlain.post(R21Tracked(2) {}, from: right, in: center)
        center.post(
            name: R21bFilterPlain.notificationName, object: wrong,
            userInfo: R21bFilterPlain.userInfo(for: R21Tracked(102) { wrongReleased.bump() }))
        #expect(wrongReleased.count == 3, "a post from another sender was queued")
        await r21Wait(done.reached, "the two accepted posts")
        #expect(seen.values == [1, 2])
        ownerSlot.set(nil)
        let lastReleased = AtomicWord.make()
        R21bFilterPlain.post(R21Tracked(103) { lastReleased.store(1) }, from: wrong, in: center)
        #expect(lastReleased.isSet)
        #expect(
            ObserverRegistry.shared.channelCount(of: R21bFilterPlain.self) == 0,
            "a post from another sender did not end the async observation whose owner is gone")
        #expect(center.typedObservations.isEmpty)
        // The subscription may still be held by the task that ran the last call, for a moment; not by the registry.
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
        #expect(seen.values == [1, 2])
        _ = capturedGone
    }
}

// MARK: - Latest values

@Suite struct Review21bLatestValueTests {
    /// Seeded: threads post latest values (typed and plain) from the filter's sender and from another, while a third
    /// observes with a sender filter (async, and async owner-bound) at a random moment. Each observer receives the
    /// latest value at most once and first, then every later accepted post of each thread: no duplicates, no gaps,
    /// no other sender's post.
    @Test func review21bAsyncLatestValueWithSenderFilterRacingTypedAndPlainPosts() async {
        let seed = r21Seed(
            "latest + filter", test: "review21bAsyncLatestValueWithSenderFilterRacingTypedAndPlainPosts")
        let center = NotificationCenter()
        let right = Sender()
        let wrong = Sender()
        let perThread = 200
        let owner = R21Owner()
        for iteration in 0..<12 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let spin = random.below(30_000)
            let choices = (0..<2).map { _ in (0..<perThread).map { _ in random.below(4) } }
            let base = iteration * 10_000_000
            let baseline = base + 9_000_000
            let sentinel = base + 8_000_000
            R21Latest(value: baseline).post(from: right, in: center)
            let seen = (0..<2).map { _ in Recorded<Int>() }
            let sentinelSeen = (0..<2).map { _ in Signal() }
            let tokenSlot = Slot<NotificationToken>()
            let boundSlot = Slot<OwnerBoundObservation>()
            await onThreads(3) { thread in
                if thread == 2 {
                    r21Spin(spin)
                    tokenSlot.set(
                        R21Latest.observe(from: right, in: center) { (latest: R21Latest) async in
                            seen[0].append(latest.value)
                            if latest.value == sentinel { sentinelSeen[0].fire() }
                        })
                    boundSlot.set(
                        R21Latest.observe(for: owner, from: right, in: center) { _, latest async in
                            seen[1].append(latest.value)
                            if latest.value == sentinel { sentinelSeen[1].fire() }
                        })
                    return
                }
                for index in 0..<perThread {
                    let latest = R21Latest(value: base + thread * 1_000_000 + index)
                    let choice = choices[thread][index]
                    let sender = choice % 2 == 0 ? right : wrong
                    if choice < 2 {
                        latest.post(from: sender, in: center)
                    } else {
                        center.post(
                            name: R21Latest.notificationName, object: sender, userInfo: R21Latest.userInfo(for: latest))
                    }
                }
            }
            R21Latest(value: sentinel).post(from: right, in: center)
            for observer in 0..<2 {
                await r21Wait(
                    sentinelSeen[observer], "the sentinel at \(observer) (seed \(TestSeed.hex(seed)), \(iteration))")
                let values = seen[observer].values.map { $0 - base }
                let hint =
                    "observer \(observer), seed \(TestSeed.hex(seed)), iteration \(iteration): \(values.prefix(6))…"
                #expect(Set(values).count == values.count, "duplicate; \(hint)")
                #expect(values.last == sentinel - base, "\(hint)")
                // The baseline can only arrive first, as the latest value.
                if let index = values.firstIndex(of: 9_000_000) { #expect(index == 0, "\(hint)") }
                for thread in 0..<2 {
                    let accepted = (0..<perThread).filter { choices[thread][$0] % 2 == 0 }.map {
                        thread * 1_000_000 + $0
                    }
                    let mine = values.filter { $0 / 1_000_000 == thread }
                    #expect(
                        Array(accepted.suffix(mine.count)) == mine,
                        "thread \(thread): not an in-order suffix of its accepted posts; \(hint)")
                }
            }
            // The replayed value (if any) came first: every value of a thread after the first delivery is live, so
            // only the first delivery may be out of the threads' joint suffix order; checked above per thread.
            tokenSlot.set(nil)
            boundSlot.value?.cancel()
            R21Latest.clearLatest(in: center)
        }
        withExtendedLifetime(owner) {}
    }

    /// The latest value was posted by another sender: a filtered async observer gets no replay, and its first delivery
    /// is the next live post from its sender; an observer whose sender posted last gets that post first, once.
    @Test func review21bAsyncLatestValueReplayRespectsTheSenderFilter() async {
        let center = NotificationCenter()
        let right = Sender()
        let wrong = Sender()
        R21Latest(value: 1).post(from: right, in: center)
        R21Latest(value: 2).post(from: wrong, in: center)
        let filteredSeen = Recorded<Int>()
        let filteredDone = R21Tally(1)
        let filtered = R21Latest.observe(from: right, in: center) { (latest: R21Latest) async in
            filteredSeen.append(latest.value)
            filteredDone.bump()
        }
        let wrongSeen = Recorded<Int>()
        let wrongDone = R21Tally(2)
        let wrongToken = R21Latest.observe(from: wrong, in: center) { (latest: R21Latest) async in
            wrongSeen.append(latest.value)
            wrongDone.bump()
        }
        R21Latest(value: 3).post(from: right, in: center)
        center.post(
            name: R21Latest.notificationName, object: wrong, userInfo: R21Latest.userInfo(for: R21Latest(value: 4)))
        await r21Wait(filteredDone.reached, "the filtered observer")
        await r21Wait(wrongDone.reached, "the other sender's observer")
        #expect(filteredSeen.values == [3])
        #expect(wrongSeen.values == [2, 4])
        withExtendedLifetime((filtered, wrongToken)) {}
    }
}

// MARK: - The Foundation bridge

@Suite struct Review21bBridgeTests {
    /// Typed and plain posts of the name from several threads: every one reaches each async observer (plain, and
    /// owner-bound) exactly once, each source in order; plain observers see every post once too.
    @Test func review21bPlainAndTypedPostsReachAsyncObserversExactlyOnce() async {
        let center = NotificationCenter()
        let perThread = 250
        let threads = 4
        let total = threads * perThread
        let owner = R21Owner()
        let seen = (0..<2).map { _ in Recorded<Int>() }
        let tallies = (0..<2).map { _ in R21Tally(total) }
        let overlaps = (0..<2).map { _ in AsyncHandlerTests.Overlap() }
        let plainSeen = Counter()
        let token = R21Int.observe(in: center) { value async in
            overlaps[0].enter()
            seen[0].append(value)
            if value % 11 == 0 { await Task.yield() }
            overlaps[0].leave()
            tallies[0].bump()
        }
        R21Int.observe(for: owner, in: center) { _, value async in
            overlaps[1].enter()
            seen[1].append(value)
            overlaps[1].leave()
            tallies[1].bump()
        }
        let plain = center.addObserver(forName: R21Int.notificationName, object: nil, queue: nil) { _ in
            plainSeen.increment()
        }
        await onThreads(threads) { thread in
            for index in 0..<perThread {
                let value = thread * 1_000_000 + index
                // Threads 0 and 1 post typed; 2 and 3 plain; every third post switches.
                if (thread < 2) != (index % 3 == 0) {
                    R21Int.post(value, in: center)
                } else {
                    center.post(name: R21Int.notificationName, object: nil, userInfo: R21Int.userInfo(for: value))
                }
            }
        }
        for observer in 0..<2 {
            await r21Wait(tallies[observer].reached, "observer \(observer)")
            let values = seen[observer].values
            #expect(values.count == total, "observer \(observer): \(values.count) of \(total)")
            #expect(Set(values).count == values.count, "observer \(observer): a post was delivered twice")
            for thread in 0..<threads {
                r21Check(
                    values, source: thread, expected: (0..<perThread).map { thread * 1_000_000 + $0 },
                    "observer \(observer)")
            }
            #expect(!overlaps[observer].everOverlapped)
        }
        #expect(plainSeen.value == total)
        center.removeObserver(plain)
        withExtendedLifetime((token, owner)) {}
    }

    /// A typed post made from inside a plain observer's block during another typed post, and a plain post made from
    /// inside a posting-thread typed observer: each reaches the async observer once.
    @Test func review21bNestedTypedAndPlainPostsReachAnAsyncObserverOnce() async {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let done = R21Tally(4)
        let sentinel = R21Tally(1)
        let token = R21Int.observe(in: center) { value async in
            seen.append(value)
            if value == 5 { sentinel.bump() } else { done.bump() }
        }
        let immediate = R21Int.observe(in: center) { value in
            if value == 1 {
                center.post(name: R21Int.notificationName, object: nil, userInfo: R21Int.userInfo(for: 2))
            }
        }
        let plain = center.addObserver(forName: R21Int.notificationName, object: nil, queue: nil) { notification in
            if let value = try? R21Int.payload(from: notification), value == 3 { R21Int.post(4, in: center) }
        }
        R21Int.post(1, in: center)
        R21Int.post(3, in: center)
        await r21Wait(done.reached, "four deliveries")
        // A sentinel, queued behind anything queued twice: nothing else arrives before it.
        R21Int.post(5, in: center)
        await r21Wait(sentinel.reached, "the sentinel")
        #expect(seen.values.sorted() == [1, 2, 3, 4, 5], "\(seen.values)")
        center.removeObserver(plain)
        withExtendedLifetime((token, immediate)) {}
    }
}

// MARK: - Mixed targets on one center

@Suite struct Review21bMixedTests {
    /// Async observers interleaved (in registration order) with main-actor, queue and posting-thread observers, some
    /// with a sender filter, posts from three threads and the main actor: each observer sees each source's accepted
    /// posts exactly once, in order; the two main-actor observers share one order (each post reaches both, adjacent).
    @Test func review21bAsyncObserversInterleavedWithEveryOtherKind() async {
        let center = NotificationCenter()
        let right = Sender()
        let owner = R21Owner()
        let perSource = 200
        let sources = 4  // threads 0-2 and the main actor (3)
        // Every third post of each source comes from `right`; the others from no sender.
        @Sendable func fromRight(_ value: Int) -> Bool { (value % 1_000_000) % 3 == 0 }
        let names = [
            "mainA", "async1", "immediate", "queue", "asyncOwned", "mainB", "asyncFiltered", "immediateFiltered",
        ]
        let filtered: Set<Int> = [6, 7]
        let seen = names.map { _ in Recorded<Int>() }
        let expectedCount = { (index: Int) in
            filtered.contains(index) ? sources * (0..<perSource).filter { $0 % 3 == 0 }.count : sources * perSource
        }
        let tallies = names.indices.map { R21Tally(expectedCount($0)) }
        let overlaps = names.map { _ in AsyncHandlerTests.Overlap() }
        let mainLog = Recorded<(Int, Int)>()
        @Sendable func record(_ index: Int, _ value: Int) {
            overlaps[index].enter()
            seen[index].append(value)
            overlaps[index].leave()
            tallies[index].bump()
        }
        var tokens: [NotificationToken] = []
        tokens.append(
            R21Int.observeOnMainActor(in: center) { value in
                mainLog.append((0, value))
                record(0, value)
            })
        tokens.append(
            R21Int.observe(in: center) { value async in
                if value % 7 == 0 { await Task.yield() }
                record(1, value)
            })
        tokens.append(R21Int.observe(in: center) { value in record(2, value) })
        tokens.append(
            R21Int.observe(in: center, delivery: .async(on: DispatchQueue(label: "review21b"))) { value in
                record(3, value)
            })
        R21Int.observe(for: owner, in: center) { _, value async in record(4, value) }
        tokens.append(
            R21Int.observeOnMainActor(in: center) { value in
                mainLog.append((1, value))
                record(5, value)
            })
        tokens.append(
            R21Int.observe(from: right, in: center) { value async in
                if value % 5 == 0 { await Task.yield() }
                record(6, value)
            })
        tokens.append(
            R21Int.observe(from: right, in: center) { (sender: AnyObject?, value: Int) in
                #expect(sender === right)
                record(7, value)
            })
        let kinds = center.typedObservations.map(\.delivery)
        #expect(
            kinds == [.mainActor, .async, .immediate, .queue, .async, .mainActor, .async, .immediate], "\(kinds)")
        async let mainActorPosts: Void = { @MainActor in
            for index in 0..<perSource {
                let value = 3 * 1_000_000 + index
                R21Int.post(value, from: fromRight(value) ? right : nil, in: center)
            }
        }()
        await onThreads(3) { thread in
            for index in 0..<perSource {
                let value = thread * 1_000_000 + index
                R21Int.post(value, from: fromRight(value) ? right : nil, in: center)
            }
        }
        await mainActorPosts
        for (index, name) in names.enumerated() {
            await r21Wait(tallies[index].reached, name)
            let values = seen[index].values
            #expect(values.count == expectedCount(index), "\(name): \(values.count) of \(expectedCount(index))")
            for source in 0..<sources {
                let expected = (0..<perSource).filter { !filtered.contains(index) || $0 % 3 == 0 }.map {
                    source * 1_000_000 + $0
                }
                r21Check(values, source: source, expected: expected, name)
            }
            // Posting-thread observers run on every posting thread at once; the others one call at a time.
            if index != 2, index != 7 { #expect(!overlaps[index].everOverlapped, "\(name) overlapped itself") }
        }
        let log = mainLog.values
        #expect(log.count == 2 * sources * perSource)
        for pair in stride(from: 0, to: log.count - 1, by: 2) {
            let (a, b) = (log[pair], log[pair + 1])
            #expect(a.0 == 0 && b.0 == 1 && a.1 == b.1, "main-actor observers not in one order at \(pair): \(a), \(b)")
        }
        withExtendedLifetime((tokens, owner)) {}
    }
}

// MARK: - Introspection

@Suite struct Review21bIntrospectionTests {
    /// Async observations are listed as `.async`, with their sender filter, owner binding and call site; they leave
    /// the list when cancelled, released or their owner dies.
    @Test func review21bTypedObservationsListAsyncObservations() {
        let center = NotificationCenter()
        let sender = Sender()
        let ownerSlot = Slot<R21Owner>()
        ownerSlot.set(R21Owner())
        let line = #line
        var plain: NotificationToken? = R21Int.observe(in: center) { _ async in }
        let filtered = R21Int.observe(from: sender, in: center) { _ async in }
        R21Int.observe(for: ownerSlot.value!, from: sender, in: center) { _, _ async in }
        let immediate = R21Int.observe(in: center) { _ in }
        let listed = center.typedObservations
        #expect(listed.map(\.delivery) == [.async, .async, .async, .immediate])
        #expect(listed.map(\.filtersBySender) == [false, true, true, false])
        #expect(listed.map(\.isOwnerBound) == [false, false, true, false])
        #expect(listed.map(\.line) == [line + 1, line + 2, line + 3, line + 4])
        #expect(listed.allSatisfy { $0.fileID == #fileID && $0.name == R21Int.notificationName })
        ownerSlot.set(nil)
        #expect(center.typedObservations.map(\.delivery) == [.async, .async, .immediate])
        filtered.cancel()
        #expect(center.typedObservations.map(\.delivery) == [.async, .immediate])
        withExtendedLifetime(plain) {}
        plain = nil
        #expect(center.typedObservations.map(\.delivery) == [.immediate])
        R21Int.post(0, in: center)  // activity, so that the debug build does not take `immediate` for a discarded token
        withExtendedLifetime(immediate) {}
    }
}
