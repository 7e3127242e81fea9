import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Where an observer's coalescing meets the rest of the package: re-posts from a handler into its own throttle or
// debounce, waits (`awaitDelivery`, both forms) around and inside coalesced deliveries, cancellation racing a leading
// delivery, centers, owners and actors released while a window is open, merges, senders and latest values with a
// throttle, and posts from many threads, on every target a handler runs on. Each test bounds its waits with
// `finishes(within:)`, so that a delivery that waits for itself fails the test instead of hanging the run.

/// A second type, for handlers that post into another observer's coalescing.
struct SeamPong: Notifiable {
    let index: Int
}

/// A latest-value type, for a throttle that starts with a kept value.
struct SeamLevel: LatestValueNotifiable {
    let level: Int
}

/// A center that signals its deinitialisation (``gone``).
final class SeamCenter: NotificationCenter, @unchecked Sendable {
    // `@unchecked Sendable` as `NotificationCenter` is: its state is Foundation's, thread-safe; `gone` is immutable.
    let gone = Signal()
    required init() { super.init() }
    deinit { gone.fire() }
}

/// An object whose deinitialisation signals.
final class SeamOwner: Sendable {
    let gone: @Sendable () -> Void
    init(gone: @escaping @Sendable () -> Void = {}) { self.gone = gone }
    deinit { gone() }
}

let seamCoalescings: [NotificationCoalescing<SeamPing>] = [
    .within(0.05), .within(0.05).trailingOnly, .afterPause(0.05), .nextTurn,
]

@Suite struct CoalescingSeamTests {
    // MARK: - Waits inside an async handler

    /// An `async` handler that waits for its own coalesced re-post (`awaitDelivery`, either form) is not made to wait
    /// for its own observation's delivery, which runs only after it returns: the documented rule for `async` handlers,
    /// "coalesced or not".
    @Test(arguments: [false, true], [0, 1, 2, 3])
    func anAsyncHandlerAwaitingItsOwnCoalescedRepostReturns(onCenter: Bool, coalescingIndex: Int) async {
        let center = NotificationCenter()
        let coalescing = seamCoalescings[coalescingIndex]
        let awaited = Signal()
        let secondSeen = Signal()
        let token = SeamPing.observe(in: center, coalescing: coalescing) { (ping: SeamPing) async in
            if ping.index == 1 { secondSeen.fire() }
            guard ping.index == 0 else { return }
            if onCenter {
                _ = try? await awaitDelivery(in: center) { SeamPing(1).post(in: center) }
            } else {
                _ = try? await awaitDelivery { SeamPing(1).post(in: center) }
            }
            awaited.fire()
        }
        SeamPing(0).post(in: center)
        // A bound against a hang only: a deadlocked wait never returns, while the whole suite running in parallel on a
        // 2-thread cooperative pool has kept this handler from running for over 5 s.
        let returned = await finishes(within: 30) { await awaited.wait() }
        // Ends the observation, so that a handler stuck in its wait is let go (the dropped burst ends the wait).
        if !returned { token.cancel() }
        // The re-post joins the observation's own next burst, which is delivered only after this handler returns: the
        // burst must not take the handler's own wait with it.
        #expect(returned, "the handler waited for its own observation's next burst")
        if returned {
            #expect(await finishes(within: 10) { await secondSeen.wait() }, "the re-post was never delivered")
        }
        token.cancel()
    }

    // MARK: - Re-posts into the handler's own coalescing

