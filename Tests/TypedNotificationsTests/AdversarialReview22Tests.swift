import Foundation
import Testing
import TypedNotificationsTestSupport
import TypedNotificationsTesting

@testable import TypedNotifications

// Adversarial review of issue 22: latest values, coalescing, and `next` with a condition and a time limit.
// One center per test; waits are on signals, never on sleeps.

struct A22Count: LatestValueNotifiable, Equatable {
    let count: Int
}

/// A typed-only latest type: its typed posts never reach Foundation.
struct A22TypedOnly: LatestValueNotifiable, Equatable {
    static var postsThroughFoundation: Bool { false }
    let count: Int
}

/// A payload whose release records how many of the package's locks the releasing thread holds.
final class A22Tracked: Sendable {
    let id: Int
    let locksAtRelease: Recorded<Int>
    init(_ id: Int, _ locksAtRelease: Recorded<Int>) {
        self.id = id
        self.locksAtRelease = locksAtRelease
    }
    deinit { locksAtRelease.append(LockDiscipline.locksHeld) }
}

enum A22TrackedLatest: LatestValueNotifiable {
    typealias Payload = A22Tracked
}

enum A22TrackedPlain: Notifiable {
    typealias Payload = A22Tracked
}

struct A22Burst: Notifiable, Equatable {
    let n: Int
}

struct A22BurstOther: Notifiable, Equatable {
    static var notificationName: Notification.Name { A22Burst.notificationName }
    let n: Int
}

/// An object whose identity a test can reuse.
final class A22Object: Sendable {}

@Suite struct Adversarial22LatestTests {
    @Test func rePostingTheSameLatestTypeFromTheReplayedHandlerDeliversBothOnce() {
        let center = NotificationCenter()
        A22Count(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = A22Count.observe(in: center) { unread in
            received.append(unread.count)
            if unread.count == 1 { A22Count(count: 2).post(in: center) }
        }
        #expect(received.values == [1, 2])
        #expect(A22Count.latest(in: center) == A22Count(count: 2))
        A22Count(count: 3).post(in: center)
        #expect(received.values == [1, 2, 3])
        withExtendedLifetime(token) {}
    }

    @Test func rePostingPlainFromTheReplayedHandlerIsKeptAndDeliveredOnce() {
        let center = NotificationCenter()
        A22Count(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = A22Count.observe(in: center) { unread in
            received.append(unread.count)
            if unread.count == 1 {
                center.post(
                    name: A22Count.notificationName, object: nil,
                    userInfo: [Notification.typedPayloadKey: A22Count(count: 2)])
            }
        }
        #expect(received.values == [1, 2])
        #expect(A22Count.latest(in: center) == A22Count(count: 2))
        withExtendedLifetime(token) {}
    }

    @Test func observingInsideTheReplayedHandlerStartsTheInnerObserverWithTheLatestOnce() {
        let center = NotificationCenter()
        A22Count(count: 1).post(in: center)
        let outer = Recorded<Int>()
        let inner = Recorded<Int>()
        let innerToken = Slot<NotificationToken>()
        let token = A22Count.observe(in: center) { unread in
            outer.append(unread.count)
            if innerToken.value == nil {
                innerToken.set(A22Count.observe(in: center) { inner.append($0.count) })
            }
        }
        #expect(outer.values == [1])
        #expect(inner.values == [1])
        A22Count(count: 2).post(in: center)
        #expect(outer.values == [1, 2])
        #expect(inner.values == [1, 2])
        withExtendedLifetime(token) {}
        innerToken.set(nil)
    }

    @Test func cancellingTheTokenInsideTheReplayedQueuedCallStopsEverythingAfter() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        A22Count(count: 1).post(in: center)
        let received = Recorded<Int>()
        let slot = Slot<NotificationToken>()
        let token = A22Count.observe(in: center, delivery: .async(on: queue)) { unread in
            received.append(unread.count)
            slot.value?.cancel()
        }
        slot.set(token)
        A22Count(count: 2).post(in: center)  // queued behind the replay
        release.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(received.values == [1])
        slot.set(nil)
    }

    @Test func anOwnerThatDiesBeforeTheQueuedReplayRunsIsNeverCalledAndTheObservationEnds() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        A22Count(count: 1).post(in: center)
        let received = Recorded<Int>()
        var owner: A22Object? = A22Object()
        A22Count.observe(for: owner!, in: center, delivery: .async(on: queue)) { _, unread in
            received.append(unread.count)
        }
        owner = nil
        release.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(received.values.isEmpty)
        #expect(center.typedObservations.isEmpty)
    }

