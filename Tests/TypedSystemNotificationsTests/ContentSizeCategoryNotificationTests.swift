import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedSystemNotifications

@Suite struct ContentSizeCategoryNotificationTests {
    @Test func itsNameAndKeyAreUIKits() {
        #expect(ContentSizeCategoryDidChange.notificationName.rawValue == "UIContentSizeCategoryDidChangeNotification")
        #expect(ContentSizeCategoryDidChange.newValueKey == "UIContentSizeCategoryNewValueKey")
    }

    @Test(arguments: Shape.allCases)
    func uikitsUserInfoDecodes(shape: Shape) throws {
        let posted = Notification(
            name: ContentSizeCategoryDidChange.notificationName,
            object: nil,
            userInfo: ["UIContentSizeCategoryNewValueKey": shape.string("UICTContentSizeCategoryXL")]
        )
        #expect(try ContentSizeCategoryDidChange.payload(from: posted).newCategory == "UICTContentSizeCategoryXL")
    }

    @Test(arguments: Shape.allCases)
    func aPlainPostAsUIKitMakesItReachesTypedObservers(shape: Shape) {
        let center = NotificationCenter()
        let received = Recorded<String>()
        let token = ContentSizeCategoryDidChange.observe(in: center) { received.append($0.newCategory) }
        center.post(
            name: Notification.Name("UIContentSizeCategoryDidChangeNotification"),
            object: nil,
            userInfo: ["UIContentSizeCategoryNewValueKey": shape.string("UICTContentSizeCategoryAccessibilityM")]
        )
        token.cancel()
        #expect(received.values == ["UICTContentSizeCategoryAccessibilityM"])
    }

    @Test func aMissingCategoryIsAMissingValue() {
        let posted = Notification(name: ContentSizeCategoryDidChange.notificationName, object: nil, userInfo: [:])
        #expect(throws: NotificationDecodingError.missingValue(key: "UIContentSizeCategoryNewValueKey")) {
            try ContentSizeCategoryDidChange.payload(from: posted)
        }
        let none = Notification(name: ContentSizeCategoryDidChange.notificationName, object: nil, userInfo: nil)
        #expect(throws: NotificationDecodingError.missingUserInfo) {
            try ContentSizeCategoryDidChange.payload(from: none)
        }
    }

    @Test func aCategoryThatIsNotAStringIsATypeMismatch() {
        let posted = Notification(
            name: ContentSizeCategoryDidChange.notificationName,
            object: nil,
            userInfo: ["UIContentSizeCategoryNewValueKey": NSNumber(value: 3)]
        )
        #expect {
            try ContentSizeCategoryDidChange.payload(from: posted)
        } throws: { error in
            guard case .typeMismatch(let key, let expected, _) = error as? NotificationDecodingError else {
                return false
            }
            return key == "UIContentSizeCategoryNewValueKey" && expected == "String"
        }
    }

    @Test func userInfoRoundTripsAndPlainObserversSeeUIKitsKey() throws {
        let change = ContentSizeCategoryDidChange(newCategory: "UICTContentSizeCategoryS")
        let plain = Notification(
            name: ContentSizeCategoryDidChange.notificationName,
            object: nil,
            userInfo: ContentSizeCategoryDidChange.userInfo(for: change)
        )
        #expect(try ContentSizeCategoryDidChange.payload(from: plain) == change)
        let center = NotificationCenter()
        let received = plainUserInfos(of: ContentSizeCategoryDidChange.notificationName, in: center) {
            change.post(in: center)
        }
        #expect(received.map(systemKeys) == [["UIContentSizeCategoryNewValueKey"]])
        let userInfo = try #require(received.first ?? nil)
        #expect(userInfo["UIContentSizeCategoryNewValueKey"] as? String == "UICTContentSizeCategoryS")
    }

    @Test func lateObserversStartWithTheLatestCategory() {
        let center = NotificationCenter()
        let first = ContentSizeCategoryDidChange.observe(in: center) { _ in }  // the center starts keeping it
        ContentSizeCategoryDidChange(newCategory: "UICTContentSizeCategoryXXL").post(in: center)
        let received = Recorded<String>()
        let late = ContentSizeCategoryDidChange.observe(in: center) { received.append($0.newCategory) }
        #expect(received.values == ["UICTContentSizeCategoryXXL"])
        #expect(ContentSizeCategoryDidChange.latest(in: center)?.newCategory == "UICTContentSizeCategoryXXL")
        first.cancel()
        late.cancel()
    }
}
