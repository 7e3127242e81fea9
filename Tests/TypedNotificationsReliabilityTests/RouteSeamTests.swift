import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Where an observer's route meets the features around it, on every target a handler runs on: owners that die while
// posts keep coming, with and without the observer's own coalescing (the observation ends at the next post, and no
// handler runs once its owner is gone); a handler that cancels a later observer of its own place in the middle of a
// batch, or starts a new one there; latest values posted from two threads at once, reaching observers on every kind
// of target and a `LatestValue` model (each ends on `latest(in:)`), and observations starting meanwhile (each gets a
// tail of its place's one order); and chains of posts that handlers make during a post, awaited by the post that
// started them. Every wait is an `awaitDelivery`, bounded by `finishes(within:)` as a hang detector.

/// The notification of these tests; `index` names one post.
struct RouteTick: Notifiable, Equatable {
    let index: Int
}

/// A latest-value type: `poster` and `round` name one post.
struct RouteLevel: LatestValueNotifiable, Equatable, CustomStringConvertible {
    let poster: Int
    let round: Int
    var description: String { "\(poster)/\(round)" }
}

/// The payloads an observation received, and a wait for the `count`-th of them.
final class RouteArrivals<Element: Sendable>: Sendable {
    private struct State {
        var received: [Element] = []
        var waits: [(count: Int, done: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Protected(State())

    func record(_ element: Element) {
        let ready = state.withLock { state in
            state.received.append(element)
            let count = state.received.count
            let ready = state.waits.filter { $0.count <= count }.map(\.done)
            state.waits.removeAll { $0.count <= count }
            return ready
        }
        for done in ready { done.resume() }
    }

    var received: [Element] { state.withLock { $0.received } }

    var last: Element? { received.last }

    /// Returns once `count` payloads have arrived.
    func wait(forCount count: Int) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state in
                if state.received.count >= count { return true }
                state.waits.append((count, done))
                return false
            }
            if now { done.resume() }
        }
    }
}

/// Where a handler runs, sequences included.
enum RouteTarget: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case postingThread, dispatchQueue, operationQueue, mainActor, actor, asyncHandler, sequence
    var testDescription: String { rawValue }

    /// The targets with an owner-bound form (a sequence has none).
    static var ownerBound: [RouteTarget] { allCases.filter { $0 != .sequence } }

    /// The targets that run every handler of one place one at a time, in one order.
    static var serial: [RouteTarget] { [.postingThread, .dispatchQueue, .operationQueue, .mainActor, .actor] }

    /// The targets where a test may block a handler with a ``SeamGate`` while the rest of the suite runs: their
    /// handlers run on a thread of their own (a queue's, the main thread), never on the cooperative pool, whose two
    /// threads here the test's own tasks need (an actor's handler, a burst ending on the global executor, runs there;
    /// two tests blocking both stall every task). `EndingObservationsSeamTests` covers actors, one at a time.
    static var blockable: [RouteTarget] { [.dispatchQueue, .operationQueue, .mainActor] }
}

/// One place of each kind, shared by the observations a test makes there.
struct RoutePlace: Sendable {
    let target: RouteTarget
    let queue = DispatchQueue(label: "RouteSeamTests")
    let operationQueue: OperationQueue
    let host = SeamHost()

    init(_ target: RouteTarget) {
        self.target = target
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        self.operationQueue = operationQueue
    }

