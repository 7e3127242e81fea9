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

@Suite struct LatestValueTests {
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

    @Test func latestReadsTheLatestPostAndClearLatestForgetsIt() {
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
        #expect(try await UnreadCount.next(in: center, timeout: 60) == UnreadCount(count: 6))
    }

    @Test func theSenderFilterAppliesToTheLatestPost() {
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

    @Test func theLatestSenderIsKeptWeakly() {
        let center = NotificationCenter()
        var inbox: Sender? = Sender()
        weak let released = inbox
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
        weak let released = configuration
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
        weak let released = configuration
        ConfigurationDidLoad.post(configuration!, in: center!)
        configuration = nil
        #expect(released != nil)
        center = nil
        #expect(released == nil)
    }

    @Test func aNewPostReleasesTheOneItReplaces() {
        let center = NotificationCenter()
        var configuration: Configuration? = Configuration(version: 1)
        weak let released = configuration
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