    @Test func aMainActorObserverMadeOffTheMainActorReceivesTheLatestOnTheMainActorFirst() async {
        let center = NotificationCenter()
        A22Count(count: 1).post(in: center)
        let received = Recorded<Int>()
        let onMain = Recorded<Bool>()
        let done = Signal()
        let token = await Task.detached {
            A22Count.observeOnMainActor(in: center) { unread in
                MainActor.assertIsolated()
                onMain.append(true)
                received.append(unread.count)
                if unread.count == 2 { done.fire() }
            }
        }.value
        await Task.detached { A22Count(count: 2).post(in: center) }.value
        await done.wait()
        #expect(received.values == [1, 2])
        #expect(onMain.values == [true, true])
        withExtendedLifetime(token) {}
    }

    @Test func aSenderFilterOnANewObjectAtTheDeadLatestSendersAddressReceivesNoReplay() {
        let center = NotificationCenter()
        var sender: A22Object? = A22Object()
        let oldID = ObjectIdentifier(sender!)
        A22Count(count: 1).post(from: sender, in: center)
        sender = nil
        // Allocate until an object takes the dead sender's address (usually the first).
        var keep: [A22Object] = []
        var reused: A22Object?
        for _ in 0..<10_000 {
            let candidate = A22Object()
            if ObjectIdentifier(candidate) == oldID {
                reused = candidate
                break
            }
            keep.append(candidate)
        }
        guard let reused else {
            print("Adversarial22: no address reuse, test inconclusive")
            return
        }
        let received = Recorded<Int>()
        let token = A22Count.observe(from: reused, in: center) { received.append($0.count) }
        #expect(received.values.isEmpty)
        let queued = Recorded<Int>()
        let queueToken = A22Count.observe(from: reused, in: center, delivery: .async(on: DispatchQueue(label: "q"))) {
            queued.append($0.count)
        }
        #expect(A22Count.latest(in: center) == A22Count(count: 1))
        withExtendedLifetime((token, queueToken, keep)) {}
    }

    @Test func theCenterDyingWhileAReplayIsQueuedDropsItAndReleasesTheLatestOutsideLocks() async {
        let locks = Recorded<Int>()
        let (queue, release) = busyQueue()
        let received = Recorded<Int>()
        var token: NotificationToken?
        do {
            let center = NotificationCenter()
            A22TrackedLatest.post(A22Tracked(1, locks), in: center)
            token = A22TrackedLatest.observe(in: center, delivery: .async(on: queue)) { received.append($0.id) }
        }
        release.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(received.values.isEmpty)
        #expect(locks.values == [0])
        token = nil
        _ = token
    }

    @Test func payloadsReplacedClearedOrDroppedAreReleasedOutsideThePackagesLocks() async {
        let locks = Recorded<Int>()
        let center = NotificationCenter()
        A22TrackedLatest.post(A22Tracked(1, locks), in: center)
        A22TrackedLatest.post(A22Tracked(2, locks), in: center)  // replaces 1
        center.post(
            name: A22TrackedLatest.notificationName, object: nil,
            userInfo: [Notification.typedPayloadKey: A22Tracked(3, locks)])  // replaces 2, plainly
        // A queued replay cancelled before it runs.
        let (queue, release) = busyQueue()
        let token = A22TrackedLatest.observe(in: center, delivery: .async(on: queue)) { _ in }
        A22TrackedLatest.clearLatest(in: center)  // 3 is now held only by the queued entry
        token.cancel()
        release.signal()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        // A sequence that buffered the latest and is dropped.
        A22TrackedLatest.post(A22Tracked(4, locks), in: center)
        do { _ = A22TrackedLatest.notifications(in: center, bufferingPolicy: .bufferingNewest(1)) }
        A22TrackedLatest.clearLatest(in: center)
        #expect(locks.count == 4)
        #expect(locks.values.allSatisfy { $0 == 0 })
    }

