import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Typed and plain posts under one name reach each typed observer exactly once, including posts that a plain
/// observer makes from inside the delivery of a typed one, which the package's Foundation bridge must tell apart
/// from the typed post it has already delivered directly.
@Suite struct PlainNotificationCenterExactlyOnceTests {
    // MARK: - Re-posting from a plain observer

    /// How the plain observer re-posts what it sees.
    enum Repost: CaseIterable, CustomTestStringConvertible {
        /// `post(name:object:userInfo:)` with a new payload in a new `userInfo`.
        case newPlainPost
        /// A typed post of a new payload.
        case newTypedPost
        /// `post(_:)` of the very `Notification` it received.
        case sameNotification
        /// `post(name:object:userInfo:)` of the name, object and `userInfo` it received.
        case sameUserInfo

        var testDescription: String { "\(self)" }

        var repostedID: Int { self == .newPlainPost || self == .newTypedPost ? 2 : 1 }
    }

    /// The typed observer that exists when the typed post starts.
    enum ExistingObserver: CaseIterable, CustomTestStringConvertible {
        /// There is none: the post finds no channel.
        case none
        /// One that stays.
        case staying
        /// One that cancels itself when called, so that the channel is dropped during the post, before the plain
        /// observer adds a typed observer (and so a new channel).
        case cancellingItself

        var testDescription: String { "\(self)" }
    }

    /// A typed post of id 1 from a sender; a plain observer, from inside its delivery, adds a typed observer and
    /// re-posts once. The re-post is a post of its own, which starts after that observer was added, so the added
    /// observer must see `[repost]`; an existing observer sees `[1, repost]` if it stays, `[1]` if it cancelled itself.
    @Test(arguments: Repost.allCases, ExistingObserver.allCases)
    func plainObserverRepostingFromInsideDeliveryReachesTypedObserversOnce(repost: Repost, existing: ExistingObserver) {
        let center = NotificationCenter()
        let sender = Sender()
        let existingCalls = Protected<[Int]>([])
        let added = Protected<[Int]>([])
        let addedToken = Protected<NotificationToken?>(nil)
        let existingToken = Protected<NotificationToken?>(nil)
        if existing != .none {
            existingToken.withLock { slot in
                slot = Tick.observe(in: center) { tick in
                    existingCalls.append(tick.id)
                    if existing == .cancellingItself { existingToken.value?.cancel() }
                }
            }
        }
        let plain = center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { note in
            guard addedToken.value == nil else { return }
            let token = Tick.observe(in: center) { added.append($0.id) }
            addedToken.withLock { $0 = token }
            switch repost {
            case .newPlainPost:
                let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: Tick(id: 2)]
                center.post(name: note.name, object: note.object, userInfo: userInfo)
            case .newTypedPost:
                Tick(id: 2).post(from: sender, in: center)
            case .sameNotification:
                center.post(note)
            case .sameUserInfo:
                center.post(name: note.name, object: note.object, userInfo: note.userInfo)
            }
        }
        Tick(id: 1).post(from: sender, in: center)
        center.removeObserver(plain)

        switch existing {
        case .none: break
        case .staying: #expect(existingCalls.value == [1, repost.repostedID])
        case .cancellingItself: #expect(existingCalls.value == [1])
        }
        #expect(added.value == [repost.repostedID], "the observer added before the re-post")
        existingToken.withLock { $0 = nil }  // its handler holds it: break the cycle
        addedToken.withLock { $0 = nil }
    }

    // MARK: - Plain posts

    /// A plain post under the name reaches typed observers when it carries a payload, and is skipped (never a crash)
    /// when it does not.
    @Test func plainPostsReachTypedObserversOnlyWithADecodablePayload() {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Protected<[Int]>([])
        let fromSender = Protected<[Int]>([])
        let tokens = [
            Tick.observe(in: center) { received.append($0.id) },
            Tick.observe(from: sender, in: center) { fromSender.append($0.id) },
        ]
        let name = Tick.notificationName
        let reported = reports {
            center.post(name: name, object: nil)
            center.post(name: name, object: sender, userInfo: ["id": 1])
            center.post(name: name, object: sender, userInfo: [Notification.typedPayloadKey: 1])
            center.post(
                name: name, object: sender, userInfo: [Notification.typedPayloadKey: Stamped(stamp: 1, depth: 0)])
        }
        #expect(reported.map(\.kindName) == Array(repeating: "decodingFailed", count: 4), "each skip is reported")
        center.post(name: name, object: "a value, not an object", userInfo: [Notification.typedPayloadKey: Tick(id: 2)])
        center.post(name: name, object: sender, userInfo: [Notification.typedPayloadKey: Tick(id: 3)])
        center.post(name: name, object: Sender(), userInfo: [Notification.typedPayloadKey: Tick(id: 4)])
        #expect(received.value == [2, 3, 4])
        #expect(fromSender.value == [3])
        withExtendedLifetime(tokens) {}
    }

    /// A plain post is decoded once for all of a type's typed observers; a typed post is not decoded at all (on
    /// Linux, where typed observers get typed posts directly).
    @Test func plainPostIsDecodedOnceForAllTypedObserversAndTypedPostsNotAtAll() {
        let center = NotificationCenter()
        let received = Protected<[Int]>([])
        let tokens = (0..<3).map { _ in CountedDecoding.observe(in: center) { received.append($0) } }
        let before = CountedDecoding.decodings.value
        CountedDecoding.post(5, in: center)
        #if os(Linux)
        #expect(CountedDecoding.decodings.value == before)
        #endif
        let typedDecodings = CountedDecoding.decodings.value
        center.post(name: CountedDecoding.notificationName, object: nil, userInfo: ["value": 6])
        #expect(CountedDecoding.decodings.value == typedDecodings + 1)
        #expect(received.value == [5, 5, 5, 6, 6, 6])
        withExtendedLifetime(tokens) {}
    }

    /// Plain observers see typed posts with the sender as `object` and the payload under `typedPayloadKey`, once.
    @Test func plainObserversSeeEachTypedPostOnceWithItsSender() {
        let center = NotificationCenter()
        let sender = Sender(generation: 7)
        let sightings = Protected<[Sighting]>([])
        let plain = center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { note in
            let tick = note.userInfo?[Notification.typedPayloadKey] as? Tick
            let generation = (note.object as? Sender)?.generation ?? -1
            sightings.withLock { $0.append(Sighting(post: tick?.id ?? -1, sender: generation)) }
        }
        let token = Tick.observe(in: center) { _ in }
        Tick(id: 1).post(from: sender, in: center)
        Tick(id: 2).post(in: center)
        Tick.post(Tick(id: 3), from: sender, in: center)
        center.removeObserver(plain)
        let expected = [Sighting(post: 1, sender: 7), Sighting(post: 2, sender: -1), Sighting(post: 3, sender: 7)]
        #expect(sightings.value == expected)
        withExtendedLifetime(token) {}
    }
}

/// A legacy layout (`userInfo["value"]`) whose decoder counts its calls; only the test above posts it.
private enum CountedDecoding: Notifiable {
    typealias Payload = Int

    static let decodings = Counter()

    static func payload(from notification: Notification) throws -> Int {
        decodings.increment()
        guard let value = notification.userInfo?["value"] as? Int else {
            throw NotificationDecodingError.missingValue(key: "value")
        }
        return value
    }

    static func userInfo(for payload: Int) -> [AnyHashable: Any]? {
        ["value": payload]
    }
}