    /// Observes `Event` here, with a condition and coalescing (neither for a sequence); returns what ends the
    /// observation.
    func observe<Event: Notifiable>(
        _ type: Event.Type, in center: NotificationCenter, where condition: NotificationCondition<Event.Payload>? = nil,
        coalescing: NotificationCoalescing<Event.Payload>? = nil,
        _ handler: @escaping @Sendable (Event.Payload) -> Void
    ) -> @Sendable () -> Void {
        switch target {
        case .postingThread:
            let token = Event.observe(in: center, where: condition, coalescing: coalescing, handler)
            return { token.cancel() }
        case .dispatchQueue:
            let token = Event.observe(
                in: center, delivery: .async(on: queue), where: condition, coalescing: coalescing, handler)
            return { token.cancel() }
        case .operationQueue:
            let token = Event.observe(
                in: center, delivery: .async(on: operationQueue), where: condition, coalescing: coalescing, handler)
            return { token.cancel() }
        case .mainActor:
            let token = Event.observeOnMainActor(in: center, where: condition, coalescing: coalescing) { handler($0) }
            return { token.cancel() }
        case .actor:
            let observation = Event.observe(for: host, in: center, where: condition, coalescing: coalescing) {
                _, payload in handler(payload)
            }
            return { observation.cancel() }
        case .asyncHandler:
            let token = Event.observe(in: center, where: condition, coalescing: coalescing) {
                (payload: Event.Payload) async in handler(payload)
            }
            return { token.cancel() }
        case .sequence:
            precondition(condition == nil && coalescing == nil, "a sequence takes neither a condition nor coalescing")
            let payloads = Event.notifications(in: center)
            let consumer = Task.detached {
                for await payload in payloads { handler(payload) }
            }
            return { consumer.cancel() }
        }
    }
}

/// The observer's own coalescing of the owner tests: none, and each kind of burst end.
let routeCoalescings: [NotificationCoalescing<RouteTick>?] = [
    nil, .nextTurn, .within(0.02), .within(0.02).trailingOnly, .afterPause(0.02),
]

// Serialized: a handler held busy on an actor blocks a thread of the cooperative pool, which has as many as there are
// cores; one at a time leaves the pool to the tests' own tasks.
@Suite(.serialized) struct RouteSeamTests {
    // MARK: - Owners that die while posts continue

    /// An owner-bound observation, coalescing or not, whose owner is released (on another thread, or on the main
    /// actor) while a thread keeps posting: no handler runs once the owner is gone, and the observation has ended
    /// once the first post after the owner's death has been delivered.
    @Test(arguments: RouteTarget.ownerBound, [0, 1, 2, 3, 4])
    func anOwnerDyingWhilePostsContinueEndsItsObservationAtTheNextPost(target: RouteTarget, coalescingIndex: Int)
        async throws
    {
        for releasedOnMainActor in [false, true] {
            try await ownerDies(
                target: target, coalescing: routeCoalescings[coalescingIndex],
                releasedOnMainActor: releasedOnMainActor)
        }
    }

