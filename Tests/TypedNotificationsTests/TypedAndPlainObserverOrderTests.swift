import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Typed posts and plain observers on the same name: who runs first, and what a plain observer that posts, relays or
/// observes from inside a typed post causes. What each side sees of the other's posts is in
/// `PlainNotificationCenterInteropTests`.
///
/// Each case runs with the plain observer registered before and after the typed one. Foundation calls observers in
/// an order of its own (registration order on Apple platforms in practice, hash order on Linux), and on Apple
/// platforms it hands observers `userInfo` through `NSDictionary` (simulated by the
/// `-DTYPED_NOTIFICATIONS_SIMULATE_DARWIN` build, which runs this suite too): none of that may change what typed
/// observers see.
@Suite struct TypedAndPlainObserverOrderTests {
    enum Registration: CaseIterable, CustomTestStringConvertible {
        case plainFirst
        case typedFirst

        var testDescription: String { self == .plainFirst ? "plain observer first" : "typed observer first" }
    }

    /// A plain observer of `CounterDidChange` on `center`, registered before or after `typed`.
    private func observe(
        _ registration: Registration,
        on center: NotificationCenter,
        typed: @escaping @Sendable (CounterDidChange) -> Void,
        plain: @escaping @Sendable (Notification) -> Void
    ) -> (NotificationToken, any NSObjectProtocol) {
        switch registration {
        case .plainFirst:
            let observer = center.addObserver(
                forName: CounterDidChange.notificationName, object: nil, queue: nil, using: plain)
            return (CounterDidChange.observe(in: center, typed), observer)
        case .typedFirst:
            let token = CounterDidChange.observe(in: center, typed)
            return (
                token,
                center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil, using: plain)
            )
        }
    }

    // MARK: - Order

    @Test(arguments: Registration.allCases)
    func typedObserversRunBeforePlainObservers(registration: Registration) {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let (token, plain) = observe(
            registration, on: center, typed: { _ in calls.append("typed") }, plain: { _ in calls.append("plain") })
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        #expect(calls.values == ["typed", "plain"])
        withExtendedLifetime(token) {}
    }

    /// How a plain observer re-posts: a typed post, or a plain one with a `userInfo` of its own.
    enum RePost: CaseIterable, CustomTestStringConvertible {
        case typed
        case plainWithANewUserInfo

        var testDescription: String { self == .typed ? "typed re-post" : "plain re-post with a new userInfo" }

        func post(_ change: CounterDidChange, in center: NotificationCenter) {
            switch self {
            case .typed:
                change.post(in: center)
            case .plainWithANewUserInfo:
                center.post(
                    name: CounterDidChange.notificationName, object: nil,
                    userInfo: [Notification.typedPayloadKey: change])
            }
        }
    }

    @Test(arguments: Registration.allCases, RePost.allCases)
    func aRePostFromAPlainObserverArrivesAfterTheOriginal(registration: Registration, rePost: RePost) {
        let center = NotificationCenter()
        let counts = Recorded<Int>()
        let (token, plain) = observe(
            registration, on: center, typed: { counts.append($0.count) },
            plain: { note in
                if (note.userInfo?[Notification.typedPayloadKey] as? CounterDidChange)?.count == 1 {
                    rePost.post(CounterDidChange(count: 99), in: center)
                }
            })
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        #expect(counts.values == [1, 99])
        withExtendedLifetime(token) {}
    }

    @Test(arguments: Registration.allCases)
    func verbatimRePostFromAPlainObserverIsDeliveredOnceMore(registration: Registration) {
        let center = NotificationCenter()
        let counts = Recorded<Int>()
        let rePosted = Counter()
        let (token, plain) = observe(
            registration, on: center, typed: { counts.append($0.count) },
            plain: { note in
                guard rePosted.count == 0 else { return }
                rePosted.increment()
                center.post(note)
            })
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        #expect(counts.values == [1, 1])
        withExtendedLifetime(token) {}
    }

    // MARK: - Observers added during a post

    @Test(arguments: Registration.allCases)
    func typedObserverAddedByAPlainObserverStartsWithTheNextPost(registration: Registration) {
        let center = NotificationCenter()
        let late = Recorded<Int>()
        let lateToken = Slot<NotificationToken>()
        let (token, plain) = observe(
            registration, on: center, typed: { _ in },
            plain: { _ in
                guard lateToken.value == nil else { return }
                lateToken.set(CounterDidChange.observe(in: center) { late.append($0.count) })
            })
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        #expect(late.values == [])
        CounterDidChange(count: 2).post(in: center)
        #expect(late.values == [2])
        withExtendedLifetime(token) {}
        lateToken.set(nil)
    }

    /// With no typed observer when the post starts, a typed observer that a plain observer adds makes the type's
    /// first Foundation observer on the center while Foundation is delivering; it still starts with the next post.
    @Test func firstTypedObserverAddedByAPlainObserverStartsWithTheNextPost() {
        let center = NotificationCenter()
        let late = Recorded<Int>()
        let lateToken = Slot<NotificationToken>()
        let plain = center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil) { _ in
            guard lateToken.value == nil else { return }
            lateToken.set(CounterDidChange.observe(in: center) { late.append($0.count) })
        }
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        #expect(late.values == [2])
        lateToken.set(nil)
    }

    // MARK: - Re-posts of a payload-less type

    /// A post with no `userInfo` carries no mark; a plain post with no `userInfo` and the same sender, made from inside
    /// it, cannot be told apart from it and is delivered once in its place, while one from another sender is new.
    @Test func payloadlessTypedPostIsDeliveredOnceAndPlainObserversSeeNoUserInfo() {
        let center = NotificationCenter()
        let sender = Sender()
        let other = Sender()
        let typed = Recorded<Bool>()
        let userInfoSeen = Recorded<Bool>()
        let rePosted = Counter()
        let plain = center.addObserver(forName: AppDidBecomeActive.notificationName, object: nil, queue: nil) {
            note in
            userInfoSeen.append(note.userInfo == nil)
            guard rePosted.count == 0 else { return }
            rePosted.increment()
            center.post(name: AppDidBecomeActive.notificationName, object: sender)
            center.post(name: AppDidBecomeActive.notificationName, object: other)
        }
        defer { center.removeObserver(plain) }
        let token = AppDidBecomeActive.observe(in: center) { typed.append(true) }
        AppDidBecomeActive.post((), from: sender, in: center)
        // The original (directly), the re-post in its place, and the other sender's post.
        #expect(typed.count == 3)
        #expect(userInfoSeen.values.allSatisfy { $0 })
        withExtendedLifetime(token) {}
    }
}

