import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

@Suite struct PostingTests {
    // MARK: - Spellings

    @Test func valuePostsItselfAsPayload() {
        let center = NotificationCenter()
        let counts = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { counts.append($0.count) }
        CounterDidChange(count: 3).post(in: center)
        CounterDidChange(count: 4).post(in: center)
        CounterDidChange.post(CounterDidChange(count: 5), in: center)
        CounterDidChange.post(CounterDidChange(count: 6), in: center)
        #expect(counts.values == [3, 4, 5, 6])
        withExtendedLifetime(token) {}
    }

    @Test func separatePayloadTypeIsDelivered() {
        let center = NotificationCenter()
        let users = Recorded<User>()
        let token = UserDidLogIn.observe(in: center) { users.append($0) }
        UserDidLogIn.post(User(name: "Ada"), in: center)
        UserDidLogIn.post(User(name: "Grace"), in: center)
        #expect(users.values == [User(name: "Ada"), User(name: "Grace")])
        withExtendedLifetime(token) {}
    }

    @Test func payloadlessEventIsDelivered() {
        let center = NotificationCenter()
        let calls = Counter()
        let token = AppDidBecomeActive.observe(in: center) { calls.increment() }
        AppDidBecomeActive.post((), in: center)
        AppDidBecomeActive.post((), in: center)
        #expect(calls.count == 2)
        withExtendedLifetime(token) {}
    }

    @Test func postWithSenderReachesUnfilteredObservers() {
        let center = NotificationCenter()
        let counter = Sender()
        let counts = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { counts.append($0.count) }
        CounterDidChange(count: 3).post(from: counter, in: center)
        #expect(counts.values == [3])
        withExtendedLifetime(token) {}
    }

    @Test func postWithoutTypedObserversReachesPlainObserversAndReportsNothing() {
        let center = NotificationCenter()
        let plain = Counter()
        let observer = center.addObserver(forName: CounterDidChange.notificationName, object: nil, queue: nil) { _ in
            plain.increment()
        }
        let events = Recorded<NotificationDiagnostics.Event.Kind>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { events.append($0.kind) }
        NotificationDiagnostics.withHandler(record) {
            CounterDidChange(count: 1).post(in: center)
            AppDidBecomeActive.post((), in: center)
        }
        #expect(plain.count == 1, "the Foundation post is made even with no typed observer")
        #expect(events.values.isEmpty, "nothing is reported unless asked for")
        #expect(center.typedObservations.isEmpty, "posting registers nothing")
        center.removeObserver(observer)
    }

    // MARK: - Synchronous delivery

    @Test func handlerRunsOnThePostingThreadBeforePostReturns() async {
        let center = NotificationCenter()
        let threads = Recorded<ObjectIdentifier>()
        let token = CounterDidChange.observe(in: center) { _ in threads.append(Self.currentThreadID()) }
        let (poster, seenBeforeReturn): (ObjectIdentifier, [ObjectIdentifier]) = await withCheckedContinuation {
            continuation in
            Thread.detachNewThread {
                CounterDidChange(count: 1).post(in: center)
                // Recorded before post returned, so it is there now.
                continuation.resume(returning: (Self.currentThreadID(), threads.values))
            }
        }
        #expect(seenBeforeReturn == [poster])
        withExtendedLifetime(token) {}
    }

    /// The identity of the current thread's `Thread` object, which lives as long as the thread.
    private static func currentThreadID() -> ObjectIdentifier {
        ObjectIdentifier(Thread.current)
    }

    // MARK: - The default center

    @Test func defaultCenterIsUsedWhenNoneIsGiven() {
        let counts = Recorded<Int>()
        // A type used nowhere else, so parallel tests cannot interfere through `.default`.
        struct OnlyOnDefault: Notifiable { let count: Int }
        let token = OnlyOnDefault.observe { counts.append($0.count) }
        OnlyOnDefault(count: 7).post()
        OnlyOnDefault(count: 8).post(in: NotificationCenter())
        #expect(counts.values == [7])
        withExtendedLifetime(token) {}
    }
}
