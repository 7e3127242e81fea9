import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Distinct types whose derived names are the same: their printed names differ only in the anonymous contexts that a
/// derived name leaves out. Debug builds report the second one to derive it, once.
///
/// Each pair is used by one test case only, as a type's name is derived (and checked) once per process.
@Suite struct DerivedNameCollisionTests {
    /// Two types that derive one name, in the order the test uses them.
    struct Pair: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let first: any Notifiable.Type
        let second: any Notifiable.Type
    }

    static let pairs: [Pair] = [
        Pair(
            testDescription: "a type local to a function, and a top-level type of its name",
            first: TopLevelTwin.self, second: localTwinOfTopLevelType()),
        Pair(
            testDescription: "a private type, and a type local to a function of its name",
            first: PrivateTwin.self, second: localTwinOfPrivateType()),
        Pair(
            testDescription: "types of one name local to two functions",
            first: localTwinInFirstFunction(), second: localTwinInSecondFunction()),
        Pair(
            testDescription: "a type local to a method of Foo, and Foo.Local",
            first: NestedTwin.self, second: DerivedNameCollisionTests().localTwinOfNestedType()),
        Pair(
            testDescription: "a type local to a closure, and a top-level type of its name",
            first: ClosureTwin.self, second: localTwinInClosure),
        Pair(
            testDescription: "generic arguments that are such types",
            first: Box<GenericArgumentTwin>.self, second: localTwinAsGenericArgument()),
    ]

    /// The name derivation reports of `body`, which runs in a scope of its own.
    private func collisions(_ body: () -> Void) -> [NotificationDiagnostics.Event] {
        let events = Recorded<NotificationDiagnostics.Event>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .derivedNameCollision = event.kind { events.append(event) }
        }
        NotificationDiagnostics.withHandler(record, operation: body)
        return events.values
    }

    @Test(arguments: pairs)
    func secondTypeToDeriveANameAnotherDerivedIsReportedOnce(pair: Pair) throws {
        let center = NotificationCenter()
        let reports = collisions {
            _ = pair.first.notificationName
            _ = pair.second.notificationName  // the second type's first use: reported
            // Later uses of either read the name from the type's record: nothing more is reported.
            for _ in 0..<3 {
                _ = pair.first.notificationName
                _ = pair.second.notificationName
                pair.second.postWithoutPayload(in: center)
                pair.first.postWithoutPayload(in: center)
            }
        }
        #expect(pair.first.notificationName == pair.second.notificationName)
        #expect(ObjectIdentifier(pair.first) != ObjectIdentifier(pair.second))
        #if DEBUG
        let report = try #require(reports.first)
        #expect(reports.count == 1)
        guard case .derivedNameCollision(let earlier) = report.kind else {
            Issue.record("reported \(report.kind)")
            return
        }
        #expect(ObjectIdentifier(earlier) == ObjectIdentifier(pair.first))
        #expect(ObjectIdentifier(report.type) == ObjectIdentifier(pair.second))
        #expect(report.name == pair.second.notificationName)
        #expect(report.center === NotificationCenter.default)
        // Both types by their full printed names, which tell them apart, and how to part them.
        #expect(report.description.contains(String(reflecting: pair.first)))
        #expect(report.description.contains(String(reflecting: pair.second)))
        #expect(report.description.contains("static var notificationName: Notification.Name"))
        #else
        #expect(reports.isEmpty)
        #endif
    }

    @Test func typeUsedFromManyThreadsAtOnceIsReportedOnce() {
        let events = Recorded<NotificationDiagnostics.Event>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .derivedNameCollision = event.kind { events.append(event) }
        }
        _ = ConcurrentTwin.notificationName
        let second = localTwinOfConcurrentType()
        // A handler is bound per thread: each worker binds it, so the report reaches it whichever thread derives first.
        DispatchQueue.concurrentPerform(iterations: 16) { _ in
            NotificationDiagnostics.withHandler(record) { _ = second.notificationName }
        }
        let reports = events.values
        #if DEBUG
        #expect(reports.count == 1)
        #else
        #expect(reports.isEmpty)
        #endif
    }

    @Test func typesWithDistinctDerivedNamesAreNotReported() {
        struct UniquelyNamedInThisMethod: Notifiable {}
        let reports = collisions {
            _ = UniquelyNamedInThisMethod.notificationName
            _ = Box<UniquelyNamedInThisMethod>.notificationName
            _ = UniquelyNamed.notificationName
        }
        #expect(reports.isEmpty)
    }

    @Test func customNameEqualToADerivedOneIsNotReported() {
        // A name of its own is chosen on purpose, as when two types adopt one legacy name.
        let reports = collisions {
            _ = AdoptsADerivedName.notificationName
            _ = DerivedNameAdopted.notificationName
        }
        #expect(AdoptsADerivedName.notificationName == DerivedNameAdopted.notificationName)
        #expect(reports.isEmpty)
    }

    func localTwinOfNestedType() -> any Notifiable.Type {
        // "TypedNotificationsTests.DerivedNameCollisionTests.NestedTwin", as `DerivedNameCollisionTests.NestedTwin`.
        struct NestedTwin: Notifiable {}
        return NestedTwin.self
    }
}

