import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Typed and plain `NotificationCenter` code working on the same names: what plain observers see of typed posts, and
/// typed observers of plain posts. Who runs first, and re-posts from plain observers, are in
/// `TypedAndPlainObserverOrderTests`.
@Suite struct PlainNotificationCenterInteropTests {
    // MARK: - Typed posts seen by plain observers

    @Test func plainObserverSeesTypedPostsWithSenderAndPayload() throws {
        let center = NotificationCenter()
        let sender = Sender()
        let seen = Recorded<Int>()
        let senders = Recorded<Bool>()
        let plain = center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil) { note in
            seen.append((note.userInfo?[Notification.typedPayloadKey] as? CounterDidChange)?.count ?? -1)
            senders.append(note.object as AnyObject? === sender)
        }
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 5).post(from: sender, in: center)
        #expect(seen.values == [5])
        #expect(senders.values == [true])
    }

    @Test func plainObserverFilteringBySenderSeesOnlyThatSendersTypedPosts() {
        let center = NotificationCenter()
        let sender = Sender()
        let seen = Counter()
        let plain = center.addObserver(forName: CounterDidChange.notificationName, object: sender, queue: nil) { _ in
            seen.increment()
        }
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(from: sender, in: center)
        #expect(seen.count == 1)
    }

    @Test func plainObserverOfAPayloadlessEventSeesNoUserInfo() {
        let center = NotificationCenter()
        let userInfos = Recorded<Bool>()
        let plain = center.addObserver(forName: AppDidBecomeActive.notificationName, object: nil, queue: nil) { note in
            userInfos.append(note.userInfo == nil)
        }
        defer { center.removeObserver(plain) }
        AppDidBecomeActive.post((), in: center)
        #expect(userInfos.values == [true])
    }

    // MARK: - Plain posts seen by typed observers

    @Test func plainPostWithThePayloadKeyReachesTypedObservers() {
        let center = NotificationCenter()
        let sender = Sender()
        let all = Recorded<Int>()
        let filtered = Recorded<Int>()
        let tokens = [
            CounterDidChange.observe(in: center) { all.append($0.count) },
            CounterDidChange.observe(from: sender, in: center) { filtered.append($0.count) },
        ]
        center.post(
            name: CounterDidChange.notificationName,
            object: sender,
            userInfo: [Notification.typedPayloadKey: CounterDidChange(count: 1)]
        )
        center.post(
            name: CounterDidChange.notificationName,
            object: nil,
            userInfo: [Notification.typedPayloadKey: CounterDidChange(count: 2)]
        )
        #expect(all.values == [1, 2])
        #expect(filtered.values == [1])
        withExtendedLifetime(tokens) {}
    }

    @Test func plainPostOfAPayloadlessEventReachesTypedObservers() {
        let center = NotificationCenter()
        let calls = Counter()
        let token = AppDidBecomeActive.observe(in: center) { calls.increment() }
        center.post(name: AppDidBecomeActive.notificationName, object: nil)
        #expect(calls.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test(
        arguments: [
            nil,
            [:],
            ["other": 1],
            [Notification.typedPayloadKey: "not a counter"],
            [Notification.typedPayloadKey: 42],
        ] as [[String: any Sendable]?])
    func plainPostThatDoesNotDecodeIsSkippedAndLaterPostsStillArrive(userInfo: [String: any Sendable]?) {
        let center = NotificationCenter()
        let counts = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { counts.append($0.count) }
        let reported = reports { center.post(name: CounterDidChange.notificationName, object: nil, userInfo: userInfo) }
        CounterDidChange(count: 1).post(in: center)
        #expect(counts.values == [1])
        #expect(reported.map(\.kindName) == ["decodingFailed"], "the post that did not decode is reported")
        withExtendedLifetime(token) {}
    }

    // MARK: - Exactly once

    @Test func typedPostReachesEachTypedObserverOnceWhilePlainObserversExist() {
        let center = NotificationCenter()
        let typed = Counter()
        let plainCalls = Counter()
        let plains = (0..<5).map { _ in
            center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil) { _ in
                plainCalls.increment()
            }
        }
        defer { plains.forEach(center.removeObserver) }
        let token = CounterDidChange.observe(in: center) { _ in typed.increment() }
        for count in 0..<10 { CounterDidChange(count: count).post(in: center) }
        #expect(typed.count == 10)
        #expect(plainCalls.count == 50)
        withExtendedLifetime(token) {}
    }

    /// Foundation calls observers in hash order, so the re-posting plain observer runs before the package's own
    /// Foundation observer in some centers and after it in others; many centers cover both.
    @Test(arguments: [false, true])
    func plainObserverRepostingTheSameNameIsDeliveredExactlyOnce(verbatim: Bool) {
        for _ in 0..<40 {
            let center = NotificationCenter()
            let received = Recorded<Int>()
            let token = CounterDidChange.observe(in: center) { received.append($0.count) }
            let reposted = Counter()
            let plains = (0..<Int.random(in: 1...6)).map { index in
                center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil) { note in
                    guard index == 0, reposted.count == 0 else { return }
                    reposted.increment()
                    if verbatim {
                        center.post(name: note.name, object: note.object, userInfo: note.userInfo)
                    } else {
                        center.post(
                            name: note.name,
                            object: nil,
                            userInfo: [Notification.typedPayloadKey: CounterDidChange(count: 2)]
                        )
                    }
                }
            }
            CounterDidChange(count: 1).post(in: center)
            #expect(received.values == (verbatim ? [1, 1] : [1, 2]))
            plains.forEach(center.removeObserver)
            withExtendedLifetime(token) {}
        }
    }

    @Test func typedPostFromInsideAPlainObserverIsDeliveredOnce() {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { received.append($0.count) }
        let plain = center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil) { note in
            let count = (note.userInfo?[Notification.typedPayloadKey] as? CounterDidChange)?.count ?? 0
            if count < 3 { CounterDidChange(count: count + 1).post(in: center) }
        }
        defer { center.removeObserver(plain) }
        CounterDidChange(count: 1).post(in: center)
        #expect(received.values == [1, 2, 3])
        withExtendedLifetime(token) {}
    }

    @Test(.capturesReports) func twoTypesSharingANameDecodeEachOthersPosts() {
        struct Celsius: Notifiable {
            static var notificationName: Notification.Name { .init("Temperature") }
            let value: Double
            static func userInfo(for payload: Celsius) -> [AnyHashable: Any]? { ["celsius": payload.value] }
        }
        struct Fahrenheit: Notifiable {
            static var notificationName: Notification.Name { .init("Temperature") }
            let value: Double
            static func payload(from notification: Notification) throws -> Fahrenheit {
                let celsius = try #require(notification.userInfo?["celsius"] as? Double)
                return Fahrenheit(value: celsius * 9 / 5 + 32)
            }
        }
        let center = NotificationCenter()
        let fahrenheit = Recorded<Double>()
        let celsius = Recorded<Double>()
        let tokens = [
            Fahrenheit.observe(in: center) { fahrenheit.append($0.value) },
            Celsius.observe(in: center) { celsius.append($0.value) },
        ]
        Celsius(value: 100).post(in: center)
        #expect(fahrenheit.values == [212])
        #expect(celsius.values == [100])
        withExtendedLifetime(tokens) {}
    }
}

