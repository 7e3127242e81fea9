import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The second adversarial review of the delivery core (`DeliveryTarget`, the registry's target counting). Each test
/// states the promise of the Guarantees article it checks; each finding was fixed (the main actor observed as an
/// actor, a drain cancelled by `cancelAllOperations()`, entries queued for observers cancelled earlier in the post, a
/// queue labelled like the main queue).
@Suite struct Adversarial2Tests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    final class Tracked: Sendable {}

    // MARK: - One order per target: the main actor is one target

    /// "Observers that run on the same serial target, for the same center, see that center's posts in one order: the
    /// main actor, ..., or one actor." An observer isolated to `MainActor.shared` with `observe(for:)` runs on the
    /// main actor, but gets a target of its own (`.actor(MainActor.shared)`), apart from the `observeOnMainActor`
    /// target. A main-actor handler that posts again during a post made on the main actor is queued on its own
    /// target (it is running) but runs at once on the other one, so the second observer sees the nested post before
    /// the outer one: [10, 1] against [1, 10].
    @Test @MainActor func observerIsolatedToMainActorSharedSharesTheMainActorsOrder() async {
        let center = NotificationCenter()
        let first = Recorded<Int>()
        let second = Recorded<Int>()
        let done = Signal()
        let token = Play.observeOnMainActor(in: center) { index in
            first.append(index)
            if index == 1 { Play.post(10, in: center) }
            if index == 10 { done.fire() }
        }
        let observation = Play.observe(for: MainActor.shared, in: center) { _, index in
            second.append(index)
        }
        Play.post(1, in: center)
        await done.wait()
        #expect(first.values == [1, 10])
        #expect(second.values == first.values, "two observers on the main actor of one center saw two orders")
        withExtendedLifetime(token) {}
        observation.cancel()
    }

    // MARK: - Lost wake-ups

    /// "Observers on one queue ... nothing is lost." A drain on an `OperationQueue` is an operation like any other:
    /// `cancelAllOperations()` (what a screen's queue does when it goes away, or a reset) cancels it before it
    /// starts, so it never runs; the target still believes a drain is scheduled (`isScheduled`), so no later post
    /// schedules another, and every later delivery to every observer on that queue (for that center) is lost for
    /// good. Foundation's own `addObserver(forName:object:queue:using:)` loses only the cancelled posts.
    @Test func observerOnAnOperationQueueStillReceivesPostsMadeAfterCancelAllOperations() {
        let center = NotificationCenter()
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let received = Recorded<Int>()
        let token = Play.observe(in: center, delivery: .async(on: queue)) { index in received.append(index) }
        queue.isSuspended = true
        Play.post(1, in: center)
        queue.cancelAllOperations()
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        // Whatever happened to 1, a post made now must arrive: the queue is running and empty.
        Play.post(2, in: center)
        // Serial queue: a drain scheduled by the post runs before this barrier finishes.
        queue.addOperation {}
        queue.waitUntilAllOperationsAreFinished()
        #expect(received.values.contains(2), "a post made after cancelAllOperations() never reached the observer")
        withExtendedLifetime(token) {}
    }

    // MARK: - Cancelled observers hold nothing

    /// "Cancelling drops the deliveries still queued" (and the first review's fix: a cancelled queue observer's
    /// payloads, sender and handler are released at once). An observer that runs on the posting thread and is
    /// registered first cancels a queue observer during the post; the post then reaches the queue observer's target,
    /// which once queued a delivery for it anyway, after `cancel()` returned, so that the payload, the sender and the
    /// cancelled handler with what it captured stayed alive until the queue got round to skipping the entry.
    @Test func observerCancelledEarlierInThePostGetsNothingQueuedThatHoldsItsPayload() {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        weak var weakPayload: Tracked?
        weak var weakSender: Sender?
        weak var weakCaptured: Tracked?
        let queued = Slot<NotificationToken>()
        let canceller = Box<Tracked>.observe(in: center) { _ in
            queued.value?.cancel()
            queued.set(nil)
        }
        do {
            let captured = Tracked()
            weakCaptured = captured
            queued.set(
                Box<Tracked>.observe(in: center, delivery: .async(on: queue)) { _, _ in
                    withExtendedLifetime(captured) {}
                })
            let payload = Tracked()
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

    // MARK: - The main queue is told by identity

    /// "`DispatchQueue.main` is one target however it is read", and main-queue handlers run on the main thread. On
    /// Linux the main queue is told by its label, so a queue of the user's that happens to carry the main queue's
    /// label ("com.apple.main-thread") is taken for the main queue: when it registers first, the shared target drains
    /// on it, and the handlers of `DispatchQueue.main` observers run on that queue's thread, off the main thread.
    @Test func aQueueLabelledLikeTheMainQueueIsNotTheMainQueue() async {
        let center = NotificationCenter()
        let impostor = DispatchQueue(label: DispatchQueue.main.label)
        let onImpostor = DispatchSpecificKey<Bool>()
        impostor.setSpecific(key: onImpostor, value: true)
        let mainHandlerOnImpostor = Recorded<Bool>()
        let done = Signal()
        let tokens = [
            Play.observe(in: center, delivery: .async(on: impostor)) { _ in },
            Play.observe(in: center, delivery: .async(on: DispatchQueue.main)) { _ in
                mainHandlerOnImpostor.append(DispatchQueue.getSpecific(key: onImpostor) == true)
                done.fire()
            },
        ]
        Play.post(1, in: center)
        await done.wait()
        #expect(mainHandlerOnImpostor.values == [false], "a DispatchQueue.main handler ran on another queue")
        withExtendedLifetime(tokens) {}
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

    // MARK: - Seeded interleavings on the main actor

    enum Pause: Notifiable {
        typealias Payload = Int
    }

    /// "One order per target", "nothing is lost", and a post made on the main actor with at most one batch waiting
    /// delivers itself before it returns. Seeded: posts of two types from another thread, from the main actor, and
    /// from inside handlers (nested), with bursts longer than a batch; three observers of two types on the main actor.
    /// Every observer must see every post of its types exactly once, and all must agree on one order.
    @Test @MainActor func seededMainActorInterleavingsKeepOneOrderAndLoseNothing() async {
        let seed =
            UInt64(ProcessInfo.processInfo.environment["TYPED_NOTIFICATIONS_SEED"] ?? "")
            ?? UInt64.random(in: 1...UInt64.max)
        print("seededMainActorInterleavingsKeepOneOrderAndLoseNothing seed: \(seed)")
        var rng = SplitMix(seed)
        let center = NotificationCenter()
        let logs = [Recorded<Int>(), Recorded<Int>(), Recorded<Int>()]
        let done = Signal()
        let pausesDone = Signal()
        let sentinel = 1_000_000
        func handler(_ log: Recorded<Int>, nests: Bool) -> @MainActor @Sendable (Int) -> Void {
            { index in
                if index == 2 * sentinel {
                    pausesDone.fire()
                    return
                }
                log.append(index)
                if nests, index % 5 == 0, index < 500_000 { Pause.post(index + 500_000, in: center) }
                if index == sentinel { done.fire() }
            }
        }
        let tokens = [
            Play.observeOnMainActor(in: center, handler(logs[0], nests: true)),
            Pause.observeOnMainActor(in: center, handler(logs[1], nests: false)),
            Play.observeOnMainActor(in: center, handler(logs[2], nests: false)),
        ]
        var next = 1
        var syncMisses: [Int] = []
        for _ in 0..<60 {
            switch rng.next() % 3 {
            case 0:
                let count = Int(rng.next() % 80) + 1
                let first = next
                next += count
                #expect(
                    runOnAnotherThreadAndWait {
                        for index in first..<(first + count) { Play.post(index, in: center) }
                    })
            case 1:
                let index = next
                next += 1
                Play.post(index, in: center)
                if !logs[0].values.contains(index) { syncMisses.append(index) }
            default:
                await Task.yield()
            }
        }
        #expect(runOnAnotherThreadAndWait { Play.post(sentinel, in: center) })
        await done.wait()
        // Pauses posted from handlers are queued behind what waited when they were made, the Play sentinel perhaps
        // included: one more Pause, queued behind all of them, tells when they have run.
        #expect(runOnAnotherThreadAndWait { Pause.post(2 * sentinel, in: center) })
        await pausesDone.wait()
        let posted = Array(1..<next) + [sentinel]
        let play0 = logs[0].values
        let play2 = logs[2].values
        #expect(play0 == play2, "two main-actor observers of one type saw two orders (seed \(seed))")
        #expect(play0.sorted() == posted, "lost or duplicated deliveries (seed \(seed))")
        let nested = play0.filter { $0 % 5 == 0 && $0 < 500_000 }.map { $0 + 500_000 }
        #expect(logs[1].values.sorted() == nested.sorted(), "nested posts lost or duplicated (seed \(seed))")
        print("posts made on the main actor that did not deliver themselves before returning: \(syncMisses.count)")
        withExtendedLifetime(tokens) {}
    }
}

struct SplitMix {
    private var state: UInt64
    init(_ seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
