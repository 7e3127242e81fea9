import Foundation
import Testing
import TypedNotificationsTestSupport

@_spi(Testing) @testable import TypedNotifications

// Where `awaitDelivery`'s waits meet an observer's own coalescing: a post made during a coalescing observer's delivery
// takes only the waits (`PostContext.current`: `PendingDeliveries.waitsOnly`), never the `DeliveryDone` that paces
// the observer's next burst, which the burst's own delivery keeps (`Subscription.deliverBurst`). Every wait is bounded
// (`finishes(within:)`, `eventually`), so a hang fails a test instead of the run.

/// A third type, for posts two handlers deep.
struct PendingHop: Notifiable {
    let index: Int
}

/// A latest-value type, for a replay on a busy target.
struct PendingLevel: LatestValueNotifiable {
    let index: Int
}

/// How a test waits: for its task's posts, or for every post on the center.
enum PendingWaitKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case task, center
    var testDescription: String { rawValue }

    func wait(in center: NotificationCenter, _ posts: @Sendable () -> Void) async {
        switch self {
        case .task: _ = try? await awaitDelivery { posts() }
        case .center: _ = try? await awaitDelivery(in: center) { posts() }
        }
    }
}

/// The coalescing modes, without `.none`.
let pendingModes = MeetingMode.allCases.filter { $0 != .none }

// Not under a sanitizer, which slows the process 5-20 times: there its handlers held busy and its posters spinning
// on both cores keep the 2-thread cooperative pool, which runs every suite's timers, from the suites running beside it
// for seconds (an AddressSanitizer run failed 75 expectations of other suites' re-post chains and nested waits, each
// of which passes alone there). It runs in the normal and the simulated-Apple builds.
@Suite(.serialized, .seeded, .disabled(if: TestEnvironment.isSanitized, "starves the parallel suite under a sanitizer"))
struct PendingWaitsSeamTests {
    // MARK: What a posting-thread coalescing observer posts joins the wait

