import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Coalesced posts (`post(coalescing:)`): a burst reaches each observer once, at its end, with the latest payload or
// the payloads merged. Bursts are made on an actor (the main actor, mostly), whose next turn ends them: the burst is
// then exactly the posts of one job, whatever the machine's speed. Concurrent bursts are in
// `TypedNotificationsReliabilityTests/CoalescingTortureTests`.

struct RowsDidChange: Notifiable, Equatable {
    let rows: [Int]
}

@Suite struct CoalescingTests {
    /// An actor that changes its model 200 times in one job.
    actor Model {
        func change(in center: NotificationCenter) {
            for row in 0..<200 { RowsDidChange(rows: [row]).post(in: center, coalescing: .nextTurn) }
        }
    }

    @Test func aBurstOnAnActorReachesEachObserverOnceAtTheActorsNextTurn() async {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let plain = Recorded<Int>()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { change in
            received.append(change.rows)
            done.fire()
        }
        let plainObserver = center.addObserver(forName: RowsDidChange.notificationName, object: nil, queue: nil) {
            notification in
            plain.append((notification.userInfo?[Notification.typedPayloadKey] as? RowsDidChange)?.rows.first ?? -1)
        }
        await Model().change(in: center)
        await done.wait()
        #expect(received.values == [[199]])
        #expect(plain.values == [199])  // one Foundation post for the burst
        center.removeObserver(plainObserver)
        withExtendedLifetime(token) {}
    }

    /// In nonisolated code, a burst ends as soon as a task picks it up: every post is in exactly one burst, and the
    /// last burst delivers the last post.
    @Test func nonisolatedBurstsAccountForEveryPostOnce() async {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { change in
            received.append(change.rows)
            if change.rows.last == 199 { done.fire() }
        }
        let merged = NotificationCoalescing<RowsDidChange>.nextTurn.merging { RowsDidChange(rows: $0.rows + $1.rows) }
        for row in 0..<200 { RowsDidChange(rows: [row]).post(in: center, coalescing: merged) }
        await done.wait()
        #expect(received.values.flatMap { $0 } == Array(0..<200))
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func aBurstOnTheMainActorEndsAtItsNextTurnAndReachesMainActorObserversThere() async {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let done = Signal()
        let token = RowsDidChange.observeOnMainActor(in: center) { change in
            MainActor.assertIsolated()
            received.append(change.rows)
            done.fire()
        }
        for row in 0..<200 { RowsDidChange(rows: [row]).post(in: center, coalescing: .nextTurn) }
        #expect(received.values.isEmpty)
        await done.wait()
        #expect(received.values == [[199]])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func mergingCombinesTheBurstsPayloadsInPostOrder() async {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { change in
            received.append(change.rows)
            done.fire()
        }
        let merged = NotificationCoalescing<RowsDidChange>.nextTurn.merging { RowsDidChange(rows: $0.rows + $1.rows) }
        for row in 0..<5 { RowsDidChange(rows: [row]).post(in: center, coalescing: merged) }
        await done.wait()
        #expect(received.values == [[0, 1, 2, 3, 4]])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func postsFromDifferentSendersAreDifferentBurstsUnlessTheBurstSpansSenders() async {
        let center = NotificationCenter()
        let left = Sender()
        let right = Sender()
        let perSender = Recorded<Int>()
        let bothDone = Counter()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { sender, change in
            perSender.append(change.rows[0] + (sender === left ? 0 : 100))
            bothDone.increment()
            if bothDone.count == 3 { done.fire() }
        }
        for row in 0..<3 {
            RowsDidChange(rows: [row]).post(from: left, in: center, coalescing: .nextTurn)
            RowsDidChange(rows: [row]).post(from: right, in: center, coalescing: .nextTurn)
        }
        let spanning = NotificationCoalescing<RowsDidChange>.nextTurn.acrossSenders
        RowsDidChange(rows: [7]).post(from: left, in: center, coalescing: spanning)
        RowsDidChange(rows: [8]).post(from: right, in: center, coalescing: spanning)
        await done.wait()
        // One burst per sender (latest 2 from each), and one across senders (latest 8, from `right`).
        #expect(perSender.values.sorted() == [2, 102, 108])
        withExtendedLifetime(token) {}
    }

    /// A burst across senders and the burst of posts without a sender are different bursts: neither absorbs the other.
    @Test @MainActor func aBurstAcrossSendersAndABurstWithoutASenderStayApart() async {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Recorded<String>()
        let count = Counter()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { from, change in
            received.append("\(change.rows[0]) from \(from === sender ? "sender" : from == nil ? "nobody" : "?")")
            if count.increment() == 2 { done.fire() }
        }
        RowsDidChange(rows: [1]).post(in: center, coalescing: .nextTurn)
        RowsDidChange(rows: [2]).post(from: sender, in: center, coalescing: .nextTurn.acrossSenders)
        await done.wait()
        #expect(received.values.sorted() == ["1 from nobody", "2 from sender"])
        withExtendedLifetime(token) {}
    }

