import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Coalesced posts from several threads at once: every post must reach every observer in exactly one burst, and the
/// bursts of one key (type, center, sender) in post order, so that an observer never sees an older burst after a
/// newer one.
///
/// Each post carries one item, (thread, number); bursts merge by concatenating items in post order. Each thread posts
/// from one of two senders, so several threads share a key; each observer waits until it has received every item.
@Suite struct CoalescingTortureTests {
    static let threadCount = 4
    static let postsPerThread = TestEnvironment.scaled(normal: 1_000, long: 10_000, sanitized: 150)

    struct Item: Hashable {
        let thread: Int
        let number: Int
    }

    struct Tally: Notifiable {
        let items: [Item]
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // the time-limit trait, which turns a lost post into a failure
    @Test(.timeLimit(.minutes(2)), arguments: [0, 0.001])
    func concurrentCoalescedPostsReachEveryObserverOnceInPostOrderPerKey(delay: TimeInterval) async {
        let center = NotificationCenter()
        let total = Self.threadCount * Self.postsPerThread
        let observers = (0..<3).map { _ in Received(expecting: total) }
        let queue = DispatchQueue(label: "CoalescingTortureTests")
        let tokens = [
            Tally.observe(in: center) { observers[0].add($0.items) },
            Tally.observe(in: center, delivery: .async(on: queue)) { observers[1].add($0.items) },
            Tally.observe(in: center) { (tally: Tally) async in observers[2].add(tally.items) },
        ]
        let senders = [Sender(), Sender()]
        let base: NotificationCoalescing<Tally> = delay == 0 ? .nextTurn : .within(delay).trailingOnly
        let coalescing = base.merging { Tally(items: $0.items + $1.items) }
        await onThreads(Self.threadCount) { thread in
            for number in 0..<Self.postsPerThread {
                Tally(items: [Item(thread: thread, number: number)])
                    .post(from: senders[thread % 2], in: center, coalescing: coalescing)
            }
        }
        for (index, observer) in observers.enumerated() {
            await observer.waitUntilComplete()
            let items = observer.items.value
            #expect(Set(items).count == total, "observer \(index): an item repeated")
            for thread in 0..<Self.threadCount {
                let numbers = items.filter { $0.thread == thread }.map(\.number)
                let problem = LatestValueTortureTests.difference(numbers, from: Array(0..<Self.postsPerThread))
                #expect(problem == nil, "observer \(index), thread \(thread): \(problem ?? "")")
            }
        }
        withExtendedLifetime(tokens) {}
    }

    /// What one observer received, and a signal for when it has every item.
    final class Received: Sendable {
        let items = Protected<[Item]>([])
        let expecting: Int
        private let complete = AsyncStream<Void>.makeStream()

        init(expecting: Int) {
            self.expecting = expecting
        }

        func add(_ new: [Item]) {
            let count = items.withLock { items in
                items += new
                return items.count
            }
            if count >= expecting { complete.continuation.finish() }
        }

        func waitUntilComplete() async {
            for await _ in complete.stream {}
        }
    }

    /// Posts racing an observation's end, for an observer that coalesces: whatever the order, no burst outlives the
    /// observation, so every payload posted is released once the posts and `cancel()` have returned (not at the end of
    /// the burst's window, here 1,000 s). A payload kept holds the wait until the time limit (hence the availability)
    /// fails the test.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @Test(.timeLimit(.minutes(2)))
    func postsRacingAnObserversEndLeaveNoBurstBehind() async {
        let rounds = TestEnvironment.scaled(normal: 100, long: 1_000, sanitized: 30)
        for round in 0..<rounds {
            let center = NotificationCenter()
            let payloads = Balance()
            let token = Balance.Payload.observe(in: center, coalescing: .within(1_000).trailingOnly) { _ in }
            let stop = Counter()
            let posters = (0..<2).map { _ in
                onNewThread {
                    while stop.count == 0 { payloads.make().post(in: center) }
                }
            }
            await onThreads(1) { _ in
                // Ends at a different moment each round, among the posts.
                Thread.sleep(forTimeInterval: Double(round % 7) * 0.0002)
                token.cancel()
                stop.increment()
                for poster in posters { poster.wait() }
            }
            await payloads.waitUntilAllReleased()
        }
    }

    /// Payloads that count their releases, and a wait until every one made has been released.
    final class Balance: Sendable {
        final class Box: Sendable {
            let onRelease: @Sendable () -> Void
            init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
            deinit { onRelease() }
        }

        struct Payload: Notifiable {
            let box: Box
        }

        private let counts = Protected((made: 0, released: 0, waiting: false))
        private let balanced = Signal()

        func make() -> Payload {
            counts.withLock { $0.made += 1 }
            return Payload(
                box: Box { [self] in
                    let done = counts.withLock { counts in
                        counts.released += 1
                        return counts.waiting && counts.released == counts.made
                    }
                    if done { balanced.fire() }
                })
        }

        /// Returns once every payload made so far has been released; make no more meanwhile.
        func waitUntilAllReleased() async {
            let done = counts.withLock { counts in
                counts.waiting = true
                return counts.released == counts.made
            }
            if done { balanced.fire() }
            await balanced.wait()
        }
    }
}