extension TypedAndPlainObserverOrderTests {
    // MARK: - Re-posts are posts

    struct Relayed: Notifiable, Equatable {
        let id: Int
    }

    /// A plain observer that relays a typed post's `userInfo` on behalf of another object: the typed observers of the
    /// original sender get it once, those of the other sender get the relay once.
    @Test(arguments: [true, false])
    func plainRelayForAnotherSenderIsANewPost(plainObserverFirst: Bool) {
        let center = NotificationCenter()
        let original = Sender()
        let other = Sender()
        let fromOriginal = Recorded<Int>()
        let fromOther = Recorded<Int>()
        var tokens: [NotificationToken] = []
        let relay = {
            // No object filter: Swift's Foundation calls observers of one object before those of any object.
            center.addObserver(forName: Relayed.notificationName, object: nil, queue: nil) { note in
                guard note.object as AnyObject? === original else { return }
                center.post(name: note.name, object: other, userInfo: note.userInfo)
            }
        }
        let plain = plainObserverFirst ? relay() : nil
        tokens.append(Relayed.observe(from: original, in: center) { fromOriginal.append($0.id) })
        tokens.append(Relayed.observe(from: other, in: center) { fromOther.append($0.id) })
        let plainAfter = plainObserverFirst ? nil : relay()
        Relayed(id: 7).post(from: original, in: center)
        #expect(fromOriginal.values == [7])
        #expect(fromOther.values == [7])
        for observer in [plain, plainAfter].compactMap({ $0 }) { center.removeObserver(observer) }
        withExtendedLifetime(tokens) {}
    }

    /// A plain observer that copies a typed post's `userInfo`, replaces the payload and re-posts it from the same
    /// sender makes a new post: typed observers get the original once and the new payload once. Where Foundation
    /// copies `userInfo` (the simulated-Apple build), only a transformer that drops the package's
    /// `Notification.typedPostKey` entry can always be told apart from a verbatim re-post: one that keeps it is taken
    /// for the original when it runs before the package's own observer (documented in the Guarantees article).
    @Test(arguments: [true, false], [true, false])
    func plainTransformerThatRepostsAnotherPayloadIsANewPost(plainObserverFirst: Bool, keepsMark: Bool) {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Recorded<Int>()
        var token: NotificationToken?
        let transformer = {
            // No object filter: Swift's Foundation calls observers of one object before those of any object.
            center.addObserver(forName: Relayed.notificationName, object: nil, queue: nil) { note in
                guard var userInfo = note.userInfo, (userInfo[Notification.typedPayloadKey] as? Relayed)?.id == 1 else {
                    return
                }
                userInfo[Notification.typedPayloadKey] = Relayed(id: 2)
                if !keepsMark { userInfo[Notification.typedPostKey] = nil }
                center.post(name: note.name, object: sender, userInfo: userInfo)
            }
        }
        let first = plainObserverFirst ? transformer() : nil
        token = Relayed.observe(from: sender, in: center) { received.append($0.id) }
        let second = plainObserverFirst ? nil : transformer()
        Relayed(id: 1).post(from: sender, in: center)
        if Platform.foundationCopiesUserInfo && keepsMark {
            // Swift's Foundation calls the observers of one name in hash order, so which of the transformer and the
            // package's observer runs first differs between processes: when the transformer does, its re-post is taken
            // for the post, and the original arrives once more instead of the new payload, as documented.
            #expect([[1, 1], [1, 2]].contains(received.values), "the original once, then the new or the original")
        } else {
            #expect(received.values.sorted() == [1, 2])
        }
        for observer in [first, second].compactMap({ $0 }) { center.removeObserver(observer) }
        withExtendedLifetime(token) {}
    }
}
