import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Observers that run on one serial target (the main actor, one queue, one actor) see the posts of their center in
/// one order, whatever thread posts them and whichever observer they reach.
@Suite struct OrderPerTargetTests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    enum Pause: Notifiable {
        typealias Payload = Int
    }

    @MainActor final class Player {
        var isPlaying = false
        var log: [String] = []
    }

    /// The view model of the report: one observer per type, posts from a background thread. Each observer draining
    /// its own queue ran all the plays, then all the pauses.
    @Test @MainActor func mainActorObserversOfOneViewModelSeeThePostOrder() async {
        let center = NotificationCenter()
        let player = Player()
        let done = Signal()
        let total = 200
        let play = Play.observeOnMainActor(in: center) { index in
            player.isPlaying = true
            player.log.append("play \(index)")
        }
        let pause = Pause.observeOnMainActor(in: center) { index in
            player.isPlaying = false
            player.log.append("pause \(index)")
            if index == total - 1 { done.fire() }
        }
        let posted = (0..<total).flatMap { ["play \($0)", "pause \($0)"] }
        #expect(
            runOnAnotherThreadAndWait {
                for index in 0..<total {
                    Play.post(index, in: center)
                    Pause.post(index, in: center)
                }
            })
        await done.wait()
        #expect(player.log == posted)
        #expect(player.isPlaying == false)
        withExtendedLifetime((play, pause)) {}
    }

    /// The same on one `DispatchQueue` (serial or not: each queue object serves its observers one at a time) and on
    /// one actor.
    @Test(arguments: ["serial queue", "concurrent queue", "operation queue", "main queue", "actor"])
    func observersOfOneTargetSeeThePostOrder(target: String) async {
        let center = NotificationCenter()
        let log = Recorded<String>()
        let done = Signal()
        let total = 200
        let record: @Sendable (String) -> Void = { entry in
            log.append(entry)
            if entry == "pause \(total - 1)" { done.fire() }
        }
        var tokens: [NotificationToken] = []
        var observations: [OwnerBoundObservation] = []
        switch target {
        case "actor":
            let actor = Journal()
            observations = [
                Play.observe(for: actor, in: center) { _, index in record("play \(index)") },
                Pause.observe(for: actor, in: center) { _, index in record("pause \(index)") },
            ]
            withExtendedLifetime(actor) {}
            await post(total, in: center)
            await done.wait()
            withExtendedLifetime(actor) {}
        default:
            let delivery: NotificationDelivery =
                switch target {
                case "serial queue": .async(on: DispatchQueue(label: "order"))
                case "concurrent queue": .async(on: DispatchQueue(label: "order", attributes: .concurrent))
                case "main queue": .async(on: DispatchQueue.main)
                default: .async(on: OperationQueue())
                }
            // The main queue read again for the second observer: one queue, whatever object the read returns.
            let second: NotificationDelivery = target == "main queue" ? .async(on: DispatchQueue.main) : delivery
            tokens = [
                Play.observe(in: center, delivery: delivery) { record("play \($0)") },
                Pause.observe(in: center, delivery: second) { record("pause \($0)") },
            ]
            await post(total, in: center)
            await done.wait()
        }
        #expect(log.values == (0..<total).flatMap { ["play \($0)", "pause \($0)"] })
        withExtendedLifetime(tokens) {}
        for observation in observations { observation.cancel() }
    }

    actor Journal {}

    private func post(_ total: Int, in center: NotificationCenter) async {
        await Task.detached {
            for index in 0..<total {
                Play.post(index, in: center)
                Pause.post(index, in: center)
            }
        }.value
    }

    /// With several threads posting, every observer on a target sees the same order: a post is queued to all of the
    /// target's observers in one step.
    @Test func observersOfOneQueueSeeOneOrderOfPostsFromManyThreads() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "order")
        let first = Recorded<Int>()
        let second = Recorded<Int>()
        let threads = 4
        let perThread = 500
        let done = Signal()
        let tokens = [
            Play.observe(in: center, delivery: .async(on: queue)) { first.append($0) },
            Play.observe(in: center, delivery: .async(on: queue)) { index in
                second.append(index)
                if second.count == threads * perThread { done.fire() }
            },
        ]
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<threads {
                group.addTask {
                    for index in 0..<perThread { Play.post(thread * perThread + index, in: center) }
                }
            }
        }
        await done.wait()
        #expect(first.count == threads * perThread)
        #expect(first.values == second.values)
        withExtendedLifetime(tokens) {}
    }

    /// A post made on the main actor runs what is queued for it first, unless more than a batch waits: then it is
    /// queued behind, so that a post never runs an unbounded backlog. Either way the order holds.
    @Test @MainActor func postOnTheMainActorBehindALongBacklogIsQueued() async {
        let center = NotificationCenter()
        let player = Player()
        let done = Signal()
        let backlog = DeliveryTarget.batchLimit + 1
        let token = Play.observeOnMainActor(in: center) { index in
            player.log.append("\(index)")
            if index == backlog { done.fire() }
        }
        #expect(runOnAnotherThreadAndWait { for index in 0..<backlog { Play.post(index, in: center) } })
        Play.post(backlog, in: center)
        #expect(player.log.isEmpty, "the backlog is longer than a batch: the post was queued behind it")
        await done.wait()
        #expect(player.log == (0...backlog).map { "\($0)" })
        withExtendedLifetime(token) {}
    }

    /// A post made from inside a handler that the main actor's queue is running runs what is still queued before it,
    /// then itself: every observer on the main actor sees the same order.
    @Test @MainActor func postFromInsideAQueuedHandlerKeepsOneOrder() async {
        let center = NotificationCenter()
        let first = Player()
        let second = Player()
        let done = Signal()
        let tokens = [
            Play.observeOnMainActor(in: center) { index in
                first.log.append("\(index)")
                if index == 1 { Play.post(10, in: center) }
            },
            Play.observeOnMainActor(in: center) { index in
                second.log.append("\(index)")
                if index == 10 { done.fire() }
            },
        ]
        #expect(runOnAnotherThreadAndWait { for index in 1...3 { Play.post(index, in: center) } })
        await done.wait()
        #expect(first.log == ["1", "2", "3", "10"])
        #expect(second.log == first.log)
        withExtendedLifetime(tokens) {}
    }
}

