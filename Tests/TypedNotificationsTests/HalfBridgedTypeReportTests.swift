import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// A type with a name of its own bridges a name that plain code posts and observes; its `userInfo(for:)` and its
/// `payload(from:)` must agree. Debug builds check it on the type's first typed post and report a type that writes what
/// it cannot read, naming the half that is missing.
///
/// The check runs once per type per process, so each test has types of its own.
@Suite struct HalfBridgedTypeReportTests {
    struct Download: Sendable, Equatable {
        let bytes: Int
    }

    /// The bridging reports made while `body` runs, in a scope of its own.
    private func halfBridgedReports(_ body: () -> Void) -> [NotificationDiagnostics.Event] {
        let events = Recorded<NotificationDiagnostics.Event>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .halfBridged = event.kind { events.append(event) }
        }
        NotificationDiagnostics.withHandler(record, operation: body)
        return events.values
    }

    // MARK: - A decoder without an encoder

    @Test func typeThatReadsALegacyLayoutButWritesTheDefaultOneIsReportedOnItsFirstPostOnly() throws {
        let center = NotificationCenter()
        // What the legacy observer finds: the typed post arrives, without the key it reads.
        let legacyBytes = Recorded<Int?>()
        let legacy = center.addObserver(forName: ReadsOnly.notificationName, object: nil, queue: nil) { notification in
            legacyBytes.append(notification.userInfo?["bytes"] as? Int)
        }
        defer { center.removeObserver(legacy) }
        let reports = halfBridgedReports {
            ReadsOnly.post(Download(bytes: 10), in: center)
            ReadsOnly.post(Download(bytes: 20), in: center)
        }
        #expect(legacyBytes.values == [nil, nil])
        #if DEBUG
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        guard case .halfBridged(let missing, let error) = report.kind else {
            Issue.record("reported \(report.kind)")
            return
        }
        #expect(missing == "userInfo(for:)")
        #expect(error as? NotificationDecodingError == .missingValue(key: "bytes"))
        #expect(ObjectIdentifier(report.type) == ObjectIdentifier(ReadsOnly.self))
        #expect(report.name == ReadsOnly.notificationName)
        #expect(report.center === center)
        // The type, the missing half and what the decoder could not find, in one sentence.
        #expect(report.description.contains(String(reflecting: ReadsOnly.self)))
        #expect(report.description.contains("write userInfo(for:)"))
        #expect(report.description.contains("\"bytes\""))
        #else
        #expect(reports.isEmpty)
        #endif
    }

    @Test func firstPostIsCheckedEvenWhenTheTypeWasObservedBefore() {
        let center = NotificationCenter()
        let received = Recorded<Download>()
        let token = ObservedFirst.observe(in: center) { received.append($0) }
        let reports = halfBridgedReports {
            ObservedFirst.post(Download(bytes: 1), in: center)
            ObservedFirst.post(Download(bytes: 2), in: center)
        }
        // Typed observers receive the posts as they are: the check does not get in their way.
        #expect(received.values == [Download(bytes: 1), Download(bytes: 2)])
        #if DEBUG
        #expect(reports.map(\.missingHalf) == ["userInfo(for:)"])
        #else
        #expect(reports.isEmpty)
        #endif
        withExtendedLifetime(token) {}
    }

    @Test func payloadlessTypeWhoseDecoderReadsALegacyKeyIsReportedMissingItsEncoder() {
        let center = NotificationCenter()
        let reports = halfBridgedReports { ReadsOnlyWithoutPayload.post((), in: center) }
        #if DEBUG
        #expect(reports.map(\.missingHalf) == ["userInfo(for:)"])
        #else
        #expect(reports.isEmpty)
        #endif
    }

    // MARK: - An encoder without a decoder

    @Test func typeThatWritesALegacyLayoutButReadsTheDefaultOneIsReportedMissingItsDecoder() throws {
        let center = NotificationCenter()
        let reports = halfBridgedReports { WritesOnly.post(Download(bytes: 5), in: center) }
        #if DEBUG
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        #expect(report.missingHalf == "payload(from:)")
        #expect(report.description.contains(String(reflecting: WritesOnly.self)))
        #expect(report.description.contains("write payload(from:)"))
        #else
        #expect(reports.isEmpty)
        #endif
    }

    // MARK: - Types that are not reported

    @Test func typeWhoseHalvesAgreeIsNotReportedAndReachesLegacyObservers() {
        let center = NotificationCenter()
        let legacyBytes = Recorded<Int?>()
        let legacy = center.addObserver(forName: BothHalves.notificationName, object: nil, queue: nil) { notification in
            legacyBytes.append(notification.userInfo?["bytes"] as? Int)
        }
        defer { center.removeObserver(legacy) }
        let reports = halfBridgedReports { BothHalves.post(Download(bytes: 7), in: center) }
        #expect(reports.isEmpty)
        #expect(legacyBytes.values == [7])
    }

    @Test(arguments: [
        Unreported(DefaultHalvesWithOwnName.self), Unreported(PayloadlessStructWithOwnName.self),
        Unreported(VoidWithOwnName.self), Unreported(DerivedNameReadsOnly.self), Unreported(TypedOnlyReadsOnly.self),
        Unreported(DecoderNeedsTheSender.self),
    ])
    func typeWhoseTypedPostsItsDecoderReadsOrThatBridgesNoExistingNameIsNotReported(type: Unreported) {
        let center = NotificationCenter()
        let reports = halfBridgedReports { type.post(center) }
        #expect(reports.isEmpty)
    }

    // MARK: - Without a handler

    @Test func withoutAHandlerDebugBuildsWriteTheReportToStandardErrorOnce() {
        let messages = Recorded<String>()
        NotificationDiagnostics.defaultReportSink = { message in
            if message.contains(String(reflecting: ReportedToStandardError.self)) { messages.append(message) }
        }
        defer { NotificationDiagnostics.defaultReportSink = nil }
        let center = NotificationCenter()
        for bytes in 0..<3 { ReportedToStandardError.post(Download(bytes: bytes), in: center) }
        #if DEBUG
        #expect(messages.count == 1)
        let message = messages.values.first ?? ""
        #expect(message.hasPrefix("TypedNotifications: \(String(reflecting: ReportedToStandardError.self)):"))
        #expect(message.contains("userInfo(for:)"))
        #else
        #expect(messages.values.isEmpty)
        #endif
    }
}

