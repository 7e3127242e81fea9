import Foundation
import Testing
import TypedNotificationsTestSupport

@_spi(Testing) @testable import TypedNotifications

// Where features meet inside one observer's delivery, on every target a handler runs on: handlers
// that cancel and re-observe themselves and re-post, owners and tokens released on other threads mid-burst (with long
// windows, so that only the observation's end can free what a burst holds), coalescing behind a busy target, latest
// values from plain and typed posts racing observers that start on every kind of target, waits around cancellation
// racing a burst's end, centers released mid-flight, and payloads whose release re-enters the package. Every wait is
// bounded (`finishes(within:)`, `eventually`), so a hang fails a test instead of the run.

// MARK: - Fixtures

/// The payload of most tests here: `ids` is what a merge combines; `box` tells when the package lets go of it.
struct MeetingPing: Notifiable {
    let index: Int
    let stamp: Int
    let ids: [Int]
    let box: SeamPing.Box?

    init(_ index: Int, stamp: Int = 0, ids: [Int]? = nil, onRelease: (@Sendable () -> Void)? = nil) {
        self.index = index
        self.stamp = stamp
        self.ids = ids ?? [index]
        box = onRelease.map(SeamPing.Box.init)
    }
}

/// A latest-value type posted from several threads, typed and plain.
struct MeetingLevel: LatestValueNotifiable, Hashable, CustomStringConvertible {
    let thread: Int
    let index: Int
    var description: String { "\(thread).\(index)" }
}

/// A second type, posted from deinitialisers.
struct MeetingEcho: Notifiable {
    let index: Int
}

/// How an observer coalesces, with long windows where a test needs a burst that only the observation's end frees.
enum MeetingMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case none, nextTurn, afterPause, throttle, trailingThrottle, merging, acrossSenders
    var testDescription: String { rawValue }

    /// With windows of `seconds`.
    func coalescing(_ seconds: Double) -> NotificationCoalescing<MeetingPing>? {
        switch self {
        case .none: nil
        case .nextTurn: .nextTurn
        case .afterPause: .afterPause(seconds)
        case .throttle: .within(seconds)
        case .trailingThrottle: .within(seconds).trailingOnly
        case .merging: NotificationCoalescing<MeetingPing>.afterPause(seconds).merging(Self.merge)
        case .acrossSenders: NotificationCoalescing<MeetingPing>.within(seconds).trailingOnly.acrossSenders
        }
    }

    static let merge: @Sendable (MeetingPing, MeetingPing) -> MeetingPing = { earlier, later in
        MeetingPing(later.index, stamp: max(earlier.stamp, later.stamp), ids: earlier.ids + later.ids)
    }

    /// The modes whose burst outlives the posts by its window (so a long window keeps it, unless the observation ends).
    static var timed: [MeetingMode] { [.afterPause, .throttle, .trailingThrottle, .merging, .acrossSenders] }
}

/// One way to observe any type at a place, token-held or owner-bound.
extension SeamPlace {
    /// Observes `T` here. With an `owner` (or on the actor target, always) the observation is owner-bound: to the
    /// owner, or to the place's actor. `hold` is awaited (async handler) or blocked on (elsewhere) after the handler
    /// for a payload it accepts. Returns what cancels the observation; keeping the returned value keeps a token.
    func observe<T: Notifiable>(
        _ type: T.Type,
        in center: NotificationCenter,
        coalescing: NotificationCoalescing<T>? = nil,
        owner: SeamOwner? = nil,
        holding gate: SeamGate? = nil,
        when holds: @escaping @Sendable (T) -> Bool = { _ in false },
        _ handler: @escaping @Sendable (T) -> Void
    ) -> HeldObservation where T.Payload == T {
        let body: @Sendable (T) -> Void = { value in
            handler(value)
            if let gate, holds(value) { gate.block() }
        }
        switch (target, owner) {
        case (.postingThread, nil):
            return .token(T.observe(in: center, coalescing: coalescing, body))
        case (.postingThread, let owner?):
            return .ownerBound(T.observe(for: owner, in: center, coalescing: coalescing) { _, value in body(value) })
        case (.dispatchQueue, nil):
            return .token(T.observe(in: center, delivery: .async(on: queue), coalescing: coalescing, body))
        case (.dispatchQueue, let owner?):
            return .ownerBound(
                T.observe(for: owner, in: center, delivery: .async(on: queue), coalescing: coalescing) { _, value in
                    body(value)
                })
        case (.operationQueue, nil):
            return .token(T.observe(in: center, delivery: .async(on: operationQueue), coalescing: coalescing, body))
        case (.operationQueue, let owner?):
            return .ownerBound(
                T.observe(for: owner, in: center, delivery: .async(on: operationQueue), coalescing: coalescing) {
                    _, value in body(value)
                })
        case (.mainActor, nil):
            return .token(T.observeOnMainActor(in: center, coalescing: coalescing) { body($0) })
        case (.mainActor, let owner?):
            return .ownerBound(
                T.observeOnMainActor(for: owner, in: center, coalescing: coalescing) { _, value in body(value) })
        case (.actor, _):
            let host = hostSlot.value!
            return .ownerBound(T.observe(for: host, in: center, coalescing: coalescing) { _, value in body(value) })
        case (.asyncHandler, nil):
            return .token(
                T.observe(in: center, coalescing: coalescing) { (value: T) async in
                    handler(value)
                    if let gate, holds(value) { await gate.wait() }
                })
        case (.asyncHandler, let owner?):
            return .ownerBound(
                T.observe(for: owner, in: center, coalescing: coalescing) { (_: SeamOwner, value: T) async in
                    handler(value)
                    if let gate, holds(value) { await gate.wait() }
                })
        }
    }
}