    @Test func aPlainPostThatDoesNotDecodeLeavesTheLatestAndReachesNoObserver() {
        let center = NotificationCenter()
        A22Count(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = A22Count.observe(in: center) { received.append($0.count) }
        center.post(name: A22Count.notificationName, object: nil, userInfo: ["garbage": 1])
        center.post(name: A22Count.notificationName, object: nil, userInfo: nil)
        #expect(A22Count.latest(in: center) == A22Count(count: 1))
        #expect(received.values == [1])
        withExtendedLifetime(token) {}
    }

    @Test func aTypedOnlyLatestTypeKeepsTypedPostsAndIgnoresPlainOnes() {
        let center = NotificationCenter()
        let plain = Recorded<Int>()
        let plainToken = center.addObserver(forName: A22TypedOnly.notificationName, object: nil, queue: nil) { _ in
            plain.append(1)
        }
        A22TypedOnly(count: 1).post(in: center)
        #expect(plain.values.isEmpty)
        center.post(
            name: A22TypedOnly.notificationName, object: nil,
            userInfo: [Notification.typedPayloadKey: A22TypedOnly(count: 2)])
        #expect(A22TypedOnly.latest(in: center) == A22TypedOnly(count: 1))
        let received = Recorded<Int>()
        let token = A22TypedOnly.observe(in: center) { received.append($0.count) }
        #expect(received.values == [1])
        center.removeObserver(plainToken)
        withExtendedLifetime(token) {}
    }

    @Test func clearLatestBeforeAnythingAndLatestOfAnUntouchedCenterAreHarmless() {
        let center = NotificationCenter()
        A22Count.clearLatest(in: center)
        #expect(A22Count.latest(in: center) == nil)
        let received = Recorded<Int>()
        let token = A22Count.observe(in: center) { received.append($0.count) }
        #expect(received.values.isEmpty)
        withExtendedLifetime(token) {}
    }

    /// One poster posts 1...n in order while other threads observe (on serial queues) and clear the latest: each
    /// observer must receive consecutive values ending at n, without a gap or a repeat.
    @Test func queuedObserversMadeWhileOnePosterPostsAndAnotherClearsSeeEveryLaterPostExactlyOnce() async {
        let seed = TestSeed.run
        print("Adversarial22 clear/post/observe seed:", TestSeed.hex(seed))
        var generator = SplitMix64(seed: seed)
        let center = NotificationCenter()
        let posts = 2_000
        let observers = 24
        let logs = (0..<observers).map { _ in Recorded<Int>() }
        let queues = (0..<observers).map { DispatchQueue(label: "obs\($0)") }
        let tokens = Recorded<NotificationToken>()
        let clears = (0..<observers).map { _ in generator.chance(50) }
        let started = DispatchSemaphore(value: 0)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                started.signal()
                for value in 1...posts { A22Count(count: value).post(in: center) }
            }
            group.addTask {
                started.wait()
                for index in 0..<observers {
                    let log = logs[index]
                    tokens.append(
                        A22Count.observe(in: center, delivery: .async(on: queues[index])) { log.append($0.count) })
                    if clears[index] { A22Count.clearLatest(in: center) }
                }
            }
        }
        for queue in queues {
            await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        }
        for (index, log) in logs.enumerated() {
            let values = log.values
            guard let first = values.first else { continue }  // made after the last post and a clear
            let expected = Array(first...posts)
            #expect(values == expected, "observer \(index), seed \(TestSeed.hex(seed))")
        }
        withExtendedLifetime(tokens) {}
    }
}

@Suite struct Adversarial22NextTests {
    @Test func aTimeoutRacingAMatchingPostEitherReturnsItOrTimesOut() async throws {
        for round in 0..<200 {
            let center = NotificationCenter()
            let upcoming = A22Burst.notifications(in: center)
            let poster = Thread { A22Burst(n: round).post(in: center) }
            poster.start()
            do {
                let value = try await upcoming.next(where: .matching { $0.n == round }, timeout: 0.0005)
                #expect(value.n == round)
            } catch NextNotificationError.timedOut(let seconds) {
                #expect(seconds == 0.0005)
            }
        }
    }

    @Test func aWaitCancelledBeforeTheCallThrowsCancellationError() async {
        let center = NotificationCenter()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await A22Burst.next(in: center, timeout: 60)
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func aSequenceReleasedBeforeItsTwoStepWaitIsAwaitedStillDelivers() async throws {
        let center = NotificationCenter()
        let waiting: Task<A22Burst, any Error>
        do {
            let upcoming = A22Burst.notifications(in: center)
            waiting = Task { try await upcoming.next(timeout: 60) }
        }
        A22Burst(n: 7).post(in: center)
        #expect(try await waiting.value == A22Burst(n: 7))
    }

    @Test func aConditionRejectingEverythingTimesOutAndEndsTheSequence() async {
        let center = NotificationCenter()
        let upcoming = A22Burst.notifications(in: center)
        A22Burst(n: 1).post(in: center)
        await #expect(throws: NextNotificationError.timedOut(seconds: 0.01)) {
            try await upcoming.next(where: .matching { _ in false }, timeout: 0.01)
        }
        await #expect(throws: NextNotificationError.observationEnded) { try await upcoming.next(timeout: 5) }
        #expect(center.typedObservations.isEmpty)
    }
}

