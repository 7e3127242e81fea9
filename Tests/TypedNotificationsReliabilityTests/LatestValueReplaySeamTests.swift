import Foundation
import Testing
import TypedNotificationsTestSupport

@_spi(Testing) @testable import TypedNotifications

// A review's attack on a new coalescing observer's latest value (`Subscription.replay`, `Coalescer.leadsLatest`): the
// latest value is its key's first delivery wherever it waits, and the queued entry holds the key's `DeliveryDone`
// until its handler has run or the entry is dropped. Every wait is bounded (`finishes(within:)`, `eventually`), so a
// stuck key or a hang fails a test instead of the run.

/// A latest-value type: `ids` is what a merge combines; `box` tells when the package lets go of it.
struct ReplayLevel: LatestValueNotifiable {
    let index: Int
    let ids: [Int]
    let box: SeamPing.Box?

    init(_ index: Int, ids: [Int]? = nil, onRelease: (@Sendable () -> Void)? = nil) {
        self.index = index
        self.ids = ids ?? [index]
        box = onRelease.map(SeamPing.Box.init)
    }
}

/// The coalescing modes of an observer of ``ReplayLevel``.
enum ReplayMode: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case throttle, trailingThrottle, afterPause, nextTurn, merging, acrossSenders
    var testDescription: String { rawValue }

    func coalescing(_ seconds: Double) -> NotificationCoalescing<ReplayLevel> {
        switch self {
        case .nextTurn: .nextTurn
        case .afterPause: .afterPause(seconds)
        case .throttle: .within(seconds)
        case .trailingThrottle: .within(seconds).trailingOnly
        case .merging: NotificationCoalescing<ReplayLevel>.afterPause(seconds).merging(Self.merge)
        case .acrossSenders: NotificationCoalescing<ReplayLevel>.within(seconds).trailingOnly.acrossSenders
        }
    }

    static let merge: @Sendable (ReplayLevel, ReplayLevel) -> ReplayLevel = { earlier, later in
        ReplayLevel(later.index, ids: earlier.ids + later.ids)
    }
}

extension SeamPlace {
    /// Observes ``ReplayLevel`` here with a sender filter, a condition and a gate held after the handler for the
    /// payloads `holds` accepts. On the actor target, owner-bound to the place's actor.
    func observeLevel(
        in center: NotificationCenter,
        from sender: Sender? = nil,
        where condition: NotificationCondition<ReplayLevel>? = nil,
        coalescing: NotificationCoalescing<ReplayLevel>?,
        holding gate: SeamGate? = nil,
        when holds: @escaping @Sendable (ReplayLevel) -> Bool = { _ in false },
        _ handler: @escaping @Sendable (ReplayLevel) -> Void
    ) -> HeldObservation {
        let body: @Sendable (ReplayLevel) -> Void = { value in
            handler(value)
            if let gate, holds(value) { gate.block() }
        }
        switch target {
        case .postingThread:
            return .token(
                ReplayLevel.observe(from: sender, in: center, where: condition, coalescing: coalescing, body))
        case .dispatchQueue:
            return .token(
                ReplayLevel.observe(
                    from: sender, in: center, delivery: .async(on: queue), where: condition, coalescing: coalescing,
                    body))
        case .operationQueue:
            return .token(
                ReplayLevel.observe(
                    from: sender, in: center, delivery: .async(on: operationQueue), where: condition,
                    coalescing: coalescing, body))
        case .mainActor:
            return .token(
                ReplayLevel.observeOnMainActor(from: sender, in: center, where: condition, coalescing: coalescing) {
                    body($0)
                })
        case .actor:
            return .ownerBound(
                ReplayLevel.observe(
                    for: host, from: sender, in: center, where: condition, coalescing: coalescing
                ) { _, value in body(value) })
        case .asyncHandler:
            return .token(
                ReplayLevel.observe(from: sender, in: center, where: condition, coalescing: coalescing) {
                    (value: ReplayLevel) async in
                    handler(value)
                    if let gate, holds(value) { await gate.wait() }
                })
        }
    }
}