    /// A handler that re-posts into its own throttle or debounce gets each re-post in a burst of its own, after the
    /// delivery that made it, on every target: the next burst is scheduled once the delivery is done, never lost.
    @Test(arguments: SeamTarget.allCases, [0, 1, 2])
    func aHandlerRepostingIntoItsOwnCoalescingGetsEveryRepost(target: SeamTarget, coalescingIndex: Int) async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let reachedLast = Signal()
        let observation = observePing(on: target, in: center, coalescing: seamCoalescings[coalescingIndex]) { ping in
            received.append(ping.index)
            if ping.index < 3 { SeamPing(ping.index + 1).post(in: center) } else { reachedLast.fire() }
        }
        SeamPing(0).post(in: center)
        #expect(await finishes(within: 10) { await reachedLast.wait() }, "re-posts stalled: \(received.values)")
        #expect(received.values == [0, 1, 2, 3])
        observation.cancel()
    }

    /// On the posting thread, a handler's re-posts into its own coalescing are made during the delivery of a burst,
    /// so `awaitDelivery` waits for the whole chain (the burst's delivery is a post made where the burst ends).
    @Test(arguments: [0, 1, 2])
    func aPostingThreadRepostChainIsCoveredByTheWait(coalescingIndex: Int) async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = SeamPing.observe(in: center, coalescing: seamCoalescings[coalescingIndex]) { ping in
            received.append(ping.index)
            if ping.index < 3 { SeamPing(ping.index + 1).post(in: center) }
        }
        let waited = await finishes(within: 10) {
            _ = try? await awaitDelivery { SeamPing(0).post(in: center) }
        }
        #expect(waited, "the wait hung")
        #expect(received.values == [0, 1, 2, 3])
        token.cancel()
    }

    /// Two posting-thread throttles that post into each other, inside a wait: each delivery holds the other's
    /// `DeliveryDone` for as long as its handler runs, never in a cycle, so the chain ends and so does the wait.
    @Test func twoThrottlesPostingIntoEachOtherEndTheirChainAndTheWait() async {
        let center = NotificationCenter()
        let pings = Recorded<Int>()
        let pongs = Recorded<Int>()
        let ping = SeamPing.observe(in: center, coalescing: .within(0.02)) { payload in
            pings.append(payload.index)
            if payload.index < 6 { SeamPong(index: payload.index + 1).post(in: center) }
        }
        let pong = SeamPong.observe(in: center, coalescing: .within(0.02)) { payload in
            pongs.append(payload.index)
            if payload.index < 6 { SeamPing(payload.index + 1).post(in: center) }
        }
        let waited = await finishes(within: 10) {
            _ = try? await awaitDelivery { SeamPing(0).post(in: center) }
        }
        #expect(waited, "the wait hung")
        #expect(pings.values == [0, 2, 4, 6])
        #expect(pongs.values == [1, 3, 5])
        ping.cancel()
        pong.cancel()
    }

    /// A handler that ends its observation and observes again with the same throttle: the new observation has its
    /// own table, so its first post is delivered at once, and the old one delivers nothing more.
    @Test func aHandlerThatResubscribesStartsAQuietThrottle() async {
        let center = NotificationCenter()
        let received = Recorded<String>()
        let current = Slot<NotificationToken>()
        let generation = Counter()
        @Sendable func subscribe() {
            let mine = generation.increment()
            current.set(
                SeamPing.observe(in: center, coalescing: .within(1_000)) { ping in
                    received.append("\(mine):\(ping.index)")
                    if ping.index == 0 {
                        current.value?.cancel()
                        subscribe()
                    }
                })
        }
        subscribe()
        SeamPing(0).post(in: center)
        SeamPing(1).post(in: center)
        #expect(received.values == ["1:0", "2:1"], "the new observation's first post is not delivered at once")
        current.value?.cancel()
    }

    // MARK: - Many threads

    /// Thousands of posts from several threads through one coalescing observer, waited for with
    /// `awaitDelivery(in:)`: the wait covers every burst, the last delivery is the last post made (one thread's last),
    /// each thread's posts arrive in order, none twice.
    @Test(arguments: SeamTarget.allCases, [0, 2, 3])
    func postsFromManyThreadsEndWithTheLastPostWhenTheWaitReturns(target: SeamTarget, coalescingIndex: Int) async {
        let threads = 4
        let perThread = TestEnvironment.scaled(normal: 500, long: 5_000, sanitized: 60)
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let coalescing: NotificationCoalescing<SeamPing> =
            switch coalescingIndex {
            case 0: .within(0.002)
            case 2: .afterPause(0.001)
            default: .nextTurn
            }
        let observation = observePing(on: target, in: center, coalescing: coalescing) { received.append($0.index) }
        let waited = await finishes(within: 30) {
            _ = try? await awaitDelivery(in: center) {
                await onThreads(threads) { thread in
                    for number in 0..<perThread { SeamPing(thread * 1_000_000 + number).post(in: center) }
                }
            }
        }
        #expect(waited, "the wait hung")
        let values = received.values
        #expect(!values.isEmpty)
        #expect(Set(values).count == values.count, "a payload delivered twice")
        let lasts = Set((0..<threads).map { $0 * 1_000_000 + perThread - 1 })
        #expect(values.last.map(lasts.contains) == true, "last delivery \(values.last ?? -1) is no thread's last post")
        for thread in 0..<threads {
            let numbers = values.filter { $0 / 1_000_000 == thread }
            #expect(numbers == numbers.sorted(), "thread \(thread)'s posts out of order")
        }
        observation.cancel()
    }

    /// A handler that takes long (it blocks its target for 5 ms) behind a throttle gets far fewer calls than posts,
    /// and the wait on the center still ends with the last post delivered.
    @Test(arguments: SeamTarget.allCases)
    func aSlowHandlerBehindAThrottleGetsNoBacklog(target: SeamTarget) async {
        let threads = 3
        let perThread = TestEnvironment.scaled(normal: 400, long: 2_000, sanitized: 40)
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let observation = observePing(on: target, in: center, coalescing: .within(0.01)) { ping in
            received.append(ping.index)
            Thread.sleep(forTimeInterval: 0.005)
        }
        let waited = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) {
                await onThreads(threads) { thread in
                    for number in 0..<perThread {
                        SeamPing(thread * 1_000_000 + number).post(in: center)
                        if number % 50 == 0 { Thread.sleep(forTimeInterval: 0.001) }
                    }
                }
            }
        }
        #expect(waited, "the wait hung")
        let values = received.values
        let lasts = Set((0..<threads).map { $0 * 1_000_000 + perThread - 1 })
        #expect(values.last.map(lasts.contains) == true, "last delivery \(values.last ?? -1) is no thread's last post")
        if target != .postingThread {
            #expect(values.count < threads * perThread / 4, "a backlog: \(values.count) calls")
        }
        observation.cancel()
    }

    // MARK: - Merging, senders, latest values

    /// `.merging` with a throttle: the leading post alone at once, then the rest of the window merged, on every
    /// target.
    @Test(arguments: SeamTarget.allCases)
    func aMergingThrottleDeliversTheLeadAloneThenTheRestMerged(target: SeamTarget) async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let merging = NotificationCoalescing<SeamPing>.within(0.05).merging { SeamPing($0.index + $1.index) }
        let observation = observePing(on: target, in: center, coalescing: merging) { received.append($0.index) }
        try await awaitDelivery {
            for index in [1, 10, 100, 1_000] { SeamPing(index).post(in: center) }
        }
        #expect(received.values == [1, 1_110])
        observation.cancel()
    }

    /// `.acrossSenders` with a throttle: the first post of any sender leads, the other senders' posts join its
    /// window; without it each sender has a quiet period of its own and leads.
    @Test(arguments: [false, true])
    func aThrottleAcrossSendersLeadsOnceForAllSenders(acrossSenders: Bool) async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let base = NotificationCoalescing<SeamPing>.within(0.05)
        let token = SeamPing.observe(in: center, coalescing: acrossSenders ? base.acrossSenders : base) {
            received.append($0.index)
        }
        let senders = [SeamOwner(), SeamOwner()]
        try await awaitDelivery {
            SeamPing(0).post(from: senders[0], in: center)
            SeamPing(1).post(from: senders[1], in: center)
            SeamPing(2).post(from: senders[1], in: center)
            #expect(received.values == (acrossSenders ? [0] : [0, 1]))
        }
        #expect(received.values == (acrossSenders ? [0, 2] : [0, 1, 2]))
        token.cancel()
    }

    /// A throttled observer of a latest-value type starts with the kept value; its first live post is then the
    /// first of a quiet period, delivered at once, and the rest of the window once.
    @Test func aThrottleOfALatestValueStartsWithItThenLeadsWithTheFirstPost() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        SeamLevel(level: 1).post(in: center)
        let token = SeamLevel.observe(in: center, coalescing: .within(0.05)) { received.append($0.level) }
        #expect(received.values == [1])
        try await awaitDelivery {
            for level in 2...5 { SeamLevel(level: level).post(in: center) }
            #expect(received.values == [1, 2])
        }
        #expect(received.values == [1, 2, 5])
        #expect(SeamLevel.latest(in: center)?.level == 5)
        token.cancel()
    }

    // MARK: - Waits around throttles

    /// Waits nest: an inner task-scoped wait inside an outer center-scoped one, around a throttled observer on every
    /// target; both end, the inner one with the window's delivery done.
    @Test(arguments: SeamTarget.allCases)
    func nestedWaitsAroundAThrottleBothEnd(target: SeamTarget) async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let observation = observePing(on: target, in: center, coalescing: .within(0.05)) { received.append($0.index) }
        let innerSaw = Slot<[Int]>()
        let waited = await finishes(within: 10) {
            _ = try? await awaitDelivery(in: center) {
                _ = try? await awaitDelivery {
                    SeamPing(0).post(in: center)
                    SeamPing(1).post(in: center)
                }
                innerSaw.set(received.values)
                SeamPing(2).post(in: center)
            }
        }
        #expect(waited, "a wait hung")
        #expect(innerSaw.value == [0, 1])
        #expect(received.values == [0, 1, 2])
        observation.cancel()
    }

    /// A wait for a throttle's long window ends with `CancellationError` when its task is cancelled; the window goes
    /// on, and ending the observation then releases its payload.
    @Test(arguments: SeamTarget.allCases)
    func aCancelledWaitForALongWindowThrowsAtOnce(target: SeamTarget) async {
        let center = NotificationCenter()
        let released = Signal()
        let observation = observePing(on: target, in: center, coalescing: .within(1_000)) { _ in }
        let posted = Signal()
        let waiting = Task {
            try await awaitDelivery {
                SeamPing(0).post(in: center)
                SeamPing(1) { released.fire() }.post(in: center)
                posted.fire()
            }
        }
        await posted.wait()
        waiting.cancel()
        var threw = false
        let ended = await finishes(within: 10) {
            _ = try? await waiting.value
        }
        if ended {
            do { try await waiting.value } catch { threw = error is CancellationError }
        }
        #expect(ended, "the cancelled wait hung")
        #expect(threw, "the cancelled wait did not throw CancellationError")
        observation.cancel()
        #expect(await finishes(within: 10) { await released.wait() }, "the dropped window kept its payload")
    }

    /// A poster's throttle waited for from another thread's posts with `awaitDelivery(in:)`: the leading post and the
    /// window's delivery are both waited for, on every target.
    @Test(arguments: SeamTarget.allCases)
    func aCenterWaitCoversAPostersThrottleFromAnotherThread(target: SeamTarget) async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let observation = observePing(on: target, in: center, coalescing: nil) { received.append($0.index) }
        let waited = await finishes(within: 10) {
            _ = try? await awaitDelivery(in: center) {
                await onThreads(1) { _ in
                    for index in 0..<5 { SeamPing(index).post(in: center, coalescing: .within(0.05)) }
                }
            }
        }
        #expect(waited, "the wait hung")
        #expect(received.values == [0, 4])
        observation.cancel()
    }

    // MARK: - Lifetimes

    /// A center released while an observer's throttle window is open (a lead made, a post gathering) goes at once,
    /// whatever the target; the window's payload is released, and nothing hangs.
    @Test(arguments: SeamTarget.allCases)
    func aCenterReleasedWithAnObserversWindowOpenGoes(target: SeamTarget) async {
        let centerGone: Signal
        let payloadGone = Signal()
        let leadRan = Signal()
        var observation: SeamObservation?
        do {
            let center = SeamCenter()
            centerGone = center.gone
            observation = observePing(on: target, in: center, coalescing: .within(1_000)) { ping in
                if ping.index == 0 { leadRan.fire() }
            }
            SeamPing(0).post(in: center)
            SeamPing(1) { payloadGone.fire() }.post(in: center)
        }
        // A queued lead may be dropped instead: the center's death ends the observation. On the posting thread it ran
        // during the post.
        if target == .postingThread {
            #expect(await finishes(within: 10) { await leadRan.wait() }, "the lead never ran")
        }
        #expect(await finishes(within: 10) { await centerGone.wait() }, "the open window kept its center")
        #expect(await finishes(within: 10) { await payloadGone.wait() }, "the open window kept its payload")
        observation?.cancel()
    }

    /// A poster's throttle holds its center at most for its window, even when the window is empty (nothing to
    /// deliver): a center released after one leading post goes once the window ends.
    @Test func aCenterReleasedAfterAPostersLeadingPostGoesByTheWindowsEnd() async {
        let centerGone: Signal
        do {
            let center = SeamCenter()
            centerGone = center.gone
            SeamPing(0).post(in: center, coalescing: .within(0.1))
        }
        #expect(await finishes(within: 10) { await centerGone.wait() }, "the empty window kept its center")
    }

    /// `cancel()` racing a leading delivery and the window it opens, from another thread at a random moment among
    /// the posts: whatever the order, every payload is released (no delivery or burst outlives the observation) and
    /// nothing hangs.
    @Test(arguments: SeamTarget.allCases)
    func cancelRacingALeadingDeliveryLeavesNothingBehind(target: SeamTarget) async {
        let rounds = TestEnvironment.scaled(normal: 60, long: 600, sanitized: 15)
        let seed = UInt64.random(in: 0...UInt64.max)
        print("CoalescingSeamTests.cancelRacingALeadingDeliveryLeavesNothingBehind seed \(seed)")
        var random = SplitMix64(seed: seed)
        for round in 0..<rounds {
            let center = NotificationCenter()
            let releases = SeamCountDown(4)
            let window = Double(round % 3) * 0.001
            let observation = observePing(on: target, in: center, coalescing: .within(window)) { _ in }
            let spin = Int(random.next() % 2_000)
            let spins = Counter()
            await onThreads(2) { thread in
                if thread == 0 {
                    for index in 0..<4 { SeamPing(index) { releases.tick() }.post(in: center) }
                } else {
                    for _ in 0..<spin { spins.increment() }
                    observation.cancel()
                }
            }
            #expect(await finishes(within: 10) { await releases.wait() }, "round \(round): a payload was kept")
        }
    }

    /// A leading delivery queued behind a suspended queue, then `cancel()`: the handler never runs, and a wait for
    /// the lead ends once the queue drops it.
    @Test(arguments: [false, true])
    func aCancelledLeadingDeliveryQueuedBehindASuspendedQueueNeverRuns(operationQueue: Bool) async {
        let center = NotificationCenter()
        let calls = Counter()
        let dispatchQueue = DispatchQueue(label: "suspended")
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 1
        let token: NotificationToken
        if operationQueue {
            operations.isSuspended = true
            token = SeamPing.observe(in: center, delivery: .async(on: operations), coalescing: .within(1_000)) { _ in
                calls.increment()
            }
        } else {
            dispatchQueue.suspend()
            token = SeamPing.observe(in: center, delivery: .async(on: dispatchQueue), coalescing: .within(1_000)) {
                _ in calls.increment()
            }
        }
        let posted = Signal()
        let waiting = Task {
            try await awaitDelivery {
                SeamPing(0).post(in: center)
                SeamPing(1).post(in: center)
                posted.fire()
            }
        }
        await posted.wait()
        token.cancel()
        if operationQueue { operations.isSuspended = false } else { dispatchQueue.resume() }
        #expect(await finishes(within: 10) { _ = try? await waiting.value }, "the wait outlived the cancel")
        #expect(calls.count == 0, "a cancelled observation's lead ran")
    }

    /// An owner released on another thread while its main-actor, coalescing observation has a leading delivery queued
    /// and a window open: the delivery never reaches the handler, the next post ends the observation, and the
    /// window's payload is released.
    @Test func anOwnerReleasedOnAnotherThreadWhileALeadWaitsEndsItsThrottle() async {
        let center = NotificationCenter()
        let ownerGone = Signal()
        let calls = Counter()
        let payloadGone = Signal()
        let owner = Slot<SeamOwner>(SeamOwner { ownerGone.fire() })
        let observation = await MainActor.run {
            SeamPing.observeOnMainActor(for: owner.value!, in: center, coalescing: .within(1_000)) { _, _ in
                calls.increment()
            }
        }
        // From another thread while the main actor is busy with this job: the lead is queued there, and runs only
        // after the owner is gone.
        await MainActor.run {
            let done = onNewThread {
                SeamPing(0).post(in: center)
                owner.set(nil)
            }
            done.wait()
        }
        await ownerGone.wait()
        await onThreads(1) { _ in SeamPing(1) { payloadGone.fire() }.post(in: center) }
        let ended = await finishes(within: 10) {
            while await MainActor.run(body: { !center.typedObservations.isEmpty }) { await Task.yield() }
        }
        #expect(ended, "the observation outlived its owner")
        #expect(await finishes(within: 10) { await payloadGone.wait() }, "the window kept its payload")
        #expect(calls.count == 0, "the handler ran for a dead owner")
        withExtendedLifetime(observation) {}
    }

    /// An actor released on another thread while its coalescing observation has a window open: the actor goes (a
    /// burst holds its actor weakly), the window's payload is released, and no handler runs after.
    @Test func anActorReleasedWhileItsWindowIsOpenGoes() async {
        let center = NotificationCenter()
        let actorGone = Signal()
        let payloadGone = Signal()
        let leadRan = Signal()
        let host = Slot<SeamHost>(SeamHost { actorGone.fire() })
        let observation = SeamPing.observe(for: host.value!, in: center, coalescing: .within(1_000)) { _, ping in
            if ping.index == 0 { leadRan.fire() }
        }
        SeamPing(0).post(in: center)
        #expect(await finishes(within: 10) { await leadRan.wait() }, "the lead never ran")
        SeamPing(1) { payloadGone.fire() }.post(in: center)
        await onThreads(1) { _ in host.set(nil) }
        #expect(await finishes(within: 10) { await actorGone.wait() }, "the open window kept its actor")
        SeamPing(2).post(in: center)
        #expect(await finishes(within: 10) { await payloadGone.wait() }, "the window kept its payload")
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(observation) {}
    }

    // MARK: - More seams

    /// A poster's throttle in front of an observer's throttle: the leading post of each goes at once, and the
    /// poster's window delivery is the observer's next burst, waited for with the posts.
    @Test(arguments: SeamTarget.allCases)
    func aPostersThrottleInFrontOfAnObserversThrottleLeadsOnceAndEndsWithTheLast(target: SeamTarget) async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let observation = observePing(on: target, in: center, coalescing: .within(0.05)) { received.append($0.index) }
        let waited = await finishes(within: 10) {
            _ = try? await awaitDelivery {
                for index in 0..<5 { SeamPing(index).post(in: center, coalescing: .within(0.05)) }
            }
        }
        #expect(waited, "the wait hung")
        #expect(received.values == [0, 4])
        observation.cancel()
    }

    /// A plain handler that re-posts into a poster's throttle from inside its delivery: each re-post joins the window
    /// the previous delivery opened, and the wait covers the chain.
    @Test func aRepostIntoAPostersThrottleFromItsOwnDeliveryIsDeliveredAndAwaited() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = SeamPing.observe(in: center) { ping in
            received.append(ping.index)
            if ping.index < 3 { SeamPing(ping.index + 1).post(in: center, coalescing: .within(0.02)) }
        }
        let waited = await finishes(within: 10) {
            _ = try? await awaitDelivery { SeamPing(0).post(in: center, coalescing: .within(0.02)) }
        }
        #expect(waited, "the wait hung")
        #expect(received.values == [0, 1, 2, 3])
        token.cancel()
    }

    /// A main-actor, owner-bound, coalescing observer with a condition and the sender, fed from other threads while
    /// its owner lives: the owner checks queued on the main actor never reach the condition or the handler as a
    /// payload, and the last post arrives.
    @Test func ownerChecksQueuedOnTheMainActorNeverReachTheConditionOrHandler() async {
        let center = NotificationCenter()
        let owner = SeamOwner()
        let sender = SeamOwner()
        let received = Recorded<Int>()
        let last = 199
        let gotLast = Signal()
        let observation = await MainActor.run {
            SeamPing.observeOnMainActor(
                for: owner, from: sender, in: center, where: .matching { $0.index >= 0 }, coalescing: .afterPause(0.005)
            ) { _, ping in
                received.append(ping.index)
                if ping.index == last { gotLast.fire() }
            }
        }
        await onThreads(2) { thread in
            for index in 0...last where index % 2 == thread { SeamPing(index).post(from: sender, in: center) }
        }
        SeamPing(last).post(from: sender, in: center)
        #expect(await finishes(within: 10) { await gotLast.wait() }, "the last post never arrived")
        #expect(received.values.allSatisfy { (0...last).contains($0) })
        withExtendedLifetime((owner, sender, observation)) {}
    }

    /// Ending an observation whose throttle has a lead queued and a window open releases its handler (what it
    /// captures) at once, on every target: neither the sleeping window's timer nor the queued lead keeps it.
    @Test(arguments: SeamTarget.allCases)
    func anEndedThrottlingObservationReleasesItsHandler(target: SeamTarget) async {
        let center = NotificationCenter()
        let handlerGone = Signal()
        var observation: SeamObservation?
        do {
            let probe = SeamOwner { handlerGone.fire() }
            observation = observePing(on: target, in: center, coalescing: .within(1_000)) { _ in
                withExtendedLifetime(probe) {}
            }
        }
        SeamPing(0).post(in: center)
        SeamPing(1).post(in: center)
        observation?.cancel()
        observation = nil  // the token too: what remains is the package's
        #expect(await finishes(within: 10) { await handlerGone.wait() }, "the ended observation kept its handler")
    }

    /// A throttle's lead keeps its post's place in its target's one order: on a queue or actor shared with an
    /// observer that does not coalesce, registered first, the lead comes right after that observer's call for the same
    /// post, before the next post's, and the window's delivery after both.
    @Test(arguments: ["dispatch queue", "actor", "main actor"])
    func aLeadKeepsItsPlaceInItsTargetsOrder(target: String) async throws {
        let center = NotificationCenter()
        let log = Recorded<String>()
        let queue = DispatchQueue(label: "shared")
        let host = SeamHost()
        let plainCall: @Sendable (SeamPing) -> Void = { log.append("plain \($0.index)") }
        let throttledCall: @Sendable (SeamPing) -> Void = { log.append("throttled \($0.index)") }
        let observations: [@Sendable () -> Void]
        switch target {
        case "dispatch queue":
            let plain = SeamPing.observe(in: center, delivery: .async(on: queue), plainCall)
            let throttled = SeamPing.observe(
                in: center, delivery: .async(on: queue), coalescing: .within(0.05), throttledCall)
            observations = [{ plain.cancel() }, { throttled.cancel() }]
        case "actor":
            let plain = SeamPing.observe(for: host, in: center) { _, ping in plainCall(ping) }
            let throttled = SeamPing.observe(for: host, in: center, coalescing: .within(0.05)) { _, ping in
                throttledCall(ping)
            }
            observations = [{ plain.cancel() }, { throttled.cancel() }]
        default:
            let plain = SeamPing.observeOnMainActor(in: center) { plainCall($0) }
            let throttled = SeamPing.observeOnMainActor(in: center, coalescing: .within(0.05)) { throttledCall($0) }
            observations = [{ plain.cancel() }, { throttled.cancel() }]
        }
        try await awaitDelivery {
            for index in 0..<3 { SeamPing(index).post(in: center) }
        }
        #expect(log.values == ["plain 0", "throttled 0", "plain 1", "plain 2", "throttled 2"])
        for cancel in observations { cancel() }
    }
}
