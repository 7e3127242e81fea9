import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Work the package has queued (a drain behind a backlog, a coalesced burst) keeps no actor alive: it holds actors
/// weakly, and strongly only while their code runs.
@Suite struct PendingWorkLifetimeTests {
    /// Payloads still held by someone, with a signal once none is.
    final class LivePayloads: Sendable {
        private let state = Protected((live: 0, closed: false))
        private let none = Signal()

        func payload(_ index: Int) -> Tracked {
            state.withLock { $0.live += 1 }
            return Tracked(index) { [self] in release() }
        }

        private func release() {
            let isLast = state.withLock { state in
                state.live -= 1
                return state.closed && state.live == 0
            }
            if isLast { none.fire() }
        }

        /// Returns once every payload made so far has been released; no payload may be made after.
        func allReleased() async {
            let isEmpty = state.withLock { state in
                state.closed = true
                return state.live == 0
            }
            if isEmpty { none.fire() }
            await none.wait()
        }
    }

    @Test func anActorReleasedWhilePostsKeepArrivingIsFreedAndWhatWaitedForItReleased() async {
        let center = NotificationCenter()
        var host: Host? = Host()
        let probe = WeakReference(host!)
        let calls = Counter()
        let delivering = Signal()
        let payloads = LivePayloads()
        Tracked.observe(for: host!, in: center) { _, _ in
            if calls.increment() == 100 { delivering.fire() }
            // A handler slower than the poster, so that a backlog stands and every batch ends with more waiting (a
            // pace, not a synchronisation: the outcome must not depend on it).
            Thread.sleep(forTimeInterval: 0.000_1)
        }
        let limit = 20_000
        let released = Counter()
        let postsAfterRelease = Counter()
        let posting = Task.detached {
            await onThread {
                // Posts until the actor is gone, each queued behind the drain's backlog; at most `limit` once the test
                // has let go of it.
                var index = 0
                while probe.object != nil, postsAfterRelease.value < limit {
                    index += 1
                    payloads.payload(index).post(in: center)
                    if released.value > 0 { postsAfterRelease.increment() }
                }
            }
        }
        await delivering.wait()
        host = nil
        released.increment()
        await posting.value
        #expect(probe.object == nil, "the actor outlived \(postsAfterRelease.value) posts made after it was released")
        // What was queued for the dead actor's observers is dropped once a drain finds it gone.
        Tracked(0).post(in: center)
        await payloads.allReleased()
    }

    actor BurstPoster {
        func post(in center: NotificationCenter) {
            Tracked(0).post(in: center, coalescing: .within(5).trailingOnly)
        }
    }

    @Test func aCoalescedBurstDoesNotKeepTheActorItEndsOn() async {
        let center = NotificationCenter()
        var poster: BurstPoster? = BurstPoster()
        let probe = WeakReference(poster!)
        await poster!.post(in: center)
        poster = nil
        #expect(probe.object == nil, "the burst, which ends on the actor's next turn, kept it alive")
    }
}

// A released actor in the middle of a batch, a burst whose actor dies, and a scope that ended with work pending.
extension PendingWorkLifetimeTests {
    /// The actor dies while its drain is in the middle of a batch, with a long backlog behind: the actor lives until
    /// that batch ends (at most 64 calls in all), then the rest is dropped and every payload released.
    @Test func anActorReleasedMidBatchGetsAtMostThatBatchAndItsBacklogIsReleased() async {
        let center = NotificationCenter()
        let host = Slot<Host>(Host())
        let probe = WeakReference(host.value)
        let calls = Counter()
        let firstRunning = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let backlog = 300
        let releases = Releases(expecting: backlog + 1)
        let heldByTheBatch = Slot<Bool>()
        let observation = Tracked.observe(for: host.value!, in: center) { _, payload in
            calls.increment()
            if payload.index == 0 {
                firstRunning.signal()
                proceed.wait()
            }
        }
        _ = onNewThread { releases.payload(0).post(in: center) }
        // On a thread of its own, so that nothing here waits for the cooperative pool, whose thread the first
        // handler is blocking.
        _ = onNewThread {
            firstRunning.wait()
            for index in 1...backlog { releases.payload(index).post(in: center) }
            host.set(nil)
            heldByTheBatch.set(probe.object != nil)
            proceed.signal()
        }
        await releases.wait()
        #expect(heldByTheBatch.value == true, "the running batch holds the actor")
        #expect(probe.object == nil, "the actor outlived its batch")
        #expect(calls.value <= DeliveryTarget.batchLimit, "\(calls.value) calls after the actor was released")
        #expect(center.typedObservations.isEmpty, "the dead actor's observation is still listed")
        withExtendedLifetime(observation) {}
    }