extension HeldObservation {
    /// The keys the observation's own coalescing table holds (a token's observation; `nil` for an owner-bound one).
    var replayKeyCount: Int? {
        guard case .token(let token) = self else { return nil }
        let observation = ObserverRegistry.shared.state.withLock { _ in token.observation }
        return (observation as? Subscription<ReplayLevel>)?.coalescingKeyCount
    }
}

/// An actor that observes ``ReplayLevel`` for itself, from itself.
actor ReplayHost {
    var received: [Int] = []
    var observation: OwnerBoundObservation?

    /// Observes from the actor; returns what the handler had received when `observe` returned.
    func observe(in center: NotificationCenter, coalescing: NotificationCoalescing<ReplayLevel>) -> [Int] {
        observation = ReplayLevel.observe(for: self, in: center, coalescing: coalescing) { host, level in
            host.received.append(level.index)
        }
        return received
    }

    func post(_ index: Int, in center: NotificationCenter) {
        ReplayLevel(index).post(in: center)
    }

    func cancel() { observation?.cancel() }
}

// Not under a sanitizer, which slows the process 5-20 times: there its handlers held busy and its posters spinning
// on both cores keep the 2-thread cooperative pool, which runs every suite's timers, from the suites running beside it
// for seconds (an AddressSanitizer run failed 75 expectations of other suites' re-post chains and nested waits, each
// of which passes alone there). It runs in the normal and the simulated-Apple builds.
@Suite(.serialized, .disabled(if: TestEnvironment.isSanitized, "starves the parallel suite under a sanitizer"))
struct LatestValueReplaySeamTests {
    static let window = 0.01

    // MARK: The latest value, then every later post, each once

    /// A new coalescing observer of a latest-value type, on every target and in every mode, whose latest value races
    /// posts from another thread: it gets the latest value first and once, then every later post exactly once (in one
    /// burst or another, merged in post order with `merging:`), in post order, ending on the last, one delivery at a
    /// time; once quiet, its table holds no key. Documented (Guarantees.md, "Latest values and coalescing"):
    /// "receives the latest post made before it started, then every later one, each exactly once"; "Every coalesced
    /// post is delivered once"; "Deliveries of one type, center and sender come in post order, one at a time".
    @Test(arguments: SeamTarget.allCases, ReplayMode.allCases)
    func aNewCoalescingObserverGetsTheLatestValueOnceThenEveryLaterPostOnce(
        target: SeamTarget, mode: ReplayMode
    ) async {
        for round in 0..<3 {
            let center = NotificationCenter()
            let place = SeamPlace(target)
            let senders = [Sender(), Sender()]
            let deliveries = Recorded<[Int]>()
            let inFlight = Counter()
            let overlaps = Counter()
            ReplayLevel(0).post(from: mode == .acrossSenders ? senders[1] : nil, in: center)
            let last = 20
            let posting = onNewThread {
                for index in 1...last {
                    ReplayLevel(index).post(from: mode == .acrossSenders ? senders[index % 2] : nil, in: center)
                    if index % 5 == 0 { usleep(3_000) }  // pacing: windows end among the posts
                }
            }
            let observation = place.observeLevel(in: center, coalescing: mode.coalescing(Self.window)) { level in
                if inFlight.increment() != 1 { overlaps.increment() }
                defer { inFlight.increment(by: -1) }
                deliveries.append(level.ids)
            }
            await waitAside(posting)
            let reached = await eventually(within: 10) { deliveries.values.last?.last == last }
            #expect(reached, "round \(round): the last post never came: \(deliveries.values)")
            await place.drain()
            let all = deliveries.values
            // The latest value is whichever post was the latest when the observation started: alone, first.
            let first = all.first ?? []
            #expect(first.count == 1, "round \(round): the latest value was not delivered alone first: \(all)")
            let flat = all.flatMap { $0 }
            if mode == .merging, let start = first.first {
                #expect(flat == Array(start...last), "round \(round): not every later post once, in order: \(all)")
            } else {
                #expect(flat == flat.sorted() && Set(flat).count == flat.count, "round \(round): out of order: \(all)")
            }
            #expect(overlaps.value == 0, "round \(round): two deliveries overlapped")
            if target != .actor {
                let quiet = await eventually(within: 5) { observation.replayKeyCount == 0 }
                #expect(quiet, "round \(round): the table kept \(observation.replayKeyCount ?? -1) keys once quiet")
            }
            observation.cancel()
        }
    }

