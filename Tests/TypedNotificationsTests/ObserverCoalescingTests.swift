import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Coalescing an observer asks for (`coalescing:` on an observing form): whatever the poster does, the observer gets
// the latest payload of each burst of the posts it receives, where its handler runs. Windows are generous and the tests wait
// with `awaitDelivery`, never a sleep; the one test that needs posts spread in time (a pause) spaces them far below
// the pause.

/// A reading from one of several probes, for coalescing per sender.
struct ProbeReading: Notifiable {
    typealias Sender = Probe
    let value: Int
}

final class Probe: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

@Suite struct ObserverCoalescingTests {
    /// A main-actor observer that coalesces ends at the next post once its owner is gone, even while posts from
    /// another thread keep its burst from ending: each post has the observer's target check the owner, which loads
    /// only there.
    @MainActor @Test func aDeadOwnersCoalescingMainActorObservationEndsAtTheNextPost() async {
        let center = NotificationCenter()
        var owner: CallbackOwner? = CallbackOwner {}
        if let owner {
            Tracked.observeOnMainActor(for: owner, in: center, coalescing: .afterPause(0.2)) { _, _ in }
        }
        owner = nil
        #expect(center.typedObservations.count == 1)
        let ended = Task.detached { () -> Int? in
            // A post every 50 ms, far closer together than the pause, for up to 2 s.
            for index in 0..<40 {
                Tracked(index).post(in: center)
                try? await Task.sleep(nanoseconds: 50_000_000)
                if center.typedObservations.isEmpty { return index }
            }
            return nil
        }
        let endedAfter = await ended.value
        #expect(endedAfter != nil, "the observation outlived its owner while posts kept coming")
        #expect((endedAfter ?? .max) < 20)
    }

    /// Every burst of posts made together reaches the observer once, with the latest payload, wherever it runs.
    @Test(arguments: ObservingTarget.allCases)
    func postsMadeTogetherReachTheObserverOnceWithTheLatest(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let observation = observeTracked(on: target, in: center, coalescing: .within(0.5).trailingOnly) {
            received.append($0.index)
        }
        try await awaitDelivery { for index in 0..<20 { Tracked(index).post(in: center) } }
        #expect(received.values == [19])
        observation.cancel()
    }

