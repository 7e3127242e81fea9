import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The adversarial review of the redesigned delivery core: each test states a promise of the Guarantees article and
/// exercises it the way a user or a reviewer would. Each finding was fixed (nested posts on a target, backlogs run by a
/// post, re-entered handlers, main-queue owners, queued deliveries of cancelled observers) or, for verbatim re-posts,
/// which cannot be told apart from the post, its rule documented and pinned here.
@Suite struct AdversarialTests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    enum Pause: Notifiable {
        typealias Payload = Int
    }

    enum Ping: Notifiable {
        typealias Payload = Void
    }

    @MainActor final class Log {
        var entries: [Int] = []
        var depth = 0
        var deepest = 0
    }

    // MARK: - One order per target

    /// "Observers that run on the same serial target, for the same center, see that center's posts in one order."
    /// A post made on the main actor runs the main-actor observers synchronously; when the first of them posts again
    /// (on the main actor), the nested post once reached both observers before the outer post reached the second
    /// (the first saw [1, 10], the second [10, 1]). A post made from inside a handler of the target is now queued
    /// behind the post it was made in.
    @Test @MainActor func nestedPostFromASynchronouslyRunMainActorHandlerKeepsOneOrder() async {
        let center = NotificationCenter()
        let first = Log()
        let second = Log()
        let done = Signal()
        let tokens = [
            Play.observeOnMainActor(in: center) { index in
                first.entries.append(index)
                if index == 1 { Play.post(10, in: center) }
            },
            Play.observeOnMainActor(in: center) { index in
                second.entries.append(index)
                if index == 10 { done.fire() }
            },
        ]
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

    /// A post made on the main actor behind a short backlog runs the backlog, then itself; a handler in that backlog
    /// that posts again (on the main actor) once overtook the rest of the backlog (the first observer saw 1, 10, 2,
    /// the second 10, 1, 2). Its post is now queued behind everything queued before it, the outer post included.
    @Test @MainActor func postFromAHandlerInABacklogThatAPostRunsKeepsOneOrder() async {
        let center = NotificationCenter()
        let first = Log()
        let second = Log()
        let done = Signal()
        let tokens = [
            Play.observeOnMainActor(in: center) { index in
                first.entries.append(index)
                if index == 1 { Play.post(10, in: center) }
            },
            Play.observeOnMainActor(in: center) { index in
                second.entries.append(index)
                if index == 10 { done.fire() }
            },
        ]
        // Queued: this code holds the main actor.
        #expect(runOnAnotherThreadAndWait { for index in 1...2 { Play.post(index, in: center) } })
        Play.post(0, in: center)
        #expect(first.entries == [1, 2, 0], "the backlog, then the post, before it returned")
        await done.wait()
        #expect(first.entries == [1, 2, 0, 10])
        #expect(second.entries == first.entries, "two main-actor observers of one center saw two orders")
        withExtendedLifetime(tokens) {}
    }

    // MARK: - Re-subscribing inside a handler

    /// "Observers added during a post start with the next post", and observation begins when `observe` returns: a
    /// main-actor handler that, on a queued payload, cancels its token and observes again gets none of the payloads
    /// that were already queued when it re-subscribed, and every later one.
    @Test @MainActor func mainActorHandlerThatResubscribesOnAQueuedPayloadStartsWithTheNextPost() async {
        let center = NotificationCenter()
        let old = Log()
        let new = Log()
        let done = Signal()
        let resubscribed = Signal()
        let token = Slot<NotificationToken>()
        token.set(
            Play.observeOnMainActor(in: center) { index in
                old.entries.append(index)
                guard index == 1 else { return }
                defer { resubscribed.fire() }
                token.value?.cancel()
                token.set(
                    Play.observeOnMainActor(in: center) { index in
                        new.entries.append(index)
                        if index == 4 { done.fire() }
                    })
            })
        #expect(runOnAnotherThreadAndWait { for index in 1...3 { Play.post(index, in: center) } })
        await resubscribed.wait()
        #expect(runOnAnotherThreadAndWait { Play.post(4, in: center) })
        await done.wait()
        #expect(old.entries == [1])
        #expect(new.entries == [4])
        token.set(nil)
    }

    // MARK: - Owners are loaded where they may die

    @MainActor final class ViewModel: Sendable {
        var seen: [Int] = []
    }

    /// A view model that observes with `delivery: .async(on: .main)` (the spelling that code migrating from
    /// `queue: .main` uses) is loaded by the package on whatever thread registers another observer of the type (the
    /// registration sweeps for dead owners), so the package can become the last holder of a main-actor object on a
    /// background thread, which the Guarantees article rules out for main-actor observations.
    @Test @MainActor func mainQueueOwnerIsNeverLoadedOffTheMainThread() async {
        let center = NotificationCenter()
        let model = ViewModel()
        let done = Signal()
        Play.observe(for: model, in: center, delivery: .async(on: DispatchQueue.main)) { model, index in
            MainActor.assumeIsolated { model.seen.append(index) }
            if index == 1 { done.fire() }
        }
        // Loads on the background thread below; not `Thread.isMainThread`, since on Linux the main queue may be
        // served by another thread.
        let loadsOffMain = Counter()
        let background = Slot<ObjectIdentifier>()
        TestHooks.onOwnerLoad(of: model) { _ in
            if background.value == ObjectIdentifier(Thread.current) { loadsOffMain.increment() }
        }
        defer { TestHooks.removeOwnerLoadHook(for: ObjectIdentifier(model)) }
        #expect(
            runOnAnotherThreadAndWait {
                background.set(ObjectIdentifier(Thread.current))
                withExtendedLifetime(Play.observe(in: center) { _ in }) {}
                _ = center.typedObservations
                Play.post(1, in: center)
                background.set(nil)
            })
        await done.wait()
        #expect(model.seen == [1])
        #expect(loadsOffMain.count == 0, "a main-queue owner was loaded off the main thread")
    }

    // MARK: - Re-posts are posts

    enum RePost: CaseIterable, CustomTestStringConvertible, Sendable {
        /// `center.post(notification)`.
        case verbatim
        /// `center.post(name:object:userInfo:)` with the same `userInfo`.
        case sameUserInfo

        var testDescription: String { self == .verbatim ? "post(notification)" : "post(name:object:userInfo:)" }
    }

    /// A verbatim re-post made while the post is in flight (same sender, same `userInfo`) cannot be told apart from
    /// the post. The Guarantees article's rule: typed observers receive the payload once more when the later of the
    /// two reaches the package's Foundation observer, and only the observers active then. A plain observer with an
    /// object filter (Swift's Foundation calls it before the package's, which observes any object) re-posts
    /// verbatim, then cancels the typed observation: the later of the two arrives after the cancel, so the observer
    /// gets the payload once, `[1]`, not `[1, 1]`.
    @Test(arguments: RePost.allCases)
    func verbatimRePostReachesTheObserverThatWasActiveWhenItWasMade(rePost: RePost) {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Recorded<Int>()
        let token = Slot<NotificationToken>()
        token.set(CounterDidChange.observe(from: sender, in: center) { received.append($0.count) })
        let rePosted = Counter()
        let plain = center.addObserver(forName: CounterDidChange.notificationName, object: sender, queue: nil) { note in
            guard rePosted.count == 0 else { return }
            rePosted.increment()
            switch rePost {
            case .verbatim: center.post(note)
            case .sameUserInfo: center.post(name: note.name, object: sender, userInfo: note.userInfo)
            }
            #expect(received.values == [1], "the earlier of the two is taken for the post")
            token.value?.cancel()
        }
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(from: sender, in: center)
        #expect(received.values == [1], "the later of the two arrived after the cancel")
    }

    /// The same rule when the plain observer re-posts verbatim, then observes typed: the later of the two (the post
    /// itself, here) is delivered as the re-post, to the observers active then, the new one included.
    @Test(arguments: RePost.allCases)
    func observerAddedAfterAVerbatimRePostReturnedGetsNeitherPost(rePost: RePost) {
        let center = NotificationCenter()
        let sender = Sender()
        let original = Recorded<Int>()
        let late = Recorded<Int>()
        let lateToken = Slot<NotificationToken>()
        let rePosted = Counter()
        let token = CounterDidChange.observe(from: sender, in: center) { original.append($0.count) }
        let plain = center.addObserver(forName: CounterDidChange.notificationName, object: sender, queue: nil) { note in
            guard rePosted.count == 0 else { return }
            rePosted.increment()
            switch rePost {
            case .verbatim: center.post(note)
            case .sameUserInfo: center.post(name: note.name, object: sender, userInfo: note.userInfo)
            }
            lateToken.set(CounterDidChange.observe(from: sender, in: center) { late.append($0.count) })
        }
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(from: sender, in: center)
        #expect(original.values == [1, 1])
        #expect(late.values == [1], "the later of the two reaches the observers active then")
        withExtendedLifetime(token) {}
        lateToken.set(nil)
    }

    /// The same with a payload-less type, whose typed posts carry no `userInfo`: any plain post of the name from the
    /// same sender without `userInfo` is a verbatim re-post. A plain observer that posts it again and then cancels:
    /// the later of the two arrives after the cancel, so the typed observer is called once.
    @Test func plainPostOfAPayloadlessTypeFromTheSameSenderReachesTheObserverActiveWhenItWasMade() {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Counter()
        let token = Slot<NotificationToken>()
        token.set(Ping.observe(from: sender, in: center) { received.increment() })
        let rePosted = Counter()
        let plain = center.addObserver(forName: Ping.notificationName, object: sender, queue: nil) { _ in
            guard rePosted.count == 0 else { return }
            rePosted.increment()
            center.post(name: Ping.notificationName, object: sender)
            token.value?.cancel()
        }
        defer { center.removeObserver(plain) }
        Ping.post((), from: sender, in: center)
        #expect(received.count == 1)
    }

    // MARK: - Typed posts recognised by their userInfo

    /// A type whose custom `userInfo(for:)` writes nothing for `false` (an empty dictionary, which every empty
    /// dictionary shares its storage with) and whose decoder reads a missing key as `false`.
    enum Flag: Notifiable {
        typealias Payload = Bool

        static func userInfo(for payload: Bool) -> [AnyHashable: Any]? {
            payload ? ["on": true] : [:]
        }

        static func payload(from notification: Notification) throws -> Bool {
            notification.userInfo?["on"] as? Bool ?? false
        }
    }

    /// "Exactly once": a typed post whose `userInfo` is empty reaches its typed observer once.
    @Test(arguments: [false, true])
    func typedPostWithAnEmptyUserInfoReachesItsObserverOnce(payload: Bool) {
        let center = NotificationCenter()
        let received = Recorded<Bool>()
        let token = Flag.observe(in: center) { received.append($0) }
        Flag.post(payload, in: center)
        #expect(received.values == [payload])
        withExtendedLifetime(token) {}
    }

    /// A plain observer that makes a typed post of the same type, from the same sender, with an empty `userInfo`
    /// (one storage for all), from inside the delivery of a typed post with an empty `userInfo`: each post reaches
    /// the typed observer once.
    @Test func nestedTypedPostWithAnEmptyUserInfoFromAPlainObserverReachesTheObserverOnce() {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Recorded<Bool>()
        let token = Flag.observe(from: sender, in: center) { received.append($0) }
        let nested = Counter()
        let plain = center.addObserver(forName: Flag.notificationName, object: sender, queue: nil) { _ in
            guard nested.count == 0 else { return }
            nested.increment()
            Flag.post(false, from: sender, in: center)
        }
        defer { center.removeObserver(plain) }
        Flag.post(false, from: sender, in: center)
        #expect(received.values == [false, false])
        withExtendedLifetime(token) {}
    }

    // MARK: - Cancelling drops queued deliveries

    final class Tracked: Sendable {}

    /// "Cancelling drops the deliveries still queued", and "However observations end, the package ... frees their
    /// handlers". With the queue busy, a cancelled (and released) queue observer once kept its queued payloads, their
    /// sender and its handler (with whatever it captured) alive until the queue got round to skipping them, where an
    /// `async` observer's mailbox dropped them at once.
    @Test func cancellingAQueueObserverReleasesWhatItsQueuedDeliveriesHold() {
        let center = NotificationCenter()
        let (queue, release) = busyQueue()
        weak var weakPayload: Tracked?
        weak var weakSender: Sender?
        weak var weakCaptured: Tracked?
        do {
            let captured = Tracked()
            weakCaptured = captured
            let token = Box<Tracked>.observe(in: center, delivery: .async(on: queue)) { _, _ in
                withExtendedLifetime(captured) {}
            }
            let payload = Tracked()
            let sender = Sender()
            weakPayload = payload
            weakSender = sender
            Box(value: payload).post(from: sender, in: center)
            token.cancel()
        }
        #expect(weakPayload == nil, "a cancelled observer's queued payload is still held")
        #expect(weakSender == nil, "a cancelled observer's queued sender is still held")
        #expect(weakCaptured == nil, "a cancelled observer's handler is still held")
        release.signal()
        queue.sync {}
        #expect(weakPayload == nil && weakSender == nil && weakCaptured == nil)
    }
}