    // MARK: The latest value's own delivery held busy

    /// The latest value's own handler is held busy (the observer's target blocked, or its `async` handler suspended)
    /// while another thread posts across many windows: once free, the observer gets one delivery with the last payload
    /// (with `merging:`, every later payload merged in order), never a backlog and never the latest value again.
    /// Documented (LatestValuesAndCoalescing.md): "A burst's window or pause starts only once the observer's previous
    /// delivery has run, so a busy queue or a slow `async` handler gets one delivery with the latest payload when it is
    /// free, never a backlog".
    // Not on an actor: its held handler would block a thread of the cooperative pool, whose two threads here the
    // package's timers and the other suites' tasks need.
    @Test(arguments: SeamTarget.queued.filter { $0 != .actor }, ReplayMode.allCases)
    func aBusyLatestValueDeliveryIsFollowedByOneDeliveryWithTheLastPayload(target: SeamTarget, mode: ReplayMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let senders = [Sender(), Sender()]
        let gate = SeamGate()
        let started = Signal()
        let deliveries = Recorded<[Int]>()
        ReplayLevel(0).post(from: mode == .acrossSenders ? senders[0] : nil, in: center)
        let holds: @Sendable (ReplayLevel) -> Bool = { $0.index == 0 }
        let observation = place.observeLevel(
            in: center, coalescing: mode.coalescing(Self.window), holding: gate, when: holds
        ) { level in
            deliveries.append(level.ids)
            if level.index == 0 { started.fire() }
        }
        #expect(await finishes(within: 10) { await started.wait() }, "the latest value never came")
        let last = 30
        await onThreads(1) { _ in
            for index in 1...last {
                ReplayLevel(index).post(from: mode == .acrossSenders ? senders[index % 2] : nil, in: center)
                if index % 10 == 0 { usleep(15_000) }  // pacing: windows end while it is held
            }
        }
        gate.open()
        let reached = await eventually(within: 10) { deliveries.values.last?.last == last }
        #expect(reached, "the last never came: \(deliveries.values)")
        await place.drain()
        let after = Array(deliveries.values.dropFirst())
        if mode == .merging {
            #expect(after == [Array(1...last)], "once free, not one merged delivery in order: \(deliveries.values)")
        } else {
            #expect(after == [[last]], "once free, not one delivery with the last payload: \(deliveries.values)")
        }
        observation.cancel()
    }

    /// A coalescing observer starts on a target another observer of the same place holds busy, and another thread
    /// posts, from two senders with `.acrossSenders` or from none: once free, it gets the latest value, then one
    /// delivery with the last payload. Main actor and every mode (the fixed test covers the queues and the actor with
    /// a throttle and `.nextTurn`). Documented (Guarantees.md): "a busy target gets one delivery when free, never a
    /// backlog".
    // Not on an actor: its held handler would block a thread of the cooperative pool, whose two threads here the
    // package's timers and the other suites' tasks need.
    @Test(arguments: [SeamTarget.mainActor, .dispatchQueue], ReplayMode.allCases)
    func aLatestValueBehindABusyTargetIsFollowedByOneDelivery(target: SeamTarget, mode: ReplayMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let senders = [Sender(), Sender()]
        let gate = SeamGate()
        let busyStarted = Signal()
        let holdsEvery: @Sendable (MeetingEcho) -> Bool = { _ in true }
        let busy = place.observe(MeetingEcho.self, in: center, holding: gate, when: holdsEvery) { _ in
            busyStarted.fire()
        }
        ReplayLevel(0).post(from: mode == .acrossSenders ? senders[0] : nil, in: center)
        MeetingEcho(index: 0).post(in: center)
        #expect(await finishes(within: 10) { await busyStarted.wait() }, "the target never became busy")
        let deliveries = Recorded<[Int]>()
        let observation = place.observeLevel(in: center, coalescing: mode.coalescing(Self.window)) { level in
            deliveries.append(level.ids)
        }
        let last = 12
        for index in 1...last {
            ReplayLevel(index).post(from: mode == .acrossSenders ? senders[index % 2] : nil, in: center)
            // Windows end while the target is held (pacing, not a synchronisation).
            if index % 4 == 0 { try? await Task.sleep(nanoseconds: 15_000_000) }
        }
        gate.open()
        let reached = await eventually(within: 10) { deliveries.values.last?.last == last }
        #expect(reached, "the last never came: \(deliveries.values)")
        await place.drain()
        let expected = mode == .merging ? [[0], Array(1...last)] : [[0], [last]]
        #expect(deliveries.values == expected, "once free, not the latest value and one burst: \(deliveries.values)")
        observation.cancel()
        busy.cancel()
    }

