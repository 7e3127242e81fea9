import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// A latest-value type's posts reaching observers that coalesce (their own `coalescing:`), whose bursts gather them
// under the registry's lock (`DeliveryTarget.enqueueInLatestOrder`,
// `Subscription.gatherLatest`, `PostPlan.leads`, `Coalescer.leadsLatest`): typed and plain posts racing from several
// threads, observers started mid-race, owners dying, cancellation and token release racing bursts and leads, handlers
// that re-post and observe again, centers going with bursts pending, the waits of `awaitDelivery`, sender filters.
// Every wait is bounded (`finishes(within:)`), so a hang fails the test rather than the run.

// MARK: - Fixtures

/// A latest-value type: `poster` and `index` name one post; `posts` lists the posts a merged delivery carries.
struct GatheredLevel: LatestValueNotifiable, Equatable, CustomStringConvertible {
    let poster: Int
    let index: Int
    var posts: [Int]
    let box: SeamPing.Box?

    var id: Int { poster * 1_000_000 + index }
    var description: String { "\(poster)/\(index)" }

    init(poster: Int, index: Int, onRelease: (@Sendable () -> Void)? = nil) {
        self.poster = poster
        self.index = index
        posts = [poster * 1_000_000 + index]
        box = onRelease.map(SeamPing.Box.init)
    }

    init(poster: Int, index: Int, posts: [Int]) {
        self.poster = poster
        self.index = index
        self.posts = posts
        box = nil
    }

    static func == (lhs: GatheredLevel, rhs: GatheredLevel) -> Bool {
        lhs.poster == rhs.poster && lhs.index == rhs.index
    }

    /// Concatenates the posts of a burst, earlier first.
    static let concatenating: @Sendable (GatheredLevel, GatheredLevel) -> GatheredLevel = { earlier, later in
        GatheredLevel(poster: later.poster, index: later.index, posts: earlier.posts + later.posts)
    }

    /// Posts `self` as a plain Foundation post, as legacy code would.
    func postPlainly(from sender: AnyObject?, in center: NotificationCenter) {
        center.post(name: Self.notificationName, object: sender, userInfo: Self.userInfo(for: self))
    }
}

final class GatheredSender: Sendable {}

final class GatheredOwner: Sendable {
    let gone: @Sendable (_ onMainThread: Bool) -> Void
    init(gone: @escaping @Sendable (_ onMainThread: Bool) -> Void = { _ in }) { self.gone = gone }
    // Not `Thread.isMainThread`: under `dispatch_main()` the main queue may drain on another thread.
    deinit { gone(DispatchQueue.getSpecific(key: seamMainQueue) != nil) }
}

enum GatheredMode: Int, CaseIterable, Sendable, CustomTestStringConvertible {
    case throttle, trailingThrottle, debounce, nextTurn

    func coalescing(acrossSenders: Bool = false, merging: Bool = false, window: TimeInterval = 0.003)
        -> NotificationCoalescing<GatheredLevel>
    {
        var coalescing: NotificationCoalescing<GatheredLevel> =
            switch self {
            case .throttle: .within(window)
            case .trailingThrottle: NotificationCoalescing.within(window).trailingOnly
            case .debounce: .afterPause(window)
            case .nextTurn: .nextTurn
            }
        if acrossSenders { coalescing = coalescing.acrossSenders }
        if merging { coalescing = coalescing.merging(GatheredLevel.concatenating) }
        return coalescing
    }

    var testDescription: String { "\(self)" }
}

/// Where a handler runs (a ``SeamPlace``: its queue, operation queue and releasable actor, and its drain), observing
/// ``GatheredLevel``.
struct GatheredPlace: Sendable {
    let place: SeamPlace
    var target: SeamTarget { place.target }
    var queue: DispatchQueue { place.queue }
    var operationQueue: OperationQueue { place.operationQueue }
    /// The actor: release it (`host.set(nil)`) to end the actor target's observations.
    var host: Slot<SeamHost> { place.hostSlot }

    init(_ target: SeamTarget) {
        place = SeamPlace(target)
    }

    func drain() async {
        await place.drain()
    }