    /// `.within(_:).trailingOnly` is a throttle without its leading delivery: a burst ends its window after its first
    /// post, so posts that keep coming are delivered once per window.
    @Test func trailingOnlyWithinDeliversOncePerWindowWhilePostsKeepComing() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observe(in: center, coalescing: .within(0.05).trailingOnly) { received.append($0.index) }
        try await awaitDelivery { for index in 0..<3 { Tracked(index).post(in: center) } }
        try await awaitDelivery { for index in 3..<6 { Tracked(index).post(in: center) } }
        #expect(received.values == [2, 5])
        token.cancel()
    }

    /// `.afterPause(_:)` is a debounce: each post restarts the wait, so posts closer together than the pause are
    /// delivered once, after the last of them, even when they go on for longer than the pause.
    @Test func afterPauseWaitsUntilThePostsStop() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let delivered = Signal()
        let pause = 1.0
        let started = DispatchTime.now().uptimeNanoseconds
        let elapsed = Recorded<Double>()
        let token = Tracked.observe(in: center, coalescing: .afterPause(pause)) { tracked in
            elapsed.append(Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9)
            received.append(tracked.index)
            delivered.fire()
        }
        // 10 posts 0.15 s apart: 1.35 s in all, longer than the pause, each well within it of the one before. On a
        // thread of their own, so that the spacing blocks no thread of the cooperative pool.
        await onThread {
            for index in 0..<10 {
                if index > 0 { Thread.sleep(forTimeInterval: 0.15) }
                Tracked(index).post(in: center)
            }
        }
        #expect(await finishes(within: 30) { await delivered.wait() })
        #expect(received.values == [9])
        #expect(
            (elapsed.values.first ?? 0) >= 1.35 + pause - 0.01, "delivered \(elapsed.values) s after the first post")
        token.cancel()
    }

    /// On the main actor, `.nextTurn` makes the posts of one main-actor job one delivery, at its next turn.
    @Test @MainActor func nextTurnOnTheMainActorDeliversOncePerJob() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observeOnMainActor(in: center, coalescing: .nextTurn) { received.append($0.index) }
        try await awaitDelivery {
            for index in 0..<50 { Tracked(index).post(in: center) }
            #expect(received.values.isEmpty)
        }
        #expect(received.values == [49])
        token.cancel()
    }

    /// A poster's coalescing and an observer's compose: the observer coalesces the poster's bursts.
    @Test func anObserverCoalescesWhatThePosterAlreadyCoalesced() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observe(in: center, coalescing: .within(0.5).trailingOnly) { received.append($0.index) }
        try await awaitDelivery {
            for index in 0..<10 { Tracked(index).post(in: center, coalescing: .within(0.01).trailingOnly) }
        }
        #expect(received.values == [9])
        token.cancel()
    }

    @Test func mergingCombinesTheObserversBurstInPostOrder() async throws {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let token = RowsDidChange.observe(
            in: center, coalescing: .within(0.5).trailingOnly.merging { RowsDidChange(rows: $0.rows + $1.rows) }
        ) { received.append($0.rows) }
        try await awaitDelivery { for row in 0..<5 { RowsDidChange(rows: [row]).post(in: center) } }
        #expect(received.values == [[0, 1, 2, 3, 4]])
        token.cancel()
    }

    /// The `where:` condition runs where the handler runs, on the burst's payload: a burst whose latest payload it
    /// rejects delivers nothing (an older one would be stale).
    @Test func theConditionJudgesTheBurstsLatestPayload() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observe(
            in: center, where: .matching { $0.index > 0 }, coalescing: .within(0.5).trailingOnly
        ) {
            received.append($0.index)
        }
        try await awaitDelivery { for index in [3, 2, 0] { Tracked(index).post(in: center) } }
        try await awaitDelivery { for index in [0, 5] { Tracked(index).post(in: center) } }
        #expect(received.values == [5])
        token.cancel()
    }

    /// Posts from different senders are different bursts, as for a poster's coalescing; `.acrossSenders` makes one.
    @Test func eachSenderHasItsBurstUnlessAcrossSenders() async throws {
        let center = NotificationCenter()
        let perSender = Recorded<String>()
        let across = Recorded<String>()
        let first = Probe(name: "first")
        let second = Probe(name: "second")
        let tokens = [
            ProbeReading.observe(in: center, coalescing: .within(0.5).trailingOnly) { sender, post in
                perSender.append("\(sender?.name ?? "-"):\(post.value)")
            },
            ProbeReading.observe(in: center, coalescing: .within(0.5).trailingOnly.acrossSenders) { sender, post in
                across.append("\(sender?.name ?? "-"):\(post.value)")
            },
        ]
        try await awaitDelivery {
            ProbeReading(value: 1).post(from: first, in: center)
            ProbeReading(value: 2).post(from: second, in: center)
            ProbeReading(value: 3).post(from: first, in: center)
        }
        #expect(perSender.values.sorted() == ["first:3", "second:2"])
        #expect(across.values == ["first:3"])
        for token in tokens { token.cancel() }
    }

    /// Cancelling drops the burst in progress: its handler is never called, and its payloads go at once, not at the
    /// window's end; a wait for the burst ends.
    @Test(arguments: ObservingTarget.allCases)
    func cancellingDropsTheBurstInProgressAtOnce(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let calls = Counter()
        let released = Signal()
        let observation = observeTracked(on: target, in: center, coalescing: .within(1_000).trailingOnly) { _ in
            calls.increment()
        }
        let waiting = Task {
            try await awaitDelivery { Tracked(0) { released.fire() }.post(in: center) }
        }
        observation.cancel()
        #expect(await finishes(within: 10) { await released.wait() }, "the burst kept its payload after cancel()")
        #expect(await finishes(within: 10) { _ = try? await waiting.value }, "the wait outlived the dropped burst")
        #expect(calls.count == 0)
    }

    /// An owner-bound observer whose owner is gone by the burst's end is not called, and its observation ends.
    @Test func anOwnerGoneBeforeTheBurstEndsIsNeverCalled() async throws {
        let center = NotificationCenter()
        let calls = Counter()
        let ownerGone = Signal()
        var owner: CallbackOwner? = CallbackOwner { ownerGone.fire() }
        let observation = Tracked.observe(for: owner!, in: center, coalescing: .within(0.2).trailingOnly) { _, _ in
            calls.increment()
        }
        try await awaitDelivery {
            Tracked(0).post(in: center)
            owner = nil
        }
        await ownerGone.wait()
        #expect(calls.count == 0)
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(observation) {}
    }

    /// An owner-bound observer that coalesces ends at the first post after its owner is gone, as any owner-bound
    /// observer: the post starts no burst, so its payload goes at once and a wait for it ends.
    @Test func aPostAfterTheOwnerIsGoneEndsTheObservationAtOnce() async throws {
        let center = NotificationCenter()
        let released = Signal()
        var owner: Sender? = Sender()
        let observation = Tracked.observe(for: owner!, in: center, coalescing: .within(1_000).trailingOnly) { _, _ in }
        owner = nil
        #expect(
            await finishes(within: 10) {
                _ = try? await awaitDelivery { Tracked(0) { released.fire() }.post(in: center) }
            },
            "the wait outlived the observation")
        #expect(await finishes(within: 10) { await released.wait() }, "the burst kept the payload")
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(observation) {}
    }

    /// A coalescing observer of a latest-value type starts with the kept value at once, then coalesces live posts.
    @Test func aLatestValueStartsTheObservationAtOnce() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        LatestCount(count: 1).post(in: center)
        let token = LatestCount.observe(in: center, coalescing: .within(0.5).trailingOnly) { received.append($0.count) }
        #expect(received.values == [1])
        try await awaitDelivery { for count in 2...4 { LatestCount(count: count).post(in: center) } }
        #expect(received.values == [1, 4])
        token.cancel()
    }

    /// A burst in progress keeps neither its center nor what its merge captures: a center released with a burst
    /// pending goes at once and ends the observation, whose handler is never called; a cancelled observation's merge
    /// is released at once.
    @Test func aBurstInProgressKeepsNeitherItsCenterNorItsMerge() async throws {
        let calls = Counter()
        let mergeReleased = Signal()
        let center = WeakReference<NotificationCenter>(nil)
        var token: NotificationToken?
        do {
            let observed = NotificationCenter()
            center.object = observed
            token = Tracked.observe(in: observed, coalescing: .within(1_000).trailingOnly) { _ in calls.increment() }
            Tracked(0).post(in: observed)
        }
        #expect(center.object == nil, "the burst kept its center alive")
        do {
            let observed = NotificationCenter()
            let capture = Tracked.Box { mergeReleased.fire() }
            let merging = NotificationCoalescing<Tracked>.within(1_000).trailingOnly.merging { earlier, later in
                withExtendedLifetime(capture) { later }
            }
            let merged = Tracked.observe(in: observed, coalescing: merging) { _ in calls.increment() }
            Tracked(1).post(in: observed)
            merged.cancel()
        }
        #expect(await finishes(within: 10) { await mergeReleased.wait() }, "the dropped burst kept its merge")
        #expect(calls.count == 0)
        withExtendedLifetime(token) {}
    }

    /// An observation that ends while its burst's payloads are merged (the merge is user code, at the burst's end)
    /// leaves nothing queued: its payload goes at once and a wait for the burst ends, while its queue is still
    /// suspended, as for an observation ended before its burst ends. The two posts are made in one main-actor job, so
    /// that `.nextTurn` makes them one burst, which the merge needs, however slow the machine.
    @Test @MainActor func anObservationEndedByItsMergeLeavesNothingQueued() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "suspended")
        queue.suspend()
        let released = Signal()
        let merged = Counter()
        let token = Slot<NotificationToken>()
        let merging = NotificationCoalescing<Tracked>.nextTurn.merging { _, later in
            merged.increment()
            token.value?.cancel()
            return later
        }
        token.set(Tracked.observe(in: center, delivery: .async(on: queue), coalescing: merging) { _ in })
        let waitEnded = Signal()
        Task { @MainActor in
            try await awaitDelivery {
                Tracked(0).post(in: center)
                Tracked(1) { released.fire() }.post(in: center)
            }
            waitEnded.fire()
        }
        #expect(await finishes(within: 10) { await waitEnded.wait() }, "the wait outlived the observation")
        #expect(await finishes(within: 10) { await released.wait() }, "the ended observation kept the payload")
        #expect(merged.count == 1, "the two posts were one burst")
        queue.resume()
        await waitEnded.wait()
    }

    /// An observer that coalesces shares its queue's one order with the queue's other observers: on a concurrent
    /// queue, its burst's delivery waits behind the handler that runs, and never runs at once with it. The running
    /// handler gives it half a second to start meanwhile; it must not.
    @Test(arguments: ["concurrent queue", "operation queue"])
    func aCoalescingObserverNeverRunsAtOnceWithItsQueuesOtherObservers(queue kind: String) async throws {
        let center = NotificationCenter()
        let queue: any NotificationDelivery.Queue =
            kind == "operation queue" ? OperationQueue() : DispatchQueue(label: "observers", attributes: .concurrent)
        let log = Recorded<String>()
        let coalescedStarted = DispatchSemaphore(value: 0)
        let plain = Tracked.observe(in: center, delivery: .async(on: queue)) { _ in
            log.append("plain starts")
            if coalescedStarted.wait(timeout: .now() + 0.5) == .success { log.append("coalesced ran meanwhile") }
            log.append("plain ends")
        }
        let coalesced = Tracked.observe(in: center, delivery: .async(on: queue), coalescing: .within(0.01).trailingOnly)
        { _ in
            log.append("coalesced")
            coalescedStarted.signal()
        }
        try await awaitDelivery { Tracked(0).post(in: center) }
        #expect(log.values == ["plain starts", "plain ends", "coalesced"])
        withExtendedLifetime((plain, coalesced, queue)) {}
    }

    /// An actor whose one job posts twice, with time between the posts for a task of the global executor to run.
    actor SlowPoster {
        func postTwice(in center: NotificationCenter) async throws {
            try await awaitDelivery {
                Tracked(0).post(in: center)
                usleep(100_000)  // the job goes on, without a turn between the posts
                Tracked(1).post(in: center)
            }
        }
    }

    /// For an observer without an actor of its own, `.nextTurn` ends the burst at the next turn of the actor the posts
    /// were made on, as a poster's: the posts of one job are one delivery, however long the job.
    @Test(arguments: [ObservingTarget.postingThread, .dispatchQueue, .asyncHandler])
    func nextTurnEndsAtTheNextTurnOfThePostingActor(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let observation = observeTracked(on: target, in: center, coalescing: .nextTurn) { received.append($0.index) }
        let poster = SlowPoster()
        try await poster.postTwice(in: center)
        #expect(received.values == [1])
        observation.cancel()
    }

    /// A burst's delivery is a post made where the burst ends: what a handler that runs during it posts joins the
    /// wait of the posts that joined the burst.
    @Test func whatAHandlerPostsDuringABurstsDeliveryJoinsTheWait() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observe(in: center, coalescing: .within(0.05).trailingOnly) { tracked in
            received.append(tracked.index)
            if tracked.index == 0 { Tracked(1).post(in: center) }
        }
        try await awaitDelivery { Tracked(0).post(in: center) }
        #expect(received.values == [0, 1])
        token.cancel()
    }
}