    /// A burst begun on an actor that dies before the burst ends: the actor is not kept, and the burst is still
    /// delivered (on the global executor) to an observer on the posting thread, with none of the poster's task-locals.
    @Test func aBurstWhoseActorDiesIsStillDeliveredWithoutThePostersTaskLocals() async {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let delivered = Signal()
        let token = Tracked.observe(in: center) { payload in
            seen.append("\(payload.index):\(QueuedHandlerContextTests.Context.tag ?? "none")")
            delivered.fire()
        }
        var poster: ActorPoster? = ActorPoster()
        let probe = WeakReference(poster)
        await poster!.postCoalesced(in: center)
        poster = nil
        #expect(probe.object == nil, "the pending burst kept its actor")
        // A bound against a lost delivery, not a pace: under ThreadSanitizer, with the whole suite running on two
        // cores, the burst's timer and the hop to the global executor took over 10 s to get a thread.
        #expect(await finishes(within: 60) { await delivered.wait() })
        #expect(seen.values == ["7:none"])
        withExtendedLifetime(token) {}
    }

    /// A delivery pending on a suspended queue keeps the `withHandler` scope it was posted in, and with it that
    /// scope's handler and whatever it captures, though the scope has ended and will never receive a report again.
    @Test func aPendingDeliveryDoesNotKeepAnEndedScopesHandlerAlive() async {
        let center = NotificationCenter()
        let queue = OperationQueue()
        queue.isSuspended = true
        let ran = Signal()
        let token = Tracked.observe(in: center, delivery: .async(on: queue)) { _ in ran.fire() }
        let probe = WeakReference<ReportCollector>(nil)
        do {
            let collector = ReportCollector()
            probe.object = collector
            let log: @Sendable (NotificationDiagnostics.Event) -> Void = { _ in Task { await collector.add() } }
            NotificationDiagnostics.withHandler(log) {
                Tracked(0).post(in: center)
            }
        }
        #expect(probe.object == nil, "the ended scope's handler, held by a pending delivery, kept what it captures")
        queue.isSuspended = false
        #expect(await finishes(within: 10) { await ran.wait() })
        withExtendedLifetime(token) {}
    }
}

extension PendingWorkLifetimeTests {
    // MARK: - Cancelling drops queued deliveries

    final class HeldObject: Sendable {}

    /// "Cancelling drops the deliveries still queued", and "However observations end, the package ... frees their
    /// handlers". With the queue busy, cancelling (and releasing) a queue observer releases its queued payloads, their
    /// sender and its handler (with whatever it captured) at once, as for an `async` observer, not when the queue gets
    /// round to skipping them.
    @Test func cancellingAQueueObserverReleasesWhatItsQueuedDeliveriesHold() {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        weak var weakPayload: HeldObject?
        weak var weakSender: Sender?
        weak var weakCaptured: HeldObject?
        do {
            let captured = HeldObject()
            weakCaptured = captured
            let token = Box<HeldObject>.observe(in: center, delivery: .async(on: queue)) { _, _ in
                withExtendedLifetime(captured) {}
            }
            let payload = HeldObject()
            let sender = Sender()
            weakPayload = payload
            weakSender = sender
            Box(value: payload).post(from: sender, in: center)
            token.cancel()
        }
        #expect(weakPayload == nil, "a cancelled observer's queued payload is still held")
        #expect(weakSender == nil, "a cancelled observer's queued sender is still held")
        #expect(weakCaptured == nil, "a cancelled observer's handler is still held")
        release.signal()
        queue.sync {}
        #expect(weakPayload == nil && weakSender == nil && weakCaptured == nil)
    }
}

