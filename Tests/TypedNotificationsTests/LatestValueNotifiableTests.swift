import Foundation
import Testing
import TypedNotificationsTestSupport
import TypedNotificationsTesting

@testable import TypedNotifications

// `LatestValueNotifiable`: each center keeps a type's latest post, observers start with it, and it can be read and
// cleared. The race between posts and new observations on several threads is in
// `TypedNotificationsReliabilityTests/LatestValueTortureTests`.

struct UnreadCount: LatestValueNotifiable, Equatable {
    let count: Int
}

/// A payload whose release a test can see.
final class Configuration: Sendable {
    let version: Int
    init(version: Int) { self.version = version }
}

enum ConfigurationDidLoad: LatestValueNotifiable {
    typealias Payload = Configuration
}

/// A main-actor model whose observation is bound to its lifetime.
@MainActor private final class UnreadBadge {
    var counts: [Int] = []
}

/// An actor that observes from its own isolation.
private actor UnreadStore {
    var counts: [Int] = []

    /// The counts received when the observing call returned.
    func startObserving(in center: NotificationCenter) -> [Int] {
        UnreadCount.observe(for: self, in: center) { store, unread in store.counts.append(unread.count) }
        return counts
    }
}

@Suite struct LatestValueNotifiableTests {
    @Test func anObserverThatStartsLateReceivesTheLatestPostFirstThenEveryLaterOne() {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        UnreadCount(count: 2).post(in: center)
        let received = Recorded<Int>()
        let token = UnreadCount.observe(in: center) { received.append($0.count) }
        #expect(received.values == [2])  // before `observe` returned, on this thread
        UnreadCount(count: 3).post(in: center)
        #expect(received.values == [2, 3])
        withExtendedLifetime(token) {}
    }

    @Test func anObserverThatStartsBeforeAnyPostReceivesOnlyLivePosts() {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = UnreadCount.observe(in: center) { received.append($0.count) }
        #expect(received.values.isEmpty)
        UnreadCount(count: 5).post(in: center)
        #expect(received.values == [5])
        withExtendedLifetime(token) {}
    }

    @Test(.capturesReports) func latestReadsTheLatestPostAndClearLatestForgetsIt() {
        let center = NotificationCenter()
        #expect(UnreadCount.latest(in: center) == nil)
        UnreadCount(count: 7).post(in: center)
        #expect(UnreadCount.latest(in: center) == UnreadCount(count: 7))
        UnreadCount.clearLatest(in: center)
        #expect(UnreadCount.latest(in: center) == nil)
        let received = Recorded<Int>()
        let token = UnreadCount.observe(in: center) { received.append($0.count) }
        #expect(received.values.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func eachCenterKeepsItsOwnLatestPost() {
        let first = NotificationCenter()
        let second = NotificationCenter()
        UnreadCount(count: 1).post(in: first)
        UnreadCount(count: 2).post(in: second)
        #expect(UnreadCount.latest(in: first)?.count == 1)
        #expect(UnreadCount.latest(in: second)?.count == 2)
    }

