import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedSystemNotifications

/// One of the keyboard's six notifications, all carrying a `KeyboardFrameChange`.
struct KeyboardNotification: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let expectedName: String
    let name: Notification.Name
    let decode: @Sendable (Notification) throws -> KeyboardFrameChange
    let userInfo: @Sendable (KeyboardFrameChange) -> [AnyHashable: Any]?
    /// The changes a typed observer of `center` receives while `body` runs.
    let typedDeliveries: @Sendable (NotificationCenter, () -> Void) -> [KeyboardFrameChange]
    let postTyped: @Sendable (KeyboardFrameChange, NotificationCenter) -> Void

    init<T: Notifiable>(_ type: T.Type, _ expectedName: String) where T.Payload == KeyboardFrameChange {
        testDescription = "\(T.self)"
        self.expectedName = expectedName
        name = T.notificationName
        decode = { try T.payload(from: $0) }
        userInfo = { T.userInfo(for: $0) }
        typedDeliveries = { center, body in
            let received = Recorded<KeyboardFrameChange>()
            let token = T.observe(in: center) { received.append($0) }
            body()
            token.cancel()
            return received.values
        }
        postTyped = { change, center in T.post(change, in: center) }
    }
}

@Suite struct KeyboardNotificationTests {
    static let all = [
        KeyboardNotification(KeyboardWillShow.self, "UIKeyboardWillShowNotification"),
        KeyboardNotification(KeyboardDidShow.self, "UIKeyboardDidShowNotification"),
        KeyboardNotification(KeyboardWillHide.self, "UIKeyboardWillHideNotification"),
        KeyboardNotification(KeyboardDidHide.self, "UIKeyboardDidHideNotification"),
        KeyboardNotification(KeyboardWillChangeFrame.self, "UIKeyboardWillChangeFrameNotification"),
        KeyboardNotification(KeyboardDidChangeFrame.self, "UIKeyboardDidChangeFrameNotification"),
    ]

    static let begin = CGRect(x: 0, y: 844, width: 390, height: 336)
    static let end = CGRect(x: 0, y: 508, width: 390, height: 336)

    /// The `userInfo` UIKit posts, its values written in `shape`.
    static func systemUserInfo(_ shape: Shape, isLocal: Bool? = true) -> [AnyHashable: Any] {
        var userInfo: [AnyHashable: Any] = [
            "UIKeyboardFrameBeginUserInfoKey": shape.rect(begin),
            "UIKeyboardFrameEndUserInfoKey": shape.rect(end),
            "UIKeyboardAnimationDurationUserInfoKey": shape.double(0.25),
            "UIKeyboardAnimationCurveUserInfoKey": shape.integer(7),
        ]
        if let isLocal { userInfo["UIKeyboardIsLocalUserInfoKey"] = shape.bool(isLocal) }
        return userInfo
    }

    // MARK: - Names

    @Test(arguments: all)
    func itsNameIsUIKits(_ keyboard: KeyboardNotification) {
        #expect(keyboard.name.rawValue == keyboard.expectedName)
    }

    @Test func theKeysAreUIKits() {
        #expect(KeyboardFrameChange.Key.frameBegin == "UIKeyboardFrameBeginUserInfoKey")
        #expect(KeyboardFrameChange.Key.frameEnd == "UIKeyboardFrameEndUserInfoKey")
        #expect(KeyboardFrameChange.Key.animationDuration == "UIKeyboardAnimationDurationUserInfoKey")
        #expect(KeyboardFrameChange.Key.animationCurve == "UIKeyboardAnimationCurveUserInfoKey")
        #expect(KeyboardFrameChange.Key.isLocal == "UIKeyboardIsLocalUserInfoKey")
    }

    // MARK: - Decoding what UIKit posts

    @Test(arguments: all, Shape.allCases)
    func uikitsUserInfoDecodesFieldByField(_ keyboard: KeyboardNotification, shape: Shape) throws {
        let posted = Notification(name: keyboard.name, object: nil, userInfo: Self.systemUserInfo(shape))
        let change = try keyboard.decode(posted)
        #expect(change.frameBegin == Self.begin)
        #expect(change.frameEnd == Self.end)
        #expect(change.animationDuration == 0.25)
        #expect(change.animationCurve == 7)
        #expect(change.isLocal == true)
    }

