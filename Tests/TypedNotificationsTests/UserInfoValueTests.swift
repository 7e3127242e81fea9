import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// `Notification.userInfoValue(forKey:as:)`: reading a legacy `userInfo` key with an error that names it, whether the
/// value arrives as Swift posted it or as Apple's Foundation hands it over.
@Suite struct UserInfoValueTests {
    /// A legacy notification whose decoder reads its keys with the accessor, as the README's bridging example does.
    struct CartDidChange: Notifiable, Equatable {
        static var notificationName: Notification.Name { .init("LegacyCartDidChange") }
        let items: Int
        let tags: Set<String>
        let coupon: String?
        static func payload(from plain: Notification) throws -> Self {
            Self(
                items: try plain.userInfoValue(forKey: "items"),
                tags: try plain.userInfoValue(forKey: "tags"),
                coupon: try plain.userInfoValue(forKey: "coupon")
            )
        }
        static func userInfo(for change: Self) -> [AnyHashable: Any]? {
            ["items": change.items, "tags": change.tags, "coupon": change.coupon as Any]
        }
    }

    private func note(_ userInfo: [AnyHashable: Any]?) -> Notification {
        Notification(name: CartDidChange.notificationName, userInfo: userInfo)
    }

    // MARK: - What it reads

    @Test func readsValuesAsSwiftPostedThem() throws {
        let change = try CartDidChange.payload(from: note(["items": 3, "tags": Set(["a"]), "coupon": "SAVE"]))
        #expect(change == CartDidChange(items: 3, tags: ["a"], coupon: "SAVE"))
    }

    @Test func readsValuesAsObjectiveCWritesThem() throws {
        let userInfo: [AnyHashable: Any] = [
            "items": NSNumber(value: 3), "tags": NSSet(array: ["a", "b"]), "coupon": NSString(string: "SAVE"),
        ]
        let change = try CartDidChange.payload(from: note(userInfo))
        #expect(change == CartDidChange(items: 3, tags: ["a", "b"], coupon: "SAVE"))
        let arrays = note(["scores": NSArray(array: [1, NSNull()]), "flag": NSNumber(value: true)])
        #expect(try arrays.userInfoValue(forKey: "scores", as: [Int?].self) == [1, nil])
        #expect(try arrays.userInfoValue(forKey: "flag", as: Bool.self))
    }

    @Test func readsASwiftNumberAsAnotherNumberTypeThatHoldsItAsTheBridgeWould() throws {
        let numbers = note(["wide": Int64(5), "fraction": 2.5, "huge": UInt64.max])
        #expect(try numbers.userInfoValue(forKey: "wide", as: Int.self) == 5)
        #expect(try numbers.userInfoValue(forKey: "wide", as: Double.self) == 5)
        #expect(throws: NotificationDecodingError.self) { try numbers.userInfoValue(forKey: "fraction", as: Int.self) }
        #expect(throws: NotificationDecodingError.self) { try numbers.userInfoValue(forKey: "huge", as: Int8.self) }
    }

    @Test func anOptionalValueReadsAMissingKeyMissingUserInfoAndNSNullAsNil() throws {
        #expect(try note(["items": 1]).userInfoValue(forKey: "coupon", as: String?.self) == nil)
        #expect(try note(nil).userInfoValue(forKey: "coupon", as: String?.self) == nil)
        #expect(try note(["coupon": NSNull()]).userInfoValue(forKey: "coupon", as: String?.self) == nil)
        #expect(try note(["coupon": "X"]).userInfoValue(forKey: "coupon", as: String?.self) == "X")
        #expect(throws: NotificationDecodingError.self) {
            try note(["coupon": 7]).userInfoValue(forKey: "coupon", as: String?.self)
        }
    }

    // MARK: - What it says when it cannot

    @Test func aWrongTypeIsATypeMismatchNamingTheKey() {
        #expect(
            throws: NotificationDecodingError.typeMismatch(key: "items", expected: "Swift.Int", found: "Swift.String")
        ) {
            try CartDidChange.payload(from: note(["items": "three", "tags": Set<String>()]))
        }
    }

    @Test func aMissingKeyIsAMissingValueNamingTheKey() {
        #expect(throws: NotificationDecodingError.missingValue(key: "tags")) {
            try CartDidChange.payload(from: note(["items": 3]))
        }
    }

    @Test func noUserInfoIsMissingUserInfo() {
        #expect(throws: NotificationDecodingError.missingUserInfo) { try CartDidChange.payload(from: note(nil)) }
    }

    /// A legacy post whose key has the wrong type reaches no typed observer, and is reported as a type mismatch that
    /// names the key.
    @Test func aWrongTypedLegacyPostIsReportedAsATypeMismatchNamingTheKey() {
        let center = NotificationCenter()
        let received = Recorded<CartDidChange>()
        let token = CartDidChange.observe(in: center) { received.append($0) }
        let reports = Recorded<NotificationDecodingError>()
        let report: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if event.center === center, case .decodingFailed(let error) = event.kind,
                let error = error as? NotificationDecodingError
            {
                reports.append(error)
            }
        }
        NotificationDiagnostics.withHandler(report) {
            center.post(name: CartDidChange.notificationName, object: nil, userInfo: ["items": "three", "tags": []])
        }
        #expect(received.values.isEmpty)
        #expect(reports.values == [.typeMismatch(key: "items", expected: "Swift.Int", found: "Swift.String")])
        withExtendedLifetime(token) {}
    }

    /// Plain observers of a typed post read it with the type's decoder: where Foundation bridges `userInfo` (the
    /// simulated-Apple build), the values arrive as `NSNumber`, `NSSet` and `NSString`.
    @Test func aTypedPostDecodesForPlainObserversAfterTheBridge() {
        let center = NotificationCenter()
        let decoded = Recorded<Result<CartDidChange, any Error>>()
        let plain = center.addObserver(forName: CartDidChange.notificationName, object: nil, queue: nil) { note in
            decoded.append(Result { try CartDidChange.payload(from: note) })
        }
        defer { center.removeObserver(plain) }
        let posted = [
            CartDidChange(items: 2, tags: ["x"], coupon: nil), CartDidChange(items: 0, tags: [], coupon: "C"),
        ]
        for change in posted { change.post(in: center) }
        #expect(decoded.values.map { try? $0.get() } == posted)
    }
}