    @Test func aPlainPostIsKeptOnceTheCenterKeepsTheType() {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)  // the center starts keeping the type
        center.post(
            name: UnreadCount.notificationName,
            object: nil,
            userInfo: [Notification.typedPayloadKey: UnreadCount(count: 9)]
        )
        #expect(UnreadCount.latest(in: center) == UnreadCount(count: 9))
    }

    @Test func aTypedPostReachingThePackagesOwnFoundationObserverIsKeptOnce() {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = UnreadCount.observe(in: center) { received.append($0.count) }
        UnreadCount(count: 1).post(in: center)
        UnreadCount(count: 2).post(in: center)
        #expect(received.values == [1, 2])
        #expect(UnreadCount.latest(in: center) == UnreadCount(count: 2))
        withExtendedLifetime(token) {}
    }

    @Test func aQueueObserverReceivesTheLatestPostBeforeAnyLivePost() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        UnreadCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let done = Signal()
        let token = UnreadCount.observe(in: center, delivery: .async(on: queue)) { unread in
            received.append(unread.count)
            if unread.count == 3 { done.fire() }
        }
        UnreadCount(count: 2).post(in: center)
        UnreadCount(count: 3).post(in: center)
        release.signal()
        await done.wait()
        #expect(received.values == [1, 2, 3])
        withExtendedLifetime(token) {}
    }

    @Test func anAsyncObserverReceivesTheLatestPostBeforeAnyLivePost() async {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let done = Signal()
        let token = UnreadCount.observe(in: center) { (unread: UnreadCount) async in
            received.append(unread.count)
            if unread.count == 2 { done.fire() }
        }
        UnreadCount(count: 2).post(in: center)
        await done.wait()
        #expect(received.values == [1, 2])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func aMainActorObserverMadeOnTheMainActorReceivesTheLatestPostFirst() async {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let done = Signal()
        let token = UnreadCount.observeOnMainActor(in: center) { unread in
            received.append(unread.count)
            if unread.count == 2 { done.fire() }
        }
        UnreadCount(count: 2).post(in: center)
        await done.wait()
        #expect(received.values == [1, 2])
        withExtendedLifetime(token) {}
    }

    // MARK: - An observation made on its handler's actor

    @Test @MainActor func aMainActorObservationMadeOnTheMainActorReceivesTheLatestPostBeforeItReturns() {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = UnreadCount.observeOnMainActor(in: center) { received.append($0.count) }
        #expect(received.values == [1])
        UnreadCount(count: 2).post(in: center)
        #expect(received.values == [1, 2])
        withExtendedLifetime(token) {}
    }

    @Test @MainActor func anOwnerBoundMainActorObservationMadeOnTheMainActorReceivesTheLatestPostBeforeItReturns() {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        let badge = UnreadBadge()
        UnreadCount.observeOnMainActor(for: badge, in: center) { badge, unread in badge.counts.append(unread.count) }
        #expect(badge.counts == [1])
        UnreadCount(count: 2).post(in: center)
        #expect(badge.counts == [1, 2])
    }

    @Test func anActorObservationMadeOnItsActorReceivesTheLatestPostBeforeItReturns() async {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        let store = UnreadStore()
        #expect(await store.startObserving(in: center) == [1])
    }

    @Test func aSequenceStartsWithTheLatestPost() async {
        let center = NotificationCenter()
        UnreadCount(count: 4).post(in: center)
        let counts = UnreadCount.notifications(in: center)
        UnreadCount(count: 5).post(in: center)
        var iterator = counts.makeAsyncIterator()
        #expect(await iterator.next() == UnreadCount(count: 4))
        #expect(await iterator.next() == UnreadCount(count: 5))
    }

    @Test func nextReturnsTheLatestPostAtOnce() async throws {
        let center = NotificationCenter()
        UnreadCount(count: 6).post(in: center)
        #expect(try await UnreadCount.next(in: center, timeout: 60) {} == UnreadCount(count: 6))
    }

    @Test(.capturesReports) func theSenderFilterAppliesToTheLatestPost() {
        let center = NotificationCenter()
        let inbox = Sender()
        let other = Sender()
        UnreadCount(count: 1).post(from: inbox, in: center)
        let fromInbox = Recorded<Int>()
        let fromOther = Recorded<Int>()
        let senders = Recorded<Bool>()
        let tokens = [
            UnreadCount.observe(from: inbox, in: center) { fromInbox.append($0.count) },
            UnreadCount.observe(from: other, in: center) { fromOther.append($0.count) },
            UnreadCount.observe(in: center) { sender, _ in senders.append(sender === inbox) },
        ]
        #expect(fromInbox.values == [1])
        #expect(fromOther.values.isEmpty)
        #expect(senders.values == [true])
        withExtendedLifetime(tokens) {}
    }

    @Test(.capturesReports) func theLatestSenderIsKeptWeakly() {
        let center = NotificationCenter()
        var inbox: Sender? = Sender()
        weak var released: Sender?
        released = inbox
        UnreadCount(count: 1).post(from: inbox, in: center)
        inbox = nil
        #expect(released == nil)
        let senders = Recorded<Bool>()
        let token = UnreadCount.observe(in: center) { sender, _ in senders.append(sender == nil) }
        #expect(senders.values == [true])  // the payload is still kept; its sender is gone
        withExtendedLifetime(token) {}
    }

    @Test func clearingTheLatestPostReleasesItsPayload() {
        let center = NotificationCenter()
        var configuration: Configuration? = Configuration(version: 1)
        weak var released: Configuration?
        released = configuration
        ConfigurationDidLoad.post(configuration!, in: center)
        configuration = nil
        #expect(released != nil)
        #expect(ConfigurationDidLoad.latest(in: center)?.version == 1)
        ConfigurationDidLoad.clearLatest(in: center)
        #expect(released == nil)
    }

    @Test func theCentersDeathReleasesTheLatestPost() {
        var center: NotificationCenter? = NotificationCenter()
        var configuration: Configuration? = Configuration(version: 2)
        weak var released: Configuration?
        released = configuration
        ConfigurationDidLoad.post(configuration!, in: center!)
        configuration = nil
        #expect(released != nil)
        center = nil
        #expect(released == nil)
    }

    @Test func aNewPostReleasesTheOneItReplaces() {
        let center = NotificationCenter()
        var configuration: Configuration? = Configuration(version: 1)
        weak var released: Configuration?
        released = configuration
        ConfigurationDidLoad.post(configuration!, in: center)
        configuration = nil
        ConfigurationDidLoad.post(Configuration(version: 2), in: center)
        #expect(released == nil)
        #expect(ConfigurationDidLoad.latest(in: center)?.version == 2)
    }

    @Test func theCenterKeepsTheTypeWithoutObservers() {
        let center = NotificationCenter()
        let token = UnreadCount.observe(in: center) { _ in }
        token.cancel()
        // The type's Foundation observer stays, so that plain posts are kept too.
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 1))
        center.post(
            name: UnreadCount.notificationName,
            object: nil,
            userInfo: [Notification.typedPayloadKey: UnreadCount(count: 3)]
        )
        #expect(UnreadCount.latest(in: center) == UnreadCount(count: 3))
    }
}

