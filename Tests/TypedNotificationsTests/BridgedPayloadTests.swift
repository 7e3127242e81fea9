import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// MARK: - Payloads through the (simulated) Objective-C bridge

/// Payload kinds, each posted typed and relayed by a plain observer with another sender (so that typed observers decode
/// the relayed `userInfo`), and decoded by the plain observer with the type's own decoder.
@Suite struct BridgedPayloadTests {
    enum Text: Notifiable { typealias Payload = String }
    enum Texts: Notifiable { typealias Payload = [String] }
    enum Numbers: Notifiable { typealias Payload = [Int] }
    enum MaybeText: Notifiable { typealias Payload = String? }
    enum MaybeMaybe: Notifiable { typealias Payload = Int?? }
    enum Table: Notifiable { typealias Payload = [String: Int] }
    enum Blob: Notifiable { typealias Payload = Data }
    enum When: Notifiable { typealias Payload = Date }
    struct Point: Notifiable, Equatable {
        let x: Int
        let label: String?
    }
    enum Mode: Notifiable, Equatable {
        case off
        case on(level: Int?)
    }
    final class Handle: Sendable {}
    enum Handed: Notifiable { typealias Payload = Handle }

    /// What a plain observer decodes from the typed post, and what typed observers receive: the post, then the relay.
    private func roundTrip<Event: Notifiable>(
        _: Event.Type, _ payload: Event.Payload
    ) -> (plain: [Result<Event.Payload, any Error>], typed: [Event.Payload]) {
        let center = NotificationCenter()
        let relaySender = Sender()
        let plain = Recorded<Result<Event.Payload, any Error>>()
        let relay = center.addObserver(forName: Event.notificationName, object: nil, queue: nil) { note in
            guard note.object == nil else { return }
            plain.append(Result { try Event.payload(from: note) })
            center.post(name: note.name, object: relaySender, userInfo: note.userInfo)
        }
        let typed = Recorded<Event.Payload>()
        let token = Event.observe(in: center) { typed.append($0) }
        Event.post(payload, in: center)
        center.removeObserver(relay)
        withExtendedLifetime(token) {}
        return (plain.values, typed.values)
    }

    private func check<Event: Notifiable>(
        _ subject: Event.Type, _ payload: Event.Payload, sourceLocation: SourceLocation = #_sourceLocation
    ) where Event.Payload: Equatable {
        let (plain, typed) = roundTrip(subject, payload)
        #expect(plain.count == 1, sourceLocation: sourceLocation)
        switch plain.first {
        case .failure(let error):
            Issue.record("the plain observer could not decode \(payload): \(error)", sourceLocation: sourceLocation)
        case .success(let value):
            #expect(
                value == payload, "the plain observer decoded \(value), not \(payload)",
                sourceLocation: sourceLocation)
        case nil: break
        }
        #expect(
            typed == [payload, payload], "typed observers received \(typed) for \(payload)",
            sourceLocation: sourceLocation)
    }

    @Test func stringsCrossTheBridge() {
        check(Text.self, "héllo")
        check(Texts.self, ["a", "b"])
        check(Numbers.self, [1, -2, .max])
        check(Table.self, ["a": 1])
    }

    @Test func optionalsCrossTheBridge() {
        check(MaybeText.self, "x")
        check(MaybeText.self, nil)
    }

    /// Nested optionals: `nil` comes back `nil` (the documented "NSNull decodes as nil"), `.some(3)` as itself.
    ///
    /// Failed in the simulated-Apple build when its bridge was Swift's Foundation's bare `as AnyObject`: a nested
    /// `nil` became an object that reports itself as `NSNull` but casts back as `.some(nil)`.
    @Test func nestedOptionalNilComesBackNil() {
        check(MaybeMaybe.self, .some(3))
        check(MaybeMaybe.self, .none)
    }

    /// `.some(nil)` reaches typed observers of the typed post as itself. Where Foundation bridges `userInfo` (the
    /// simulated-Apple build), its inner `nil` becomes `NSNull`, as Apple's bridge makes it (SE-0140), so plain
    /// observers, and typed observers of a relay, read `nil`; elsewhere they read `.some(nil)`.
    @Test func nestedOptionalSomeNilComesBackSomeNil() {
        let (plain, typed) = roundTrip(MaybeMaybe.self, .some(.none))
        let bridged: Int?? = Platform.foundationCopiesUserInfo ? .none : .some(.none)
        #expect(plain.count == 1)
        #expect((try? plain.first?.get()) == .some(bridged))
        #expect(typed == [.some(.none), bridged])
    }

    @Test func foundationValuesCrossTheBridge() {
        check(Blob.self, Data([0, 1, 255]))
        check(When.self, Date(timeIntervalSince1970: 12_345))
    }

    @Test func structsEnumsAndClassesCrossTheBridge() {
        check(Point.self, Point(x: 1, label: nil))
        check(Point.self, Point(x: 2, label: "two"))
        check(Mode.self, .on(level: nil))
        check(Mode.self, .off)
        let handle = Handle()
        let (plain, typed) = roundTrip(Handed.self, handle)
        #expect(plain.count == 1 && (try? plain.first?.get()) === handle)
        #expect(typed.count == 2 && typed.allSatisfy { $0 === handle })
    }
}
