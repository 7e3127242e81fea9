import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Several threads post two types to observers spread at random over several serial targets (queues of every kind
/// and actors): every observer gets each of its posts exactly once, and on every target a post's deliveries are
/// contiguous (it was queued to all of the target's observers in one step) and each thread's posts come in order.
@Suite struct TargetOrderTortureTests {
    struct Red: Notifiable {
        let thread: Int
        let index: Int
    }

    struct Blue: Notifiable {
        let thread: Int
        let index: Int
    }

    actor Target {}

    /// One target's log of deliveries, in the order its handlers ran.
    final class TargetLog: Sendable {
        let entries = Protected<[(observer: Int, thread: Int, index: Int, isRed: Bool)]>([])
    }

    @Test func observersSharingATargetSeeEachPostInOneStepAndEachThreadInOrder() async {
        let seed = TestEnvironment.runSeed
        var random = SplitMix64(seed: seed)
        let center = NotificationCenter()
        let threads = 4
        let postsPerThread = TestEnvironment.scaled(normal: 400, long: 4_000, sanitized: 100)
        let actors = [Target(), Target()]
        let deliveries: [NotificationDelivery] = [
            .async(on: DispatchQueue(label: "serial")),
            .async(on: DispatchQueue(label: "concurrent", attributes: .concurrent)),
            .async(on: OperationQueue()),
        ]
        let targetCount = deliveries.count + actors.count
        let logs = (0..<targetCount).map { _ in TargetLog() }
        let received = Counter()
        let observerCount = 10
        var tokens: [NotificationToken] = []
        var actorObservations: [OwnerBoundObservation] = []
        let allDelivered = DispatchSemaphore(value: 0)
        let posts = threads * postsPerThread
        let total = observerCount * posts / 2
        // Each thread posts Red and Blue in turns, so each type gets half the posts.
        for observer in 0..<observerCount {
            let isRed = random.chance(50)
            let target = random.below(targetCount)
            let log = logs[target]
            let record: @Sendable (Int, Int) -> Void = { thread, index in
                log.entries.withLock { $0.append((observer, thread, index, isRed)) }
                if received.increment() == total { allDelivered.signal() }
            }
            if target < deliveries.count {
                let delivery = deliveries[target]
                tokens.append(
                    isRed
                        ? Red.observe(in: center, delivery: delivery) { record($0.thread, $0.index) }
                        : Blue.observe(in: center, delivery: delivery) { record($0.thread, $0.index) })
            } else {
                let actor = actors[target - deliveries.count]
                actorObservations.append(
                    isRed
                        ? Red.observe(for: actor, in: center) { _, red in record(red.thread, red.index) }
                        : Blue.observe(for: actor, in: center) { _, blue in record(blue.thread, blue.index) })
            }
        }
        await onThreads(threads) { thread in
            for index in 0..<postsPerThread {
                if index.isMultiple(of: 2) {
                    Red(thread: thread, index: index).post(in: center)
                } else {
                    Blue(thread: thread, index: index).post(in: center)
                }
            }
        }
        await wait(for: allDelivered)
        #expect(received.value == total)
        var violations: [String] = []
        var perObserver: [Int: Set<[Int]>] = [:]
        for log in logs {
            for entry in log.entries.value {
                perObserver[entry.observer, default: []].insert([entry.thread, entry.index])
            }
        }
        for observer in 0..<observerCount where perObserver[observer]?.count != posts / 2 {
            violations.append(
                "observer \(observer) got \(perObserver[observer]?.count ?? 0) distinct posts of \(posts / 2)")
        }
        for (target, log) in logs.enumerated() {
            let entries = log.entries.value
            // Each post's deliveries on this target are contiguous, and each thread's posts come in order.
            var finished: Set<[Int]> = []
            var current: [Int]?
            var lastIndex = [Int](repeating: -1, count: threads)
            for entry in entries {
                let post = [entry.thread, entry.index]
                if post != current {
                    if let current { finished.insert(current) }
                    if finished.contains(post) { violations.append("target \(target): post \(post) split") }
                    if entry.index <= lastIndex[entry.thread] {
                        violations.append("target \(target): thread \(entry.thread) out of order at \(entry.index)")
                    }
                    lastIndex[entry.thread] = entry.index
                    current = post
                }
            }
        }
        #expect(
            violations.isEmpty,
            "\(violations.count) violations (seed \(TestEnvironment.hex(seed))): \(violations.prefix(5))")
        withExtendedLifetime((tokens, actors)) {}
        for observation in actorObservations { observation.cancel() }
    }
}