@Suite struct LatestValueRecorderTests {
    @Test func aRecorderRecordsPostsNotTheLatestValueItStartsWith() {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        let recorder = NotificationRecorder(UnreadCount.self, in: center)
        UnreadCount(count: 2).post(in: center)
        #expect(recorder.payloads == [UnreadCount(count: 2)])
    }
}

extension LatestValueNotifiableTests {
    @Test func rePostingTheSameLatestTypeFromTheReplayedHandlerDeliversBothOnce() {
        let center = NotificationCenter()
        LatestCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = LatestCount.observe(in: center) { unread in
            received.append(unread.count)
            if unread.count == 1 { LatestCount(count: 2).post(in: center) }
        }
        #expect(received.values == [1, 2])
        #expect(LatestCount.latest(in: center) == LatestCount(count: 2))
        LatestCount(count: 3).post(in: center)
        #expect(received.values == [1, 2, 3])
        withExtendedLifetime(token) {}
    }

    @Test(.capturesReports) func rePostingPlainFromTheReplayedHandlerIsKeptAndDeliveredOnce() {
        let center = NotificationCenter()
        LatestCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = LatestCount.observe(in: center) { unread in
            received.append(unread.count)
            if unread.count == 1 {
                center.post(
                    name: LatestCount.notificationName, object: nil,
                    userInfo: [Notification.typedPayloadKey: LatestCount(count: 2)])
            }
        }
        #expect(received.values == [1, 2])
        #expect(LatestCount.latest(in: center) == LatestCount(count: 2))
        withExtendedLifetime(token) {}
    }