    // MARK: Per-sender keys

    /// Per-sender bursts: the latest value came from sender A; observers with `from: A`, `from: B` and none start on
    /// each target; then A and B post. `from: B` gets no latest value, and every observer ends on the last post of
    /// each sender it takes, whose bursts are their own. Documented (LatestValuesAndCoalescing.md): "observers with a
    /// sender filter receive the latest value only if it came from their sender"; Guarantees.md: "Senders have bursts
    /// of their own unless you pass `.acrossSenders`".
    @Test(arguments: SeamTarget.allCases, [ReplayMode.throttle, .trailingThrottle, .afterPause, .nextTurn])
    func perSenderKeysEachEndOnTheirSendersLastPost(target: SeamTarget, mode: ReplayMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let a = Sender()
        let b = Sender()
        ReplayLevel(0).post(from: a, in: center)
        let fromA = Recorded<Int>()
        let fromB = Recorded<Int>()
        let any = Recorded<Int>()
        let observations = [
            place.observeLevel(in: center, from: a, coalescing: mode.coalescing(Self.window)) {
                fromA.append($0.index)
            },
            place.observeLevel(in: center, from: b, coalescing: mode.coalescing(Self.window)) {
                fromB.append($0.index)
            },
            place.observeLevel(in: center, coalescing: mode.coalescing(Self.window)) { any.append($0.index) },
        ]
        // A's posts are odd, B's even.
        await onThreads(2) { thread in
            for step in 0..<10 {
                let index = 1 + thread + 2 * step
                ReplayLevel(index).post(from: thread == 0 ? a : b, in: center)
                if step % 3 == 0 { usleep(2_000) }
            }
        }
        let lastA = 19
        let lastB = 20
        let reached = await eventually(within: 10) {
            fromA.values.last == lastA && fromB.values.last == lastB
                && any.values.contains(lastA) && any.values.contains(lastB)
        }
        #expect(reached, "a sender's last never came: A \(fromA.values), B \(fromB.values), any \(any.values)")
        await place.drain()
        #expect(fromA.values.first == 0, "from A: no latest value first: \(fromA.values)")
        #expect(!fromB.values.contains(0), "from B got A's latest value: \(fromB.values)")
        #expect(any.values.first == 0, "no filter: no latest value first: \(any.values)")
        #expect(Set(any.values).count == any.values.count, "no filter: a delivery twice: \(any.values)")
        for (name, values) in [("A", fromA.values), ("B", fromB.values)] {
            #expect(values == values.sorted() && Set(values).count == values.count, "from \(name): \(values)")
        }
        for observation in observations { observation.cancel() }
    }

    // MARK: A condition that rejects the latest value