/// Counts payloads made and released.
final class Releases: Sendable {
    private let made = Counter()
    private let released = Counter()
    func make() -> @Sendable () -> Void {
        made.increment()
        return { self.released.increment() }
    }
    var outstanding: Int { made.value - released.value }
}

/// A main-actor object, as a view model is, that counts a deinitialisation off the main thread.
@MainActor final class MainActorOwner {
    let offMain: Counter
    let gone: Signal
    init(offMain: Counter, gone: Signal) {
        self.offMain = offMain
        self.gone = gone
    }
    deinit {
        // Not `Thread.isMainThread`: under `dispatch_main()` the main queue may drain on another thread.
        if DispatchQueue.getSpecific(key: seamMainQueue) == nil { offMain.increment() }
        gone.fire()
    }
}

// MARK: - Tests

// Not under a sanitizer, which slows the process 5-20 times: there its handlers held busy and its posters spinning
// on both cores keep the 2-thread cooperative pool, which runs every suite's timers, from the suites running beside it
// for seconds (an AddressSanitizer run failed 75 expectations of other suites' re-post chains and nested waits, each
// of which passes alone there). It runs in the normal and the simulated-Apple builds.
@Suite(.serialized, .seeded, .disabled(if: TestEnvironment.isSanitized, "starves the parallel suite under a sanitizer"))
struct DeliverySeamTests {
    static let rounds = TestEnvironment.scaled(normal: 6, long: 40, sanitized: 2)

    // MARK: Re-observing and re-posting during delivery