@Suite struct Adversarial22CoalescingTests {
    @Test @MainActor func reCoalescingFromInsideABurstsDeliveryMakesALaterBurstInOrder() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let done = Signal()
        let token = A22Burst.observe(in: center) { burst in
            received.append(burst.n)
            if burst.n == 3 {
                MainActor.assumeIsolated {
                    A22Burst(n: 4).post(in: center, coalescing: .nextTurn)
                    A22Burst(n: 5).post(in: center, coalescing: .nextTurn)
                }
            }
            if burst.n == 5 { done.fire() }
        }
        for n in 1...3 { A22Burst(n: n).post(in: center, coalescing: .nextTurn) }
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
            A22Burst.observe(in: center) {
                received.append($0.n)
                done.fire()
            },
            A22Count.observe(in: center) { merges.append($0.count) },
        ]
        let coalescing = NotificationCoalescing<A22Burst>.nextTurn.merging { earlier, later in
            A22Count(count: LockDiscipline.locksHeld).post(in: center)
            return A22Burst(n: earlier.n + later.n)
        }
        for n in 1...4 { A22Burst(n: n).post(in: center, coalescing: coalescing) }
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
            token = A22Burst.observe(in: center) {
                received.append($0.n)
                done.fire()
            }
            A22Burst(n: 1).post(in: center, coalescing: .within(0.01))
            A22Burst(n: 2).post(in: center, coalescing: .within(0.01))
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
            A22Burst.observe(in: center) {
                first.append($0.n)
                both.increment()
                if both.count == 2 { done.fire() }
            },
            A22BurstOther.observe(in: center) {
                second.append($0.n)
                both.increment()
                if both.count == 2 { done.fire() }
            },
        ]
        A22Burst(n: 1).post(in: center, coalescing: .within(0.01))
        A22BurstOther(n: 2).post(in: center, coalescing: .within(0.01))
        A22Burst(n: 3).post(in: center, coalescing: .within(0.01))
        await done.wait()
        #expect(first.values == [3])
        #expect(second.values == [2])
        withExtendedLifetime(tokens) {}
    }

    @Test func aCoalescedPostFromACancelledTaskIsStillDelivered() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let done = Signal()
        let token = A22Burst.observe(in: center) {
            received.append($0.n)
            done.fire()
        }
        let task = Task.detached {
            withUnsafeCurrentTask { $0?.cancel() }
            A22Burst(n: 1).post(in: center, coalescing: .within(0.01))
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
        let token = A22TrackedPlain.observe(in: center) { _ in
            received.increment()
            if received.count == 2 { done.fire() }
        }
        for n in 0..<10 { A22TrackedPlain.post(A22Tracked(n, locks), in: center, coalescing: .within(0.01)) }
        let merged = NotificationCoalescing<A22Tracked>.within(0.01).merging { _, later in later }
        let from = A22Object()
        for n in 10..<20 { A22TrackedPlain.post(A22Tracked(n, locks), from: from, in: center, coalescing: merged) }
        await done.wait()
        // Wait for the bursts to let go of their payloads: their tasks end after delivering.
        for _ in 0..<10_000 where locks.count < 20 { await Task.yield() }
        #expect(locks.count == 20)
        #expect(locks.values.allSatisfy { $0 == 0 })
        withExtendedLifetime(token) {}
    }

    @Test func concurrentCoalescedPostsOfManyKeysEachEndInOneDeliveryOfTheirLatest() async {
        let center = NotificationCenter()
        let senders = (0..<8).map { _ in A22Object() }
        let lastByIndex = (0..<8).map { _ in Recorded<Int>() }
        let tokens = senders.enumerated().map { index, sender in
            A22Burst.observe(from: sender, in: center) { lastByIndex[index].append($0.n) }
        }
        await withTaskGroup(of: Void.self) { group in
            for (index, sender) in senders.enumerated() {
                group.addTask {
                    for n in 0..<500 { A22Burst(n: n).post(from: sender, in: center, coalescing: .within(0.001)) }
                    _ = index
                }
            }
        }
        // The last burst of each sender must end with 499.
        for index in 0..<8 {
            for _ in 0..<100_000 where lastByIndex[index].values.last != 499 { await Task.yield() }
            let values = lastByIndex[index].values
            #expect(values.last == 499)
            #expect(values == values.sorted())
        }
        withExtendedLifetime(tokens) {}
    }
}