    /// The `where:` condition rejects the latest value (on every target, in every mode): the key is not left
    /// delivering, so the later posts arrive, ending on the last. Documented (LatestValuesAndCoalescing.md): "a burst
    /// whose latest payload it rejects delivers nothing"; Guarantees.md: "Every coalesced post is delivered once".
    @Test(arguments: SeamTarget.allCases, ReplayMode.allCases)
    func aConditionRejectingTheLatestValueLeavesTheKeyFree(target: SeamTarget, mode: ReplayMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let sender = Sender()
        let senderOrNil: Sender? = mode == .acrossSenders ? sender : nil
        ReplayLevel(0).post(from: senderOrNil, in: center)
        let received = Recorded<[Int]>()
        let observation = place.observeLevel(
            in: center, where: .matching { $0.index != 0 }, coalescing: mode.coalescing(Self.window)
        ) { received.append($0.ids) }
        await place.drain()
        for index in 1...3 {
            ReplayLevel(index).post(from: senderOrNil, in: center)
        }
        let reached = await eventually(within: 10) { received.values.last?.last == 3 }
        #expect(reached, "nothing after the rejected latest value: \(received.values)")
        await place.drain()
        #expect(!received.values.flatMap { $0 }.contains(0), "the rejected latest value ran: \(received.values)")
        if target != .actor {
            let quiet = await eventually(within: 5) { observation.replayKeyCount == 0 }
            #expect(quiet, "the table kept \(observation.replayKeyCount ?? -1) keys once quiet")
        }
        observation.cancel()
    }

    // MARK: Ended before the latest value ran

    /// A coalescing observer starts behind a busy target; it is cancelled (or its actor released, or its center
    /// released) before its latest value runs: the latest value never runs, and once the target is free the package
    /// lets go of the latest payload (cleared from the center) and of the handler's captures. Documented
    /// (Guarantees.md): an ended observation's "queued [deliveries are] released"; LatestValuesAndCoalescing.md: "a
    /// burst never keeps its center alive".
    // Not on an actor: its held handler would block a thread of the cooperative pool, whose two threads here the
    // package's timers and the other suites' tasks need.
    @Test(arguments: [SeamTarget.dispatchQueue, .operationQueue, .mainActor], ["cancel", "center"])
    func anObservationEndedBeforeItsLatestValueRunsLetsGoOfIt(target: SeamTarget, ending: String) async {
        let place = SeamPlace(target)
        let gate = SeamGate()
        let busyStarted = Signal()
        let released = Signal()
        let captureGone = Signal()
        let ran = Counter()
        var center: NotificationCenter? = NotificationCenter()
        let weakCenter = WeakCenter(center)
        var observation: HeldObservation?
        var busy: HeldObservation?
        do {
            let center = center!
            let holdsEvery: @Sendable (MeetingEcho) -> Bool = { _ in true }
            busy = place.observe(MeetingEcho.self, in: center, holding: gate, when: holdsEvery) { _ in
                busyStarted.fire()
            }
            ReplayLevel(0, onRelease: { released.fire() }).post(in: center)
            MeetingEcho(index: 0).post(in: center)
            #expect(await finishes(within: 10) { await busyStarted.wait() }, "the target never became busy")
            let capture = SeamOwner(gone: { captureGone.fire() })
            observation = place.observeLevel(in: center, coalescing: .within(10)) { level in
                withExtendedLifetime(capture) {}
                ran.increment()
            }
            ReplayLevel(1).post(in: center)  // gathers behind the latest value, for a long window
        }
        switch ending {
        case "cancel":
            observation?.cancel()
            ReplayLevel.clearLatest(in: center!)
        default:
            observation = nil
            busy?.cancel()
            busy = nil
            center = nil
        }
        observation = nil
        gate.open()
        await place.drain()
        #expect(await finishes(within: 10) { await released.wait() }, "the latest payload was kept")
        #expect(await finishes(within: 10) { await captureGone.wait() }, "the handler's captures were kept")
        #expect(ran.value == 0, "the ended observation ran \(ran.value) times")
        if ending != "cancel" {
            #expect(await eventually(within: 10) { weakCenter.center == nil }, "the center was kept")
        }
        busy?.cancel()
        withExtendedLifetime(center) {}
    }