extension PendingWorkLifetimeTests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    // MARK: - Cancelled observers hold nothing

    /// "Cancelling drops the deliveries still queued", and a cancelled queue observer's payloads, sender and handler
    /// are released at once. An observer that runs on the posting thread and is registered first cancels a queue
    /// observer during the post; the post then reaches the queue observer's target, which queues nothing for an
    /// observer that ended earlier in the post. A delivery queued after `cancel()` returned would keep the payload, the
    /// sender and the cancelled handler with what it captured alive until the queue got round to skipping the entry.
    @Test func observerCancelledEarlierInThePostGetsNothingQueuedThatHoldsItsPayload() {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        weak var weakPayload: HeldObject?
        weak var weakSender: Sender?
        weak var weakCaptured: HeldObject?
        let queued = Slot<NotificationToken>()
        let canceller = Box<HeldObject>.observe(in: center) { _ in
            queued.value?.cancel()
            queued.set(nil)
        }
        do {
            let captured = HeldObject()
            weakCaptured = captured
            queued.set(
                Box<HeldObject>.observe(in: center, delivery: .async(on: queue)) { _, _ in
                    withExtendedLifetime(captured) {}
                })
            let payload = HeldObject()
            let sender = Sender()
            weakPayload = payload
            weakSender = sender
            Box(value: payload).post(from: sender, in: center)
        }
        #expect(weakPayload == nil, "a payload was queued for an observer cancelled earlier in the post")
        #expect(weakSender == nil, "a sender was queued for an observer cancelled earlier in the post")
        #expect(weakCaptured == nil, "the cancelled observer's handler is held by a queued entry")
        release.signal()
        queue.sync {}
        #expect(weakPayload == nil && weakSender == nil && weakCaptured == nil)
        withExtendedLifetime(canceller) {}
    }

    // MARK: - Centers that die with deliveries queued

    /// "When a center is deallocated, Foundation releases the package's Foundation observers, and the package then
    /// drops their channels ... and releases their handlers." Deliveries queued for the main actor's observers of a
    /// center that dies before the main actor runs them must be dropped (not run for a dead center) and must not
    /// crash; another center's queued deliveries, queued after them, still arrive.
    @Test @MainActor func deliveriesQueuedForADeadCentersMainActorObserversAreDropped() async {
        let ran = Recorded<Int>()
        let other = NotificationCenter()
        let done = Signal()
        let otherToken = Play.observeOnMainActor(in: other) { _ in done.fire() }
        var token: NotificationToken?
        weak var dead: NotificationCenter?
        do {
            let center = NotificationCenter()
            dead = center
            token = Play.observeOnMainActor(in: center) { index in
                ran.append(index)
            }
            // Held weakly by the thread, so that the center goes with this scope, whenever the thread object does.
            let posts: @Sendable () -> Void = { [weak center] in
                guard let center else { return }
                for index in 1...100 { Play.post(index, in: center) }
            }
            #expect(runOnAnotherThreadAndWait(posts))
        }
        #expect(dead == nil, "the center is deallocated with its queued deliveries still waiting")
        // The token still holds its subscription, and with it the handler, as after `cancel()`; only the queue is
        // checked here.
        #expect(runOnAnotherThreadAndWait { Play.post(0, in: other) })
        await done.wait()
        #expect(ran.values.isEmpty, "handlers ran for a dead center's queued deliveries")
        token?.cancel()
        token = nil
        withExtendedLifetime(otherToken) {}
    }
}

extension PendingWorkLifetimeTests {
    // MARK: - Queues give back what they took

    /// An observer that coalesces what it receives, per sender, of a latest-value type keeps nothing for a sender once
    /// that sender's burst is delivered: posts from many short-lived senders, each delivered, leave its table empty.
    @Test func aCoalescingObserverKeepsNothingForSendersWhoseBurstsAreDelivered() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "PendingWorkLifetimeTests.senders")
        let received = Recorded<Int>()
        let token = LatestCount.observe(in: center, delivery: .async(on: queue), coalescing: .afterPause(0.001)) {
            received.append($0.count)
        }
        for index in 1...200 {
            let sender = ReusableObject()
            try await awaitDelivery(in: center) { LatestCount(count: index).post(from: sender, in: center) }
            queue.sync {}  // behind the drain that ran the delivery, and let go of it
        }
        let observation = ObserverRegistry.shared.state.withLock { _ in token.observation }
        let keys = (observation as? Subscription<LatestCount>)?.coalescingKeyCount
        #expect(received.values == Array(1...200))
        #expect(keys == 0, "the observer's table kept \(keys.map(String.init) ?? "no") keys for senders gone quiet")
    }

    /// A standing backlog (two queued, one taken, for ever) keeps the queue's memory bounded.
    @Test func standingBacklogKeepsTheQueueBounded() {
        var queue = FIFO<Int>()
        var largest = 0
        queue.append(0)
        for item in 1...200_000 {
            queue.append(item)
            _ = queue.take()
            largest = max(largest, queue.capacityUsed)
        }
        #expect(queue.count == 1)
        #expect(largest <= 64, "the slots of taken items are given back")
    }
}