    @Test(arguments: all, Shape.allCases)
    func aPlainPostAsUIKitMakesItReachesTypedObservers(_ keyboard: KeyboardNotification, shape: Shape) {
        let center = NotificationCenter()
        let received = keyboard.typedDeliveries(center) {
            center.post(name: keyboard.name, object: nil, userInfo: Self.systemUserInfo(shape, isLocal: false))
        }
        #expect(
            received == [
                KeyboardFrameChange(
                    frameBegin: Self.begin,
                    frameEnd: Self.end,
                    animationDuration: 0.25,
                    animationCurve: 7,
                    isLocal: false
                )
            ]
        )
    }

    @Test(arguments: Shape.allCases)
    func aMissingIsLocalIsNil(shape: Shape) throws {
        let posted = Notification(
            name: KeyboardWillShow.notificationName,
            object: nil,
            userInfo: Self.systemUserInfo(shape, isLocal: nil)
        )
        #expect(try KeyboardWillShow.payload(from: posted).isLocal == nil)
    }

    @Test(arguments: [
        "UIKeyboardFrameBeginUserInfoKey", "UIKeyboardFrameEndUserInfoKey", "UIKeyboardAnimationDurationUserInfoKey",
        "UIKeyboardAnimationCurveUserInfoKey",
    ])
    func aMissingRequiredKeyIsAMissingValue(key: String) {
        var userInfo = Self.systemUserInfo(.objectiveC)
        userInfo[key] = nil
        let posted = Notification(name: KeyboardWillHide.notificationName, object: nil, userInfo: userInfo)
        #expect(throws: NotificationDecodingError.missingValue(key: key)) { try KeyboardWillHide.payload(from: posted) }
    }

    @Test func noUserInfoIsMissingUserInfo() {
        let posted = Notification(name: KeyboardDidShow.notificationName, object: nil, userInfo: nil)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try KeyboardDidShow.payload(from: posted) }
    }

    @Test(arguments: [
        ("UIKeyboardFrameBeginUserInfoKey", "CGRect"), ("UIKeyboardFrameEndUserInfoKey", "CGRect"),
        ("UIKeyboardAnimationDurationUserInfoKey", "TimeInterval"), ("UIKeyboardAnimationCurveUserInfoKey", "Int"),
        ("UIKeyboardIsLocalUserInfoKey", "Bool"),
    ])
    func aValueOfAnotherTypeIsATypeMismatch(key: String, expected: String) {
        var userInfo = Self.systemUserInfo(.swift)
        userInfo[key] = "not a \(expected)"
        let posted = Notification(name: KeyboardWillChangeFrame.notificationName, object: nil, userInfo: userInfo)
        #expect {
            try KeyboardWillChangeFrame.payload(from: posted)
        } throws: { error in
            guard case .typeMismatch(let failedKey, let failedExpected, _) = error as? NotificationDecodingError else {
                return false
            }
            return failedKey == key && failedExpected == expected
        }
    }

    @Test func anNSValueHoldingAnotherTypeIsATypeMismatchOfAFrame() {
        var userInfo = Self.systemUserInfo(.objectiveC)
        userInfo["UIKeyboardFrameEndUserInfoKey"] = NSValue(range: NSRange(location: 0, length: 1))
        let posted = Notification(name: KeyboardDidHide.notificationName, object: nil, userInfo: userInfo)
        #expect {
            try KeyboardDidHide.payload(from: posted)
        } throws: { error in
            guard case .typeMismatch(let key, _, _) = error as? NotificationDecodingError else { return false }
            return key == "UIKeyboardFrameEndUserInfoKey"
        }
    }

    @Test func aMalformedPlainPostIsSkippedByTypedObserversAndReported() {
        let center = NotificationCenter()
        var received: [KeyboardFrameChange] = []
        let events = reports {
            received = KeyboardNotificationTests.all[0].typedDeliveries(center) {
                center.post(name: KeyboardWillShow.notificationName, object: nil, userInfo: ["unrelated": 1])
            }
        }
        #expect(received.isEmpty)
        #expect(events.contains { if case .decodingFailed = $0.kind { true } else { false } })
    }

    // MARK: - Posting as UIKit

    @Test(arguments: all, [true, false, nil] as [Bool?])
    func userInfoRoundTrips(_ keyboard: KeyboardNotification, isLocal: Bool?) throws {
        let change = KeyboardFrameChange(
            frameBegin: Self.begin,
            frameEnd: Self.end,
            animationDuration: 0.4,
            animationCurve: 3,
            isLocal: isLocal
        )
        let plain = Notification(name: keyboard.name, object: nil, userInfo: keyboard.userInfo(change))
        #expect(try keyboard.decode(plain) == change)
    }

    @Test(arguments: all)
    func aTypedPostReachesPlainObserversWithUIKitsKeys(_ keyboard: KeyboardNotification) throws {
        let center = NotificationCenter()
        let change = KeyboardFrameChange(
            frameBegin: Self.begin,
            frameEnd: Self.end,
            animationDuration: 0.25,
            animationCurve: 7,
            isLocal: true
        )
        let received = plainUserInfos(of: keyboard.name, in: center) { keyboard.postTyped(change, center) }
        let userInfo = try #require(received.first ?? nil)
        #expect(received.count == 1)
        #expect(
            systemKeys(userInfo) == [
                "UIKeyboardFrameBeginUserInfoKey", "UIKeyboardFrameEndUserInfoKey",
                "UIKeyboardAnimationDurationUserInfoKey", "UIKeyboardAnimationCurveUserInfoKey",
                "UIKeyboardIsLocalUserInfoKey",
            ]
        )
        // Read as an Objective-C observer reads them: a rect, and numbers.
        #expect(userInfo["UIKeyboardFrameEndUserInfoKey"].flatMap(SystemGeometry.rect) == Self.end)
        #expect(userInfo["UIKeyboardFrameBeginUserInfoKey"].flatMap(SystemGeometry.rect) == Self.begin)
        #expect((userInfo["UIKeyboardAnimationDurationUserInfoKey"] as? NSNumber)?.doubleValue == 0.25)
        #expect((userInfo["UIKeyboardAnimationCurveUserInfoKey"] as? NSNumber)?.intValue == 7)
        #expect((userInfo["UIKeyboardIsLocalUserInfoKey"] as? NSNumber)?.boolValue == true)
    }

    @Test func theAnimationOptionsHoldTheCurveFromBitSixteen() {
        let change = KeyboardFrameChange(frameBegin: .zero, frameEnd: .zero, animationDuration: 0, animationCurve: 7)
        #expect(change.animationOptionsRawValue == 7 << 16)
        let negative = KeyboardFrameChange(frameBegin: .zero, frameEnd: .zero, animationDuration: 0, animationCurve: -1)
        #expect(negative.animationOptionsRawValue == 0)
    }

    // MARK: - Observed as apps observe it

    @MainActor final class KeyboardAvoidingModel {
        private(set) var bottomInset: CGFloat = 0
        private(set) var animationDuration: TimeInterval = 0

        init(center: NotificationCenter) {
            KeyboardWillShow.observeOnMainActor(for: self, in: center) { model, change in
                model.bottomInset = change.frameEnd.height
                model.animationDuration = change.animationDuration
            }
            KeyboardWillHide.observeOnMainActor(for: self, in: center) { model, change in
                model.bottomInset = 0
                model.animationDuration = change.animationDuration
            }
        }
    }

    @Test @MainActor func aMainActorModelFollowsUIKitsPlainPostsAndTypedPosts() async throws {
        let center = NotificationCenter()
        let model = KeyboardAvoidingModel(center: center)
        // As UIKit posts it. Where the main thread is not known to be the main actor (Linux), the handler is queued
        // for the main actor; `awaitDelivery` waits until it has run.
        try await awaitDelivery {
            center.post(
                name: Notification.Name("UIKeyboardWillShowNotification"),
                object: nil,
                userInfo: Self.systemUserInfo(.objectiveC)
            )
        }
        #expect(model.bottomInset == 336)
        #expect(model.animationDuration == 0.25)
        let hiding = KeyboardFrameChange(
            frameBegin: Self.end,
            frameEnd: Self.begin,
            animationDuration: 0.3,
            animationCurve: 7
        )
        KeyboardWillHide.post(hiding, in: center)
        #expect(model.bottomInset == 0)
        #expect(model.animationDuration == 0.3)
    }

    @Test func theLatestFrameChangeIsKeptForLateObservers() throws {
        let center = NotificationCenter()
        let change = KeyboardFrameChange(
            frameBegin: Self.begin, frameEnd: Self.end, animationDuration: 0.25, animationCurve: 7)
        center.post(
            name: KeyboardDidChangeFrame.notificationName,
            object: nil,
            userInfo: KeyboardDidChangeFrame.userInfo(for: change)
        )
        let first = Recorded<KeyboardFrameChange>()
        let token = KeyboardDidChangeFrame.observe(in: center) { first.append($0) }  // starts keeping
        #expect(first.values.isEmpty)
        KeyboardDidChangeFrame.post(change, in: center)
        let late = Recorded<KeyboardFrameChange>()
        let lateToken = KeyboardDidChangeFrame.observe(in: center) { late.append($0) }
        #expect(late.values == [change])
        #expect(KeyboardDidChangeFrame.latest(in: center) == change)
        token.cancel()
        lateToken.cancel()
    }
}