    @Test func observingInsideTheReplayedHandlerStartsTheInnerObserverWithTheLatestOnce() {
        let center = NotificationCenter()
        LatestCount(count: 1).post(in: center)
        let outer = Recorded<Int>()
        let inner = Recorded<Int>()
        let innerToken = Slot<NotificationToken>()
        let token = LatestCount.observe(in: center) { unread in
            outer.append(unread.count)
            if innerToken.value == nil {
                innerToken.set(LatestCount.observe(in: center) { inner.append($0.count) })
            }
        }
        #expect(outer.values == [1])
        #expect(inner.values == [1])
        LatestCount(count: 2).post(in: center)
        #expect(outer.values == [1, 2])
        #expect(inner.values == [1, 2])
        withExtendedLifetime(token) {}
        innerToken.set(nil)
    }

    @Test func cancellingTheTokenInsideTheReplayedQueuedCallStopsEverythingAfter() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        LatestCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let slot = Slot<NotificationToken>()
        let token = LatestCount.observe(in: center, delivery: .async(on: queue)) { unread in
            received.append(unread.count)
            slot.value?.cancel()
        }
        slot.set(token)
        LatestCount(count: 2).post(in: center)  // queued behind the replay
        await releaseAndDrain(queue, release)
        #expect(received.values == [1])
        slot.set(nil)
    }

    @Test func anOwnerThatDiesBeforeTheQueuedReplayRunsIsNeverCalledAndTheObservationEnds() async {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        LatestCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        var owner: ReusableObject? = ReusableObject()
        LatestCount.observe(for: owner!, in: center, delivery: .async(on: queue)) { _, unread in
            received.append(unread.count)
        }
        owner = nil
        await releaseAndDrain(queue, release)
        #expect(received.values.isEmpty)
        #expect(center.typedObservations.isEmpty)
    }

    @Test func aMainActorObserverMadeOffTheMainActorReceivesTheLatestOnTheMainActorFirst() async {
        let center = NotificationCenter()
        LatestCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let onMain = Recorded<Bool>()
        let done = Signal()
        let token = await Task.detached {
            LatestCount.observeOnMainActor(in: center) { unread in
                MainActor.assertIsolated()
                onMain.append(true)
                received.append(unread.count)
                if unread.count == 2 { done.fire() }
            }
        }.value
        await Task.detached { LatestCount(count: 2).post(in: center) }.value
        await done.wait()
        #expect(received.values == [1, 2])
        #expect(onMain.values == [true, true])
        withExtendedLifetime(token) {}
    }

    @Test(.capturesReports) func aSenderFilterOnANewObjectAtTheDeadLatestSendersAddressReceivesNoReplay() {
        let center = NotificationCenter()
        var sender: ReusableObject? = ReusableObject()
        let oldID = ObjectIdentifier(sender!)
        LatestCount(count: 1).post(from: sender, in: center)
        sender = nil
        // Allocate until an object takes the dead sender's address (usually the first).
        var keep: [ReusableObject] = []
        var reused: ReusableObject?
        for _ in 0..<10_000 {
            let candidate = ReusableObject()
            if ObjectIdentifier(candidate) == oldID {
                reused = candidate
                break
            }
            keep.append(candidate)
        }
        guard let reused else {
            print("no address reuse, test inconclusive")
            return
        }
        let received = Recorded<Int>()
        let token = LatestCount.observe(from: reused, in: center) { received.append($0.count) }
        #expect(received.values.isEmpty)
        let queued = Recorded<Int>()
        let queueToken = LatestCount.observe(from: reused, in: center, delivery: .async(on: DispatchQueue(label: "q")))
        {
            queued.append($0.count)
        }
        #expect(LatestCount.latest(in: center) == LatestCount(count: 1))
        withExtendedLifetime((token, queueToken, keep)) {}
    }

    @Test func theCenterDyingWhileAReplayIsQueuedDropsItAndReleasesTheLatestOutsideLocks() async {
        let locks = Recorded<Int>()
        let (queue, release) = busyQueue()
        let received = Recorded<Int>()
        var token: NotificationToken?
        do {
            let center = NotificationCenter()
            LatestLockCheckedPayload.post(LockCheckedPayload(1, locks), in: center)
            token = LatestLockCheckedPayload.observe(in: center, delivery: .async(on: queue)) { received.append($0.id) }
        }
        await releaseAndDrain(queue, release)
        #expect(received.values.isEmpty)
        #expect(locks.values == [0])
        token = nil
        _ = token
    }

    @Test func payloadsReplacedClearedOrDroppedAreReleasedOutsideThePackagesLocks() async {
        let locks = Recorded<Int>()
        let center = NotificationCenter()
        LatestLockCheckedPayload.post(LockCheckedPayload(1, locks), in: center)
        LatestLockCheckedPayload.post(LockCheckedPayload(2, locks), in: center)  // replaces 1
        center.post(
            name: LatestLockCheckedPayload.notificationName, object: nil,
            userInfo: [Notification.typedPayloadKey: LockCheckedPayload(3, locks)])  // replaces 2, plainly
        // A queued replay cancelled before it runs.
        let (queue, release) = busyQueue()
        let token = LatestLockCheckedPayload.observe(in: center, delivery: .async(on: queue)) { _ in }
        LatestLockCheckedPayload.clearLatest(in: center)  // 3 is now held only by the queued entry
        token.cancel()
        await releaseAndDrain(queue, release)
        // A sequence that buffered the latest and is dropped.
        LatestLockCheckedPayload.post(LockCheckedPayload(4, locks), in: center)
        do { _ = LatestLockCheckedPayload.notifications(in: center, bufferingPolicy: .bufferingNewest(1)) }
        LatestLockCheckedPayload.clearLatest(in: center)
        #expect(locks.count == 4)
        #expect(locks.values.allSatisfy { $0 == 0 })
    }

    @Test func aPlainPostThatDoesNotDecodeLeavesTheLatestAndReachesNoObserver() {
        let center = NotificationCenter()
        LatestCount(count: 1).post(in: center)
        let received = Recorded<Int>()
        let token = LatestCount.observe(in: center) { received.append($0.count) }
        let reported = reports {
            center.post(name: LatestCount.notificationName, object: nil, userInfo: ["garbage": 1])
            center.post(name: LatestCount.notificationName, object: nil, userInfo: nil)
        }
        #expect(LatestCount.latest(in: center) == LatestCount(count: 1))
        #expect(received.values == [1])
        #expect(reported.map(\.kindName) == ["decodingFailed", "decodingFailed"], "each post's failure is reported")
        withExtendedLifetime(token) {}
    }

    @Test(.capturesReports) func aTypedOnlyLatestTypeKeepsTypedPostsAndIgnoresPlainOnes() {
        let center = NotificationCenter()
        let plain = Recorded<Int>()
        let plainToken = center.addObserver(forName: TypedOnlyLatestCount.notificationName, object: nil, queue: nil) {
            _ in
            plain.append(1)
        }
        TypedOnlyLatestCount(count: 1).post(in: center)
        #expect(plain.values.isEmpty)
        center.post(
            name: TypedOnlyLatestCount.notificationName, object: nil,
            userInfo: [Notification.typedPayloadKey: TypedOnlyLatestCount(count: 2)])
        #expect(TypedOnlyLatestCount.latest(in: center) == TypedOnlyLatestCount(count: 1))
        let received = Recorded<Int>()
        let token = TypedOnlyLatestCount.observe(in: center) { received.append($0.count) }
        #expect(received.values == [1])
        center.removeObserver(plainToken)
        withExtendedLifetime(token) {}
    }

    @Test(.capturesReports) func clearLatestBeforeAnythingAndLatestOfAnUntouchedCenterAreHarmless() {
        let center = NotificationCenter()
        LatestCount.clearLatest(in: center)
        #expect(LatestCount.latest(in: center) == nil)
        let received = Recorded<Int>()
        let token = LatestCount.observe(in: center) { received.append($0.count) }
        #expect(received.values.isEmpty)
        withExtendedLifetime(token) {}
    }

    /// One poster posts 1...n in order while other threads observe (on serial queues) and clear the latest: each
    /// observer must receive consecutive values ending at n, without a gap or a repeat.
    @Test(.seeded) func queuedObserversMadeWhileOnePosterPostsAndAnotherClearsSeeEveryLaterPostExactlyOnce() async {
        let seed = TestSeed.run
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
                for value in 1...posts { LatestCount(count: value).post(in: center) }
            }
            group.addTask {
                started.wait()
                for index in 0..<observers {
                    let log = logs[index]
                    tokens.append(
                        LatestCount.observe(in: center, delivery: .async(on: queues[index])) { log.append($0.count) })
                    if clears[index] { LatestCount.clearLatest(in: center) }
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

extension LatestValueNotifiableTests {
    struct Level: LatestValueNotifiable, Equatable {
        let value: Int
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

    @Test(.seeded) func clearingWhilePostsAndObservationsRaceLeavesEachObservationConsistent() async {
        let center = NotificationCenter()
        let seed = TestSeed.run
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
}

extension LatestValueNotifiableTests {
    @Test func asyncObserverOfALatestValueGetsItFirstThenLivePosts() async {
        let center = NotificationCenter()
        LatestNumber(value: 7).post(in: center)
        let seen = Recorded<Int>()
        let done = CountdownTally(3)
        let token = LatestNumber.observe(in: center) { (latest: LatestNumber) async in
            seen.append(latest.value)
            done.bump()
        }
        LatestNumber(value: 8).post(in: center)
        LatestNumber(value: 9).post(in: center)
        await waitOrRecordTimeout(done.reached, "three deliveries")
        #expect(seen.values == [7, 8, 9])
        let ownerSeen = Recorded<Int>()
        let ownerDone = CountdownTally(2)
        let owner = DeinitReportingOwner()
        LatestNumber.observe(for: owner, in: center) { _, latest async in
            ownerSeen.append(latest.value)
            ownerDone.bump()
        }
        LatestNumber(value: 10).post(in: center)
        await waitOrRecordTimeout(ownerDone.reached, "the owner-bound observer")
        #expect(ownerSeen.values == [9, 10])
        withExtendedLifetime((token, owner)) {}
    }

    /// Seeded: two threads post increasing values while a third observes at a random moment. The observer receives
    /// the latest value first, exactly once, then every later post of each thread: no duplicates, no gaps.
    @Test(.seeded) func asyncLatestValueUnderConcurrentPosting() async {
        let seed = TestSeed.run
        let center = NotificationCenter()
        let perThread = 300
        for iteration in 0..<15 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let spin = random.below(40_000)
            let base = iteration * 10_000_000
            LatestNumber(value: base + 9_000_000).post(in: center)  // the latest before anything else
            let seen = Recorded<Int>()
            let sentinelSeen = Signal()
            let sentinel = 8_000_000
            let tokenSlot = Slot<NotificationToken>()
            await onThreads(3) { thread in
                if thread == 2 {
                    busyWait(spin)
                    tokenSlot.set(
                        LatestNumber.observe(in: center) { (latest: LatestNumber) async in
                            seen.append(latest.value)
                            if latest.value == base + sentinel { sentinelSeen.fire() }
                        })
                    return
                }
                for index in 1...perThread { LatestNumber(value: base + thread * 1_000_000 + index).post(in: center) }
            }
            // Posted after the observation began: delivered live, last.
            LatestNumber(value: base + sentinel).post(in: center)
            await waitOrRecordTimeout(sentinelSeen, "the sentinel (seed \(TestSeed.hex(seed)), iteration \(iteration))")
            let values = seen.values.map { $0 - base }
            let hint = "seed \(TestSeed.hex(seed)), iteration \(iteration): \(values.prefix(8))…"
            #expect(Set(values).count == values.count, "duplicate; \(hint)")
            #expect(values.last == sentinel, "\(hint)")
            #expect(values.count >= 2, "the latest value was not delivered first; \(hint)")
            #expect(!values.dropFirst().contains(9_000_000), "the baseline arrived live; \(hint)")
            for thread in 0..<2 {
                let mine = values.filter { $0 / 1_000_000 == thread }.map { $0 % 1_000_000 }
                // Empty when the observation began after this thread's last post stopped being the latest.
                guard let start = mine.first else { continue }
                #expect(mine == Array(start...perThread), "thread \(thread) has a gap or is out of order; \(hint)")
            }
            tokenSlot.set(nil)
            LatestNumber.clearLatest(in: center)
        }
    }
}

extension LatestValueNotifiableTests {
    /// Seeded: threads post latest values (typed and plain) from the filter's sender and from another, while a third
    /// observes with a sender filter (async, and async owner-bound) at a random moment. Each observer receives the
    /// latest value at most once and first, then every later accepted post of each thread: no duplicates, no gaps,
    /// no other sender's post.
    @Test(.seeded) func asyncLatestValueWithSenderFilterRacingTypedAndPlainPosts() async {
        let seed = TestSeed.run
        let center = NotificationCenter()
        let right = Sender()
        let wrong = Sender()
        let perThread = 200
        let owner = DeinitReportingOwner()
        for iteration in 0..<12 {
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: iteration))
            let spin = random.below(30_000)
            let choices = (0..<2).map { _ in (0..<perThread).map { _ in random.below(4) } }
            let base = iteration * 10_000_000
            let baseline = base + 9_000_000
            let sentinel = base + 8_000_000
            LatestNumber(value: baseline).post(from: right, in: center)
            let seen = (0..<2).map { _ in Recorded<Int>() }
            let sentinelSeen = (0..<2).map { _ in Signal() }
            let tokenSlot = Slot<NotificationToken>()
            let boundSlot = Slot<OwnerBoundObservation>()
            await onThreads(3) { thread in
                if thread == 2 {
                    busyWait(spin)
                    tokenSlot.set(
                        LatestNumber.observe(from: right, in: center) { (latest: LatestNumber) async in
                            seen[0].append(latest.value)
                            if latest.value == sentinel { sentinelSeen[0].fire() }
                        })
                    boundSlot.set(
                        LatestNumber.observe(for: owner, from: right, in: center) { _, latest async in
                            seen[1].append(latest.value)
                            if latest.value == sentinel { sentinelSeen[1].fire() }
                        })
                    return
                }
                for index in 0..<perThread {
                    let latest = LatestNumber(value: base + thread * 1_000_000 + index)
                    let choice = choices[thread][index]
                    let sender = choice % 2 == 0 ? right : wrong
                    if choice < 2 {
                        latest.post(from: sender, in: center)
                    } else {
                        center.post(
                            name: LatestNumber.notificationName, object: sender,
                            userInfo: LatestNumber.userInfo(for: latest))
                    }
                }
            }
            LatestNumber(value: sentinel).post(from: right, in: center)
            for observer in 0..<2 {
                await waitOrRecordTimeout(
                    sentinelSeen[observer], "the sentinel at \(observer) (seed \(TestSeed.hex(seed)), \(iteration))")
                let values = seen[observer].values.map { $0 - base }
                let hint =
                    "observer \(observer), seed \(TestSeed.hex(seed)), iteration \(iteration): \(values.prefix(6))…"
                #expect(Set(values).count == values.count, "duplicate; \(hint)")
                #expect(values.last == sentinel - base, "\(hint)")
                // The baseline can only arrive first, as the latest value.
                if let index = values.firstIndex(of: 9_000_000) { #expect(index == 0, "\(hint)") }
                for thread in 0..<2 {
                    let accepted = (0..<perThread).filter { choices[thread][$0] % 2 == 0 }.map {
                        thread * 1_000_000 + $0
                    }
                    let mine = values.filter { $0 / 1_000_000 == thread }
                    #expect(
                        Array(accepted.suffix(mine.count)) == mine,
                        "thread \(thread): not an in-order suffix of its accepted posts; \(hint)")
                }
            }
            // The replayed value (if any) came first: every value of a thread after the first delivery is live, so
            // only the first delivery may be out of the threads' joint suffix order; checked above per thread.
            tokenSlot.set(nil)
            boundSlot.value?.cancel()
            LatestNumber.clearLatest(in: center)
        }
        withExtendedLifetime(owner) {}
    }

    /// The latest value was posted by another sender: a filtered async observer gets no replay, and its first delivery
    /// is the next live post from its sender; an observer whose sender posted last gets that post first, once.
    @Test func asyncLatestValueReplayRespectsTheSenderFilter() async {
        let center = NotificationCenter()
        let right = Sender()
        let wrong = Sender()
        LatestNumber(value: 1).post(from: right, in: center)
        LatestNumber(value: 2).post(from: wrong, in: center)
        let filteredSeen = Recorded<Int>()
        let filteredDone = CountdownTally(1)
        let filtered = LatestNumber.observe(from: right, in: center) { (latest: LatestNumber) async in
            filteredSeen.append(latest.value)
            filteredDone.bump()
        }
        let wrongSeen = Recorded<Int>()
        let wrongDone = CountdownTally(2)
        let wrongToken = LatestNumber.observe(from: wrong, in: center) { (latest: LatestNumber) async in
            wrongSeen.append(latest.value)
            wrongDone.bump()
        }
        LatestNumber(value: 3).post(from: right, in: center)
        center.post(
            name: LatestNumber.notificationName, object: wrong,
            userInfo: LatestNumber.userInfo(for: LatestNumber(value: 4)))
        await waitOrRecordTimeout(filteredDone.reached, "the filtered observer")
        await waitOrRecordTimeout(wrongDone.reached, "the other sender's observer")
        #expect(filteredSeen.values == [3])
        #expect(wrongSeen.values == [2, 4])
        withExtendedLifetime((filtered, wrongToken)) {}
    }
}

extension LatestValueNotifiableTests {
    /// Posters on three centers post increasing values of one latest-value type while observers on the posting thread
    /// start on random centers at random times: each observation receives every post from the latest when it
    /// started (no older) to the last, each exactly once; `clearLatest` on one center never touches another. (The
    /// order is not checked: a handler on the posting thread receives the latest on the observing thread, and a live
    /// post from the poster's thread may reach it first, as documented.)
    @Test(.seeded) func latestValuesRaceAcrossCenters() async {
        let seed = TestSeed.run
        struct Race: FreshTagVisitor {
            let seed: UInt64
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = FreshLatestNumber<Tag>
                let centers = (0..<3).map { _ in NotificationCenter() }
                let posts = 300
                let problems = Recorded<String>()
                typealias Observation = (center: Int, start: Int, seen: Recorded<Int>, token: NotificationToken)
                let observations = Protected<[Observation]>([])
                await onThreads(6) { thread in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
                    if thread < 3 {
                        for value in 1...posts {
                            Event.post(value, in: centers[thread])
                            busyWait(random.below(100))
                        }
                        return
                    }
                    for _ in 0..<20 {
                        busyWait(random.below(3_000))
                        let index = random.below(3)
                        let start = Event.latest(in: centers[index]) ?? 0
                        let seen = Recorded<Int>()
                        let token = Event.observe(in: centers[index]) { seen.append($0) }
                        observations.withLock { $0.append((index, start, seen, token)) }
                    }
                }
                for (index, start, seen, _) in observations.value {
                    let values = seen.values.sorted()
                    guard let first = values.first, values == Array(first...posts) else {
                        problems.append("center \(index): not each post once, up to the last: \(seen.values)")
                        continue
                    }
                    if first < start { problems.append("center \(index): first \(first) older than \(start)") }
                }
                #expect(problems.values.isEmpty, "\(problems.values.prefix(5)), seed \(TestSeed.hex(seed))")
                Event.clearLatest(in: centers[0])
                #expect(Event.latest(in: centers[0]) == nil)
                #expect(Event.latest(in: centers[1]) == posts && Event.latest(in: centers[2]) == posts)
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 3)
                observations.set([])
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 3, "latest-value channels stay")
                withExtendedLifetime(centers) {}
            }
        }
        await withFreshTag(Race(seed: seed))
    }
}
