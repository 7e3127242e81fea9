import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// Typed and plain `NotificationCenter` code working on the same names.
@Suite struct InteropTests {
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
        center.post(name: CounterDidChange.notificationName, object: nil, userInfo: userInfo)
        CounterDidChange(count: 1).post(in: center)
        #expect(counts.values == [1])
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

    @Test func twoTypesSharingANameDecodeEachOthersPosts() {
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