    /// `.within` takes any number: negative and NaN end the burst at once, and `.infinity` (capped at 10⁹ seconds)
    /// sets a timer instead of trapping; such a burst is simply not delivered while the test runs.
    @Test @MainActor func anyTimeLimitIsAccepted() async {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Recorded<Int>()
        let done = Signal()
        let token = RowsDidChange.observe(in: center) { change in
            received.append(change.rows[0])
            if received.count == 2 { done.fire() }
        }
        RowsDidChange(rows: [1]).post(in: center, coalescing: .within(-1).trailingOnly)
        RowsDidChange(rows: [2]).post(from: sender, in: center, coalescing: .within(.nan).trailingOnly)
        RowsDidChange(rows: [3]).post(in: center, coalescing: .within(.infinity).trailingOnly.acrossSenders)
        await done.wait()
        #expect(received.values.sorted() == [1, 2])
        #expect(NotificationCoalescing<RowsDidChange>.within(.infinity).end == .after(1_000_000_000))
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func uncoalescedPostsMadeDuringABurstAreDeliveredBeforeIt() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "CoalescingTests")
        let received = Recorded<[Int]>()
        let done = Signal()
        let token = RowsDidChange.observe(in: center, delivery: .async(on: queue)) { change in
            received.append(change.rows)
            if change.rows == [3] { done.fire() }
        }
        RowsDidChange(rows: [1]).post(in: center, coalescing: .nextTurn)
        RowsDidChange(rows: [10]).post(in: center)
        RowsDidChange(rows: [3]).post(in: center, coalescing: .nextTurn)
        RowsDidChange(rows: [11]).post(in: center)
        await done.wait()
        #expect(received.values == [[10], [11], [3]])
        withExtendedLifetime(token) {}
    }

    /// A poster's throttle posts the first post of a quiet period at once, then the latest of the window at its end.
    @Test func aPostersThrottlePostsTheFirstPostAtOnceThenTheLatestPerWindow() async throws {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let token = RowsDidChange.observe(in: center) { change in received.append(change.rows) }
        try await awaitDelivery {
            for row in 0...2 { RowsDidChange(rows: [row]).post(in: center, coalescing: .within(0.05)) }
            #expect(received.values == [[0]], "the first post is posted at once")
        }
        #expect(received.values == [[0], [2]])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func aBurstWithATimeLimitIsDeliveredOnceAndTheNextPostStartsANewBurst() async {
        let center = NotificationCenter()
        let received = Recorded<[Int]>()
        let first = Signal()
        let second = Signal()
        let token = RowsDidChange.observe(in: center) { change in
            received.append(change.rows)
            (change.rows == [2] ? first : second).fire()
        }
        for row in 0...2 { RowsDidChange(rows: [row]).post(in: center, coalescing: .within(0.02).trailingOnly) }
        await first.wait()
        RowsDidChange(rows: [5]).post(in: center, coalescing: .within(0.02).trailingOnly)
        await second.wait()
        #expect(received.values == [[2], [5]])
        withExtendedLifetime(token) {}
    }

    @Test func aLatestValueTypeKeepsTheBurstAsItsLatestPost() async {
        let center = NotificationCenter()
        let done = Signal()
        let token = UnreadCount.observe(in: center) { unread in if unread.count == 9 { done.fire() } }
        for count in 1...9 { UnreadCount(count: count).post(in: center, coalescing: .nextTurn) }
        await done.wait()
        #expect(UnreadCount.latest(in: center) == UnreadCount(count: 9))
        withExtendedLifetime(token) {}
    }

    @Test func aBurstKeepsItsCenterAliveUntilItIsDelivered() async {
        var center: NotificationCenter? = NotificationCenter()
        weak var released: NotificationCenter?
        released = center
        let done = Signal()
        let token = RowsDidChange.observe(in: center!) { _ in done.fire() }
        RowsDidChange(rows: [1]).post(in: center!, coalescing: .nextTurn)
        center = nil
        await done.wait()
        withExtendedLifetime(token) {}
        _ = consume token
        #expect(released == nil)
    }
}