    /// An actor-bound coalescing observer whose actor is released while its latest value waits behind another
    /// observer of the actor: the payload and captures go, and nothing runs.
    @Test func anActorReleasedBeforeItsLatestValueRunsLetsGoOfIt() async {
        let place = SeamPlace(.actor)
        let center = NotificationCenter()
        let gate = SeamGate()
        let busyStarted = Signal()
        let released = Signal()
        let hostGone = Signal()
        let ran = Counter()
        place.hostSlot.set(SeamHost(gone: { hostGone.fire() }))
        let holdsEvery: @Sendable (MeetingEcho) -> Bool = { _ in true }
        let busy = place.observe(MeetingEcho.self, in: center, holding: gate, when: holdsEvery) { _ in
            busyStarted.fire()
        }
        ReplayLevel(0, onRelease: { released.fire() }).post(in: center)
        MeetingEcho(index: 0).post(in: center)
        #expect(await finishes(within: 10) { await busyStarted.wait() }, "the actor never became busy")
        let observation = place.observeLevel(in: center, coalescing: .afterPause(10)) { _ in ran.increment() }
        ReplayLevel(1).post(in: center)
        place.hostSlot.set(nil)
        ReplayLevel.clearLatest(in: center)
        gate.open()
        #expect(await finishes(within: 10) { await hostGone.wait() }, "the actor was kept")
        #expect(await finishes(within: 10) { await released.wait() }, "the latest payload was kept")
        ReplayLevel(2).post(in: center)  // ends the observation, whose owner is gone
        #expect(ran.value <= 1, "ran \(ran.value) times")
        observation.cancel()
        busy.cancel()
    }

    // MARK: Waits around a new coalescing observer

