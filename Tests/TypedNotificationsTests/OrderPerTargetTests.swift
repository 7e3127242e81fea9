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
