import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Where features meet, as Guarantees.md promises: handlers that cancel themselves through the
// token they captured, on every target; tokens cancelled, removed and released from several threads while posts race;
// latest values meeting observers that coalesce, with several senders and several posting threads, merging included,
// and coalescing observers that start while posts race; throttles behind a busy place; main-actor owners released
// while coalesced posts race; and handlers that post and observe again, on every target. Every wait is bounded by
// `finishes(within:)`, so a hang fails the test.

// MARK: - Fixtures

/// A latest-value type: `poster` and `round` name one post; `posts` lists the posts a merged delivery carries.
struct RacedLevel: LatestValueNotifiable, Equatable, CustomStringConvertible {
    let poster: Int
    let round: Int
    var posts: [Int] = []
    var description: String { "\(poster)/\(round)" }

    init(poster: Int, round: Int) {
        self.poster = poster
        self.round = round
        posts = [poster * 1_000_000 + round]
    }

    init(poster: Int, round: Int, posts: [Int]) {
        self.poster = poster
        self.round = round
        self.posts = posts
    }

    static func == (lhs: RacedLevel, rhs: RacedLevel) -> Bool {
        lhs.poster == rhs.poster && lhs.round == rhs.round
    }

    /// Concatenates the posts of a burst, earlier first.
    static let concatenating: @Sendable (RacedLevel, RacedLevel) -> RacedLevel = { earlier, later in
        RacedLevel(poster: later.poster, round: later.round, posts: earlier.posts + later.posts)
    }
}

/// A plain (not latest-value) notification.
struct RacedTick: Notifiable, Equatable {
    let index: Int
}

/// A sender object.
final class RacedSender: Sendable {}

/// What holds a token: a handler that captures it reaches its token through it.
final class HandleHolder: Sendable {
    let token = Slot<NotificationToken>()
    let observation = Slot<OwnerBoundObservation>()
    let live: LiveCount
    let probe: Probe

    init(_ live: LiveCount) {
        self.live = live
        probe = Probe(live)
    }

    func end() {
        token.value?.cancel()
        observation.value?.cancel()
    }
}

/// Where a handler runs (the seam suites' ``SeamPlace``: its queue, operation queue and actor, and its drain), observing
/// any type with a handle that another thread can release.
struct RacedPlace: Sendable {
    let place: SeamPlace
    var target: SeamTarget { place.target }
    var queue: DispatchQueue { place.queue }
    var operationQueue: OperationQueue { place.operationQueue }
    var host: SeamHost { place.host }

    init(_ target: SeamTarget) {
        place = SeamPlace(target)
    }

    /// Observes `Event` here; what is returned ends the observation, or lets go of its token (`release`).
    func observe<Event: Notifiable>(
        _ type: Event.Type, in center: NotificationCenter,
        coalescing: NotificationCoalescing<Event.Payload>? = nil,
        _ handler: @escaping @Sendable (Event.Payload) -> Void
    ) -> RacedObservation {
        switch target {
        case .postingThread:
            return RacedObservation(token: Event.observe(in: center, coalescing: coalescing, handler))
        case .dispatchQueue:
            return RacedObservation(
                token: Event.observe(in: center, delivery: .async(on: queue), coalescing: coalescing, handler))
        case .operationQueue:
            return RacedObservation(
                token: Event.observe(in: center, delivery: .async(on: operationQueue), coalescing: coalescing, handler)
            )
        case .mainActor:
            return RacedObservation(
                token: Event.observeOnMainActor(in: center, coalescing: coalescing) { handler($0) })
        case .actor:
            return RacedObservation(
                ownerBound: Event.observe(for: host, in: center, coalescing: coalescing) { _, payload in
                    handler(payload)
                })
        case .asyncHandler:
            return RacedObservation(
                token: Event.observe(in: center, coalescing: coalescing) { (payload: Event.Payload) async in
                    handler(payload)
                })
        }
    }

    /// Returns once what the place was given before has run.
    func drain() async { await place.drain() }
}

/// One observation, held through a slot so that another thread can release it.
final class RacedObservation: Sendable {
    let token = Slot<NotificationToken>()
    let ownerBound = Slot<OwnerBoundObservation>()