    /// A handler that, on each delivery, cancels its own observation, observes again (same target, same coalescing)
    /// and re-posts the next index: every index is delivered exactly once, in order, to the one observation alive when
    /// it was posted, on every target; the ended observations get nothing more, and nothing is left registered.
    @Test(arguments: SeamTarget.allCases, [MeetingMode.none, .throttle, .nextTurn, .afterPause])
    func aHandlerThatCancelsReobservesAndRepostsGetsEveryPostOnce(target: SeamTarget, mode: MeetingMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let last = 40
        let received = Recorded<Int>()
        let reachedLast = Signal()
        let current = Slot<HeldObservation>()
        let generation = Counter()
        let wrongGeneration = Recorded<String>()
        let releases = Releases()
        // A class, so that the handler can observe again with itself.
        final class Resubscriber: Sendable {
            let body: @Sendable (Resubscriber, Int, MeetingPing) -> Void
            init(_ body: @escaping @Sendable (Resubscriber, Int, MeetingPing) -> Void) { self.body = body }
        }
        let subscribe: @Sendable (Resubscriber) -> Void = { resubscriber in
            let mine = generation.increment()
            let observation = place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(0.005)) { ping in
                resubscriber.body(resubscriber, mine, ping)
            }
            current.set(observation)
        }
        let resubscriber = Resubscriber { resubscriber, mine, ping in
            if mine != generation.value {
                wrongGeneration.append("observation \(mine) got \(ping.index) after \(generation.value) began")
            }
            received.append(ping.index)
            current.value?.cancel()
            subscribe(resubscriber)
            if ping.index < last {
                MeetingPing(ping.index + 1, onRelease: releases.make()).post(in: center)
            } else {
                reachedLast.fire()
            }
        }
        subscribe(resubscriber)
        MeetingPing(0, onRelease: releases.make()).post(in: center)
        let done = await finishes(within: 20) { await reachedLast.wait() }
        #expect(done, "the chain stalled at \(received.values.last ?? -1)")
        await place.drain()
        #expect(received.values == Array(0...last), "each index once, in order: \(received.values)")
        #expect(wrongGeneration.values.isEmpty, "\(wrongGeneration.values.prefix(3))")
        current.value?.cancel()
        current.set(nil)
        #expect(await eventually(within: 10) { center.typedRegistrationCounts() == (0, 0) })
        #expect(await eventually(within: 10) { releases.outstanding == 0 }, "payloads kept: \(releases.outstanding)")
    }

    // MARK: Owners released on another thread mid-burst

    /// An owner-bound observation (the actor's own, on the actor target) whose owner is released on another thread
    /// while a poster thread keeps its burst going, with windows far longer than the test: once the owner has gone, the
    /// next post ends the observation, the burst in progress is dropped at once with its payloads, and nothing stays
    /// registered. Documented: "Once the owner is gone, the observation ends at the next post, one that coalesces
    /// included"; "A burst in progress when the observation ends is dropped at once, payloads included".
    @Test(arguments: SeamTarget.allCases, MeetingMode.allCases)
    func anOwnerReleasedMidBurstEndsAtTheNextPostAndFreesTheBurst(target: SeamTarget, mode: MeetingMode) async {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: target.hashValue & 0xFF))
        for _ in 0..<Self.rounds {
            let center = NotificationCenter()
            let place = SeamPlace(target)
            let releases = Releases()
            let ownerGone = Signal()
            let ownerSlot = Slot<SeamOwner>()
            let calls = Counter()
            if target == .actor {
                place.hostSlot.set(SeamHost(gone: { ownerGone.fire() }))
                _ = place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(60)) { _ in
                    calls.increment()
                }
            } else {
                let owner = SeamOwner(gone: { ownerGone.fire() })
                _ = place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(60), owner: owner) { _ in
                    calls.increment()
                }
                ownerSlot.set(owner)
            }
            let posts = 30
            let releaseAt = random.below(posts)
            let sender = Sender()
            let posted = Counter()
            await onThreads(2) { thread in
                if thread == 0 {
                    for index in 0..<posts {
                        MeetingPing(index, onRelease: releases.make()).post(from: sender, in: center)
                        posted.increment()
                    }
                } else {
                    // The owner's last reference goes on this thread, at a random point of the burst.
                    while posted.value < releaseAt { sched_yield() }
                    ownerSlot.set(nil)
                    place.hostSlot.set(nil)
                }
            }
            // The owner may still be held by a delivery running now; it goes once that returns.
            let gone = await finishes(within: 10) { await ownerGone.wait() }
            #expect(gone, "the owner was kept alive (\(target), \(mode))")
            guard gone else { continue }
            // The next post ends the observation (a main-actor owner: once the main actor runs the check it queues).
            MeetingPing(posts, onRelease: releases.make()).post(from: sender, in: center)
            await place.drain()
            if target == .mainActor {
                await MainActor.run {}
                MeetingPing(posts + 1, onRelease: releases.make()).post(from: sender, in: center)
                await MainActor.run {}
            }
            let ended = await eventually(within: 10) { center.typedRegistrationCounts() == (0, 0) }
            #expect(ended, "still registered after the owner went and a post came (\(target), \(mode))")
            let freed = await eventually(within: 10) { releases.outstanding == 0 }
            #expect(freed, "\(releases.outstanding) payloads kept after the observation ended (\(target), \(mode))")
        }
    }

    // MARK: Main-actor owners

    /// A `@MainActor` owner of main-actor observations (`observeOnMainActor(for:)`, and `.async(on: .main)`), of a
    /// plain and of a latest-value type, with and without coalescing, released on the main actor while three threads
    /// post (typed and plain) and register owner-bound observations of their own (which sweep dead owners): the owner
    /// is deallocated on the main thread. Documented: "A main-actor observation's owner is only touched on the main
    /// actor, so a view model is never released on a background thread."
    @MainActor @Test(arguments: [MeetingMode.none, .nextTurn, .throttle, .afterPause], [false, true])
    func aMainActorOwnerIsOnlyEverReleasedOnTheMainThread(mode: MeetingMode, onMainQueue: Bool) async {
        DispatchQueue.main.setSpecific(key: seamMainQueue, value: ())
        for _ in 0..<(Self.rounds * 4) {
            let center = NotificationCenter()
            let offMain = Counter()
            let gone = Signal()
            var owner: MainActorOwner? = MainActorOwner(offMain: offMain, gone: gone)
            let calls = Counter()
            if onMainQueue {
                MeetingPing.observe(
                    for: owner!, in: center, delivery: .async(on: DispatchQueue.main),
                    coalescing: mode.coalescing(0.002)
                ) { _, _ in calls.increment() }
                MeetingLevel.observe(for: owner!, in: center, delivery: .async(on: DispatchQueue.main)) { _, _ in
                    calls.increment()
                }
            } else {
                MeetingPing.observeOnMainActor(for: owner!, in: center, coalescing: mode.coalescing(0.002)) { _, _ in
                    calls.increment()
                }
                MeetingLevel.observeOnMainActor(for: owner!, in: center) { _, _ in calls.increment() }
            }
            let posted = Counter()
            let posting = Task.detached {
                await onThreads(3) { thread in
                    for index in 0..<300 {
                        switch thread {
                        case 0: MeetingPing(index).post(in: center)
                        case 1:
                            let level = MeetingLevel(thread: 1, index: index)
                            if index % 2 == 0 {
                                level.post(in: center)
                            } else {
                                center.post(
                                    name: MeetingLevel.notificationName, object: nil,
                                    userInfo: MeetingLevel.userInfo(for: level))
                            }
                        default:
                            // Owner-bound registrations sweep the channel's dead owners.
                            let other = SeamOwner()
                            MeetingPing.observe(for: other, in: center) { _, _ in }
                            MeetingLevel.observe(for: other, in: center) { _, _ in }
                        }
                        posted.increment()
                    }
                }
            }
            while posted.value < 200 { await Task.yield() }
            owner = nil  // released here, on the main actor, while posts go on
            await posting.value
            #expect(await finishes(within: 10) { await gone.wait() }, "the owner was kept alive")
            #expect(offMain.value == 0, "a main-actor owner was deallocated off the main thread")
            MeetingPing(-1).post(in: center)
            MeetingLevel(thread: 9, index: 0).post(in: center)
            await MainActor.run {}
            MeetingPing(-2).post(in: center)
            await MainActor.run {}
            #expect(await eventually(within: 10) { center.typedRegistrationCounts().observers == 0 })
            withExtendedLifetime(owner) {}
        }
    }

    // MARK: Tokens released on another thread while bursts end

    /// A token held only in a slot, released (not cancelled) on another thread at a random moment while a poster
    /// thread keeps the observer's short bursts ending: no post that started after the release returned is delivered
    /// ("`cancel()` is final"; releasing ends the observation as cancelling does), and everything is freed.
    @Test(arguments: SeamTarget.allCases, MeetingMode.allCases)
    func aTokenReleasedWhileBurstsEndDeliversNoLaterPost(target: SeamTarget, mode: MeetingMode) async {
        guard target != .actor else { return }  // owner-bound there: no token to release
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: 7 + mode.hashValue & 0xFF))
        for _ in 0..<Self.rounds {
            let center = NotificationCenter()
            let place = SeamPlace(target)
            let clock = LogicalClock()
            let delivered = Recorded<Int>()
            let releases = Releases()
            let tokenSlot = Slot<HeldObservation>()
            tokenSlot.set(
                place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(0.001)) { ping in
                    delivered.append(ping.stamp)
                })
            let releasedAt = Protected(Int.max)
            let posting = Counter()
            let releaseAfter = 20 + random.below(200)
            await onThreads(2) { thread in
                if thread == 0 {
                    for index in 0..<400 {
                        let stamp = clock.increment()
                        MeetingPing(index, stamp: stamp, onRelease: releases.make()).post(in: center)
                        posting.increment()
                        if index % 50 == 0 { usleep(200) }  // lets bursts end among the posts
                    }
                } else {
                    while posting.value < releaseAfter { sched_yield() }
                    tokenSlot.set(nil)  // the token's release, on this thread
                    releasedAt.set(clock.increment())
                }
            }
            await place.drain()
            _ = await eventually(within: 2) { releases.outstanding == 0 }
            let cut = releasedAt.value
            let late = delivered.values.filter { $0 > cut }
            #expect(late.isEmpty, "posts made after the token's release were delivered: \(late.prefix(5)) (cut \(cut))")
            #expect(await eventually(within: 10) { center.typedRegistrationCounts() == (0, 0) })
            #expect(
                await eventually(within: 10) { releases.outstanding == 0 }, "payloads kept: \(releases.outstanding)")
        }
    }

    // MARK: Coalescing behind a busy target

    /// An observer held busy in its first delivery while a burst of posts comes: once free it gets exactly one
    /// delivery, with the last payload (with `merging:`, every later payload once, in post order), and nothing after.
    /// Documented: "schedules its next delivery only once the previous one has run, so a busy target gets one
    /// delivery when free, never a backlog".
    @Test(arguments: [SeamTarget.dispatchQueue, .operationQueue, .mainActor, .asyncHandler], MeetingMode.allCases)
    func aBusyTargetGetsOneCoalescedDeliveryWithTheLastPayloadWhenFree(target: SeamTarget, mode: MeetingMode) async {
        guard mode != .none else { return }
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let gate = SeamGate()
        let started = Signal()
        let deliveries = Recorded<[Int]>()
        let releases = Releases()
        let holds: @Sendable (MeetingPing) -> Bool = { $0.index == 0 }
        let observation = place.observe(
            MeetingPing.self, in: center, coalescing: mode.coalescing(0.01), holding: gate,
            when: holds
        ) { ping in
            deliveries.append(ping.ids)
            if ping.index == 0 { started.fire() }
        }
        MeetingPing(0, onRelease: releases.make()).post(in: center)
        #expect(await finishes(within: 10) { await started.wait() }, "the first delivery never came")
        let last = 60
        // From another thread, across several windows of the coalescing, while the target is held; one key (no
        // sender, or two senders across senders), so one burst at a time.
        let senders = [Sender(), Sender()]
        await onThreads(1) { _ in
            for index in 1...last {
                let ping = MeetingPing(index, onRelease: releases.make())
                if mode == .acrossSenders {
                    ping.post(from: senders[index % 2], in: center)
                } else {
                    ping.post(in: center)
                }
                if index % 10 == 0 { usleep(15_000) }  // pacing: windows end among the posts
            }
        }
        try? await Task.sleep(nanoseconds: 30_000_000)  // more windows end while the target is held (pacing)
        gate.open()
        let reached = await eventually(within: 10) { deliveries.values.last?.last == last }
        #expect(reached, "the last payload never came: \(deliveries.values)")
        await place.drain()
        // The key's deliveries come in post order, so a stale one would have come before the last.
        let after = Array(deliveries.values.dropFirst())
        if mode == .merging {
            #expect(after == [Array(1...last)], "once free, not one delivery of every later post in order: \(after)")
        } else {
            #expect(after == [[last]], "once free, not one delivery with the last payload: \(after)")
        }
        observation.cancel()
        #expect(await eventually(within: 10) { releases.outstanding == 0 }, "payloads kept: \(releases.outstanding)")
    }

    // MARK: A posting-thread observer's coalesced delivery and what its handler posts

    /// An observer that coalesces (`A`, on each target), whose handler posts another type that an observer on a busy
    /// dispatch queue (`B`) receives: `A`'s next bursts still come while `B` is busy. Documented: "A burst's window or
    /// pause starts only once the observer's previous delivery has run" (A's has); "`.within(s)` delivers the first
    /// post of a quiet period at once, then the latest payload at most once per `s` seconds, ending with the last".
    ///
    /// FAILS at 7ad742f for A on the posting thread, the main actor and an actor (15 of 25 cases, every mode; the
    /// dispatch-queue and `async` cases pass): a delivery of A's bursts runs its handler with A's `DeliveryDone`
    /// installed as the thread's pending deliveries (`Coalescer.deliver`'s `collecting(into: done)`, `runHere`), so
    /// B's queued entry for the echo captures it (`PostContext.current`) and A's next burst is scheduled only once B
    /// has run.
    @Test(
        arguments: [SeamTarget.postingThread, .mainActor, .actor, .dispatchQueue, .asyncHandler],
        [MeetingMode.throttle, .trailingThrottle, .afterPause, .nextTurn, .merging])
    func aCoalescingObserversNextBurstDoesNotWaitForAnotherObserverOfWhatItPosted(
        target: SeamTarget, mode: MeetingMode
    ) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let busy = SeamPlace(.dispatchQueue)
        let gate = SeamGate()
        let busyStarted = Signal()
        // B: an observer of what A posts, held busy in its first delivery.
        let holdsEvery: @Sendable (MeetingEcho) -> Bool = { _ in true }
        let echoes = busy.observe(MeetingEcho.self, in: center, holding: gate, when: holdsEvery) { _ in
            busyStarted.fire()
        }
        let received = Recorded<Int>()
        // A: coalesces on its target, and posts an echo from its handler.
        let observation = place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(0.01)) { ping in
            received.append(ping.index)
            MeetingEcho(index: ping.index).post(in: center)
        }
        MeetingPing(1).post(in: center)
        #expect(await finishes(within: 10) { await busyStarted.wait() }, "A's first delivery never came")
        // B is busy now, holding A's first echo. A's later posts, each after A's last delivery:
        MeetingPing(2).post(in: center)
        let second = await eventually(within: 3) { received.values.contains(2) }
        #expect(
            second,
            "A's next burst waited for B's queued delivery: A (\(target)) got \(received.values) while B was busy")
        MeetingPing(3).post(in: center)
        let third = await eventually(within: 3) { received.values.contains(3) }
        #expect(
            third,
            "A's next burst waited for B's queued delivery: A (\(target)) got \(received.values) while B was busy")
        gate.open()
        #expect(
            await eventually(within: 10) { received.values.last == 3 }, "A never got its last post: \(received.values)")
        observation.cancel()
        echoes.cancel()
    }

    /// An `async` handler (`B`) that awaits the delivery of a post to a posting-thread throttle (`A`) whose handler
    /// posted what `B` is handling: the wait returns. Documented: "`awaitDelivery { … }` returns once every handler
    /// reached by its task's posts ... has run ... It never deadlocks."
    ///
    /// FAILS at 7ad742f, every mode (a deadlock, ended by the bound): B's queue entry holds A's `DeliveryDone` until B
    /// returns, and B waits for A's next burst, which is scheduled only once that `DeliveryDone` goes.
    @Test(arguments: [MeetingMode.throttle, .trailingThrottle, .afterPause, .nextTurn])
    func anAsyncHandlerAwaitingACoalescingObserverThatPostedToItReturns(mode: MeetingMode) async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = MeetingPing.observe(in: center, coalescing: mode.coalescing(0.01)) { ping in
            received.append(ping.index)
            if ping.index == 1 { MeetingEcho(index: 1).post(in: center) }
        }
        let awaited = Signal()
        let waiter = MeetingEcho.observe(in: center) { (_: MeetingEcho) async in
            _ = try? await awaitDelivery { MeetingPing(2).post(in: center) }
            awaited.fire()
        }
        MeetingPing(1).post(in: center)
        let returned = await finishes(within: 5) { await awaited.wait() }
        #expect(returned, "awaitDelivery inside B deadlocked on A's next burst; A got \(received.values)")
        // Ends both, which lets a stuck wait go (the dropped burst ends it).
        token.cancel()
        waiter.cancel()
    }

    // MARK: Latest values on every target, typed and plain posts racing

    /// Ordered observers of a latest-value type on every kind of target (a dispatch queue held busy for a while, an
    /// operation queue, the main actor, an actor, an `async` handler and a sequence) start at different moments while
    /// three threads post, one of them plain `center.post(name:object:userInfo:)`: each receives the posts in the order
    /// the center keeps them, so any two agree on every post both received, the later one's deliveries are exactly the
    /// earlier one's from its first on (its latest value, then every later post), and each ends on `latest(in:)`.
    @MainActor @Test func orderedLatestValueObserversAgreeOnOneOrderWithPlainAndTypedPostsRacing() async {
        for _ in 0..<Self.rounds {
            let center = NotificationCenter()
            let gate = SeamGate()
            let kinds: [SeamTarget] = [.dispatchQueue, .operationQueue, .mainActor, .actor, .asyncHandler]
            let logs = (0..<(kinds.count + 1)).map { _ in Recorded<MeetingLevel>() }
            let places = kinds.map(SeamPlace.init)
            let observations = Recorded<HeldObservation>()
            let sequenceTask = Protected<Task<Void, Never>?>(nil)
            let started = Counter()
            let perThread = 150
            await onThreads(4) { thread in
                if thread < 3 {
                    for index in 0..<perThread {
                        let level = MeetingLevel(thread: thread, index: index)
                        if thread == 2 {
                            center.post(
                                name: MeetingLevel.notificationName, object: nil,
                                userInfo: MeetingLevel.userInfo(for: level))
                        } else {
                            level.post(in: center)
                        }
                        if index == 40 && thread == 0 { gate.open() }
                    }
                } else {
                    // Observers start among the posts, one after another, the first held busy.
                    for (slot, place) in places.enumerated() {
                        let log = logs[slot]
                        let holds: @Sendable (MeetingLevel) -> Bool = { _ in log.count == 1 }
                        observations.append(
                            place.observe(
                                MeetingLevel.self, in: center, holding: slot == 0 ? gate : nil,
                                when: holds
                            ) { level in log.append(level) })
                        started.increment()
                        sched_yield()
                    }
                    let sequence = MeetingLevel.notifications(in: center)
                    let log = logs[kinds.count]
                    sequenceTask.set(
                        Task.detached {
                            for await level in sequence { log.append(level) }
                        })
                }
            }
            gate.open()
            let latest = MeetingLevel.latest(in: center)
            let settled = await eventually(within: 20) { logs.allSatisfy { $0.values.last == latest } }
            #expect(
                settled,
                "observers did not end on latest(in:) \(String(describing: latest)): \(logs.map { $0.values.last.map(String.init(describing:)) ?? "-" })"
            )
            let names = kinds.map(\.rawValue) + ["sequence"]
            for first in 0..<logs.count {
                for second in (first + 1)..<logs.count {
                    let a = logs[first].values
                    let b = logs[second].values
                    guard let aHead = a.first, let bHead = b.first else {
                        Issue.record("\(names[first]) or \(names[second]) received nothing")
                        continue
                    }
                    if let start = a.firstIndex(of: bHead) {
                        #expect(Array(a[start...]) == b, "\(names[second]) is not \(names[first])'s from its first on")
                    } else if let start = b.firstIndex(of: aHead) {
                        #expect(Array(b[start...]) == a, "\(names[first]) is not \(names[second])'s from its first on")
                    } else {
                        Issue.record("\(names[first]) and \(names[second]) share no first post")
                    }
                    for log in [a, b] {
                        #expect(Set(log).count == log.count, "a post was delivered twice")
                    }
                }
            }
            for observation in observations.values { observation.cancel() }
            sequenceTask.value?.cancel()
            await sequenceTask.value?.value
            for place in places { await place.drain() }
            #expect(await eventually(within: 10) { center.typedRegistrationCounts().observers == 0 })
        }
    }

    // MARK: Waits around cancellation racing a burst's end

    /// `awaitDelivery(in:)` around posts from several threads to coalescing observers on every target, while another
    /// thread cancels one of them at a random moment and a handler re-posts into its own coalescing: the wait ends
    /// ("A dropped delivery ends the wait too. It never deadlocks"), and afterwards nothing of the cancelled
    /// observation is kept.
    @Test(arguments: SeamTarget.allCases, MeetingMode.allCases)
    func awaitingAroundCancelRacingABurstsEndNeverHangs(target: SeamTarget, mode: MeetingMode) async {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: 31))
        for _ in 0..<Self.rounds {
            let center = NotificationCenter()
            let place = SeamPlace(target)
            let releases = Releases()
            let reposts = Counter()
            let cancelled = place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(0.002)) { _ in }
            let kept = place.observe(MeetingPing.self, in: center, coalescing: mode.coalescing(0.002)) { ping in
                if ping.index >= 0, reposts.increment() < 20 {
                    MeetingPing(-1, onRelease: releases.make()).post(in: center)
                }
            }
            let cancelAt = random.below(200)
            let posted = Counter()
            let waited = await finishes(within: 20) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(3) { thread in
                        if thread == 2 {
                            while posted.value < cancelAt { sched_yield() }
                            cancelled.cancel()
                            return
                        }
                        for index in 0..<100 {
                            MeetingPing(index, onRelease: releases.make()).post(in: center)
                            posted.increment()
                        }
                    }
                }
            }
            #expect(waited, "awaitDelivery(in:) hung (\(target), \(mode))")
            let waitedForTask = await finishes(within: 20) {
                _ = try? await awaitDelivery {
                    for index in 0..<20 { MeetingPing(index, onRelease: releases.make()).post(in: center) }
                }
            }
            #expect(waitedForTask, "awaitDelivery hung (\(target), \(mode))")
            kept.cancel()
            cancelled.cancel()
            await place.drain()
            #expect(await eventually(within: 10) { center.typedRegistrationCounts() == (0, 0) })
            #expect(
                await eventually(within: 10) { releases.outstanding == 0 }, "payloads kept: \(releases.outstanding)")
        }
    }

    // MARK: Centers released mid-flight

    /// A center released on another thread while deliveries wait on a busy target, an observer's burst with a long
    /// window is gathering, and a latest value is kept: the center goes, no handler starts afterwards, and every
    /// payload and handler capture is freed ("Nothing keeps a center alive... When it goes, its observations end";
    /// "However observations end, no registration, Foundation observer, handler or memory is left behind").
    @Test(arguments: SeamTarget.allCases, MeetingMode.allCases)
    func aCenterReleasedMidFlightDeliversNothingAfterAndFreesEverything(target: SeamTarget, mode: MeetingMode) async {
        let blocks = target != .postingThread && target != .actor
        for _ in 0..<Self.rounds {
            let place = SeamPlace(target)
            let releases = Releases()
            let live = LiveCount()
            let gate = SeamGate()
            let started = Signal()
            let afterGone = Counter()
            let goneFlag = Counter()
            let centerGone: Signal
            let centerSlot = Slot<SeamCenter>()
            var observations: [HeldObservation] = []
            do {
                let center = SeamCenter()
                centerGone = center.gone
                centerSlot.set(center)
                // The observer of the test's mode, held busy in its first delivery where a target can be.
                let probe = Probe(live)
                let holds: @Sendable (MeetingPing) -> Bool = { $0.index == 0 }
                observations.append(
                    place.observe(
                        MeetingPing.self, in: center, coalescing: mode.coalescing(60), holding: blocks ? gate : nil,
                        when: holds
                    ) { ping in
                        withExtendedLifetime(probe) {}
                        if goneFlag.value != 0 { afterGone.increment() }
                        if ping.index == 0 { started.fire() }
                    })
                // A latest-value observer, and a kept latest value holding a payload of its own.
                let levelProbe = Probe(live)
                observations.append(
                    place.observe(MeetingLevel.self, in: center) { _ in
                        withExtendedLifetime(levelProbe) {}
                        if goneFlag.value != 0 { afterGone.increment() }
                    })
                MeetingLevel(thread: 0, index: 0).post(in: center)
                MeetingPing(0, onRelease: releases.make()).post(in: center)
                // A timed burst's first delivery waits for its window; the others are held busy in it now.
                if blocks && (mode == .none || mode == .throttle || mode == .nextTurn) {
                    let began = await finishes(within: 10) { await started.wait() }
                    #expect(began, "the first delivery never came (\(target), \(mode))")
                }
                for index in 1...20 { MeetingPing(index, onRelease: releases.make()).post(in: center) }
            }
            // The center's last reference goes on another thread.
            await onThreads(1) { _ in centerSlot.set(nil) }
            let gone = await finishes(within: 10) { await centerGone.wait() }
            #expect(gone, "the center was kept alive (\(target), \(mode))")
            goneFlag.increment()
            gate.open()
            await place.drain()
            await place.drain()
            observations.removeAll()
            #expect(
                await eventually(within: 10) { releases.outstanding == 0 },
                "payloads kept: \(releases.outstanding) (\(target), \(mode))")
            #expect(
                await eventually(within: 10) { live.value == 0 },
                "handler captures kept: \(live.value) (\(target), \(mode))")
            // The call held busy when the center went may finish; none starts after that.
            #expect(afterGone.value <= (blocks ? 1 : 0), "\(afterGone.value) handler calls after the center went")
        }
    }

    // MARK: Sequences cancelled mid-flight

    /// Sequences of a latest-value type (unbounded, newest 1, oldest 1), read by tasks cancelled at random moments
    /// while threads post typed and plain: each loop ends, nothing stays registered, and every sequence's deliveries
    /// are in the center's order with no repeat.
    @Test func sequencesCancelledMidFlightEndAndLeaveNothingBehind() async {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: 99))
        for _ in 0..<Self.rounds {
            let center = NotificationCenter()
            let policies: [NotificationSequence<MeetingLevel>.BufferingPolicy] = [
                .unbounded, .bufferingNewest(1), .bufferingOldest(1),
            ]
            let sequences = policies.map { MeetingLevel.notifications(in: center, bufferingPolicy: $0) }
            let logs = sequences.map { _ in Recorded<MeetingLevel>() }
            let tasks = zip(sequences, logs).map { sequence, log in
                Task.detached {
                    for await level in sequence {
                        log.append(level)
                        await Task.yield()
                    }
                }
            }
            let cancelAfter = (0..<tasks.count).map { _ in random.below(300) }
            let posted = Counter()
            await onThreads(3) { thread in
                if thread == 2 {
                    for (index, task) in tasks.enumerated() {
                        while posted.value < cancelAfter[index] { sched_yield() }
                        task.cancel()
                    }
                    return
                }
                for index in 0..<200 {
                    let level = MeetingLevel(thread: thread, index: index)
                    if thread == 1 {
                        center.post(
                            name: MeetingLevel.notificationName, object: nil,
                            userInfo: MeetingLevel.userInfo(for: level))
                    } else {
                        level.post(in: center)
                    }
                    posted.increment()
                }
            }
            for task in tasks {
                task.cancel()
                #expect(await finishes(within: 10) { await task.value }, "a cancelled loop never ended")
            }
            for log in logs {
                for thread in 0..<2 {
                    let mine = log.values.filter { $0.thread == thread }.map(\.index)
                    #expect(mine == mine.sorted() && Set(mine).count == mine.count, "out of order or repeated: \(mine)")
                }
            }
            withExtendedLifetime(sequences) {}
            #expect(await eventually(within: 10) { center.typedRegistrationCounts().observers == 0 })
        }
    }

    // MARK: Releases that re-enter the package

    /// Payloads whose release cancels a token, observes and posts, released where the package lets go of them: a
    /// replaced latest value, a burst's replaced payload, deliveries dropped by `cancel()`, a bounded sequence's
    /// dropped payload, a dropped burst. Documented: "The package never calls Foundation or a handler while it holds a
    /// lock, so a handler may post, observe or cancel anything, and a `deinit` the package triggers may cancel its own
    /// token." Debug builds trap on a lock taken twice, so a release under a lock would crash the run.
    @Test(arguments: SeamTarget.allCases, MeetingMode.allCases)
    func payloadsWhoseReleaseReentersThePackageAreReleasedOutsideItsLocks(target: SeamTarget, mode: MeetingMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let echoes = Counter()
        let echoToken = MeetingEcho.observe(in: center) { _ in echoes.increment() }
        let victims = Recorded<NotificationToken>()
        let reentered = Counter()
        let reenter: @Sendable () -> Void = {
            reentered.increment()
            let token = MeetingEcho.observe(in: center) { _ in }
            victims.append(token)
            MeetingEcho(index: 0).post(in: center)
            token.cancel()
        }
        let gate = SeamGate()
        let blocks = target != .postingThread && target != .actor
        let holds: @Sendable (MeetingPing) -> Bool = { $0.index == 0 }
        let observation = place.observe(
            MeetingPing.self, in: center, coalescing: mode.coalescing(60), holding: blocks ? gate : nil,
            when: holds
        ) { _ in }
        // Unread, keeping the newest: each post drops the one before.
        var sequence: NotificationSequence<MeetingPing>? = MeetingPing.notifications(
            in: center, bufferingPolicy: .bufferingNewest(1))
        for index in 0..<20 { MeetingPing(index, onRelease: reenter).post(in: center) }
        let levelObserver = MeetingLevel.observe(in: center) { _ in }
        for index in 0..<5 {
            // A latest value's release re-enters too: its payload is a level, so use a ping posted alongside.
            MeetingLevel(thread: 0, index: index).post(in: center)
            MeetingPing(100 + index, onRelease: reenter).post(in: center, coalescing: .within(0.01).trailingOnly)
        }
        observation.cancel()  // drops what waits, and the burst
        gate.open()
        withExtendedLifetime(sequence) {}
        sequence = nil  // released unread: ends, and lets go of the one it kept
        await place.drain()
        #expect(await eventually(within: 10) { reentered.value == 25 }, "\(reentered.value) of 25 payloads released")
        levelObserver.cancel()
        echoToken.cancel()
        for token in victims.values { token.cancel() }
        #expect(await eventually(within: 10) { center.typedRegistrationCounts().observers == 0 })
    }
}