extension OrderPerTargetTests {
    @MainActor final class Log {
        var entries: [Int] = []
        var depth = 0
        var deepest = 0
    }

    // MARK: - One order per target

    /// Two main-actor observers of `Play` on `center`; the first posts 10 when it receives 1, the second fires `done`
    /// when it receives 10.
    @MainActor private func observeTwiceRepostingTen(
        in center: NotificationCenter, first: Log, second: Log, done: Signal
    ) -> [NotificationToken] {
        [
            Play.observeOnMainActor(in: center) { index in
                first.entries.append(index)
                if index == 1 { Play.post(10, in: center) }
            },
            Play.observeOnMainActor(in: center) { index in
                second.entries.append(index)
                if index == 10 { done.fire() }
            },
        ]
    }

    /// "Observers that run on the same serial target, for the same center, see that center's posts in one order."
    /// A post made on the main actor runs the main-actor observers synchronously; a post that the first of them makes
    /// (on the main actor) is queued behind the post it was made in, so that it cannot reach both observers before the
    /// outer post reaches the second (which would give the first [1, 10] and the second [10, 1]).
    @Test @MainActor func nestedPostFromASynchronouslyRunMainActorHandlerKeepsOneOrder() async {
        let center = NotificationCenter()
        let first = Log()
        let second = Log()
        let done = Signal()
        let tokens = observeTwiceRepostingTen(in: center, first: first, second: second, done: done)
        Play.post(1, in: center)
        #expect(first.entries == [1], "the post made on the main actor ran its observers before it returned")
        #expect(second.entries == [1])
        await done.wait()
        #expect(first.entries == [1, 10])
        #expect(second.entries == first.entries, "two main-actor observers of one center saw two orders")
        withExtendedLifetime(tokens) {}
    }