// MARK: - Standard error

extension DiagnosticsTests {
    // In `DiagnosticsTests`, which is serialized, as every test that sets the default reporter's sink.
    @Test func withoutAHandlerDebugBuildsReportADerivedNameCollisionToStandardErrorOnce() {
        let messages = Recorded<String>()
        let second = localTwinOfReportedType()
        NotificationDiagnostics.defaultReportSink = { message in
            if message.contains(String(reflecting: second)) { messages.append(message) }
        }
        defer { NotificationDiagnostics.defaultReportSink = nil }
        _ = ReportedTwin.notificationName
        for _ in 0..<3 { _ = second.notificationName }
        #if DEBUG
        #expect(messages.count == 1)
        let message = messages.values.first ?? ""
        #expect(message.hasPrefix("TypedNotifications: \(String(reflecting: second)): derives the notification name"))
        #expect(message.contains(String(reflecting: ReportedTwin.self)))
        #expect(message.contains("static var notificationName"))
        #else
        #expect(messages.values.isEmpty)
        #endif
    }
}

// MARK: - Types that derive one name

extension Notifiable {
    /// Posts a payload-less type without naming it statically.
    fileprivate static func postWithoutPayload(in center: NotificationCenter) {
        guard let post = self as? any PayloadlessTwin.Type else { return }
        post.postNothing(in: center)
    }
}

private protocol PayloadlessTwin: Notifiable, Sendable where Payload == Self {
    init()
}

extension PayloadlessTwin {
    static func postNothing(in center: NotificationCenter) {
        Self().post(in: center)
    }
}

struct TopLevelTwin: PayloadlessTwin {}
private func localTwinOfTopLevelType() -> any Notifiable.Type {
    struct TopLevelTwin: PayloadlessTwin {}
    return TopLevelTwin.self
}

private struct PrivateTwin: PayloadlessTwin {}
private func localTwinOfPrivateType() -> any Notifiable.Type {
    struct PrivateTwin: PayloadlessTwin {}
    return PrivateTwin.self
}

private func localTwinInFirstFunction() -> any Notifiable.Type {
    struct LocalTwin: PayloadlessTwin {}
    return LocalTwin.self
}
private func localTwinInSecondFunction() -> any Notifiable.Type {
    struct LocalTwin: PayloadlessTwin {}
    return LocalTwin.self
}

extension DerivedNameCollisionTests {
    struct NestedTwin: PayloadlessTwin {}
}

struct ClosureTwin: PayloadlessTwin {}
private let localTwinInClosure: any Notifiable.Type = {
    struct ClosureTwin: PayloadlessTwin {}
    return ClosureTwin.self
}()

private struct GenericArgumentTwin: Sendable {}
private func localTwinAsGenericArgument() -> any Notifiable.Type {
    struct GenericArgumentTwin: Sendable {}
    return Box<GenericArgumentTwin>.self
}

private struct ConcurrentTwin: Notifiable {}
private func localTwinOfConcurrentType() -> any Notifiable.Type {
    struct ConcurrentTwin: Notifiable {}
    return ConcurrentTwin.self
}

private struct ReportedTwin: Notifiable {}
private func localTwinOfReportedType() -> any Notifiable.Type {
    struct ReportedTwin: Notifiable {}
    return ReportedTwin.self
}

private struct UniquelyNamed: Notifiable {}

private struct DerivedNameAdopted: Notifiable {}
private enum AdoptsADerivedName: Notifiable {
    static var notificationName: Notification.Name { .init("TypedNotificationsTests.DerivedNameAdopted") }
}