    init(token: NotificationToken) { self.token.set(token) }
    init(ownerBound: OwnerBoundObservation) { self.ownerBound.set(ownerBound) }

    func cancel() {
        token.value?.cancel()
        ownerBound.value?.cancel()
    }

    func remove(from center: NotificationCenter) {
        if let token = token.value { center.removeObserver(token) }
        if let observation = ownerBound.value { center.removeObserver(observation) }
    }

    /// Lets go of the token (ending the observation if it was the last reference); an owner-bound one is cancelled.
    func release() {
        token.set(nil)
        ownerBound.value?.cancel()
    }
}

/// Polls `condition` until it holds or `seconds` pass (a bound that fails the test, not a pace); whether it held. Only
/// for what no wait can report: an `async` handler's task lets go of its handler once it finds its queue empty, just
/// after the last call that a wait sees return.
func eventually(within seconds: Double = 60, _ condition: @Sendable () -> Bool) async -> Bool {
    let deadline = uptime() + UInt64(seconds * 1e9)
    while !condition() {
        if uptime() > deadline { return false }
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    return true
}

/// A center held weakly, to see it go.
final class WeakCenter: @unchecked Sendable {
    weak var center: NotificationCenter?
    init(_ center: NotificationCenter?) { self.center = center }
}

/// Marks the main queue, where the main actor runs.
private let onMainQueue = DispatchSpecificKey<Void>()

/// The uptime clock, in nanoseconds.
private func uptime() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

// MARK: - Tests

@Suite(.serialized, .seeded) struct FeatureSeamTests {
    // MARK: Tokens

    /// A handler reaches its own token through an object it captures (or, for an actor, its owner-bound observation)
    /// and cancels itself on its first call, while four threads post. On a place that runs one call at a time (every
    /// target but the posting thread) no later call starts, as the call that cancels returns first; on the posting
    /// thread at most one call per other posting thread was already in flight. Once the deliveries have run and the
    /// place has drained, the holder and the handler's capture are freed.
    ///
    /// The actor form returns an ``OwnerBoundObservation``, which keeps its handler after `cancel()`: see
    /// `FeatureSeamFindingsTests`.
    @Test(arguments: SeamTarget.allCases.filter { $0 != .actor }, [false, true])
    func aHandlerCancellingItselfThroughWhatItCapturedRunsOnceAndIsFreed(target: SeamTarget, viaCenter: Bool)
        async throws
    {
        let rounds = TestEnvironment.scaled(normal: 20, long: 200, sanitized: 5)
        for round in 0..<rounds {
            let center = NotificationCenter()
            let place = RacedPlace(target)
            let live = LiveCount()
            let calls = Counter()
            let cancelReturned = AtomicWord.make()
            let lateStarts = Counter()
            weak var weakHolder: HandleHolder?
            do {
                let holder = HandleHolder(live)
                weakHolder = holder
                let observation = place.observe(RacedTick.self, in: center) { _ in
                    if cancelReturned.isSet { lateStarts.increment() }
                    calls.increment()
                    if viaCenter, let token = holder.token.value {
                        center.removeObserver(token)
                    } else if viaCenter, let observation = holder.observation.value {
                        center.removeObserver(observation)
                    } else {
                        holder.end()
                    }
                    _ = cancelReturned.set()
                }
                holder.token.set(observation.token.value)
                holder.observation.set(observation.ownerBound.value)
            }
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    DispatchQueue.concurrentPerform(iterations: 4) { thread in
                        for index in 0..<25 { RacedTick(index: thread * 100 + index).post(in: center) }
                    }
                }
                await place.drain()
                if target == .asyncHandler { _ = await eventually { live.value == 0 } }
            }
            #expect(ended, "round \(round): the wait did not end")
            if target == .postingThread {
                #expect(calls.value <= 4, "round \(round): \(calls.value) calls of a handler that cancelled itself")
                #expect(lateStarts.value <= 3, "round \(round): \(lateStarts.value) calls started after cancel()")
            } else {
                #expect(calls.value == 1, "round \(round), \(target): \(calls.value) calls, one at a time")
            }
            #expect(weakHolder == nil, "round \(round), \(target): the token's holder outlived the observation")
            #expect(live.value == 0, "round \(round), \(target): the handler's capture outlived the observation")
            #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
            if !ended || weakHolder != nil || live.value != 0 { break }
        }
    }

    /// Sixteen observers of one place; two threads post while two others end the observers in a random order, each
    /// in one of four ways: `cancel()`, `removeObserver(_:)` on its center, releasing the last reference to its token,
    /// or `removeObserver(_:)` on another center, which must end nothing. No post made after an end returned is
    /// delivered to that observer, no post reaches an observer twice, an observer left alone gets every post, and once
    /// all have ended and drained every handler is freed.
    @Test(arguments: SeamTarget.allCases)
    func endingManyObservationsFromSeveralThreadsWhilePostsRace(target: SeamTarget) async throws {
        let rounds = TestEnvironment.scaled(normal: 10, long: 100, sanitized: 3)
        for round in 0..<rounds {
            let seed = SplitMix64.derivedSeed(
                TestSeed.run, index: round * 10 + SeamTarget.allCases.firstIndex(of: target)!)
            var random = SplitMix64(seed: seed)
            let center = NotificationCenter()
            let other = NotificationCenter()
            let place = RacedPlace(target)
            let clock = LogicalClock()
            let live = LiveCount()
            let count = 16
            let ways = (0..<count).map { _ in random.below(4) }
            let order = (0..<count).shuffled(using: &random)
            let received = (0..<count).map { _ in Recorded<(index: Int, posted: Int)>() }
            var observations: [RacedObservation] = []
            for observer in 0..<count {
                let probe = Probe(live)
                observations.append(
                    place.observe(RacedTick.self, in: center) { tick in
                        withExtendedLifetime(probe) {}
                        received[observer].append((tick.index % 1_000_000, tick.index / 1_000_000))
                    })
            }
            let held = Protected(observations)
            observations = []
            let endedAt = Protected([Int](repeating: Int.max, count: count))
            let perThread = 300
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(4) { thread in
                        if thread < 2 {
                            for index in 0..<perThread {
                                let stamp = clock.increment()
                                RacedTick(index: stamp * 1_000_000 + thread * 1_000 + index).post(in: center)
                            }
                            return
                        }
                        for (position, observer) in order.enumerated() where position % 2 == thread - 2 {
                            let observation = held.withLock { $0[observer] }
                            switch ways[observer] {
                            case 0: observation.cancel()
                            case 1: observation.remove(from: center)
                            case 2: observation.release()
                            default: observation.remove(from: other)
                            }
                            withExtendedLifetime(observation) {}
                            if ways[observer] != 3 { endedAt.withLock { $0[observer] = clock.increment() } }
                        }
                    }
                }
                await place.drain()
            }
            #expect(ended, "round \(round): the wait did not end (seed \(TestSeed.hex(seed)))")
            let ends = endedAt.value
            for observer in 0..<count {
                let got = received[observer].values
                let indices = got.map(\.index)
                #expect(Set(indices).count == indices.count, "round \(round): observer \(observer) got a post twice")
                let late = got.filter { $0.posted > ends[observer] }
                #expect(late.isEmpty, "round \(round), way \(ways[observer]): \(late.count) posts made after the end")
                if ways[observer] == 3 {
                    #expect(got.count == 2 * perThread, "round \(round): an observer of this center lost posts")
                }
            }
            for observation in held.value { observation.cancel() }
            held.set([])
            await place.drain()
            if target == .asyncHandler { _ = await eventually { live.value == 0 } }
            #expect(live.value == 0, "round \(round), \(target): \(live.value) handlers outlived their observations")
            #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        }
    }

    /// A queued handler is held in its first call while ten more posts queue behind it; another thread lets go of the
    /// last reference to its token meanwhile. No queued call starts after that, the wait ends, and the handler is freed
    /// once its call has returned.
    @Test(arguments: [SeamTarget.dispatchQueue, .operationQueue, .mainActor])
    func releasingATokenOnAnotherThreadWhileItsHandlerRunsEndsIt(target: SeamTarget) async throws {
        let center = NotificationCenter()
        let place = RacedPlace(target)
        let gate = SeamGate()
        let started = DispatchSemaphore(value: 0)
        let live = LiveCount()
        let calls = Recorded<Int>()
        do {
            let probe = Probe(live)
            let observation = place.observe(RacedTick.self, in: center) { tick in
                withExtendedLifetime(probe) {}
                calls.append(tick.index)
                if tick.index == 0 {
                    started.signal()
                    gate.block()
                }
            }
            let holder = Protected<RacedObservation?>(observation)
            // A thread of its own lets the handler go, so that the place (the main actor, say, which other tests
            // share) is held only until that thread has run, never while this test's task waits for the pool.
            let released = onNewThread {
                started.wait()
                holder.withLock { $0?.token.set(nil) }
                holder.set(nil)
                gate.open()
            }
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    for index in 0..<11 { RacedTick(index: index).post(in: center) }
                }
                await waitAside(released)
                await place.drain()
            }
            #expect(ended, "the wait did not end")
        }
        #expect(calls.values == [0], "calls started after the token was released: \(calls.values)")
        #expect(live.value == 0, "the handler outlived its released token")
    }

    // MARK: Latest values and coalescing

    enum Mode: Int, CaseIterable, Sendable, CustomTestStringConvertible {
        case throttle, trailingThrottle, debounce
        func coalescing(acrossSenders: Bool, merging: Bool) -> NotificationCoalescing<RacedLevel> {
            var coalescing: NotificationCoalescing<RacedLevel> =
                switch self {
                case .throttle: .within(0.002)
                case .trailingThrottle: NotificationCoalescing.within(0.002).trailingOnly
                case .debounce: .afterPause(0.002)
                }
            if acrossSenders { coalescing = coalescing.acrossSenders }
            if merging { coalescing = coalescing.merging(RacedLevel.concatenating) }
            return coalescing
        }
        var testDescription: String { "\(self)" }
    }

    /// Two threads, each with a sender of its own, post a few latest values at the same moment, on every place, each
    /// round on a fresh center. With `.acrossSenders` the observer's one burst keeps the center's last post, so it
    /// ends on `latest(in:)`. Per sender, each sender's last post still reaches it (sender filters see every sender's
    /// latest post); whether its last call is `latest(in:)` too is `FeatureSeamFindingsTests`'.
    @Test(arguments: Mode.allCases, [false, true])
    func aCoalescingObserverOfTwoSendersPostingAtOnceEndsOnTheLatest(mode: Mode, acrossSenders: Bool) async throws {
        let rounds = TestEnvironment.scaled(normal: 300, long: 3_000, sanitized: 60)
        var random = SplitMix64(
            seed: SplitMix64.derivedSeed(TestSeed.run, index: mode.rawValue * 2 + (acrossSenders ? 1 : 0)))
        var notLatest: [String] = []
        var lostSenderLast: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = RacedPlace(target)
            let center = NotificationCenter()
            let senders = [RacedSender(), RacedSender()]
            let received = Recorded<RacedLevel>()
            let observation = place.observe(
                RacedLevel.self, in: center, coalescing: mode.coalescing(acrossSenders: acrossSenders, merging: false)
            ) { received.append($0) }
            let posts = (0..<2).map { _ in 1 + random.below(3) }
            let spins = random.below(400)
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(2) { poster in
                        if poster == 1 {
                            var spun = 0
                            for index in 0..<spins { spun &+= index }
                            withExtendedLifetime(spun) {}
                        }
                        for post in 0..<posts[poster] {
                            RacedLevel(poster: poster, round: post).post(from: senders[poster], in: center)
                        }
                    }
                }
            }
            #expect(ended, "round \(round): the wait did not end")
            let latest = RacedLevel.latest(in: center)
            let got = received.values
            if acrossSenders, got.last != latest {
                notLatest.append("round \(round) (\(target)): latest \(latest?.description ?? "nil"), got \(got)")
            }
            if !acrossSenders {
                for poster in 0..<2 where got.last(where: { $0.poster == poster })?.round != posts[poster] - 1 {
                    lostSenderLast.append(
                        "round \(round) (\(target)): sender \(poster) posted \(posts[poster]), got \(got)")
                }
            }
            observation.cancel()
            withExtendedLifetime(senders) {}
        }
        #expect(notLatest.isEmpty, "\(notLatest.count) of \(rounds) rounds not on the latest: \(notLatest.prefix(3))")
        #expect(lostSenderLast.isEmpty, "\(lostSenderLast.count) of \(rounds) rounds: \(lostSenderLast.prefix(3))")
    }

    /// Three threads post latest values at once to an observer that coalesces with `merging:`: every post is merged
    /// into exactly one delivery, a throttle's leading post included, and each thread's posts come in its post order.
    @Test(arguments: Mode.allCases, [false, true])
    func aMergingObserverGetsEveryRacingPostExactlyOnce(mode: Mode, acrossSenders: Bool) async throws {
        let rounds = TestEnvironment.scaled(normal: 60, long: 600, sanitized: 12)
        var failures: [String] = []
        for round in 0..<rounds {
            let target = SeamTarget.allCases[round % SeamTarget.allCases.count]
            let place = RacedPlace(target)
            let center = NotificationCenter()
            let senders = [RacedSender(), RacedSender(), RacedSender()]
            let received = Recorded<RacedLevel>()
            let observation = place.observe(
                RacedLevel.self, in: center, coalescing: mode.coalescing(acrossSenders: acrossSenders, merging: true)
            ) { received.append($0) }
            let perThread = 40
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { poster in
                        for post in 0..<perThread {
                            RacedLevel(poster: poster, round: post).post(from: senders[poster], in: center)
                        }
                    }
                }
            }
            #expect(ended, "round \(round): the wait did not end")
            let all = received.values.flatMap(\.posts)
            if all.count != 3 * perThread || Set(all).count != all.count {
                failures.append("round \(round) (\(target)): \(all.count) merged posts, \(Set(all).count) distinct")
            }
            for poster in 0..<3 {
                let mine = all.filter { $0 / 1_000_000 == poster }.map { $0 % 1_000_000 }
                if mine != mine.sorted() {
                    failures.append("round \(round) (\(target)): poster \(poster)'s posts out of order")
                }
            }
            observation.cancel()
            withExtendedLifetime(senders) {}
        }
        #expect(failures.isEmpty, "\(failures.count) failures in \(rounds) rounds: \(failures.prefix(3))")
    }

    /// Two threads post latest values while a third starts a coalescing observer at a random moment: it starts with
    /// the latest post made before it began or a later one, receives each thread's posts in that thread's order, and
    /// once deliveries have run ends on `latest(in:)`.
    @Test(arguments: SeamTarget.allCases, Mode.allCases)
    func aCoalescingObserverStartedWhilePostsRaceStartsFromTheLatestAndEndsOnIt(target: SeamTarget, mode: Mode)
        async throws
    {
        let rounds = TestEnvironment.scaled(normal: 8, long: 80, sanitized: 3)
        for round in 0..<rounds {
            let seed = SplitMix64.derivedSeed(
                TestSeed.run, index: round * 100 + mode.rawValue * 10 + SeamTarget.allCases.firstIndex(of: target)!)
            var random = SplitMix64(seed: seed)
            let center = NotificationCenter()
            let place = RacedPlace(target)
            let perThread = 200
            let start = 1 + random.below(perThread - 2)
            let reached = DispatchSemaphore(value: 0)
            let received = RouteArrivals<RacedLevel>()
            let before = Slot<RacedLevel>()
            let observation = Slot<RacedObservation>()
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { thread in
                        if thread < 2 {
                            for post in 0..<perThread {
                                RacedLevel(poster: thread, round: post).post(in: center)
                                if thread == 0 && post == start { reached.signal() }
                            }
                            return
                        }
                        reached.wait()
                        before.set(RacedLevel.latest(in: center))
                        observation.set(
                            place.observe(
                                RacedLevel.self, in: center,
                                coalescing: mode.coalescing(acrossSenders: false, merging: false)
                            ) { received.record($0) })
                    }
                }
                await received.wait(forCount: 1)
            }
            #expect(ended, "round \(round): the wait did not end (seed \(TestSeed.hex(seed)))")
            let got = received.received
            let latest = RacedLevel.latest(in: center)
            #expect(
                got.last == latest,
                "round \(round): ended on \(got.last?.description ?? "nil"), latest \(latest?.description ?? "nil")")
            for poster in 0..<2 {
                let rounds = got.filter { $0.poster == poster }.map(\.round)
                #expect(
                    rounds == rounds.sorted() && Set(rounds).count == rounds.count,
                    "round \(round): \(poster)'s posts \(rounds)")
            }
            if let first = got.first, let before = before.value, first.poster == before.poster {
                #expect(first.round >= before.round, "round \(round): started with \(first), older than \(before)")
            }
            observation.value?.cancel()
        }
    }

    // MARK: Coalescing on busy targets

    /// A throttled observer on a serial queue kept busy by other work, or an `async` handler that is itself slow: one
    /// thread posts 300 times; calls never start within half a window of the previous call's end, the last has the
    /// last payload, and once posts stop nothing is left queued: a later post is then the only call.
    @Test(arguments: [SeamTarget.dispatchQueue, .asyncHandler], [false, true])
    func aThrottleOnABusyTargetIsNeverCalledTwiceWithinHalfAWindow(target: SeamTarget, trailingOnly: Bool)
        async throws
    {
        let center = NotificationCenter()
        let place = RacedPlace(target)
        let window = 0.02
        let calls = Recorded<(index: Int, start: UInt64, end: UInt64)>()
        let coalescing: NotificationCoalescing<RacedTick> =
            trailingOnly ? NotificationCoalescing.within(window).trailingOnly : .within(window)
        let token: NotificationToken
        switch target {
        case .asyncHandler:
            token = RacedTick.observe(in: center, coalescing: coalescing) { (tick: RacedTick) async in
                let start = uptime()
                try? await Task.sleep(nanoseconds: 3_000_000)  // a slow handler, not a synchronisation
                calls.append((tick.index, start, uptime()))
            }
        default:
            token = RacedTick.observe(in: center, delivery: .async(on: place.queue), coalescing: coalescing) { tick in
                let start = uptime()
                calls.append((tick.index, start, uptime()))
            }
        }
        let posts = 300
        let ended = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) {
                await waitAside(
                    onNewThread {
                        for index in 0..<posts {
                            // Busy work on the observer's own queue between posts.
                            place.queue.async {
                                let until = uptime() + 1_000_000
                                while uptime() < until {}
                            }
                            RacedTick(index: index).post(in: center)
                            let until = uptime() + 200_000
                            while uptime() < until {}
                        }
                    })
            }
            await place.drain()
        }
        #expect(ended, "the wait did not end")
        let got = calls.values
        #expect(got.last?.index == posts - 1, "the last call has \(got.last?.index ?? -1), not the last post")
        let half = UInt64(window / 2 * 1e9)
        for (previous, next) in zip(got, got.dropFirst()) where next.start < previous.end + half {
            Issue.record(
                "call \(next.index) started \(Double(next.start &- previous.end) / 1e6) ms after \(previous.index) ended"
            )
        }
        let before = got.count
        let marked = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) { RacedTick(index: -1).post(in: center) }
            await place.drain()
        }
        #expect(marked, "the marker's wait did not end")
        #expect(
            calls.values.dropFirst(before).map(\.index) == [-1],
            "after the posts stopped: \(calls.values.dropFirst(before).map(\.index))")
        token.cancel()
    }

    // MARK: Owners

    /// A main-actor owner-bound observation, coalescing or not, whose owner the main actor releases while two
    /// background threads post: the package touches a main-actor owner only on the main actor, so the owner's
    /// `deinit` runs on the main thread; no call runs after it, and the wait ends.
    @Test(arguments: [0, 1, 2, 3])
    func aMainActorOwnerReleasedWhilePostsRaceIsReleasedOnTheMainThread(kind: Int) async throws {
        let rounds = TestEnvironment.scaled(normal: 20, long: 200, sanitized: 5)
        let coalescing: NotificationCoalescing<RacedTick>? = [nil, .nextTurn, .within(0.001), .afterPause(0.001)][kind]
        await MainActor.run { DispatchQueue.main.setSpecific(key: onMainQueue, value: ()) }
        for round in 0..<rounds {
            let center = NotificationCenter()
            let deinitOffMain = Counter()
            let gone = AtomicWord.make()
            let lateCalls = Counter()
            let calls = Counter()
            let holder = Protected<Owner?>(
                Owner(onDeinit: {
                    // Not `Thread.isMainThread`: under `dispatch_main()` the main queue may drain on another thread.
                    if DispatchQueue.getSpecific(key: onMainQueue) == nil { deinitOffMain.increment() }
                    _ = gone.set()
                }))
            let observation = RacedTick.observeOnMainActor(
                for: holder.value!, in: center, coalescing: coalescing
            ) { _, _ in
                if gone.isSet { lateCalls.increment() }
                calls.increment()
            }
            let halfway = DispatchSemaphore(value: 0)
            let ended = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    async let posting: Void = onThreads(2) { thread in
                        for index in 0..<200 {
                            RacedTick(index: index).post(in: center)
                            if thread == 0 && index == 100 { halfway.signal() }
                        }
                    }
                    await waitAside(halfway)
                    await MainActor.run { holder.set(nil) }
                    await posting
                }
                // A few posts after the owner is gone end the observation.
                _ = try? await awaitDelivery(in: center) { RacedTick(index: -1).post(in: center) }
                await MainActor.run {}
            }
            #expect(ended, "round \(round): the wait did not end")
            #expect(gone.isSet, "round \(round): the owner was kept alive")
            #expect(
                deinitOffMain.value == 0,
                "round \(round), \(String(describing: coalescing)): the owner was released off the main thread")
            #expect(lateCalls.value == 0, "round \(round): \(lateCalls.value) calls after the owner was gone")
            observation.cancel()
            if deinitOffMain.value != 0 || !ended { break }
        }
    }

    /// An actor-isolated observation, coalescing or not, whose actor is released on another thread while two threads
    /// post, all inside `awaitDelivery(in:)`, and then the center too, with a burst pending, inside a task's own
    /// `awaitDelivery`: both waits end (a delivery dropped with its actor or center ends them), and the actor and
    /// the handler are freed.
    @Test(arguments: [0, 1, 2, 3])
    func anActorAndThenItsCenterDyingMidFlightEndEveryWait(kind: Int) async throws {
        let coalescing: NotificationCoalescing<RacedTick>? = [nil, .nextTurn, .within(0.005), .afterPause(0.005)][kind]
        let rounds = TestEnvironment.scaled(normal: 20, long: 200, sanitized: 5)
        for round in 0..<rounds {
            let live = LiveCount()
            let actorGone = AtomicWord.make()
            let centerGone = Protected<(@Sendable () -> Bool)?>(nil)
            let ended = await finishes(within: 60) {
                let box = Protected<NotificationCenter?>(NotificationCenter())
                let weakCenter = WeakCenter(box.value)
                centerGone.set { weakCenter.center == nil }
                let host = Protected<SeamHost?>(SeamHost { _ = actorGone.set() })
                let probe = Probe(live)
                let observation = RacedTick.observe(for: host.value!, in: box.value!, coalescing: coalescing) {
                    _, _ in withExtendedLifetime(probe) {}
                }
                let halfway = DispatchSemaphore(value: 0)
                _ = try? await awaitDelivery(in: box.value!) {
                    async let posting: Void = onThreads(2) { thread in
                        for index in 0..<100 {
                            if let center = box.value { RacedTick(index: index).post(in: center) }
                            if thread == 0 && index == 50 { halfway.signal() }
                        }
                    }
                    await waitAside(halfway)
                    await waitAside(onNewThread { host.set(nil) })
                    await posting
                }
                // A second observer, on a queue, with a burst pending when the center goes.
                let queue = DispatchQueue(label: "FeatureSeamTests.dying")
                let token = RacedTick.observe(
                    in: box.value!, delivery: .async(on: queue), coalescing: .afterPause(0.05)
                ) { _ in withExtendedLifetime(probe) {} }
                _ = try? await awaitDelivery {
                    RacedTick(index: -1).post(in: box.value!)
                    box.set(nil)
                }
                withExtendedLifetime((observation, token)) {}
            }
            #expect(ended, "round \(round): a wait did not end")
            // The drain that ran the actor's last batch lets go of it just after its deliveries are done.
            #expect(await eventually { actorGone.isSet }, "round \(round): the actor was kept alive")
            #expect(centerGone.value?() == true, "round \(round): the center was kept alive")
            #expect(
                await eventually { live.value == 0 },
                "round \(round): the handlers outlived their actor and center")
            if !ended { break }
        }
    }

    // MARK: Re-posting and re-subscribing inside handlers

    /// On every target, a handler of a latest value posts the next round and then starts a new observer of the same
    /// place, round after round: each new observer receives exactly the latest post made before it started, then
    /// every later one, once each, in order; the chain's posts each reach the first observer once.
    @Test(arguments: SeamTarget.allCases)
    func aHandlerThatPostsThenObservesAgainGivesEachNewObserverTheLatestThenEveryLaterPost(target: SeamTarget)
        async throws
    {
        let center = NotificationCenter()
        let place = RacedPlace(target)
        let last = 20
        let first = RouteArrivals<RacedLevel>()
        let late = Protected<[(startedWith: RacedLevel?, arrivals: RouteArrivals<RacedLevel>)]>([])
        let held = Protected<[RacedObservation]>([])
        let observation = place.observe(RacedLevel.self, in: center) { level in
            first.record(level)
            guard level.round < last else { return }
            RacedLevel(poster: 0, round: level.round + 1).post(in: center)
            let arrivals = RouteArrivals<RacedLevel>()
            let latest = RacedLevel.latest(in: center)
            late.append((latest, arrivals))
            held.append(place.observe(RacedLevel.self, in: center) { arrivals.record($0) })
        }
        let ended = await finishes(within: 60) {
            RacedLevel(poster: 0, round: 0).post(in: center)
            await first.wait(forCount: last + 1)
            for (startedWith, arrivals) in late.values {
                await arrivals.wait(forCount: last - (startedWith?.round ?? 0) + 1)
            }
            await place.drain()
        }
        #expect(ended, "the chain did not end")
        #expect(first.received.map(\.round) == Array(0...last))
        for (index, (startedWith, arrivals)) in late.values.enumerated() {
            let from = startedWith?.round ?? -1
            #expect(
                arrivals.received.map(\.round) == Array(from...last),
                "observer \(index), started at \(from): \(arrivals.received.map(\.round))")
        }
        observation.cancel()
        for observation in held.values { observation.cancel() }
    }

    /// A handler that cancels itself through an object holding its ``OwnerBoundObservation`` is freed with what it
    /// captured once its call has run, on every target (an actor-isolated handler has only this kind of handle): the
    /// observation lets go of its handler when cancelled, as a token does.
    @Test(arguments: [SeamTarget.postingThread, .dispatchQueue, .mainActor, .actor])
    func aHandlerCancellingItsOwnOwnerBoundObservationIsFreed(target: SeamTarget) async throws {
        let center = NotificationCenter()
        let place = RacedPlace(target)
        let owner = Owner()
        let live = LiveCount()
        let calls = Counter()
        weak var weakHolder: HandleHolder?
        do {
            let holder = HandleHolder(live)
            weakHolder = holder
            let handler: @Sendable (RacedTick) -> Void = { _ in
                calls.increment()
                holder.end()
            }
            let observation: OwnerBoundObservation =
                switch target {
                case .postingThread: RacedTick.observe(for: owner, in: center) { _, tick in handler(tick) }
                case .dispatchQueue:
                    RacedTick.observe(for: owner, in: center, delivery: .async(on: place.queue)) { _, tick in
                        handler(tick)
                    }
                case .mainActor: RacedTick.observeOnMainActor(for: owner, in: center) { _, tick in handler(tick) }
                default: RacedTick.observe(for: place.host, in: center) { _, tick in handler(tick) }
                }
            holder.observation.set(observation)
        }
        let ended = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) {
                for index in 0..<5 { RacedTick(index: index).post(in: center) }
            }
            await place.drain()
        }
        #expect(ended, "the wait did not end")
        #expect(calls.value == 1)
        #expect(weakHolder == nil, "\(target): the holder of the cancelled observation outlived it")
        #expect(live.value == 0, "\(target): the cancelled handler's capture outlived the observation")
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        withExtendedLifetime(owner) {}
    }
}