extension PlainNotificationCenterInteropTests {
    enum Ping: Notifiable {
        typealias Payload = Void
    }

    // MARK: - Re-posts are posts

    enum RePost: CaseIterable, CustomTestStringConvertible, Sendable {
        /// `center.post(notification)`.
        case verbatim
        /// `center.post(name:object:userInfo:)` with the same `userInfo`.
        case sameUserInfo

        var testDescription: String { self == .verbatim ? "post(notification)" : "post(name:object:userInfo:)" }

        /// Posts `note` again on `center`, this way.
        func post(_ note: Notification, in center: NotificationCenter) {
            switch self {
            case .verbatim: center.post(note)
            case .sameUserInfo: center.post(name: note.name, object: note.object, userInfo: note.userInfo)
            }
        }
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
            rePost.post(note, in: center)
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
            rePost.post(note, in: center)
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
}

extension PlainNotificationCenterInteropTests {
    /// Typed and plain posts of the name from several threads: every one reaches each async observer (plain, and
    /// owner-bound) exactly once, each source in order; plain observers see every post once too.
    @Test func plainAndTypedPostsReachAsyncObserversExactlyOnce() async {
        let center = NotificationCenter()
        let perThread = 250
        let threads = 4
        let total = threads * perThread
        let owner = DeinitReportingOwner()
        let seen = (0..<2).map { _ in Recorded<Int>() }
        let tallies = (0..<2).map { _ in CountdownTally(total) }
        let overlaps = (0..<2).map { _ in AsyncHandlerTests.Overlap() }
        let plainSeen = Counter()
        let token = NumberPosted.observe(in: center) { value async in
            overlaps[0].enter()
            seen[0].append(value)
            if value % 11 == 0 { await Task.yield() }
            overlaps[0].leave()
            tallies[0].bump()
        }
        NumberPosted.observe(for: owner, in: center) { _, value async in
            overlaps[1].enter()
            seen[1].append(value)
            overlaps[1].leave()
            tallies[1].bump()
        }
        let plain = center.addObserver(forName: NumberPosted.notificationName, object: nil, queue: nil) { _ in
            plainSeen.increment()
        }
        await onThreads(threads) { thread in
            for index in 0..<perThread {
                let value = thread * 1_000_000 + index
                // Threads 0 and 1 post typed; 2 and 3 plain; every third post switches.
                if (thread < 2) != (index % 3 == 0) {
                    NumberPosted.post(value, in: center)
                } else {
                    center.post(
                        name: NumberPosted.notificationName, object: nil, userInfo: NumberPosted.userInfo(for: value))
                }
            }
        }
        for observer in 0..<2 {
            await waitOrRecordTimeout(tallies[observer].reached, "observer \(observer)")
            let values = seen[observer].values
            #expect(values.count == total, "observer \(observer): \(values.count) of \(total)")
            #expect(Set(values).count == values.count, "observer \(observer): a post was delivered twice")
            for thread in 0..<threads {
                expectSourceInOrder(
                    values, source: thread, expected: (0..<perThread).map { thread * 1_000_000 + $0 },
                    "observer \(observer)")
            }
            #expect(!overlaps[observer].everOverlapped)
        }
        #expect(plainSeen.value == total)
        center.removeObserver(plain)
        withExtendedLifetime((token, owner)) {}
    }