    /// `awaitDelivery { }` and `awaitDelivery(in:) { }` around a new coalescing observer and a post: the wait returns
    /// (it does not hang on the latest value's `DeliveryDone`), and only once the post's burst has run. Documented
    /// (Guarantees.md): "`awaitDelivery { … }` returns once every handler reached by its task's posts ... has run
    /// (including coalesced bursts ...)"; "It never deadlocks".
    @Test(arguments: SeamTarget.allCases, ReplayMode.allCases)
    func aWaitAroundANewCoalescingObserverAndAPostReturnsAfterThePostsBurst(
        target: SeamTarget, mode: ReplayMode
    ) async {
        for kind in PendingWaitKind.allCases {
            let center = NotificationCenter()
            let place = SeamPlace(target)
            let sender = Sender()
            let senderOrNil: Sender? = mode == .acrossSenders ? sender : nil
            ReplayLevel(0).post(from: senderOrNil, in: center)
            let received = Recorded<[Int]>()
            let held = Slot<HeldObservation>()
            let waited = await finishes(within: 10) {
                await kind.wait(in: center) {
                    held.set(
                        place.observeLevel(in: center, coalescing: mode.coalescing(Self.window)) {
                            received.append($0.ids)
                        })
                    ReplayLevel(1).post(from: senderOrNil, in: center)
                }
            }
            #expect(waited, "the \(kind) wait never returned: \(received.values)")
            #expect(
                received.values.last?.last == 1, "the \(kind) wait returned before the post's burst: \(received.values)"
            )
            await place.drain()
            #expect(received.values.first == [0], "\(kind): no latest value first: \(received.values)")
            held.value?.cancel()
        }
    }

    /// An observer of its own target: a `@MainActor` caller observing on the main actor, with coalescing, gets the
    /// latest value before `observe` returns; a post it makes then still arrives. Documented
    /// (LatestValuesAndCoalescing.md): "an observation made on that actor, as the compiler knows it ..., receives the
    /// latest value before the observing call returns".
    @MainActor @Test(arguments: ReplayMode.allCases)
    func aMainActorObserverOnTheMainActorGetsTheLatestValueBeforeObserveReturns(mode: ReplayMode) async {
        let center = NotificationCenter()
        ReplayLevel(0).post(in: center)
        let received = Recorded<Int>()
        let coalescing = mode.coalescing(Self.window)
        let token = ReplayLevel.observeOnMainActor(in: center, coalescing: coalescing) { received.append($0.index) }
        #expect(received.values == [0], "not the latest value before observe returned: \(received.values)")
        ReplayLevel(1).post(in: center)
        ReplayLevel(2).post(in: center)
        let reached = await eventually(within: 10) { received.values.last == 2 }
        #expect(reached, "the later posts never came: \(received.values)")
        #expect(received.values.first == 0 && received.values.filter { $0 == 0 }.count == 1, "\(received.values)")
        let quiet = await eventually(within: 5) { HeldObservation.token(token).replayKeyCount == 0 }
        #expect(quiet, "the table kept keys once quiet")
        token.cancel()
    }

    /// An actor-isolated coalescing observer registered from that actor: its latest value runs before `observe`
    /// returns, and the actor's later posts arrive. Same promise.
    @Test(arguments: ReplayMode.allCases)
    func anActorObserverRegisteredOnItsActorGetsTheLatestValueBeforeObserveReturns(mode: ReplayMode) async {
        let center = NotificationCenter()
        ReplayLevel(0).post(in: center)
        let host = ReplayHost()
        let before = await host.observe(in: center, coalescing: mode.coalescing(Self.window))
        #expect(before == [0], "not the latest value before observe returned: \(before)")
        await host.post(1, in: center)
        await host.post(2, in: center)
        var reached = false
        for _ in 0..<2_000 {
            if await host.received.last == 2 {
                reached = true
                break
            }
            try? await Task.sleep(nanoseconds: 5_000_000)  // a bounded poll, not a synchronisation
        }
        let received = await host.received
        #expect(reached, "the later posts never came: \(received)")
        #expect(received.filter { $0 == 0 }.count == 1, "the latest value twice: \(received)")
        await host.cancel()
    }

    /// A main-actor coalescing observer registered during a main-actor delivery of another type (its target running):
    /// it gets the latest value once, first, without re-entering the registering handler (it runs after that handler,
    /// as a nested post does, with or without coalescing), and a post made right after still arrives. Documented:
    /// Guarantees.md, "Nested posts come after"; LatestValuesAndCoalescing.md says "before the observing call
    /// returns" for an observation made on the actor, which does not hold inside a running delivery there.
    @MainActor @Test(arguments: [ReplayMode.throttle, .nextTurn, .afterPause], [true, false])
    func aMainActorObserverRegisteredInsideAMainActorDeliveryGetsTheLatestValue(mode: ReplayMode, coalesces: Bool) async
    {
        let center = NotificationCenter()
        ReplayLevel(0).post(in: center)
        let received = Recorded<Int>()
        let seenAtReturn = Recorded<[Int]>()
        let held = Slot<NotificationToken>()
        let done = Signal()
        let coalescing = coalesces ? mode.coalescing(Self.window) : nil
        let trigger = MeetingEcho.observeOnMainActor(in: center) { _ in
            held.set(ReplayLevel.observeOnMainActor(in: center, coalescing: coalescing) { received.append($0.index) })
            seenAtReturn.append(received.values)
            ReplayLevel(1).post(in: center)
            done.fire()
        }
        await waitAside(onNewThread { MeetingEcho(index: 0).post(in: center) })
        #expect(await finishes(within: 10) { await done.wait() }, "the trigger never ran")
        let reached = await eventually(within: 10) { received.values.last == 1 }
        #expect(reached, "the post after never came: \(received.values)")
        #expect(received.values.first == 0, "no latest value first: \(received.values)")
        #expect(received.values.filter { $0 == 0 }.count == 1, "the latest value twice: \(received.values)")
        // Inside a running main-actor delivery the latest value follows "Nested posts come after" (Guarantees.md):
        // it runs once the registering handler returns, with or without coalescing; never re-entering it.
        #expect(seenAtReturn.values == [[]] || seenAtReturn.values == [[0]], "\(seenAtReturn.values)")
        held.value?.cancel()
        trigger.cancel()
    }
}