    /// Observes here, from `sender` if given; the handler gets the payload. Returns what ends it.
    func observe(
        in center: NotificationCenter, from sender: GatheredSender? = nil,
        coalescing: NotificationCoalescing<GatheredLevel>?,
        _ handler: @escaping @Sendable (GatheredLevel) -> Void
    ) -> RacedObservation {
        switch target {
        case .postingThread:
            return RacedObservation(
                token: GatheredLevel.observe(from: sender, in: center, coalescing: coalescing, handler))
        case .dispatchQueue:
            return RacedObservation(
                token: GatheredLevel.observe(
                    from: sender, in: center, delivery: .async(on: queue), coalescing: coalescing, handler))
        case .operationQueue:
            return RacedObservation(
                token: GatheredLevel.observe(
                    from: sender, in: center, delivery: .async(on: operationQueue), coalescing: coalescing, handler))
        case .mainActor:
            return RacedObservation(
                token: GatheredLevel.observeOnMainActor(from: sender, in: center, coalescing: coalescing) {
                    handler($0)
                })
        case .actor:
            return RacedObservation(
                ownerBound: GatheredLevel.observe(for: host.value!, from: sender, in: center, coalescing: coalescing) {
                    _, payload in handler(payload)
                })
        case .asyncHandler:
            return RacedObservation(
                token: GatheredLevel.observe(from: sender, in: center, coalescing: coalescing) {
                    (payload: GatheredLevel) async in handler(payload)
                })
        }
    }

    /// Observes here bound to `owner` (for the actor target, to the place's actor, which `owner` then does not
    /// matter for: release `host` to end it).
    func observe(
        for owner: GatheredOwner, in center: NotificationCenter,
        coalescing: NotificationCoalescing<GatheredLevel>?,
        _ handler: @escaping @Sendable (GatheredLevel) -> Void
    ) -> OwnerBoundObservation {
        switch target {
        case .postingThread:
            return GatheredLevel.observe(for: owner, in: center, coalescing: coalescing) { _, payload in
                handler(payload)
            }
        case .dispatchQueue:
            return GatheredLevel.observe(for: owner, in: center, delivery: .async(on: queue), coalescing: coalescing) {
                _, payload in handler(payload)
            }
        case .operationQueue:
            return GatheredLevel.observe(
                for: owner, in: center, delivery: .async(on: operationQueue), coalescing: coalescing
            ) { _, payload in handler(payload) }
        case .mainActor:
            return GatheredLevel.observeOnMainActor(for: owner, in: center, coalescing: coalescing) { _, payload in
                handler(payload)
            }
        case .actor:
            return GatheredLevel.observe(for: host.value!, in: center, coalescing: coalescing) { _, payload in
                handler(payload)
            }
        case .asyncHandler:
            return GatheredLevel.observe(for: owner, in: center, coalescing: coalescing) {
                (_: GatheredOwner, payload: GatheredLevel) async in handler(payload)
            }
        }
    }
}

/// Spins a little, so that one thread starts later now and then.
private func spin(_ count: Int) {
    var spun = 0
    for index in 0..<count { spun &+= index }
    withExtendedLifetime(spun) {}
}

/// Whether `sub` is a subsequence of `all`, in order.
private func isSubsequence(_ sub: [Int], of all: [Int]) -> Bool {
    var rest = all[...]
    for element in sub {
        guard let found = rest.firstIndex(of: element) else { return false }
        rest = rest[(found + 1)...]
    }
    return true
}

// MARK: - Tests

@Suite(.serialized, .seeded) struct CoalescedLatestValueTests {
    // MARK: Racing posts, typed and plain