    /// A typed post made from inside a plain observer's block during another typed post, and a plain post made from
    /// inside a posting-thread typed observer: each reaches the async observer once.
    @Test func nestedTypedAndPlainPostsReachAnAsyncObserverOnce() async {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        let done = CountdownTally(4)
        let sentinel = CountdownTally(1)
        let token = NumberPosted.observe(in: center) { value async in
            seen.append(value)
            if value == 5 { sentinel.bump() } else { done.bump() }
        }
        let immediate = NumberPosted.observe(in: center) { value in
            if value == 1 {
                center.post(name: NumberPosted.notificationName, object: nil, userInfo: NumberPosted.userInfo(for: 2))
            }
        }
        let plain = center.addObserver(forName: NumberPosted.notificationName, object: nil, queue: nil) {
            notification in
            if let value = try? NumberPosted.payload(from: notification), value == 3 {
                NumberPosted.post(4, in: center)
            }
        }
        NumberPosted.post(1, in: center)
        NumberPosted.post(3, in: center)
        await waitOrRecordTimeout(done.reached, "four deliveries")
        // A sentinel, queued behind anything queued twice: nothing else arrives before it.
        NumberPosted.post(5, in: center)
        await waitOrRecordTimeout(sentinel.reached, "the sentinel")
        #expect(seen.values.sorted() == [1, 2, 3, 4, 5], "\(seen.values)")
        center.removeObserver(plain)
        withExtendedLifetime((token, immediate)) {}
    }
}

extension PlainNotificationCenterInteropTests {
    // MARK: - The userInfo a type writes