    private func ownerDies(
        target: RouteTarget, coalescing: NotificationCoalescing<RouteTick>?, releasedOnMainActor: Bool
    ) async throws {
        let center = NotificationCenter()
        let dead = Counter()
        let calls = Counter()
        let lateCalls = Counter()
        // The handler holds its owner (its argument) for the call, so the owner cannot be deallocated during it:
        // `dead` set when a call starts means the call started after the owner had died.
        let handler: @Sendable (RouteTick) -> Void = { _ in
            calls.increment()
            if dead.value != 0 { lateCalls.increment() }
        }
        let owner = Protected<(any AnyObject & Sendable)?>(nil)
        let observation: OwnerBoundObservation
        switch target {
        case .postingThread, .dispatchQueue, .operationQueue:
            let ownerObject = SeamOwner { dead.increment() }
            let delivery: NotificationDelivery =
                switch target {
                case .dispatchQueue: .async(on: DispatchQueue(label: "RouteSeamTests.owner"))
                case .operationQueue:
                    .async(
                        on: {
                            let queue = OperationQueue()
                            queue.maxConcurrentOperationCount = 1
                            return queue
                        }())
                default: .immediate
                }
            observation = RouteTick.observe(for: ownerObject, in: center, delivery: delivery, coalescing: coalescing) {
                _, tick in handler(tick)
            }
            owner.set(ownerObject)
        case .mainActor:
            let ownerObject = SeamOwner { dead.increment() }
            observation = RouteTick.observeOnMainActor(for: ownerObject, in: center, coalescing: coalescing) {
                _, tick in handler(tick)
            }
            owner.set(ownerObject)
        case .actor:
            let host = SeamHost { dead.increment() }
            observation = RouteTick.observe(for: host, in: center, coalescing: coalescing) { _, tick in handler(tick) }
            owner.set(host)
        case .asyncHandler:
            let ownerObject = SeamOwner { dead.increment() }
            observation = RouteTick.observe(for: ownerObject, in: center, coalescing: coalescing) {
                (_: SeamOwner, tick: RouteTick) async in handler(tick)
            }
            owner.set(ownerObject)
        case .sequence:
            preconditionFailure("a sequence has no owner")
        }
        let posts = 60
        let halfway = DispatchSemaphore(value: 0)
        let ended = await finishes(within: 60) {
            try? await awaitDelivery(in: center) {
                await onThreads(2) { thread in
                    if thread == 0 {
                        for index in 0..<posts {
                            RouteTick(index: index).post(in: center)
                            if index == posts / 2 { halfway.signal() }
                        }
                    } else {
                        halfway.wait()
                        if releasedOnMainActor {
                            let released = DispatchSemaphore(value: 0)
                            Task { @MainActor in
                                owner.set(nil)
                                released.signal()
                            }
                            released.wait()
                        } else {
                            owner.set(nil)
                        }
                    }
                }
            }
            // The owner is gone once the deliveries that held it have run; the next post ends the observation.
            try? await awaitDelivery(in: center) { RouteTick(index: posts).post(in: center) }
        }
        let context = "\(target), \(String(describing: coalescing)), released on the main actor: \(releasedOnMainActor)"
        #expect(ended, "the waits did not end: \(context)")
        #expect(dead.value == 1, "the owner is still alive: \(context)")
        #expect(lateCalls.value == 0, "\(lateCalls.value) calls after the owner died: \(context)")
        #expect(
            ObserverRegistry.shared.registrationCounts(in: center).observers == 0,
            "still registered after the first post that followed the owner's death: \(context)")
        let callsBefore = calls.value
        try await awaitDelivery(in: center) { RouteTick(index: posts + 1).post(in: center) }
        #expect(calls.value == callsBefore, "a call after the observation ended: \(context)")
        withExtendedLifetime(observation) {}
    }

    // MARK: - A handler ending or starting another observer of its target mid-batch

    /// Three observers of one place (A, B, C in registration order) get twenty posts made from another thread while
    /// A's first call holds the place, so that the rest runs as one batch. A's call for post 7 cancels B and observes
    /// anew (D): B gets posts 0 to 6 and nothing after, not even post 7, whose delivery to B was queued already; C
    /// gets every post; D gets only the posts made after it began (on a queued place none of the twenty, all made
    /// before; on the posting thread, posts 8 on).
    @Test(arguments: RouteTarget.blockable)
    func aHandlerEndingALaterObserverOfItsPlaceMidBatchStopsItThereAndANewOneStartsWithTheNextPost(
        target: RouteTarget
    ) async throws {
        let center = NotificationCenter()
        let place = RoutePlace(target)
        let gate = SeamGate()
        let holdsFirst = target != .postingThread
        let first = RouteArrivals<Int>()
        let second = RouteArrivals<Int>()
        let third = RouteArrivals<Int>()
        let added = RouteArrivals<Int>()
        let endSecond = Slot<@Sendable () -> Void>()
        let endAdded = Slot<@Sendable () -> Void>()
        let endFirst = place.observe(RouteTick.self, in: center) { tick in
            first.record(tick.index)
            if tick.index == 0, holdsFirst { gate.block() }
            if tick.index == 7 {
                endSecond.value?()
                endAdded.set(place.observe(RouteTick.self, in: center) { added.record($0.index) })
            }
        }
        endSecond.set(place.observe(RouteTick.self, in: center) { second.record($0.index) })
        let endThird = place.observe(RouteTick.self, in: center) { third.record($0.index) }
        let posts = 20
        let ended = await finishes(within: 60) {
            try? await awaitDelivery(in: center) {
                await waitAside(onNewThread { for index in 0..<posts { RouteTick(index: index).post(in: center) } })
                gate.open()
            }
            try? await awaitDelivery(in: center) {
                await waitAside(onNewThread { RouteTick(index: posts).post(in: center) })
            }
        }
        #expect(ended, "the waits did not end")
        #expect(first.received == Array(0...posts))
        #expect(second.received == Array(0..<7))
        #expect(third.received == Array(0...posts))
        #expect(added.received == (holdsFirst ? [posts] : Array(8...posts)))
        endFirst()
        endThird()
        endAdded.value?()
    }

    // MARK: - Latest values posted from two threads at once

    /// Two threads post a latest-value type at the same moment, round after round. The center keeps one of the two
    /// as the latest; once the round's deliveries have run, every observer on a serial target (an `OperationQueue`,
    /// an actor, the main actor), an `async` handler, a sequence and a `LatestValue` model end on `latest(in:)`, since
    /// a target and an observer's own queue receive the type's posts in the order the center keeps them.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)  // `LatestValue`
    @MainActor @Test func observersOnEveryKindOfTargetEndOnTheLatestWhenTwoThreadsPostAtOnce() async throws {
        let center = NotificationCenter()
        let host = SeamHost()
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        let onOperationQueue = RouteArrivals<RouteLevel>()
        let onActor = RouteArrivals<RouteLevel>()
        let onMainActor = RouteArrivals<RouteLevel>()
        let inAsyncHandler = RouteArrivals<RouteLevel>()
        let inSequence = RouteArrivals<RouteLevel>()
        let levels = RouteLevel.notifications(in: center)
        let loop = Task.detached { for await level in levels { inSequence.record(level) } }
        defer { loop.cancel() }
        let held: [any Sendable] = [
            RouteLevel.observe(in: center, delivery: .async(on: operationQueue)) { onOperationQueue.record($0) },
            RouteLevel.observe(for: host, in: center) { _, level in onActor.record(level) },
            RouteLevel.observeOnMainActor(in: center) { onMainActor.record($0) },
            RouteLevel.observe(in: center) { (level: RouteLevel) async in inAsyncHandler.record(level) },
        ]
        let observers = [
            ("operation queue", onOperationQueue), ("actor", onActor), ("main actor", onMainActor),
            ("async handler", inAsyncHandler), ("sequence", inSequence),
        ]
        let model = LatestValue<RouteLevel>(in: center)
        let rounds = TestEnvironment.scaled(normal: 300, long: 3_000, sanitized: 60)
        var mismatches: [String: [String]] = [:]
        for round in 0..<rounds {
            let ended = await finishes(within: 60) {
                try? await awaitDelivery(in: center) {
                    await onThreads(2) { poster in RouteLevel(poster: poster, round: round).post(in: center) }
                }
            }
            #expect(ended, "round \(round): the wait did not end")
            guard ended else { break }
            // A sequence's payload is delivered once its loop has it, which `awaitDelivery` does not wait for.
            await inSequence.wait(forCount: 2 * (round + 1))
            let latest = RouteLevel.latest(in: center)
            let lasts = observers.map { ($0.0, $0.1.last) } + [("LatestValue model", model.value)]
            for (kind, last) in lasts where last != latest {
                mismatches[kind, default: []].append(
                    "round \(round): latest \(latest.map(\.description) ?? "nil"), got \(last.map(\.description) ?? "nil")"
                )
            }
        }
        for (kind, rounds) in mismatches.sorted(by: { $0.key < $1.key }) {
            Issue.record("\(kind): \(rounds.count) rounds did not end on the latest: \(rounds.prefix(3))")
        }
        withExtendedLifetime((held, model, host)) {}
    }

    /// Two threads post a latest-value type while a third starts observations on the same place as a first observer
    /// that was there from the start. The place hands its observers one order, which the center kept: so each
    /// observation that starts late receives exactly a tail of what the first observer received, starting with the
    /// latest post made before it began (nothing lost, nothing twice, nothing out of order), and the first observer
    /// ends on `latest(in:)`.
    @Test(.seeded, arguments: [RouteTarget.dispatchQueue, .operationQueue, .mainActor, .actor])
    func observationsStartingDuringPostsFromTwoThreadsReceiveATailOfTheirPlacesOrder(target: RouteTarget)
        async throws
    {
        var random = SplitMix64(
            seed: SplitMix64.derivedSeed(TestSeed.run, index: RouteTarget.allCases.firstIndex(of: target) ?? 0))
        let center = NotificationCenter()
        let place = RoutePlace(target)
        let postsPerThread = TestEnvironment.scaled(normal: 300, long: 3_000, sanitized: 60)
        let starts = (0..<6).map { _ in random.below(postsPerThread) }.sorted()
        let first = RouteArrivals<RouteLevel>()
        let held = Protected<[@Sendable () -> Void]>([place.observe(RouteLevel.self, in: center) { first.record($0) }])
        let late = Protected<[RouteArrivals<RouteLevel>]>([])
        let reached = DispatchSemaphore(value: 0)
        let ended = await finishes(within: 60) {
            try? await awaitDelivery(in: center) {
                await onThreads(3) { thread in
                    if thread < 2 {
                        for round in 0..<postsPerThread {
                            RouteLevel(poster: thread, round: round).post(in: center)
                            if thread == 0 { for start in starts where start == round { reached.signal() } }
                        }
                        return
                    }
                    for _ in starts {
                        reached.wait()
                        let arrivals = RouteArrivals<RouteLevel>()
                        late.append(arrivals)
                        let end = place.observe(RouteLevel.self, in: center) { arrivals.record($0) }
                        held.append(end)
                    }
                }
            }
            // A late observation's latest value is queued when it starts, by no post, so no wait covers it; it is
            // queued ahead of the live posts, which the wait covers.
            for arrivals in late.values { await arrivals.wait(forCount: 1) }
        }
        #expect(ended, "the wait did not end")
        let order = first.received
        #expect(order.count == 2 * postsPerThread)
        for poster in 0..<2 {
            #expect(order.filter { $0.poster == poster }.map(\.round) == Array(0..<postsPerThread))
        }
        #expect(order.last == RouteLevel.latest(in: center))
        for (index, arrivals) in late.values.enumerated() {
            let received = arrivals.received
            let tail = received.first.flatMap { head in order.firstIndex(of: head) }.map { Array(order[$0...]) }
            #expect(
                tail == received,
                "late observer \(index) of \(target): received \(received.count) posts from \(received.first.map(\.description) ?? "nil"), not a tail of the place's order"
            )
        }
        for end in held.values { end() }
    }

    // MARK: - Chains of posts from handlers on the posting thread, awaited by the posting task

    /// A handler on the posting thread re-posts into its own observation (a chain of `depth` posts) and, at each link,
    /// posts another type observed on another place. `awaitDelivery { }` around the first post alone returns only once
    /// every link has reached the other place's observer: posts that handlers make during a covered post, on the
    /// posting thread, are covered too, however deep, whichever place receives them.
    @Test(arguments: RouteTarget.ownerBound)
    func aChainOfRepostsOnThePostingThreadIsAwaitedByThePostThatStartedIt(receiver: RouteTarget) async throws {
        let center = NotificationCenter()
        let depth = 6
        let relayed = RouteArrivals<Int>()
        let received = RouteArrivals<Int>()
        let receiverPlace = RoutePlace(receiver)
        let endRelay = RoutePlace(.postingThread).observe(RouteTick.self, in: center) { tick in
            relayed.record(tick.index)
            RouteLevel(poster: 0, round: tick.index).post(in: center)
            if tick.index < depth { RouteTick(index: tick.index + 1).post(in: center) }
        }
        let endReceiver = receiverPlace.observe(RouteLevel.self, in: center) { received.record($0.round) }
        let ended = await finishes(within: 60) {
            try? await awaitDelivery { RouteTick(index: 0).post(in: center) }
        }
        #expect(ended, "the wait did not end")
        #expect(relayed.received == Array(0...depth))
        #expect(received.received == Array(0...depth), "received on \(receiver)")
        endRelay()
        endReceiver()
    }

    // MARK: - A condition that ends its own observation

    /// A `where:` condition that cancels its own observation (and accepts the payload) at post 3: the call it was
    /// judging does not start, nor any later one, on every target, coalescing or not, while the posts come from
    /// another thread and the wait covers them all.
    @Test(arguments: RouteTarget.ownerBound, [false, true])
    func aConditionThatEndsItsOwnObservationStartsNoCall(target: RouteTarget, coalesces: Bool) async throws {
        let center = NotificationCenter()
        let place = RoutePlace(target)
        let ended = Counter()
        let lateCalls = Counter()
        let calls = RouteArrivals<Int>()
        let end = Slot<@Sendable () -> Void>()
        let condition = NotificationCondition<RouteTick>.matching { tick in
            if tick.index == 3 {
                end.value?()
                ended.increment()
            }
            return true
        }
        end.set(
            place.observe(RouteTick.self, in: center, where: condition, coalescing: coalesces ? .nextTurn : nil) {
                tick in
                if ended.value != 0 { lateCalls.increment() }
                calls.record(tick.index)
            })
        let finished = await finishes(within: 60) {
            for index in 0..<8 {
                // One post at a time, so that a coalescing observer judges each.
                try? await awaitDelivery(in: center) {
                    await waitAside(onNewThread { RouteTick(index: index).post(in: center) })
                }
            }
        }
        #expect(finished, "the waits did not end")
        #expect(ended.value == 1)
        #expect(lateCalls.value == 0)
        #expect(calls.received == [0, 1, 2], "\(target), coalescing: \(coalesces)")
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
        // The condition holds its own token, which holds the condition: the slot lets go of the token.
        end.set(nil)
    }

    // MARK: - Centers released with deliveries queued

    /// A center is released while its posts wait on a busy place (the first call holds it), inside `awaitDelivery`
    /// (its task's form: the caller does not hold the center). The wait ends; no call starts once the center is gone;
    /// a new center made at once (perhaps at the same address) and observed on the same place reaches only its own
    /// observer, and holds only its own registration.
    @Test(arguments: RouteTarget.blockable)
    func aCenterReleasedWithDeliveriesQueuedEndsThemAndANewCenterInheritsNothing(target: RouteTarget) async throws {
        let place = RoutePlace(target)
        let gate = SeamGate()
        let holdsFirst = target != .postingThread
        let gone = Counter()
        let lateCalls = Counter()
        let oldCalls = RouteArrivals<Int>()
        let box = Protected<NotificationCenter?>(NotificationCenter())
        weak let released = box.value
        let endOld = place.observe(RouteTick.self, in: try #require(box.value)) { tick in
            if gone.value != 0 { lateCalls.increment() }
            oldCalls.record(tick.index)
            if tick.index == 0, holdsFirst { gate.block() }
        }
        let ended = await finishes(within: 60) {
            try? await awaitDelivery {
                for index in 0..<10 {
                    if let center = box.value { RouteTick(index: index).post(in: center) }
                }
                box.set(nil)
                if released == nil { gone.increment() }
                gate.open()
            }
        }
        #expect(ended, "the wait did not end")
        #expect(released == nil, "the center outlived its last reference")
        #expect(lateCalls.value == 0, "\(lateCalls.value) calls started once the center was gone")
        let newCenter = NotificationCenter()
        let newCalls = RouteArrivals<Int>()
        let endNew = place.observe(RouteTick.self, in: newCenter) { newCalls.record($0.index) }
        let newEnded = await finishes(within: 60) {
            try? await awaitDelivery(in: newCenter) {
                await waitAside(onNewThread { RouteTick(index: 100).post(in: newCenter) })
            }
        }
        #expect(newEnded, "the new center's wait did not end")
        #expect(newCalls.received == [100])
        #expect(!oldCalls.received.contains(100))
        #expect(ObserverRegistry.shared.registrationCounts(in: newCenter).observers == 1)
        endOld()
        endNew()
    }

    // MARK: - Coalescing observers behind a busy place

    /// A coalescing observer's first call is held while posts keep coming from another thread: at most one delivery
    /// waits for it, so once the call returns it gets exactly one more, with the last payload (with `merging`, every
    /// post made meanwhile, in post order), on every target and for every kind of burst end.
    @Test(arguments: RouteTarget.blockable, [0, 1, 2, 3, 4])
    func aCoalescingObserverHeldInItsFirstCallGetsOneMoreDeliveryWithTheLast(target: RouteTarget, kind: Int)
        async throws
    {
        let center = NotificationCenter()
        let place = RoutePlace(target)
        let gate = SeamGate()
        let started = Signal()
        let merges = kind == 4
        let coalescing: NotificationCoalescing<RouteLevel> =
            switch kind {
            case 0: .nextTurn
            case 1: .afterPause(0.01)
            case 2: .within(0.01)
            case 3: .within(0.01).trailingOnly
            default:
                NotificationCoalescing<RouteLevel>.nextTurn.merging { earlier, later in
                    RouteLevel(poster: earlier.poster + later.poster, round: later.round)
                }
            }
        let calls = RouteArrivals<RouteLevel>()
        let end = place.observe(RouteLevel.self, in: center, coalescing: coalescing) { level in
            calls.record(level)
            if level.round == 0 {
                started.fire()
                gate.block()
            }
        }
        let posts = 40
        let ended = await finishes(within: 60) {
            try? await awaitDelivery(in: center) {
                // Not waited for: a handler on the posting thread holds that thread in the post.
                _ = onNewThread { RouteLevel(poster: 1, round: 0).post(in: center) }
                await started.wait()
                await waitAside(
                    onNewThread { for round in 1..<posts { RouteLevel(poster: 1, round: round).post(in: center) } })
                gate.open()
            }
        }
        #expect(ended, "the wait did not end")
        let expected = [RouteLevel(poster: 1, round: 0), RouteLevel(poster: merges ? posts - 1 : 1, round: posts - 1)]
        #expect(calls.received == expected, "\(target), \(coalescing)")
        end()
    }

    /// Two observers of one queued place, the second coalescing: the first, in the middle of a batch, cancels the second.
    /// No call of the second starts after that (the place runs one handler at a time, so "after" is the place's own
    /// order), whatever bursts it had gathered or queued.
    @Test(arguments: RouteTarget.blockable, [0, 1, 2])
    func aHandlerEndingACoalescingObserverOfItsPlaceMidBatchStartsNoLaterCall(target: RouteTarget, kind: Int)
        async throws
    {
        let center = NotificationCenter()
        let place = RoutePlace(target)
        let gate = SeamGate()
        let coalescing: NotificationCoalescing<RouteTick> = [.nextTurn, .within(0.01), .afterPause(0.01)][kind]
        let log = Recorded<String>()
        let endSecond = Slot<@Sendable () -> Void>()
        let endFirst = place.observe(RouteTick.self, in: center) { tick in
            if tick.index == 0 { gate.block() }
            if tick.index == 7 {
                endSecond.value?()
                log.append("cancelled")
            }
        }
        endSecond.set(
            place.observe(RouteTick.self, in: center, coalescing: coalescing) { log.append("second \($0.index)") })
        let ended = await finishes(within: 60) {
            try? await awaitDelivery(in: center) {
                await waitAside(onNewThread { for index in 0..<20 { RouteTick(index: index).post(in: center) } })
                gate.open()
            }
        }
        #expect(ended, "the wait did not end")
        let entries = log.values
        let cancelled = try #require(entries.firstIndex(of: "cancelled"))
        #expect(entries[(cancelled + 1)...].isEmpty, "calls after the cancel: \(entries[(cancelled + 1)...])")
        endFirst()
    }

    /// A sequence whose center is released with payloads buffered and its loop not yet started: the loop gets every
    /// buffered payload, in post order, then ends; a new center made at once (perhaps at the same address) and posted
    /// to never reaches it.
    @Test func aSequenceOfAReleasedCenterGetsWhatWasBufferedThenEndsAndNeverANewCentersPosts() async throws {
        let box = Protected<NotificationCenter?>(NotificationCenter())
        weak let released = box.value
        let ticks = RouteTick.notifications(in: try #require(box.value))
        for index in 0..<10 {
            if let center = box.value { RouteTick(index: index).post(in: center) }
        }
        box.set(nil)
        #expect(released == nil, "the center outlived its last reference")
        let newCenter = NotificationCenter()
        let newTicks = RouteTick.notifications(in: newCenter)
        RouteTick(index: 100).post(in: newCenter)
        let received = RouteArrivals<Int>()
        let ended = await finishes(within: 60) {
            for await tick in ticks { received.record(tick.index) }
        }
        #expect(ended, "the loop did not end")
        #expect(received.received == Array(0..<10))
        var newIterator = newTicks.makeAsyncIterator()
        #expect(await newIterator.next() == RouteTick(index: 100))
    }

    /// `LatestValue` models made on the main actor while two threads post: each starts with the latest post made
    /// before it and, once the posts have been delivered, holds `latest(in:)`, as a model made before them does.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)  // `LatestValue`
    @MainActor @Test func modelsMadeWhileTwoThreadsPostEndOnTheLatest() async throws {
        let center = NotificationCenter()
        let postsPerThread = TestEnvironment.scaled(normal: 300, long: 3_000, sanitized: 60)
        var models = [LatestValue<RouteLevel>(in: center)]
        let making = Task { @MainActor in
            var made: [LatestValue<RouteLevel>] = []
            for _ in 0..<8 {
                made.append(LatestValue<RouteLevel>(in: center))
                await Task.yield()
            }
            return made
        }
        let ended = await finishes(within: 60) {
            try? await awaitDelivery(in: center) {
                await onThreads(2) { poster in
                    for round in 0..<postsPerThread { RouteLevel(poster: poster, round: round).post(in: center) }
                }
            }
        }
        #expect(ended, "the wait did not end")
        models += await making.value
        let latest = RouteLevel.latest(in: center)
        #expect(latest != nil)
        for (index, model) in models.enumerated() {
            #expect(
                model.value == latest,
                "model \(index): \(String(describing: model.value)), latest \(String(describing: latest))")
        }
    }

    /// An owner-bound `async` handler of a latest-value type, filtering on one sender, whose owner died: a post from
    /// another sender still ends the observation, as any post does, though such a post reaches the observers' own
    /// queues under the registry's lock; the handler never runs.
    @Test func aDeadOwnersAsyncHandlerEndsAtTheNextLatestValuePostFromAnySender() async {
        let center = NotificationCenter()
        let filtered = Sender()
        var owner: Sender? = Sender()
        let calls = Counter()
        let observation = RouteLevel.observe(for: owner!, from: filtered, in: center) { _, _ async in
            calls.increment()
        }
        owner = nil
        RouteLevel(poster: 0, round: 0).post(from: Sender(), in: center)
        // Read without a sweep (introspection would sweep dead owners itself): the post alone ended it.
        let registry = ObserverRegistry.shared
        let remaining = registry.state.withLock { _ in
            registry.records[ObjectIdentifier(RouteLevel.self)]?.channel(in: center)?.subscriptions.count { $0 != nil }
        }
        #expect(remaining == 0, "the dead owner's observation outlived the post")
        #expect(calls.value == 0)
        withExtendedLifetime((observation, filtered)) {}
    }
}