    /// Three threads post at once, two typed and one plain (`center.post(name:object:userInfo:)`), one shared sender
    /// (or, with `.acrossSenders`, one sender each), on a coalescing observer at each place, next to a reference
    /// observer on a queue of its own (which receives the posts in the order the center keeps them) and a
    /// `LatestValue` model. Once `awaitDelivery(in:)` returns: the reference, the model and the coalescing observer
    /// end on `latest(in:)`; with `merging:` the observer's deliveries, flattened, are exactly the reference's
    /// sequence (every post once, in the center's order); without, its deliveries are a subsequence of it.
    @Test(arguments: GatheredMode.allCases, [false, true])
    func racingTypedAndPlainPostsEndOnTheLatestInTheCentersOrder(mode: GatheredMode, merging: Bool) async throws {
        let rounds = TestEnvironment.scaled(normal: 48, long: 480, sanitized: 12)
        var random = SplitMix64(
            seed: SplitMix64.derivedSeed(TestSeed.run, index: 1_000 + mode.rawValue * 2 + (merging ? 1 : 0)))
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let acrossSenders = random.chance(50)
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let shared = GatheredSender()
            let senders =
                acrossSenders ? [GatheredSender(), GatheredSender(), GatheredSender()] : [shared, shared, shared]
            let received = Recorded<GatheredLevel>()
            let reference = Recorded<Int>()
            let referenceQueue = DispatchQueue(label: "reference")
            let referenceToken = GatheredLevel.observe(in: center, delivery: .async(on: referenceQueue)) {
                reference.append($0.id)
            }
            let model = await MainActor.run { LatestValue<GatheredLevel>(in: center) }
            let observation = place.observe(
                in: center, coalescing: mode.coalescing(acrossSenders: acrossSenders, merging: merging)
            ) { received.append($0) }
            let perThread = 1 + random.below(30)
            let delayed = random.below(3)
            let spins = random.below(2_000)
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { poster in
                        if poster == delayed { spin(spins) }
                        for index in 0..<perThread {
                            let level = GatheredLevel(poster: poster, index: index)
                            if poster == 2 {
                                level.postPlainly(from: senders[poster], in: center)
                            } else {
                                level.post(from: senders[poster], in: center)
                            }
                        }
                    }
                }
            }
            let latest = GatheredLevel.latest(in: center)
            let early = received.values
            let earlyReference = reference.values
            if !ended { failures.append("round \(round) (\(target)): awaitDelivery(in:) did not end") }
            if early.last != latest || earlyReference.last != latest?.id {
                failures.append(
                    "round \(round) (\(target), across \(acrossSenders)): awaitDelivery returned with observer on \(early.last?.description ?? "nil"), reference on \(earlyReference.last ?? -1), latest \(latest?.description ?? "nil")"
                )
            }
            await place.drain()
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                referenceQueue.async { done.resume() }
            }
            let modelValue = await MainActor.run { model.value }
            let got = received.values
            let order = reference.values
            if order.count != 3 * perThread || Set(order).count != order.count {
                failures.append("round \(round) (\(target)): reference got \(order.count) of \(3 * perThread)")
            }
            if modelValue != latest {
                failures.append(
                    "round \(round) (\(target)): model \(modelValue?.description ?? "nil"), latest \(latest?.description ?? "nil")"
                )
            }
            if got.last != latest {
                failures.append(
                    "round \(round) (\(target), across \(acrossSenders)): ended on \(got.last?.description ?? "nil"), latest \(latest?.description ?? "nil"), got \(got.map(\.description))"
                )
            }
            let flat = got.flatMap(\.posts)
            if merging {
                if flat != order {
                    failures.append(
                        "round \(round) (\(target), across \(acrossSenders)): merged \(flat.count) posts \(flat.prefix(12)), center order \(order.count) \(order.prefix(12))"
                    )
                }
            } else if !isSubsequence(got.map(\.id), of: order) || Set(got.map(\.id)).count != got.count {
                failures.append(
                    "round \(round) (\(target), across \(acrossSenders)): \(got.map(\.description)) not in the center's order \(order)"
                )
            }
            observation.cancel()
            referenceToken.cancel()
            await MainActor.run { withExtendedLifetime(model) {} }
            withExtendedLifetime(senders) {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    // MARK: A new observer while posts race

    /// Two threads post (one typed, one plain; one shared sender or, with `.acrossSenders`, one each) while a third
    /// starts a coalescing observer after a random number of posts. A reference observer made before gives the
    /// center's order. The new observer starts with the latest post made before it began, then later posts only:
    /// with `merging:` its deliveries, flattened, are exactly a suffix of the center's order, starting at the value it
    /// started with; without, a subsequence of that suffix; and it ends on `latest(in:)`.
    @Test(arguments: GatheredMode.allCases, [false, true])
    func aCoalescingObserverStartedMidRaceGetsASuffixOfTheCentersOrder(mode: GatheredMode, merging: Bool) async throws {
        let rounds = TestEnvironment.scaled(normal: 36, long: 360, sanitized: 12)
        var random = SplitMix64(
            seed: SplitMix64.derivedSeed(TestSeed.run, index: 2_000 + mode.rawValue * 2 + (merging ? 1 : 0)))
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let acrossSenders = random.chance(50)
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let shared = GatheredSender()
            let senders = acrossSenders ? [GatheredSender(), GatheredSender()] : [shared, shared]
            GatheredLevel(poster: 9, index: 0).post(from: shared, in: center)  // a latest value before it all
            let reference = Recorded<Int>()
            let referenceQueue = DispatchQueue(label: "reference")
            let referenceToken = GatheredLevel.observe(in: center, delivery: .async(on: referenceQueue)) {
                reference.append($0.id)
            }
            let received = Recorded<GatheredLevel>()
            let observation = Slot<RacedObservation>()
            let perThread = 60
            let start = random.below(perThread)
            let reached = DispatchSemaphore(value: 0)
            let coalescing = mode.coalescing(acrossSenders: acrossSenders, merging: merging)
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { thread in
                        if thread < 2 {
                            for index in 0..<perThread {
                                let level = GatheredLevel(poster: thread, index: index)
                                if thread == 1 {
                                    level.postPlainly(from: senders[thread], in: center)
                                } else {
                                    level.post(from: senders[thread], in: center)
                                }
                                if thread == 0 && index == start { reached.signal() }
                            }
                            return
                        }
                        reached.wait()
                        observation.set(place.observe(in: center, coalescing: coalescing) { received.append($0) })
                    }
                }
                await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                    referenceQueue.async { done.resume() }
                }
            }
            // The latest value it starts with is no post: no wait covers it (an actor's or a task's drain may
            // come after any drain the test queues), so its arrival is polled for.
            let arrived = await eventually(within: 20) { !received.values.isEmpty }
            await place.drain()
            if !ended || !arrived {
                failures.append("round \(round) (\(target)): the wait did not end, or nothing arrived")
            }
            let latest = GatheredLevel.latest(in: center)
            let got = received.values
            let order = [GatheredLevel(poster: 9, index: 0).id] + reference.values.filter { $0 != 9_000_000 }
            if got.last != latest {
                failures.append(
                    "round \(round) (\(target), across \(acrossSenders)): ended on \(got.last?.description ?? "nil"), latest \(latest?.description ?? "nil")"
                )
            }
            guard let first = got.first, let from = order.firstIndex(of: first.posts.first ?? -1) else {
                failures.append("round \(round) (\(target)): first delivery \(got.first?.description ?? "nil") unknown")
                continue
            }
            let suffix = Array(order[from...])
            let flat = got.flatMap(\.posts)
            if merging {
                if flat != suffix {
                    failures.append(
                        "round \(round) (\(target), across \(acrossSenders)): merged \(flat.prefix(10))… (\(flat.count)), center's suffix \(suffix.prefix(10))… (\(suffix.count))"
                    )
                }
            } else if !isSubsequence(got.map(\.id), of: suffix) || Set(got.map(\.id)).count != got.count {
                failures.append(
                    "round \(round) (\(target), across \(acrossSenders)): \(got.map(\.description)) not in order from \(first)"
                )
            }
            observation.value?.cancel()
            referenceToken.cancel()
            withExtendedLifetime(senders) {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    /// Made every time with the `.latestValueReplay` hook: sender 0's post is the latest when a coalescing observer
    /// starts; just then (between the registry's lock and the replay) another thread posts from sender 1. An observer
    /// whose bursts span senders starts with the latest value, on the posting thread too (its key's first delivery);
    /// so does a per-sender observer on a queue (the latest value is queued first). Each gets both posts once. (A
    /// per-sender observer on the posting thread may get sender 1's post first, on that thread, as a plain observer
    /// there may: see `aPerSenderPostingThreadObserverGetsBothOnce`.)
    @Test(arguments: GatheredMode.allCases, [false, true])
    func aNewCoalescingObserverStartsWithTheLatestValue(mode: GatheredMode, onQueue: Bool) async throws {
        let got = try await Self.startRacingTheReplay(
            mode.coalescing(acrossSenders: !onQueue),
            on: onQueue ? DispatchQueue(label: "CoalescedLatestValueTests.replay") : nil)
        #expect(got.first == GatheredLevel(poster: 0, index: 0), "started with \(got.map(\.description)), not 0/0")
        #expect(Set(got.map(\.id)) == [0, 1_000_000] && got.count == 2, "\(got.map(\.description))")
    }

    /// As above, per sender on the posting thread: each post is delivered once, in whichever order the two threads
    /// reach the observer.
    @Test(arguments: GatheredMode.allCases)
    func aPerSenderPostingThreadObserverGetsBothOnce(mode: GatheredMode) async throws {
        let got = try await Self.startRacingTheReplay(mode.coalescing(), on: nil)
        #expect(Set(got.map(\.id)) == [0, 1_000_000] && got.count == 2, "\(got.map(\.description))")
    }

    /// Starts a coalescing observer (on `queue`, or on the posting thread) while another thread posts from a second
    /// sender between the registry's lock and the latest value's replay; returns what it received once delivered.
    private static func startRacingTheReplay(
        _ coalescing: NotificationCoalescing<GatheredLevel>, on queue: DispatchQueue?
    ) async throws -> [GatheredLevel] {
        let center = NotificationCenter()
        let senders = [GatheredSender(), GatheredSender()]
        GatheredLevel(poster: 0, index: 0).post(from: senders[0], in: center)
        let received = Recorded<GatheredLevel>()
        let fired = Protected(false)
        TestHooks.on(.latestValueReplay, in: center) {
            guard
                fired.withLock({ fired in
                    defer { fired = true }
                    return !fired
                })
            else { return }
            onNewThread { GatheredLevel(poster: 1, index: 0).post(from: senders[1], in: center) }.wait()
        }
        defer { TestHooks.removeHook(at: .latestValueReplay, for: ObjectIdentifier(center)) }
        let token = Slot<NotificationToken>()
        let ended = await finishes(within: 20) {
            _ = try? await awaitDelivery(in: center) {
                if let queue {
                    token.set(
                        GatheredLevel.observe(in: center, delivery: .async(on: queue), coalescing: coalescing) {
                            received.append($0)
                        })
                } else {
                    token.set(GatheredLevel.observe(in: center, coalescing: coalescing) { received.append($0) })
                }
            }
        }
        #expect(ended, "the wait did not end")
        token.value?.cancel()
        withExtendedLifetime(senders) {}
        return received.values
    }

    // MARK: Owners

    /// A main-actor owner-bound observer that coalesces (so its posts gather, never leading), whose owner is gone: a
    /// plain post made on the main actor inside `awaitDelivery(in:)` must end the observation at that post, as a
    /// typed post made there does, and the wait must not last for the burst's end (a pause of 30 s) as the ended
    /// observation drops it.
    @MainActor
    @Test(arguments: [GatheredMode.trailingThrottle, .debounce, .nextTurn], [false, true])
    func aDeadMainActorOwnerEndsItsCoalescingObservationAtAPlainPostOnTheMainActor(mode: GatheredMode, plain: Bool)
        async throws
    {
        let center = NotificationCenter()
        let gone = Protected(false)
        var owner: GatheredOwner? = GatheredOwner { _ in gone.set(true) }
        let calls = Counter()
        let observation = GatheredLevel.observeOnMainActor(
            for: owner!, in: center, coalescing: mode.coalescing(window: 30)
        ) { _, _ in _ = calls.increment() }
        owner = nil
        #expect(gone.value)
        let remaining = Protected<Int>(-1)
        let ended = await finishes(within: 5) {
            // On the main actor: a plain post carries no isolation, so only `awaitDelivery`'s tells it where it runs.
            _ = try? await awaitDelivery(in: center, isolation: MainActor.shared) {
                let level = GatheredLevel(poster: 0, index: 0)
                if plain { level.postPlainly(from: nil, in: center) } else { level.post(in: center) }
                remaining.set(center.typedObservations.count)
            }
        }
        #expect(remaining.value == 0, "after the post, \(remaining.value) observations remain")
        #expect(ended, "awaitDelivery waited for a dead owner's burst")
        let afterWait = center.typedObservations.count
        #expect(
            afterWait == 0,
            "once the wait ended, \(afterWait) observations remain (the burst it waits for is 30 s away)")
        #expect(calls.value == 0)
        observation.cancel()
    }

    /// Owner-bound coalescing observers at each place (the actor's form bound to the actor), whose owner is released
    /// while two threads post latest values, typed and plain: the observation ends by the next post after the owner
    /// went (once its deliveries have run it is no longer listed), a main-actor owner goes on the main thread, the
    /// waits end, and the handler's capture is freed.
    @Test(arguments: GatheredMode.allCases)
    func ownersDyingWhileLatestValuesCoalesceEndTheirObservations(mode: GatheredMode) async throws {
        let rounds = TestEnvironment.scaled(normal: 24, long: 240, sanitized: 6)
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: 3_000 + mode.rawValue))
        await MainActor.run { DispatchQueue.main.setSpecific(key: seamMainQueue, value: ()) }
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let live = LiveCount()
            let goneOffMain = Protected(false)
            let hostGone = Protected(false)
            let owner = Slot<GatheredOwner>()
            owner.set(GatheredOwner { onMain in if !onMain && target == .mainActor { goneOffMain.set(true) } })
            if target == .actor { place.host.set(SeamHost { hostGone.set(true) }) }
            let probe = Probe(live)
            let observation = place.observe(
                for: owner.value!, in: center, coalescing: mode.coalescing(acrossSenders: random.chance(50))
            ) { _ in withExtendedLifetime(probe) {} }
            let perThread = 20 + random.below(40)
            let releaseAt = random.below(perThread)
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(2) { poster in
                        for index in 0..<perThread {
                            let level = GatheredLevel(poster: poster, index: index)
                            if poster == 1 { level.postPlainly(from: nil, in: center) } else { level.post(in: center) }
                            guard poster == 0, index == releaseAt else { continue }
                            switch target {
                            case .mainActor: DispatchQueue.main.sync { owner.set(nil) }
                            case .actor: place.host.set(nil)
                            default: owner.set(nil)
                            }
                        }
                    }
                }
                // The next post after the owner went, typed, from here.
                _ = try? await awaitDelivery(in: center) { GatheredLevel(poster: 7, index: 0).post(in: center) }
                await place.drain()
            }
            if !ended { failures.append("round \(round) (\(target)): a wait did not end") }
            let listed = await eventually(within: 10) { center.typedObservations.isEmpty }
            if !listed {
                failures.append("round \(round) (\(target)): still listed: \(center.typedObservations)")
            }
            if goneOffMain.value { failures.append("round \(round) (\(target)): a main-actor owner went off main") }
            observation.cancel()
            if target == .actor, !hostGone.value {
                let freed = await eventually(within: 10) { hostGone.value }
                if !freed { failures.append("round \(round) (actor): the actor was kept") }
            }
            let freed = await eventually(within: 10) { live.value == 1 }  // the test's own `probe`
            if !freed { failures.append("round \(round) (\(target)): the handler's capture was kept") }
            withExtendedLifetime(probe) {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    // MARK: Ending observations while bursts and leads race

    /// Two threads post latest values (typed and plain) to a coalescing observer at each place, while a third cancels
    /// its token (or releases it) at a random moment. Once `cancel()` has returned no call starts at a place that runs
    /// one call at a time, but the one in flight (at the posting thread, one per posting thread); the waits end; every
    /// payload box is released and the handler's capture is freed; a post after it reaches nothing.
    @Test(arguments: GatheredMode.allCases, [false, true])
    func cancellingOrReleasingRacesBurstsAndLeads(mode: GatheredMode, merging: Bool) async throws {
        let rounds = TestEnvironment.scaled(normal: 36, long: 360, sanitized: 12)
        var random = SplitMix64(
            seed: SplitMix64.derivedSeed(TestSeed.run, index: 4_000 + mode.rawValue * 2 + (merging ? 1 : 0)))
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let live = LiveCount()
            let released = Counter()
            let cancelled = Protected(false)
            let lateCalls = Counter()
            let probe = Probe(live)
            let observation = place.observe(
                in: center, coalescing: mode.coalescing(acrossSenders: random.chance(50), merging: merging)
            ) { _ in
                withExtendedLifetime(probe) {}
                if cancelled.value { _ = lateCalls.increment() }
            }
            let release = random.chance(50)
            let perThread = 20 + random.below(40)
            let endAfter = random.below(perThread * 2)
            let made = Counter()
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { thread in
                        if thread == 2 {
                            while made.value < endAfter {}
                            if release { observation.release() } else { observation.cancel() }
                            cancelled.set(true)
                            return
                        }
                        for index in 0..<perThread {
                            let level = GatheredLevel(poster: thread, index: index) { _ = released.increment() }
                            if thread == 1 { level.postPlainly(from: nil, in: center) } else { level.post(in: center) }
                            _ = made.increment()
                        }
                    }
                }
                await place.drain()
            }
            if !ended { failures.append("round \(round) (\(target)): a wait did not end") }
            let allowed = target == .postingThread ? 2 : 1
            if lateCalls.value > allowed {
                failures.append("round \(round) (\(target)): \(lateCalls.value) calls started after cancel() returned")
            }
            let before = lateCalls.value
            _ = try? await awaitDelivery(in: center) { GatheredLevel(poster: 5, index: 0).post(in: center) }
            await place.drain()
            if lateCalls.value != before { failures.append("round \(round) (\(target)): a later post was delivered") }
            GatheredLevel.clearLatest(in: center)
            let freed = await eventually(within: 10) {
                live.value == 1 && released.value == 2 * perThread
            }
            if !freed {
                failures.append(
                    "round \(round) (\(target)): \(live.value - 1) captures and \(2 * perThread - released.value) payloads kept"
                )
            }
            withExtendedLifetime(probe) {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    // MARK: Handlers that post and observe again

    /// A coalescing observer at each place re-posts the same latest-value type from its handler (to a bounded
    /// depth) and, on its first call, starts another coalescing observer of it, while two threads post. The waits end,
    /// and once deliveries have run, both observers end on `latest(in:)`.
    @Test(arguments: GatheredMode.allCases)
    func handlersThatRepostAndObserveAgainEndOnTheLatest(mode: GatheredMode) async throws {
        let rounds = TestEnvironment.scaled(normal: 24, long: 240, sanitized: 6)
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: 5_000 + mode.rawValue))
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let outer = Slot<GatheredLevel>()
            let inner = Slot<GatheredLevel>()
            let innerObservation = Slot<RacedObservation>()
            let across = random.chance(50)
            let coalescing = mode.coalescing(acrossSenders: across)
            let observation = place.observe(in: center, coalescing: coalescing) { level in
                outer.set(level)
                if innerObservation.value == nil {
                    let made = place.observe(in: center, coalescing: coalescing) { inner.set($0) }
                    let kept = innerObservation.withLock { slot -> Bool in
                        guard slot == nil else { return false }
                        slot = made
                        return true
                    }
                    if !kept { made.cancel() }
                }
                // Re-posts: 8/0 from a level of the posters, 8/1 from 8/0; never more.
                if level.poster < 2 && level.index % 7 == 0 {
                    GatheredLevel(poster: 8, index: 0).post(in: center)
                } else if level.poster == 8 && level.index == 0 {
                    GatheredLevel(poster: 8, index: 1).post(in: center)
                }
            }
            let perThread = 10 + random.below(30)
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(2) { poster in
                        for index in 0..<perThread {
                            let level = GatheredLevel(poster: poster, index: index)
                            if poster == 1 { level.postPlainly(from: nil, in: center) } else { level.post(in: center) }
                        }
                    }
                }
            }
            if !ended { failures.append("round \(round) (\(target)): the wait did not end") }
            // Re-posts made by queued handlers after the wait's closure returned are not waited for: polled.
            let settled = await eventually(within: 10) {
                let latest = GatheredLevel.latest(in: center)
                return outer.value == latest && inner.value == latest
            }
            if !settled {
                let latest = GatheredLevel.latest(in: center)
                failures.append(
                    "round \(round) (\(target), across \(across)): latest \(latest?.description ?? "nil"), outer \(outer.value?.description ?? "nil"), inner \(inner.value?.description ?? "nil")"
                )
            }
            observation.cancel()
            innerObservation.value?.cancel()
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    // MARK: Centers that go with bursts pending

    /// A center goes (its last reference released) while coalescing observers at each place have bursts of latest
    /// values pending (a 20 ms window): no handler call starts after it went, it is freed, and so is every payload
    /// and the handlers' captures.
    @Test(arguments: GatheredMode.allCases)
    func aCenterGoingWithLatestValueBurstsPendingLeavesNothing(mode: GatheredMode) async throws {
        let rounds = TestEnvironment.scaled(normal: 18, long: 180, sanitized: 6)
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = GatheredPlace(target)
            let live = LiveCount()
            let released = Counter()
            let afterDeath = Counter()
            let weak = Protected<WeakCenter>(WeakCenter(nil))
            let perThread = 30
            do {
                let center = NotificationCenter()
                weak.set(WeakCenter(center))
                let probe = Probe(live)
                let observation = place.observe(in: center, coalescing: mode.coalescing(window: 0.02)) { _ in
                    withExtendedLifetime(probe) {}
                    if weak.value.center == nil { _ = afterDeath.increment() }
                }
                await onThreads(2) { poster in
                    for index in 0..<perThread {
                        let level = GatheredLevel(poster: poster, index: index) { _ = released.increment() }
                        if poster == 1 { level.postPlainly(from: nil, in: center) } else { level.post(in: center) }
                    }
                }
                withExtendedLifetime(observation) {}
            }
            let freed = await eventually(within: 10) {
                weak.value.center == nil && live.value == 0 && released.value == 2 * perThread
            }
            await place.drain()
            if !freed {
                failures.append(
                    "round \(round) (\(target)): center \(weak.value.center == nil ? "freed" : "kept"), \(live.value) captures, \(2 * perThread - released.value) payloads kept"
                )
            }
            if afterDeath.value > 1 {
                failures.append("round \(round) (\(target)): \(afterDeath.value) calls after the center went")
            }
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    // MARK: Sender filters

    /// Three threads post latest values, two from a sender each and one with none (typed and plain), to coalescing
    /// observers at each place that observe one sender only: each gets only its sender's posts, in its post order,
    /// ends on that sender's last post, and with `merging:` gets each of them exactly once.
    @Test(arguments: GatheredMode.allCases, [false, true])
    func senderFilteredCoalescingObserversGetTheirSendersPostsOnly(mode: GatheredMode, merging: Bool) async throws {
        let rounds = TestEnvironment.scaled(normal: 36, long: 360, sanitized: 12)
        var random = SplitMix64(
            seed: SplitMix64.derivedSeed(TestSeed.run, index: 6_000 + mode.rawValue * 2 + (merging ? 1 : 0)))
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let senders = [GatheredSender(), GatheredSender()]
            let received = [Recorded<GatheredLevel>(), Recorded<GatheredLevel>()]
            let across = random.chance(50)
            let observations = (0..<2).map { which in
                place.observe(
                    in: center, from: senders[which],
                    coalescing: mode.coalescing(acrossSenders: across, merging: merging)
                ) { received[which].append($0) }
            }
            let perThread = 1 + random.below(40)
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { poster in
                        for index in 0..<perThread {
                            let level = GatheredLevel(poster: poster, index: index)
                            let sender = poster < 2 ? senders[poster] : nil
                            if index % 2 == 1 {
                                level.postPlainly(from: sender, in: center)
                            } else {
                                level.post(from: sender, in: center)
                            }
                        }
                    }
                }
            }
            if !ended { failures.append("round \(round) (\(target)): the wait did not end") }
            for which in 0..<2 {
                let got = received[which].values
                let flat = got.flatMap(\.posts)
                let mine = (0..<perThread).map { which * 1_000_000 + $0 }
                if got.last?.id != mine.last {
                    failures.append(
                        "round \(round) (\(target)): sender \(which)'s observer ended on \(got.last?.description ?? "nil")"
                    )
                }
                if merging ? flat != mine : !isSubsequence(got.map(\.id), of: mine) {
                    failures.append("round \(round) (\(target)): sender \(which)'s observer got \(flat.prefix(12))")
                }
            }
            for observation in observations { observation.cancel() }
            withExtendedLifetime(senders) {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(4))")
    }

    // MARK: The task's own wait

    /// `awaitDelivery { }` (no center: the task's own posts) around latest values that the task posts to coalescing
    /// observers at each place, with `merging:`: it ends, and not early: every post it made has been delivered.
    @Test(arguments: GatheredMode.allCases)
    func awaitDeliveryOfTheTasksOwnCoalescedLatestValuesEndsNeitherEarlyNorNever(mode: GatheredMode) async throws {
        var failures: [String] = []
        for target in SeamTarget.allCases {
            let place = GatheredPlace(target)
            let center = NotificationCenter()
            let received = Recorded<GatheredLevel>()
            let observation = place.observe(in: center, coalescing: mode.coalescing(merging: true)) {
                received.append($0)
            }
            let posts = 50
            let ended = await finishes(within: 30) {
                _ = try? await awaitDelivery {
                    for index in 0..<posts { GatheredLevel(poster: 0, index: index).post(in: center) }
                }
            }
            let flat = received.values.flatMap(\.posts)
            if !ended { failures.append("\(target): the wait did not end") }
            if flat != Array(0..<posts) { failures.append("\(target): when the wait ended, \(flat.count) of \(posts)") }
            observation.cancel()
        }
        #expect(failures.isEmpty, "\(failures)")
    }
}
