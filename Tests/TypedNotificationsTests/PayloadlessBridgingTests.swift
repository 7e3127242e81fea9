import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// Payload-less types given an existing name, as a system notification's: both forms (an empty struct that is its own
/// payload, and `Payload = Void`) receive every plain post of the name, whatever its `userInfo`, or none, in every
/// build, as their default decoder accepts any notification.
@Suite struct PayloadlessBridgingTests {
    /// The empty-struct form, as Getting Started declares a payload-less notification.
    struct TimeZoneDidChange: Notifiable {
        static var notificationName: Notification.Name { .NSSystemTimeZoneDidChange }
    }

    /// The `Void` form.
    enum TimeZoneDidChangeWithoutPayload: Notifiable {
        typealias Payload = Void
        static var notificationName: Notification.Name { .NSSystemTimeZoneDidChange }
    }

    /// The `userInfo` of a plain post, as the system or legacy code may send it.
    struct PlainUserInfo: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let make: @Sendable () -> [AnyHashable: Any]?
    }

    static let userInfos: [PlainUserInfo] = [
        PlainUserInfo(testDescription: "none", make: { nil }),
        PlainUserInfo(testDescription: "empty", make: { [:] }),
        PlainUserInfo(testDescription: "keys of its own", make: { ["reason": "travel", "offset": 3600] }),
        PlainUserInfo(
            testDescription: "another type under the package's key", make: { [Notification.typedPayloadKey: 42] }),
    ]

    /// The decoding failures reported while `body` runs, in a scope of its own.
    private func decodingFailures(_ body: () -> Void) -> [NotificationDiagnostics.Event] {
        let events = Recorded<NotificationDiagnostics.Event>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .decodingFailed = event.kind { events.append(event) }
        }
        NotificationDiagnostics.withHandler(record, operation: body)
        return events.values
    }

    // MARK: - Plain posts

    @Test(arguments: userInfos)
    func emptyStructWithAnExistingNameReceivesItsPlainPosts(userInfo: PlainUserInfo) {
        let center = NotificationCenter()
        let received = Recorded<TimeZoneDidChange>()
        let token = TimeZoneDidChange.observe(in: center) { received.append($0) }
        let failures = decodingFailures {
            center.post(name: .NSSystemTimeZoneDidChange, object: nil, userInfo: userInfo.make())
        }
        #expect(received.values.count == 1)
        #expect(failures.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test(arguments: userInfos)
    func voidPayloadWithAnExistingNameReceivesItsPlainPosts(userInfo: PlainUserInfo) {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = TimeZoneDidChangeWithoutPayload.observe(in: center) { received.append(1) }
        let failures = decodingFailures {
            center.post(name: .NSSystemTimeZoneDidChange, object: nil, userInfo: userInfo.make())
        }
        #expect(received.values == [1])
        #expect(failures.isEmpty)
        withExtendedLifetime(token) {}
    }

    @Test func emptyStructDecodesANotificationWithoutUserInfo() throws {
        let posted = Notification(name: .NSSystemTimeZoneDidChange)
        _ = try TimeZoneDidChange.payload(from: posted)
        try TimeZoneDidChangeWithoutPayload.payload(from: posted)
    }

    @Test func senderFilterAppliesToPlainPostsOfAnEmptyStruct() {
        let center = NotificationCenter()
        let sender = NSObject()
        let received = Recorded<Int>()
        let token = TimeZoneDidChange.observe(from: sender, in: center) { _ in received.append(1) }
        center.post(name: .NSSystemTimeZoneDidChange, object: NSObject())
        center.post(name: .NSSystemTimeZoneDidChange, object: sender)
        #expect(received.values == [1])
        withExtendedLifetime(token) {}
    }

    // MARK: - Typed posts

    @Test func typedPostOfAnEmptyStructReachesTypedObserversOnceAndPlainObservers() {
        let center = NotificationCenter()
        let typed = Recorded<Int>()
        let plain = Recorded<Notification.Name>()
        let token = TimeZoneDidChange.observe(in: center) { _ in typed.append(1) }
        let observer = center.addObserver(forName: .NSSystemTimeZoneDidChange, object: nil, queue: nil) {
            plain.append($0.name)
        }
        defer { center.removeObserver(observer) }
        TimeZoneDidChange().post(in: center)
        #expect(typed.values == [1])
        #expect(plain.values == [.NSSystemTimeZoneDidChange])
        withExtendedLifetime(token) {}
    }

    // MARK: - Types that carry something

    @Test func typeWithStoredPropertiesStillNeedsItsPayloadInUserInfo() {
        let posted = Notification(name: WithStoredProperty.notificationName)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try WithStoredProperty.payload(from: posted) }
    }

    @Test func typesOfSizeZeroThatAreNotEmptyStructsAreNotMadeFromNothing() {
        // An enum without cases, and a struct holding a `Never`, have no value to make; a one-case enum is an enum.
        let uninhabited = Notification(name: Uninhabited.notificationName)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try Uninhabited.payload(from: uninhabited) }
        let impossible = Notification(name: HoldsNever.notificationName)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try HoldsNever.payload(from: impossible) }
        let single = Notification(name: SingleCase.notificationName)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try SingleCase.payload(from: single) }
    }
}

private struct WithStoredProperty: Notifiable {
    let count: Int
}

private enum Uninhabited: Notifiable {}

private struct HoldsNever: Notifiable {
    let never: Never
}

private enum SingleCase: Notifiable {
    case only
}