extension NotificationDiagnostics.Event {
    /// The half a ``NotificationDiagnostics/Event/Kind/halfBridged(missing:error:)`` report names, else `nil`.
    fileprivate var missingHalf: String? {
        guard case .halfBridged(let missing, _) = kind else { return nil }
        return missing
    }
}

// MARK: - Types, each used by one test

/// Reads `"bytes"`, a legacy key, from plain posts.
private protocol ReadsBytes: Notifiable where Payload == HalfBridgedTypeReportTests.Download {}

extension ReadsBytes {
    static func payload(from notification: Notification) throws -> Payload {
        guard let bytes = notification.userInfo?["bytes"] as? Int else {
            throw NotificationDecodingError.missingValue(key: "bytes")
        }
        return Payload(bytes: bytes)
    }
}

/// Writes `"bytes"`, a legacy key, for plain observers.
private protocol WritesBytes: Notifiable where Payload == HalfBridgedTypeReportTests.Download {}

extension WritesBytes {
    static func userInfo(for download: Payload) -> [AnyHashable: Any]? { ["bytes": download.bytes] }
}

private enum ReadsOnly: ReadsBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.ReadsOnly") }
}

private enum ObservedFirst: ReadsBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.ObservedFirst") }
}

private enum ReportedToStandardError: ReadsBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.ReportedToStandardError") }
}

private enum WritesOnly: WritesBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.WritesOnly") }
}

private enum BothHalves: ReadsBytes, WritesBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.BothHalves") }
}

private enum ReadsOnlyWithoutPayload: Notifiable {
    typealias Payload = Void
    static var notificationName: Notification.Name { .init("HalfBridged.ReadsOnlyWithoutPayload") }
    static func payload(from notification: Notification) throws {
        guard notification.userInfo?["reason"] is String else {
            throw NotificationDecodingError.missingValue(key: "reason")
        }
    }
}

extension HalfBridgedTypeReportTests {
    /// A type whose typed post the check passes, or which it does not check, and how to post it.
    struct Unreported: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let post: @Sendable (NotificationCenter) -> Void

        init<T: Notifiable>(_ type: T.Type) where T.Payload: ExpressibleByPostedValue, T.Sender == AnyObject {
            testDescription = "\(type)"
            post = { center in T.post(.postedValue, from: SenderForDecoder.shared, in: center) }
        }
    }

    /// A value to post for each type of ``Unreported``.
    protocol ExpressibleByPostedValue: Sendable {
        static var postedValue: Self { get }
    }

    /// The object every ``Unreported`` post is sent from.
    final class SenderForDecoder: Sendable {
        static let shared = SenderForDecoder()
    }
}

extension HalfBridgedTypeReportTests.Download: HalfBridgedTypeReportTests.ExpressibleByPostedValue {
    static var postedValue: Self { Self(bytes: 3) }
}

/// The default halves, under a name of its own.
private struct DefaultHalvesWithOwnName: Notifiable, HalfBridgedTypeReportTests.ExpressibleByPostedValue {
    static var notificationName: Notification.Name { .init("HalfBridged.DefaultHalvesWithOwnName") }
    static var postedValue: Self { Self(count: 1) }
    let count: Int
}

/// Payload-less, under a name of its own: its default decoder accepts any notification.
private struct PayloadlessStructWithOwnName: Notifiable, HalfBridgedTypeReportTests.ExpressibleByPostedValue {
    static var notificationName: Notification.Name { .init("HalfBridged.PayloadlessStructWithOwnName") }
    static var postedValue: Self { Self() }
}

private enum VoidWithOwnName: Notifiable {
    typealias Payload = Void
    static var notificationName: Notification.Name { .init("HalfBridged.VoidWithOwnName") }
}

extension HalfBridgedTypeReportTests.Unreported {
    fileprivate init(_ type: VoidWithOwnName.Type) {
        testDescription = "\(type)"
        post = { center in VoidWithOwnName.post((), in: center) }
    }
}

/// Half-bridged, but under its derived name: no plain code has the name, so there is nothing to bridge.
private enum DerivedNameReadsOnly: ReadsBytes {}

/// Half-bridged, but typed-only: its posts never meet plain code.
private enum TypedOnlyReadsOnly: ReadsBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.TypedOnlyReadsOnly") }
    static var postsThroughFoundation: Bool { false }
}

/// A decoder that reads the sender as well: the check gives it the post's sender.
private enum DecoderNeedsTheSender: WritesBytes {
    static var notificationName: Notification.Name { .init("HalfBridged.DecoderNeedsTheSender") }
    static func payload(from notification: Notification) throws -> Payload {
        guard notification.object is HalfBridgedTypeReportTests.SenderForDecoder,
            let bytes = notification.userInfo?["bytes"] as? Int
        else {
            throw NotificationDecodingError.missingValue(key: "bytes")
        }
        return Payload(bytes: bytes)
    }
}