    actor Stage {
        var first: [Int] = []
        var second: [Int] = []
        let done = Signal()

        func post(_ index: Int, in center: NotificationCenter) {
            Play.post(index, in: center)
        }
    }

    /// The same on an actor: a post made on the actor runs its observers during the post, and a nested post from
    /// the first of them overtakes the outer post at the second.
    @Test func nestedPostFromASynchronouslyRunActorHandlerKeepsOneOrder() async {
        let center = NotificationCenter()
        let stage = Stage()
        let observations = [
            Play.observe(for: stage, in: center) { stage, index in
                stage.first.append(index)
                if index == 1 { Play.post(10, in: center) }
            },
            Play.observe(for: stage, in: center) { stage, index in
                stage.second.append(index)
                if index == 10 { stage.done.fire() }
            },
        ]
        await stage.post(1, in: center)
        await stage.done.wait()
        let (first, second) = await (stage.first, stage.second)
        #expect(first == [1, 10])
        #expect(second == first, "two observers isolated to one actor saw two orders")
        for observation in observations { observation.cancel() }
    }

    /// "main-actor, actor and async observers ... never overlap themselves." A main-actor handler of `Play` that
    /// posts another type (`Pause`, observed on the main actor too) on the main actor is called again, for the
    /// `Play`s still queued, before it returns: the `Pause` post runs the main actor's backlog synchronously, inside
    /// the handler that is running. Its own type's earlier payloads re-enter it, although it posted another type.
    @Test @MainActor func mainActorHandlerThatPostsAnotherTypeIsNotReenteredByItsOwnQueuedPayloads() async {
        let center = NotificationCenter()
        let play = Log()
        let done = Signal()
        let tokens = [
            Play.observeOnMainActor(in: center) { index in
                play.depth += 1
                play.deepest = max(play.deepest, play.depth)
                play.entries.append(index)
                Pause.post(index, in: center)
                play.depth -= 1
                if index == 3 { done.fire() }
            },
            Pause.observeOnMainActor(in: center) { _ in },
        ]
        #expect(runOnAnotherThreadAndWait { for index in 1...3 { Play.post(index, in: center) } })
        await done.wait()
        #expect(play.entries == [1, 2, 3])
        #expect(play.deepest == 1, "the Play handler was re-entered while it ran")
        withExtendedLifetime(tokens) {}
    }

    /// A post made on the main actor behind a short backlog runs the backlog, then itself; a post that a handler in
    /// that backlog makes (on the main actor) is queued behind everything queued before it, the outer post included,
    /// so that it cannot overtake the rest of the backlog (which would give the first observer 1, 10, 2 and the
    /// second 10, 1, 2).
    @Test @MainActor func postFromAHandlerInABacklogThatAPostRunsKeepsOneOrder() async {
        let center = NotificationCenter()
        let first = Log()
        let second = Log()
        let done = Signal()
        let tokens = observeTwiceRepostingTen(in: center, first: first, second: second, done: done)
        // Queued: this code holds the main actor.
        #expect(runOnAnotherThreadAndWait { for index in 1...2 { Play.post(index, in: center) } })
        Play.post(0, in: center)
        #expect(first.entries == [1, 2, 0], "the backlog, then the post, before it returned")
        await done.wait()
        #expect(first.entries == [1, 2, 0, 10])
        #expect(second.entries == first.entries, "two main-actor observers of one center saw two orders")
        withExtendedLifetime(tokens) {}
    }
}

extension OrderPerTargetTests {
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

    // MARK: - Seeded interleavings on the main actor

    /// "One order per target", "nothing is lost", and a post made on the main actor with at most one batch waiting
    /// delivers itself before it returns. Seeded: posts of two types from another thread, from the main actor, and
    /// from inside handlers (nested), with bursts longer than a batch; three observers of two types on the main actor.
    /// Every observer must see every post of its types exactly once, and all must agree on one order.
    @Test(.seeded) @MainActor func seededMainActorInterleavingsKeepOneOrderAndLoseNothing() async {
        let seed = TestSeed.run
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
