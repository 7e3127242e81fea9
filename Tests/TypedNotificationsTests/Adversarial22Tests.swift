import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Latest values, coalescing and `next`, tried the way users and reviewers break things: re-posting and re-observing
// from inside the replayed call, cancelling in it, owners and centers that die while the latest value waits, and
// coalesced re-posts from inside a burst's delivery.

@Suite struct Adversarial22Tests {
    struct Level: LatestValueNotifiable, Equatable {
        let value: Int
    }

    @Test func aHandlerThatRepostsDuringItsReplayReceivesTheRepostOnceAfterIt() {
        let center = NotificationCenter()
        Level(value: 1).post(in: center)
        let received = Recorded<Int>()
        let token = Level.observe(in: center) { level in
            received.append(level.value)
            if level.value == 1 { Level(value: 2).post(in: center) }
        }
        #expect(received.values == [1, 2])
        #expect(Level.latest(in: center) == Level(value: 2))
        withExtendedLifetime(token) {}
    }

    @Test func observingInsideTheReplayedCallStartsTheNewObservationWithTheLatestValue() {
        let center = NotificationCenter()
        Level(value: 1).post(in: center)
        let inner = Recorded<Int>()
        let innerToken = Slot<NotificationToken>()
        let outer = Level.observe(in: center) { _ in
            if innerToken.value == nil {
                innerToken.set(Level.observe(in: center) { inner.append($0.value) })
            }
        }
        #expect(inner.values == [1])
        Level(value: 2).post(in: center)
        #expect(inner.values == [1, 2])
        withExtendedLifetime(outer) {}
        innerToken.set(nil)
    }

    @Test func aHandlerThatCancelsItsOwnTokenEndsItAtTheFirstCallAfterTheTokenIsStored() {
        let center = NotificationCenter()
        Level(value: 1).post(in: center)
        let received = Recorded<Int>()
        let token = Slot<NotificationToken>()
        let observation = Level.observe(in: center) { level in
            received.append(level.value)
            token.value?.cancel()
        }
        token.set(observation)
        Level(value: 2).post(in: center)  // the replay ran before the token was stored: this post ends it
        Level(value: 3).post(in: center)
        #expect(received.values == [1, 2])
    }

    @Test func aReplayQueuedForAnOwnerThatDiesFirstIsNeverRun() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        Level(value: 1).post(in: center)
        var owner: Sender? = Sender()
        let received = Recorded<Int>()
        Level.observe(for: owner!, in: center, delivery: .async(on: queue)) { _, level in received.append(level.value) }
        owner = nil  // dies while the latest value waits on the busy queue
        release.signal()
        queue.sync {}
        #expect(received.values.isEmpty)
    }

    @Test func aReplayQueuedWhenTheCenterIsDeallocatedIsDropped() {
        var center: NotificationCenter? = NotificationCenter()
        let (queue, release) = busyQueue()
        Level(value: 1).post(in: center!)
        let received = Recorded<Int>()
        let token = Level.observe(in: center!, delivery: .async(on: queue)) { received.append($0.value) }
        center = nil
        release.signal()
        queue.sync {}
        #expect(received.values.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func clearingWhilePostsAndObservationsRaceLeavesEachObservationConsistent() async {
        let center = NotificationCenter()
        let seed = TestSeed.run
        print("Adversarial22Tests seed: \(seed)")
        let tokens = Protected<[NotificationToken]>([])
        let received = Protected<[[Int]]>([])
        await onThreads(3) { thread in
            var random = SplitMix64(seed: seed &+ UInt64(thread))
            for step in 0..<300 {
                switch thread {
                case 0: Level(value: step).post(in: center)
                case 1: if random.chance(30) { Level.clearLatest(in: center) }
                default:
                    let index = received.withLock { list in
                        list.append([])
                        return list.count - 1
                    }
                    let token = Level.observe(in: center) { level in received.withLock { $0[index].append(level.value) }
                    }
                    tokens.withLock { $0.append(token) }
                }
            }
        }
        // Every observation saw at most one value it did not see live (the latest, first), and never a value twice.
        for values in received.value {
            #expect(Set(values).count == values.count, "a value delivered twice, seed \(seed)")
        }
        tokens.withLock { $0.removeAll() }
    }

    @Test @MainActor func aCoalescedRepostFromInsideABurstsDeliveryStartsTheNextBurst() async {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { change in
            received.append(change.rows)
            if change.rows == [1] { RowsDidChange(rows: [2]).post(in: center, coalescing: .nextTurn) }
            if change.rows == [2] { done.fire() }
        }
        RowsDidChange(rows: [0]).post(in: center, coalescing: .nextTurn)
        RowsDidChange(rows: [1]).post(in: center, coalescing: .nextTurn)
        await done.wait()
        #expect(received.values == [[1], [2]])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func aMergeThatPostsRunsOutsideThePackagesLocks() async {
        let center = NotificationCenter()
        let done = Signal()
        let side = Recorded<Int>()
        let sideToken = CounterDidChange.observe(in: center) { side.append($0.count) }
        let token = RowsDidChange.observe(in: center) { _ in done.fire() }
        let merging = NotificationCoalescing<RowsDidChange>.nextTurn.merging { earlier, later in
            CounterDidChange(count: earlier.rows.count + later.rows.count).post(in: center)  // user code in a merge
            return RowsDidChange(rows: earlier.rows + later.rows)
        }
        for row in 0..<3 { RowsDidChange(rows: [row]).post(in: center, coalescing: merging) }
        await done.wait()
        #expect(side.values == [2, 3])
        withExtendedLifetime((token, sideToken)) {}
    }

    @Test func aWaitWhoseSequenceIsReleasedFirstStillReturnsWhatWasBuffered() async throws {
        let center = NotificationCenter()
        var changes: NotificationSequence<CounterDidChange>? = CounterDidChange.notifications(in: center)
        CounterDidChange(count: 4).post(in: center)
        let kept = changes!
        changes = nil
        #expect(try await kept.next(timeout: 60) == CounterDidChange(count: 4))
    }
}
