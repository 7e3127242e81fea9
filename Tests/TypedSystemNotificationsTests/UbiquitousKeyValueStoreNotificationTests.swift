import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedSystemNotifications

@Suite struct UbiquitousKeyValueStoreNotificationTests {
    typealias Change = UbiquitousKeyValueStoreDidChangeExternally

    @Test func itsNameKeysAndReasonsAreFoundations() {
        #expect(Change.notificationName.rawValue == "NSUbiquitousKeyValueStoreDidChangeExternallyNotification")
        #expect(Change.reasonKey == "NSUbiquitousKeyValueStoreChangeReasonKey")
        #expect(Change.changedKeysKey == "NSUbiquitousKeyValueStoreChangedKeysKey")
        let reasons = [
            Change.serverChange, Change.initialSyncChange, Change.quotaViolationChange, Change.accountChange,
        ]
        #expect(reasons == [0, 1, 2, 3])
    }

    @Test(arguments: Shape.allCases)
    func foundationsUserInfoDecodesFieldByField(shape: Shape) throws {
        let posted = Notification(
            name: Change.notificationName,
            object: nil,
            userInfo: [
                "NSUbiquitousKeyValueStoreChangeReasonKey": shape.integer(1),
                "NSUbiquitousKeyValueStoreChangedKeysKey": shape.strings(["theme", "fontSize"]),
            ]
        )
        let change = try Change.payload(from: posted)
        #expect(change.reason == Change.initialSyncChange)
        #expect(change.changedKeys == ["theme", "fontSize"])
    }

    @Test(arguments: Shape.allCases)
    func aPlainPostAsFoundationMakesItReachesTypedObservers(shape: Shape) {
        let center = NotificationCenter()
        let received = Recorded<Change>()
        let token = Change.observe(in: center) { received.append($0) }
        center.post(
            name: Notification.Name("NSUbiquitousKeyValueStoreDidChangeExternallyNotification"),
            object: NSObject(),  // the store
            userInfo: [
                "NSUbiquitousKeyValueStoreChangeReasonKey": shape.integer(0),
                "NSUbiquitousKeyValueStoreChangedKeysKey": shape.strings(["a"]),
            ]
        )
        token.cancel()
        #expect(received.values == [Change(reason: 0, changedKeys: ["a"])])
    }

    @Test func changedKeysInASetDecodeSorted() throws {
        for keys in [NSSet(array: ["b", "a", "c"]) as Any, Set(["b", "a", "c"]) as Any] {
            let posted = Notification(
                name: Change.notificationName,
                object: nil,
                userInfo: [
                    "NSUbiquitousKeyValueStoreChangeReasonKey": 0, "NSUbiquitousKeyValueStoreChangedKeysKey": keys,
                ]
            )
            #expect(try Change.payload(from: posted).changedKeys == ["a", "b", "c"])
        }
    }

    @Test(arguments: Shape.allCases)
    func missingChangedKeysAreNil(shape: Shape) throws {
        let posted = Notification(
            name: Change.notificationName,
            object: nil,
            userInfo: ["NSUbiquitousKeyValueStoreChangeReasonKey": shape.integer(3)]
        )
        #expect(try Change.payload(from: posted) == Change(reason: Change.accountChange, changedKeys: nil))
    }

    @Test func aMissingReasonIsAMissingValue() {
        let posted = Notification(
            name: Change.notificationName,
            object: nil,
            userInfo: ["NSUbiquitousKeyValueStoreChangedKeysKey": ["a"]]
        )
        #expect(throws: NotificationDecodingError.missingValue(key: "NSUbiquitousKeyValueStoreChangeReasonKey")) {
            try Change.payload(from: posted)
        }
        let none = Notification(name: Change.notificationName, object: nil, userInfo: nil)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try Change.payload(from: none) }
    }

    /// Values of other types, by the key they are put under and what it expects.
    static let mismatches: [(key: String, expected: String, value: @Sendable () -> Any)] = [
        ("NSUbiquitousKeyValueStoreChangeReasonKey", "Int", { "server" }),
        ("NSUbiquitousKeyValueStoreChangeReasonKey", "Int", { NSNumber(value: 1.5) }),
        ("NSUbiquitousKeyValueStoreChangedKeysKey", "[String]", { "theme" }),
        ("NSUbiquitousKeyValueStoreChangedKeysKey", "[String]", { NSArray(array: [NSNumber(value: 1)]) }),
    ]

    @Test(arguments: mismatches.indices)
    func aValueOfAnotherTypeIsATypeMismatch(index: Int) {
        let (key, expected, value) = Self.mismatches[index]
        var userInfo: [AnyHashable: Any] = [
            "NSUbiquitousKeyValueStoreChangeReasonKey": 0, "NSUbiquitousKeyValueStoreChangedKeysKey": ["a"],
        ]
        userInfo[key] = value()
        let posted = Notification(name: Change.notificationName, object: nil, userInfo: userInfo)
        #expect {
            try Change.payload(from: posted)
        } throws: { error in
            guard case .typeMismatch(let failedKey, let failedExpected, _) = error as? NotificationDecodingError else {
                return false
            }
            return failedKey == key && failedExpected == expected
        }
    }

    @Test(arguments: [Change(reason: 0, changedKeys: ["a", "b"]), Change(reason: 2, changedKeys: nil)])
    func userInfoRoundTripsAndPlainObserversSeeFoundationsKeys(change: Change) throws {
        let plain = Notification(name: Change.notificationName, object: nil, userInfo: Change.userInfo(for: change))
        #expect(try Change.payload(from: plain) == change)
        let center = NotificationCenter()
        let received = plainUserInfos(of: Change.notificationName, in: center) { change.post(in: center) }
        let userInfo = try #require(received.first ?? nil)
        var expectedKeys: Set = ["NSUbiquitousKeyValueStoreChangeReasonKey"]
        if change.changedKeys != nil { expectedKeys.insert("NSUbiquitousKeyValueStoreChangedKeysKey") }
        #expect(systemKeys(userInfo) == expectedKeys)
        #expect((userInfo["NSUbiquitousKeyValueStoreChangeReasonKey"] as? NSNumber)?.intValue == change.reason)
        #expect(userInfo["NSUbiquitousKeyValueStoreChangedKeysKey"] as? [String] == change.changedKeys)
    }
}
