import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// An `async` handler runs one call at a time, in post order, whichever thread, actor or handler posts.
@Suite struct AsyncHandlerOrderTests {
    /// Posts from three threads, the main actor, and re-posts from inside the handler: each source in order, every
    /// post exactly once, the handler never overlapping itself.
    @Test func postsFromThreadsTheMainActorAndTheHandlerArriveInOrderWithoutOverlap() async {
        let center = NotificationCenter()
        let perSource = 300
        let reposts = perSource / 4
        let total = 4 * perSource + reposts
        let received = Recorded<Int>()
        let overlap = AsyncHandlerTests.Overlap()
        let tally = CountdownTally(total)
        let token = NumberPosted.observe(in: center) { value async in
            overlap.enter()
            if value % 7 == 0 { await Task.yield() }  // suspends mid-delivery: the next one must still wait
            received.append(value)
            // Re-posts from inside the handler (source 9), for every fourth post of source 0.
            if value / 1_000_000 == 0, value % 4 == 0 { NumberPosted.post(9_000_000 + value / 4, in: center) }
            overlap.leave()
            tally.bump()
        }
        async let mainActorPosts: Void = { @MainActor in
            for index in 0..<perSource { NumberPosted.post(3_000_000 + index, in: center) }
        }()
        await onThreads(3) { thread in
            for index in 0..<perSource { NumberPosted.post(thread * 1_000_000 + index, in: center) }
        }
        await mainActorPosts
        await waitOrRecordTimeout(tally.reached, "all \(total) deliveries")
        let values = received.values
        #expect(values.count == total, "\(values.count) deliveries, \(total) expected")
        #expect(Set(values).count == values.count, "a delivery was duplicated")
        for source in 0..<4 {
            expectSourceInOrder(
                values, source: source, expected: (0..<perSource).map { source * 1_000_000 + $0 }, "thread")
        }
        expectSourceInOrder(values, source: 9, expected: (0..<reposts).map { 9_000_000 + $0 }, "re-posts")
        // Each re-post comes after the delivery that made it.
        for repost in 0..<reposts {
            if let made = values.firstIndex(of: repost * 4), let delivered = values.firstIndex(of: 9_000_000 + repost) {
                #expect(made < delivered)
            }
        }
        #expect(!overlap.everOverlapped, "the async handler overlapped itself")
        withExtendedLifetime(token) {}
    }

    /// Posts in pairs from one thread, so that the drain task often ends (nothing queued) and the next post starts
    /// another: the hand-over never reorders or overlaps.
    @Test func drainTaskHandOverKeepsOrder() async {
        let center = NotificationCenter()
        let rounds = 400
        let received = Recorded<Int>()
        let overlap = AsyncHandlerTests.Overlap()
        let tally = CountdownTally(rounds * 2)
        let token = NumberPosted.observe(in: center) { value async in
            overlap.enter()
            received.append(value)
            overlap.leave()
            tally.bump()
        }
        // Posts in pairs from one thread, with the drain task often ending between them (nothing queued).
        let returned = runOnAnotherThreadAndWait {
            for round in 0..<rounds {
                NumberPosted.post(2 * round, in: center)
                NumberPosted.post(2 * round + 1, in: center)
            }
        }
        #expect(returned)
        await waitOrRecordTimeout(tally.reached, "all deliveries")
        #expect(received.values == Array(0..<(2 * rounds)))
        #expect(!overlap.everOverlapped)
        withExtendedLifetime(token) {}
    }
}