    /// Plain observers read `legacyCount`; the decoder reads a key that typed posts never write, so typed observers
    /// can only be reached directly.
    enum OneWayLegacy: Notifiable {
        typealias Payload = Int
        static func userInfo(for payload: Int) -> [AnyHashable: Any]? { ["legacyCount": payload] }
        static func payload(from notification: Notification) throws -> Int {
            try count(under: "otherCount", in: notification)
        }
    }

    /// A legacy layout of plain values: `userInfo` is `["legacyCount": Int]`, and plain posts decode from it.
    enum LegacyCount: Notifiable {
        typealias Payload = Int
        static func userInfo(for payload: Int) -> [AnyHashable: Any]? { ["legacyCount": payload] }
        static func payload(from notification: Notification) throws -> Int {
            try count(under: "legacyCount", in: notification)
        }
    }

    /// The `Int` under `key` in a plain post's `userInfo`, or the error that names the key.
    static func count(under key: String, in notification: Notification) throws -> Int {
        guard let count = notification.userInfo?[key] as? Int else {
            throw NotificationDecodingError.missingValue(key: key)
        }
        return count
    }

    @Test func typeWhoseDecoderCannotReadItsOwnUserInfoStillReachesItsTypedObservers() {
        let center = NotificationCenter()
        let typed = Recorded<Int>()
        let plain = Recorded<Int>()
        let token = OneWayLegacy.observe(in: center) { typed.append($0) }
        let observer = center.addObserver(forName: OneWayLegacy.notificationName, object: nil, queue: nil) { note in
            plain.append(note.userInfo?["legacyCount"] as? Int ?? -1)
        }
        defer { center.removeObserver(observer) }
        OneWayLegacy.post(7, in: center)
        #expect(typed.values == [7])
        #expect(plain.values == [7])
        withExtendedLifetime(token) {}
    }

    /// Plain observers read what ``Notifiable/userInfo(for:)`` wrote, whether typed observers exist or not: a
    /// plain-values layout stays valid JSON. Where Foundation copies `userInfo` (the simulated-Apple build), a post
    /// that has typed observers carries one more entry, a number under `Notification.typedPostKey`, which keeps it
    /// valid JSON.
    @Test func plainObserversReadTheUserInfoThatUserInfoForWrote() throws {
        let center = NotificationCenter()
        let seen = Recorded<[String: Int]>()
        let observer = center.addObserver(forName: LegacyCount.notificationName, object: nil, queue: nil) { note in
            let userInfo = note.userInfo ?? [:]
            #expect(JSONSerialization.isValidJSONObject(userInfo))
            var values: [String: Int] = [:]
            for (key, value) in userInfo {
                if let key = key.base as? String, let value = value as? Int { values[key] = value }
            }
            seen.append(values)
        }
        defer { center.removeObserver(observer) }
        LegacyCount.post(1, in: center)
        let token = LegacyCount.observe(in: center) { _ in }
        LegacyCount.post(2, in: center)
        token.cancel()
        LegacyCount.post(3, in: center)
        let values = seen.values
        try #require(values.count == 3)
        for (index, userInfo) in values.enumerated() {
            #expect(userInfo["legacyCount"] == index + 1)
            let extra = userInfo.keys.filter { $0 != "legacyCount" }
            if Platform.foundationCopiesUserInfo && index == 1 {
                #expect(extra == [Notification.typedPostKey])
            } else {
                #expect(extra.isEmpty, "plain observers read exactly what userInfo(for:) wrote")
            }
        }
    }

    @Test func thePayloadKeysAreNamespaced() {
        #expect(Notification.typedPayloadKey == "tn.payload")
        #expect(Notification.typedPostKey == "tn.post")
    }
}