    /// An awaited post to a coalescing observer on the posting thread (`A`), whose handler posts another type that an
    /// observer (`B`) on each queued target receives: the wait returns only once `B` has run, for every round and
    /// both kinds of wait. Documented (Guarantees.md, "Sequences and waiting"): "`awaitDelivery { … }` returns once
    /// every handler reached by its task's posts ... has run (including coalesced bursts, and what handlers post
    /// during those posts, on the posting thread ...)".
    @Test(arguments: SeamTarget.queued, pendingModes)
    func anAwaitedPostWaitsForWhatACoalescingPostingThreadHandlerPostsToAnyTarget(
        target: SeamTarget, mode: MeetingMode
    ) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let reached = Recorded<Int>()
        let echoes = place.observe(MeetingEcho.self, in: center) { echo in
            usleep(2_000)  // a slow handler: the wait must outlast it (not a synchronisation)
            reached.append(echo.index)
        }
        let token = MeetingPing.observe(in: center, coalescing: mode.coalescing(0.01)) { ping in
            MeetingEcho(index: ping.index).post(in: center)
        }
        for kind in PendingWaitKind.allCases {
            for round in 1...3 {
                let index = kind == .task ? round : 10 + round
                let waited = await finishes(within: 10) {
                    await kind.wait(in: center) { MeetingPing(index).post(in: center) }
                }
                #expect(waited, "the \(kind) wait never returned (round \(round))")
                #expect(
                    reached.values.last == index,
                    "the \(kind) wait returned before B (\(target)) ran echo \(index): \(reached.values)")
            }
        }
        token.cancel()
        echoes.cancel()
    }

    /// Two handlers deep: `A` (posting thread, each mode) posts an echo that `B` (posting thread, a trailing throttle)
    /// receives, whose handler posts a hop that `C` on each queued target receives: the wait returns only once `C`
    /// has run. Same promise.
    @Test(arguments: SeamTarget.queued, pendingModes)
    func anAwaitedPostWaitsForWhatCoalescingHandlersPostTwoDeep(target: SeamTarget, mode: MeetingMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let reached = Recorded<Int>()
        let hops = place.observe(PendingHop.self, in: center) { hop in
            usleep(2_000)
            reached.append(hop.index)
        }
        let b = MeetingEcho.observe(in: center, coalescing: .within(0.01).trailingOnly) { echo in
            PendingHop(index: echo.index).post(in: center)
        }
        let a = MeetingPing.observe(in: center, coalescing: mode.coalescing(0.01)) { ping in
            MeetingEcho(index: ping.index).post(in: center)
        }
        for kind in PendingWaitKind.allCases {
            for round in 1...2 {
                let index = kind == .task ? round : 10 + round
                let waited = await finishes(within: 10) {
                    await kind.wait(in: center) { MeetingPing(index).post(in: center) }
                }
                #expect(waited, "the \(kind) wait never returned (round \(round))")
                #expect(
                    reached.values.last == index,
                    "the \(kind) wait returned before C (\(target)) ran hop \(index): \(reached.values)")
            }
        }
        a.cancel()
        b.cancel()
        hops.cancel()
    }

    /// Awaited from the main actor (`awaitDelivery`'s isolation is the main actor): a posting-thread coalescing
    /// observer's handler posts an echo that a main-actor observer and a dispatch-queue observer receive; the wait
    /// returns only once both ran, and a throttle's first post, delivered during the post, has its main-actor echo
    /// observer run on the main actor. Same promise; "A post made on an actor delivers there before `post` returns".
    @MainActor @Test(arguments: pendingModes)
    func aWaitOnTheMainActorWaitsForTheMainActorObserversOfWhatACoalescedHandlerPosts(mode: MeetingMode) async {
        DispatchQueue.main.setSpecific(key: seamMainQueue, value: ())
        let center = NotificationCenter()
        let onMain = Recorded<Int>()
        let onQueue = Recorded<Int>()
        let wrongPlace = Counter()
        let mainEchoes = MeetingEcho.observeOnMainActor(in: center) { echo in
            if DispatchQueue.getSpecific(key: seamMainQueue) == nil { wrongPlace.increment() }
            onMain.append(echo.index)
        }
        let queue = DispatchQueue(label: "PendingWaitsSeamTests")
        let queueEchoes = MeetingEcho.observe(in: center, delivery: .async(on: queue)) { echo in
            usleep(2_000)
            onQueue.append(echo.index)
        }
        let token = MeetingPing.observe(in: center, coalescing: mode.coalescing(0.01)) { ping in
            MeetingEcho(index: ping.index).post(in: center)
        }
        for round in 1...3 {
            let waited = await finishes(within: 10) { @MainActor in
                _ = try? await awaitDelivery { MeetingPing(round).post(in: center) }
            }
            #expect(waited, "the wait never returned (round \(round))")
            #expect(onMain.values.last == round, "returned before the main-actor echo \(round): \(onMain.values)")
            #expect(onQueue.values.last == round, "returned before the queue echo \(round): \(onQueue.values)")
        }
        #expect(wrongPlace.value == 0, "a main-actor observer ran off the main thread")
        token.cancel()
        mainEchoes.cancel()
        queueEchoes.cancel()
    }

    // MARK: An async handler's wait excludes its own queue, however deep

    /// An `async` handler (`B`, coalescing or not) awaits a post to a posting-thread coalescing observer (`A`) whose
    /// handler posts back what `B` observes: the wait returns (it excludes `B`'s own queue, which runs only after `B`
    /// returns), and `B` then gets the echo. Documented: "It never deadlocks."
    @Test(arguments: pendingModes, [MeetingMode.none, .nextTurn, .throttle, .afterPause])
    func anAsyncHandlersWaitOnAPostThatEchoesBackToItselfReturns(aMode: MeetingMode, bMode: MeetingMode) async {
        for kind in PendingWaitKind.allCases {
            let center = NotificationCenter()
            let received = Recorded<Int>()
            let a = MeetingPing.observe(in: center, coalescing: aMode.coalescing(0.01)) { ping in
                MeetingEcho(index: ping.index).post(in: center)
            }
            let awaited = Signal()
            let bCoalescing: NotificationCoalescing<MeetingEcho>? =
                switch bMode {
                case .nextTurn: .nextTurn
                case .throttle: .within(0.01)
                case .afterPause: .afterPause(0.01)
                default: nil
                }
            let b = MeetingEcho.observe(in: center, coalescing: bCoalescing) { (echo: MeetingEcho) async in
                received.append(echo.index)
                guard echo.index == 1 else { return }
                await kind.wait(in: center) { MeetingPing(2).post(in: center) }
                awaited.fire()
            }
            MeetingPing(1).post(in: center)
            let returned = await finishes(within: 5) { await awaited.wait() }
            #expect(returned, "B's \(kind) wait deadlocked on its own echo; B got \(received.values)")
            #expect(
                await eventually(within: 5) { received.values.last == 2 }, "B never got its echo: \(received.values)")
            a.cancel()
            b.cancel()
        }
    }

    // MARK: One delivery at a time, the observer's own re-posts included

    /// A coalescing observer held busy in its first delivery, whose handler re-posts its own type each time (once per
    /// payload from the poster), while another thread posts: no two of its deliveries overlap, and once free it gets
    /// one delivery with the last payload (with `merging:`, every later payload once, in post order). Documented
    /// (LatestValuesAndCoalescing.md): "A burst's window or pause starts only once the observer's previous delivery
    /// has run, so a busy queue or a slow `async` handler gets one delivery with the latest payload when it is free,
    /// never a backlog"; Guarantees.md: "Deliveries of one type, center and sender come in post order, one at a time".
    // Not on an actor: its held handler would block a thread of the cooperative pool, whose two threads here the
    // package's timers and the other suites' tasks need.
    @Test(arguments: [SeamTarget.dispatchQueue, .operationQueue, .mainActor, .asyncHandler], pendingModes)
    func anObserverRePostingItsOwnTypeStillGetsOneDeliveryAtATime(target: SeamTarget, mode: MeetingMode) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let gate = SeamGate()
        let started = Signal()
        let inFlight = Counter()
        let overlaps = Counter()
        let deliveries = Recorded<[Int]>()
        let senders = [Sender(), Sender()]
        let holds: @Sendable (MeetingPing) -> Bool = { $0.index == 0 }
        let observation = place.observe(
            MeetingPing.self, in: center, coalescing: mode.coalescing(0.01), holding: gate, when: holds
        ) { ping in
            if inFlight.increment() != 1 { overlaps.increment() }
            defer { inFlight.increment(by: -1) }
            deliveries.append(ping.ids)
            if ping.index == 0 {
                // Its own re-post, during its delivery: joins its next burst.
                let echo = MeetingPing(-1)
                if mode == .acrossSenders { echo.post(from: senders[0], in: center) } else { echo.post(in: center) }
                started.fire()
            }
        }
        MeetingPing(0).post(in: center)
        #expect(await finishes(within: 10) { await started.wait() }, "the first delivery never came")
        let last = 40
        await onThreads(1) { _ in
            for index in 1...last {
                let ping = MeetingPing(index)
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
        let after = Array(deliveries.values.dropFirst())
        if mode == .merging {
            #expect(after == [[-1] + Array(1...last)], "once free, not one merged delivery in order: \(after)")
        } else {
            #expect(after == [[last]], "once free, not one delivery with the last payload: \(after)")
        }
        #expect(overlaps.value == 0, "two deliveries overlapped")
        observation.cancel()
    }

    // MARK: A latest value on a busy target is the key's first delivery

    /// A coalescing observer of a latest-value type starts on a target held busy by another observer of the same
    /// place: its latest value is queued; posts that come before the target is free gather behind it, so once free the
    /// target runs the latest value and then one delivery with the last payload, never a backlog. Documented
    /// (LatestValuesAndCoalescing.md): "A latest value ... starts the observation at once, not coalesced"; "a busy
    /// queue ... gets one delivery with the latest payload when it is free, never a backlog"; Guarantees.md: "a busy
    /// target gets one delivery when free, never a backlog". The latest value is the key's first delivery, wherever
    /// the observer waits (`Subscription.replay`, `Coalescer.leadsLatest`).
    // Not on an actor: its held handler would block a thread of the cooperative pool, whose two threads here the
    // package's timers and the other suites' tasks need.
    @Test(arguments: [SeamTarget.dispatchQueue, .operationQueue], [MeetingMode.throttle, .nextTurn])
    func aLatestValueQueuedOnABusyTargetIsTheOnlyDeliveryWaitingBeforeTheNextBurst(
        target: SeamTarget, mode: MeetingMode
    ) async {
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let gate = SeamGate()
        let busyStarted = Signal()
        let holdsEvery: @Sendable (MeetingEcho) -> Bool = { _ in true }
        let busy = place.observe(MeetingEcho.self, in: center, holding: gate, when: holdsEvery) { _ in
            busyStarted.fire()
        }
        PendingLevel(index: 0).post(in: center)
        MeetingEcho(index: 0).post(in: center)
        #expect(await finishes(within: 10) { await busyStarted.wait() }, "the target never became busy")
        let received = Recorded<Int>()
        let coalescing: NotificationCoalescing<PendingLevel> = mode == .throttle ? .within(0.01) : .nextTurn
        let levels = place.observe(PendingLevel.self, in: center, coalescing: coalescing) { level in
            received.append(level.index)
        }
        for index in 1...3 { PendingLevel(index: index).post(in: center) }
        try? await Task.sleep(nanoseconds: 30_000_000)  // windows end while the target is held (pacing)
        gate.open()
        #expect(await eventually(within: 10) { received.values.last == 3 }, "the last never came: \(received.values)")
        await place.drain()
        #expect(received.values == [0, 3], "once free, more than the latest value and one burst: \(received.values)")
        levels.cancel()
        busy.cancel()
    }
}
