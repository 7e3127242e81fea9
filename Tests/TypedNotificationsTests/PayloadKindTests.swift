import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// Payload kinds that cross Objective-C differently on Apple platforms, through a real center in both directions.
///
/// On Apple platforms `userInfo` goes through `NSDictionary`: `nil` becomes `NSNull`, numbers and `Bool` become
/// `NSNumber`, other Swift values are boxed, class instances stay themselves. The simulated-Apple build
/// (`-DTYPED_NOTIFICATIONS_SIMULATE_DARWIN`) hands observers of typed posts `userInfo` that way, and these tests post
/// plain `userInfo` both as Swift code writes it and as Objective-C code would. Nothing here asserts the type name of
/// a bridged value, which differs between platforms.
@Suite struct PayloadKindTests {
    enum OptionalCount: Notifiable { typealias Payload = Int? }
    enum Flag: Notifiable { typealias Payload = Bool }
    enum Count: Notifiable { typealias Payload = Int }
    enum Ratio: Notifiable { typealias Payload = Double }
    enum Shape: Notifiable, Equatable {
        case circle(radius: Double)
        case label(String, size: Int)
    }
    final class Document: Sendable {}
    enum DocumentOpened: Notifiable { typealias Payload = Document }

    /// What a typed post of `payload` looks like to a plain observer that decodes it with the type's decoder, and
    /// what typed observers receive from a plain post of `plainValue` under the payload key.
    private func crossBothWays<Event: Notifiable>(
        _ subject: Event.Type,
        typed payload: Event.Payload,
        plain plainValue: Any
    ) throws -> (seenByPlain: Event.Payload, seenByTyped: [Event.Payload]) {
        let center = NotificationCenter()
        let decoded = Recorded<Result<Event.Payload, any Error>>()
        let observer = center.addObserver(forName: Event.notificationName, object: nil, queue: nil) { note in
            decoded.append(Result { try Event.payload(from: note) })
        }
        let typed = Recorded<Event.Payload>()
        let token = subject.observe(in: center) { typed.append($0) }
        subject.post(payload, in: center)
        center.removeObserver(observer)
        center.post(name: Event.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: plainValue])
        withExtendedLifetime(token) {}
        let seenByPlain = try #require(decoded.values.first).get()
        #expect(decoded.count == 1)
        // The typed post reached typed observers directly; the plain post was decoded.
        return (seenByPlain, Array(typed.values.dropFirst()))
    }

    @Test func optionalPayloadNil() throws {
        let (plain, typed) = try crossBothWays(OptionalCount.self, typed: nil, plain: NSNull())
        #expect(plain == nil)
        #expect(typed == [nil])
    }

    @Test func optionalPayloadNilAsSwiftWritesIt() throws {
        let (_, typed) = try crossBothWays(OptionalCount.self, typed: 5, plain: Int?.none as Any)
        #expect(typed == [nil])
    }

    @Test func optionalPayloadValue() throws {
        let (plain, typed) = try crossBothWays(OptionalCount.self, typed: 5, plain: 6)
        #expect(plain == 5)
        #expect(typed == [6])
    }

    @Test func optionalPayloadValueAsObjectiveCWritesIt() throws {
        let (_, typed) = try crossBothWays(OptionalCount.self, typed: 5, plain: NSNumber(value: 6))
        #expect(typed == [6])
    }

    @Test(arguments: [true, false])
    func bool(value: Bool) throws {
        let (plain, typed) = try crossBothWays(Flag.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
        let (_, fromObjectiveC) = try crossBothWays(Flag.self, typed: value, plain: NSNumber(value: value))
        #expect(fromObjectiveC == [value])
    }

    @Test(arguments: [0, -1, Int.max])
    func int(value: Int) throws {
        let (plain, typed) = try crossBothWays(Count.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
        let (_, fromObjectiveC) = try crossBothWays(Count.self, typed: value, plain: NSNumber(value: value))
        #expect(fromObjectiveC == [value])
    }

    @Test(arguments: [0.0, 2.5, -1e300])
    func double(value: Double) throws {
        let (plain, typed) = try crossBothWays(Ratio.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
        let (_, fromObjectiveC) = try crossBothWays(Ratio.self, typed: value, plain: NSNumber(value: value))
        #expect(fromObjectiveC == [value])
    }

    @Test(arguments: [Shape.circle(radius: 2), .label("total", size: 12)])
    func enumWithAssociatedValues(value: Shape) throws {
        let (plain, typed) = try crossBothWays(Shape.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
    }

    @Test func classInstanceKeepsItsIdentity() throws {
        let posted = Document()
        let other = Document()
        let (plain, typed) = try crossBothWays(DocumentOpened.self, typed: posted, plain: other)
        #expect(plain === posted)
        #expect(typed.count == 1 && typed.first === other)
    }

    @Test func valueOfTheWrongKindIsReportedNotDelivered() throws {
        let center = NotificationCenter()
        let typed = Recorded<Int>()
        let token = Count.observe(in: center) { typed.append($0) }
        center.post(name: Count.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: "seven"])
        #expect(typed.values == [])
        let plain = Notification(name: Count.notificationName, userInfo: [Notification.typedPayloadKey: "seven"])
        #expect(throws: NotificationDecodingError.self) { try Count.payload(from: plain) }
        withExtendedLifetime(token) {}
    }

    #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
    /// The simulation is on in this build: observers of typed posts get `userInfo` as Objective-C hands it over.
    @Test func simulatedBuildHandsObserversBridgedValues() {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let observer = center.addObserver(forName: OptionalCount.notificationName, object: nil, queue: nil) { note in
            let value = note.userInfo?[Notification.typedPayloadKey]
            seen.append(value is NSNull ? "NSNull" : value is NSNumber ? "NSNumber" : "other")
        }
        defer { center.removeObserver(observer) }
        OptionalCount.post(nil, in: center)
        OptionalCount.post(3, in: center)
        #expect(seen.values == ["NSNull", "NSNumber"])
    }
    #endif
}
