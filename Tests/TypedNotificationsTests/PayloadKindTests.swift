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
    enum Title: Notifiable { typealias Payload = String }
    enum Scores: Notifiable { typealias Payload = [Int?] }
    enum ScoresByName: Notifiable { typealias Payload = [String: Int?] }
    enum Rounds: Notifiable { typealias Payload = [[Int?]] }
    enum RoundsByName: Notifiable { typealias Payload = [String: [Int?]] }
    enum OptionalScores: Notifiable { typealias Payload = [Int?]? }
    enum Counts: Notifiable { typealias Payload = [Int] }
    enum Ratios: Notifiable { typealias Payload = [String: Double] }

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

    @Test(arguments: ["", "total"])
    func string(value: String) throws {
        let (plain, typed) = try crossBothWays(Title.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
        let (_, fromObjectiveC) = try crossBothWays(Title.self, typed: value, plain: NSString(string: value))
        #expect(fromObjectiveC == [value])
    }

    // MARK: - Collections, with nil inside them as Objective-C writes it

    @Test(arguments: [[], [1, 2], [nil], [1, nil, 3]] as [[Int?]])
    func arrayOfOptionals(value: [Int?]) throws {
        let (plain, typed) = try crossBothWays(Scores.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
        let written = value.map { $0.map { NSNumber(value: $0) } ?? NSNull() }
        let (_, fromNSArray) = try crossBothWays(Scores.self, typed: value, plain: NSArray(array: written))
        #expect(fromNSArray == [value])
        let (_, fromArrayOfObjects) = try crossBothWays(Scores.self, typed: value, plain: written as [Any])
        #expect(fromArrayOfObjects == [value])
    }

    @Test(arguments: [[:], ["a": 1], ["a": nil], ["a": nil, "b": 2]] as [[String: Int?]])
    func dictionaryOfOptionals(value: [String: Int?]) throws {
        let (plain, typed) = try crossBothWays(ScoresByName.self, typed: value, plain: value)
        #expect(plain == value)
        #expect(typed == [value])
        let written = value.mapValues { $0.map { NSNumber(value: $0) } ?? NSNull() }
        let nsDictionary = NSDictionary(dictionary: written)
        let (_, fromNSDictionary) = try crossBothWays(ScoresByName.self, typed: value, plain: nsDictionary)
        #expect(fromNSDictionary == [value])
        let (_, fromDictionaryOfObjects) = try crossBothWays(ScoresByName.self, typed: value, plain: written)
        #expect(fromDictionaryOfObjects == [value])
    }

    @Test func nestedCollectionsOfOptionals() throws {
        let rounds: [[Int?]] = [[1, nil], [], [nil]]
        let (plainRounds, typedRounds) = try crossBothWays(
            Rounds.self, typed: rounds,
            plain: NSArray(array: [NSArray(array: [1, NSNull()]), NSArray(), NSArray(array: [NSNull()])]))
        #expect(plainRounds == rounds)
        #expect(typedRounds == [rounds])

        let byName: [String: [Int?]] = ["a": [nil, 2], "b": []]
        let (plainByName, typedByName) = try crossBothWays(
            RoundsByName.self, typed: byName,
            plain: NSDictionary(dictionary: ["a": NSArray(array: [NSNull(), 2]), "b": NSArray()]))
        #expect(plainByName == byName)
        #expect(typedByName == [byName])
    }

    @Test func optionalArrayOfOptionals() throws {
        let (plainNone, typedNone) = try crossBothWays(OptionalScores.self, typed: nil, plain: NSNull())
        #expect(plainNone == nil)
        #expect(typedNone == [nil])
        let (plainSome, typedSome) = try crossBothWays(
            OptionalScores.self, typed: [nil, 1], plain: NSArray(array: [NSNull(), 1]))
        #expect(plainSome == [nil, 1])
        #expect(typedSome == [[nil, 1]])
    }

    @Test func collectionsOfPlainValues() throws {
        let (plainCounts, typedCounts) = try crossBothWays(
            Counts.self, typed: [1, 2], plain: NSArray(array: [NSNumber(value: 3)]))
        #expect(plainCounts == [1, 2])
        #expect(typedCounts == [[3]])
        let (plainRatios, typedRatios) = try crossBothWays(
            Ratios.self, typed: ["a": 0.5], plain: NSDictionary(dictionary: ["b": NSNumber(value: 1.5)]))
        #expect(plainRatios == ["a": 0.5])
        #expect(typedRatios == [["b": 1.5]])
    }

    @Test func collectionWithAnElementOfTheWrongKindIsReportedNotDelivered() throws {
        let center = NotificationCenter()
        let typed = Recorded<[Int?]>()
        let token = Scores.observe(in: center) { typed.append($0) }
        let wrong = NSArray(array: [1, NSNull(), "three"])
        let reported = reports {
            center.post(name: Scores.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: wrong])
        }
        #expect(reported.map(\.kindName) == ["decodingFailed"], "the post that did not decode is reported")
        #expect(typed.values == [])
        let plain = Notification(name: Scores.notificationName, userInfo: [Notification.typedPayloadKey: wrong])
        #expect(throws: NotificationDecodingError.self) { try Scores.payload(from: plain) }
        let nullAsAValue = Notification(
            name: Counts.notificationName, userInfo: [Notification.typedPayloadKey: NSArray(array: [NSNull()])])
        #expect(throws: NotificationDecodingError.self) { try Counts.payload(from: nullAsAValue) }
        withExtendedLifetime(token) {}
    }

    @Test func valueOfTheWrongKindIsReportedNotDelivered() throws {
        let center = NotificationCenter()
        let typed = Recorded<Int>()
        let token = Count.observe(in: center) { typed.append($0) }
        let reported = reports {
            center.post(name: Count.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: "seven"])
        }
        #expect(reported.map(\.kindName) == ["decodingFailed"], "the post that did not decode is reported")
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

    /// Inside arrays and dictionaries too, at any depth: `nil` as the `NSNull` singleton, collections as `NSArray` and
    /// `NSDictionary`.
    @Test func simulatedBuildHandsObserversBridgedCollections() throws {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let observer = center.addObserver(forName: RoundsByName.notificationName, object: nil, queue: nil) { note in
            let value = note.userInfo?[Notification.typedPayloadKey]
            guard let byName = value as? NSDictionary, let rounds = byName["a"] as? NSArray else {
                return seen.append("other")
            }
            let kinds = rounds.map { $0 is NSNull ? "NSNull" : $0 is NSNumber ? "NSNumber" : "other" }
            seen.append(kinds.joined(separator: " "))
        }
        defer { center.removeObserver(observer) }
        RoundsByName.post(["a": [nil, 1]], in: center)
        #expect(seen.values == ["NSNull NSNumber"])
    }
    #endif
}
