import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedNotificationsTesting

/// Typed views of existing string notifications (seed 002's payment view controller).
@Suite struct BridgingTests {
    struct Payment: Sendable, Equatable {
        let id: String
        let amount: Int
    }

    /// The legacy notification as typed code sees it: its string name and its `userInfo` keys.
    enum PaymentAccepted: Notifiable {
        typealias Payload = Payment
        static var notificationName: Notification.Name { .init("PaymentViewControllerNotificationAccepted") }

        static func payload(from notification: Notification) throws -> Payment {
            guard let userInfo = notification.userInfo else { throw NotificationDecodingError.missingUserInfo }
            guard let id = userInfo["paymentID"] as? String else {
                throw NotificationDecodingError.missingValue(key: "paymentID")
            }
            guard let amount = userInfo["amount"] as? Int else {
                throw NotificationDecodingError.missingValue(key: "amount")
            }
            return Payment(id: id, amount: amount)
        }

        static func userInfo(for payment: Payment) -> [AnyHashable: Any]? {
            ["paymentID": payment.id, "amount": payment.amount]
        }
    }

    // MARK: - Legacy to typed

    @Test func legacyPostReachesTypedObserversDecoded() async {
        let center = NotificationCenter()
        let payments = await expectPosts(PaymentAccepted.self, count: 1, in: center) {
            center.post(
                name: .init("PaymentViewControllerNotificationAccepted"),
                object: nil,
                userInfo: ["paymentID": "p-1", "amount": 250]
            )
        }
        #expect(payments == [Payment(id: "p-1", amount: 250)])
    }

    @Test(.capturesReports) func legacyPostThatDoesNotDecodeIsSkippedAndLaterPostsArrive() {
        let center = NotificationCenter()
        let payments = Recorded<Payment>()
        let token = PaymentAccepted.observe(in: center) { payments.append($0) }
        let recorder = NotificationRecorder(PaymentAccepted.self, in: center)
        let name = Notification.Name("PaymentViewControllerNotificationAccepted")
        center.post(name: name, object: nil, userInfo: nil)
        center.post(name: name, object: nil, userInfo: ["paymentID": "p-1"])
        center.post(name: name, object: nil, userInfo: ["paymentID": 7, "amount": 1])
        center.post(name: name, object: nil, userInfo: ["paymentID": "p-2", "amount": 2])
        #expect(payments.values == [Payment(id: "p-2", amount: 2)])
        // The recorder sees the same: one payload, and the three posts that did not decode.
        #expect(recorder.payloads == [Payment(id: "p-2", amount: 2)])
        #expect(recorder.decodingErrors.count == 3)
        withExtendedLifetime(token) {}
    }

    // MARK: - Typed to legacy

    @Test func typedPostReachesLegacyObserversWithTheConventionalKeys() {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let legacy = center.addObserver(
            forName: .init("PaymentViewControllerNotificationAccepted"),
            object: nil,
            queue: nil
        ) { note in
            let id = note.userInfo?["paymentID"] as? String ?? "?"
            let amount = note.userInfo?["amount"] as? Int ?? -1
            seen.append("\(id) \(amount) keys=\(note.userInfo?.count ?? 0)")
        }
        defer { center.removeObserver(legacy) }
        PaymentAccepted.post(Payment(id: "p-9", amount: 90), in: center)
        #expect(seen.values == ["p-9 90 keys=2"])
    }

    @Test func legacyAndTypedCodeRunSideBySide() {
        let center = NotificationCenter()
        let typed = Recorded<Payment>()
        let legacy = Recorded<String>()
        let token = PaymentAccepted.observe(in: center) { typed.append($0) }
        let plain = center.addObserver(forName: PaymentAccepted.notificationName, object: nil, queue: nil) { note in
            legacy.append(note.userInfo?["paymentID"] as? String ?? "?")
        }
        defer { center.removeObserver(plain) }
        center.post(name: PaymentAccepted.notificationName, object: nil, userInfo: ["paymentID": "old", "amount": 1])
        PaymentAccepted.post(Payment(id: "new", amount: 2), in: center)
        #expect(typed.values == [Payment(id: "old", amount: 1), Payment(id: "new", amount: 2)])
        #expect(legacy.values == ["old", "new"])
        withExtendedLifetime(token) {}
    }

    // MARK: - Customisation points

    @Test(arguments: [Payment(id: "a", amount: 0), Payment(id: "", amount: -5), Payment(id: "ü", amount: .max)])
    func customCodingRoundTrips(payment: Payment) throws {
        let plain = Notification(
            name: PaymentAccepted.notificationName,
            object: nil,
            userInfo: PaymentAccepted.userInfo(for: payment)
        )
        #expect(try PaymentAccepted.payload(from: plain) == payment)
    }

    @Test func defaultCodingRoundTrips() throws {
        let userInfo = CounterDidChange.userInfo(for: CounterDidChange(count: 4))
        let plain = Notification(name: CounterDidChange.notificationName, object: nil, userInfo: userInfo)
        #expect(try CounterDidChange.payload(from: plain) == CounterDidChange(count: 4))
        #expect(AppDidBecomeActive.userInfo(for: ()) == nil)
    }

    @Test(arguments: [
        NotificationDecodingError.missingUserInfo,
        .missingValue(key: "paymentID"),
        .typeMismatch(key: "amount", expected: "Int", found: "String"),
    ])
    func localizedDescriptionSaysWhatIsWrong(error: NotificationDecodingError) {
        let asAnyError: any Error = error
        #expect(asAnyError.localizedDescription == error.description)
    }

    @Test func defaultDecoderNamesWhatIsWrong() {
        let name = CounterDidChange.notificationName
        #expect(throws: NotificationDecodingError.missingUserInfo) {
            try CounterDidChange.payload(from: Notification(name: name))
        }
        #expect(throws: NotificationDecodingError.missingValue(key: Notification.typedPayloadKey)) {
            try CounterDidChange.payload(from: Notification(name: name, userInfo: ["x": 1]))
        }
        #expect(
            throws: NotificationDecodingError.typeMismatch(
                key: Notification.typedPayloadKey,
                expected: "TypedNotificationsTests.CounterDidChange",
                found: "Swift.Int"
            )
        ) {
            try CounterDidChange.payload(from: Notification(name: name, userInfo: [Notification.typedPayloadKey: 1]))
        }
    }
}