extension CoalescingTests {
    @Test @MainActor func reCoalescingFromInsideABurstsDeliveryMakesALaterBurstInOrder() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let done = Signal()
        let token = Burst.observe(in: center) { burst in
            received.append(burst.n)
            if burst.n == 3 {
                MainActor.assumeIsolated {
                    Burst(n: 4).post(in: center, coalescing: .nextTurn)
                    Burst(n: 5).post(in: center, coalescing: .nextTurn)
                }
            }
            if burst.n == 5 { done.fire() }
        }
        for n in 1...3 { Burst(n: n).post(in: center, coalescing: .nextTurn) }
        await done.wait()
        #expect(received.values == [3, 5])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func aMergeThatPostsRunsOutsideTheLocksAndItsPostIsDelivered() async {
        let center = NotificationCenter()
        let merges = Recorded<Int>()
        let received = Recorded<Int>()
        let done = Signal()
        let tokens = [
            Burst.observe(in: center) {
                received.append($0.n)
                done.fire()
            },
            LatestCount.observe(in: center) { merges.append($0.count) },
        ]
        let coalescing = NotificationCoalescing<Burst>.nextTurn.merging { earlier, later in
            LatestCount(count: LockDiscipline.locksHeld).post(in: center)
            return Burst(n: earlier.n + later.n)
        }
        for n in 1...4 { Burst(n: n).post(in: center, coalescing: coalescing) }
        await done.wait()
        #expect(received.values == [10])
        #expect(merges.values == [0, 0, 0])
        withExtendedLifetime(tokens) {}
    }

    @Test func aBurstKeepsItsOtherwiseReleasedCenterAliveUntilDelivered() async {
        let received = Recorded<Int>()
        let done = Signal()
        weak var weakCenter: NotificationCenter?
        var token: NotificationToken?
        do {
            let center = NotificationCenter()
            weakCenter = center
            token = Burst.observe(in: center) {
                received.append($0.n)
                done.fire()
            }
            Burst(n: 1).post(in: center, coalescing: .within(0.01).trailingOnly)
            Burst(n: 2).post(in: center, coalescing: .within(0.01).trailingOnly)
        }
        await done.wait()
        #expect(received.values == [2])
        token = nil
        _ = token
        _ = weakCenter
    }

    @Test func twoTypesSharingANameCoalesceSeparately() async {
        let center = NotificationCenter()
        let first = Recorded<Int>()
        let second = Recorded<Int>()
        let done = Signal()
        let both = Counter()
        let tokens = [
            Burst.observe(in: center) {
                first.append($0.n)
                both.increment()
                if both.count == 2 { done.fire() }
            },
            BurstSharingItsName.observe(in: center) {
                second.append($0.n)
                both.increment()
                if both.count == 2 { done.fire() }
            },
        ]
        Burst(n: 1).post(in: center, coalescing: .within(0.01).trailingOnly)
        BurstSharingItsName(n: 2).post(in: center, coalescing: .within(0.01).trailingOnly)
        Burst(n: 3).post(in: center, coalescing: .within(0.01).trailingOnly)
        await done.wait()
        #expect(first.values == [3])
        #expect(second.values == [2])
        withExtendedLifetime(tokens) {}
    }

    @Test func aCoalescedPostFromACancelledTaskIsStillDelivered() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let done = Signal()
        let token = Burst.observe(in: center) {
            received.append($0.n)
            done.fire()
        }
        let task = Task.detached {
            withUnsafeCurrentTask { $0?.cancel() }
            Burst(n: 1).post(in: center, coalescing: .within(0.01).trailingOnly)
        }
        await task.value
        await done.wait()
        #expect(received.values == [1])
        withExtendedLifetime(token) {}
    }

    @Test func replacedAndMergedBurstPayloadsAreReleasedOutsideThePackagesLocks() async {
        let locks = Recorded<Int>()
        let center = NotificationCenter()
        let done = Signal()
        let received = Counter()
        let token = LockCheckedPayloadPosted.observe(in: center) { _ in
            received.increment()
            if received.count == 2 { done.fire() }
        }
        for n in 0..<10 {
            LockCheckedPayloadPosted.post(
                LockCheckedPayload(n, locks), in: center, coalescing: .within(0.01).trailingOnly)
        }
        let merged = NotificationCoalescing<LockCheckedPayload>.within(0.01).trailingOnly.merging { _, later in later }
        let from = ReusableObject()
        for n in 10..<20 {
            LockCheckedPayloadPosted.post(LockCheckedPayload(n, locks), from: from, in: center, coalescing: merged)
        }
        await done.wait()
        // Wait for the bursts to let go of their payloads: their tasks end after delivering.
        for _ in 0..<10_000 where locks.count < 20 { await Task.yield() }
        #expect(locks.count == 20)
        #expect(locks.values.allSatisfy { $0 == 0 })
        withExtendedLifetime(token) {}
    }

    @Test func concurrentCoalescedPostsOfManyKeysEachEndInOneDeliveryOfTheirLatest() async throws {
        let center = NotificationCenter()
        let senders = (0..<8).map { _ in ReusableObject() }
        let lastByIndex = (0..<8).map { _ in Recorded<Int>() }
        let tokens = senders.enumerated().map { index, sender in
            Burst.observe(from: sender, in: center) { lastByIndex[index].append($0.n) }
        }
        // Each task awaits the delivery of the bursts its posts joined: once the group is done, every burst is.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for sender in senders {
                group.addTask {
                    try await awaitDelivery {
                        for n in 0..<500 {
                            Burst(n: n).post(from: sender, in: center, coalescing: .within(0.001).trailingOnly)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        // The last burst of each sender must end with 499.
        for index in 0..<8 {
            let values = lastByIndex[index].values
            #expect(values.last == 499)
            #expect(values == values.sorted())
        }
        withExtendedLifetime(tokens) {}
    }
}
