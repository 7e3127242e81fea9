package import Testing
package import TypedNotifications

// Debug builds write the mistakes they catch to standard error (`TypedNotifications: …`), once each, when no
// diagnostics handler receives them. A test that makes such a mistake on purpose (a token it lets go at once, a plain
// post it cannot decode) captures the report instead, so that a passing `swift test` prints none: a test about the
// report asserts on what `reports(during:)` returns; a test that provokes one on the way to something else takes the
// `.capturesReports` trait.

/// The reports `body` provokes on its task and the tasks it creates, captured instead of written to standard error.
package func reports(during body: () throws -> Void) rethrows -> [NotificationDiagnostics.Event] {
    let events = Recorded<NotificationDiagnostics.Event>()
    try NotificationDiagnostics.withHandler({ events.append($0) }, operation: body)
    return events.values
}

/// As ``reports(during:)``, for asynchronous code.
package func reports(
    isolation: isolated (any Actor)? = #isolation,
    during body: () async throws -> Void
) async rethrows -> [NotificationDiagnostics.Event] {
    let events = Recorded<NotificationDiagnostics.Event>()
    try await NotificationDiagnostics.withHandler({ events.append($0) }, isolation: isolation, operation: body)
    return events.values
}

/// A trait for a test, or a suite of tests, that provokes reports on purpose without being about them: each test case
/// runs in a diagnostics scope of its own that keeps its reports, as do the threads it starts with ``onThreads(_:_:)``
/// and ``onNewThread(_:)``.
///
/// ```swift
/// @Test(.capturesReports) func aReleasedTokenEndsItsObservation() { … }
/// ```
package struct CapturesReports: TestTrait, SuiteTrait, TestScoping {
    /// The reports of the running test case, for the threads it starts; `nil` outside a test with the trait.
    @TaskLocal package static var current: Recorded<NotificationDiagnostics.Event>?

    package var isRecursive: Bool { true }

    /// A scope per test case, never one around a whole suite, so that each case keeps its own reports.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    package func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let events = Recorded<NotificationDiagnostics.Event>()
        try await Self.$current.withValue(events) {
            try await NotificationDiagnostics.withHandler({ events.append($0) }, operation: function)
        }
    }

    /// `body`, made to report into the running test case's scope wherever it runs (a thread has no task-locals), if
    /// the test has the trait; `body` itself otherwise.
    package static func carried(
        _ body: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        guard let events = current else { return body }
        return { NotificationDiagnostics.withHandler({ events.append($0) }, operation: body) }
    }
}

extension Trait where Self == CapturesReports {
    /// Runs each test case in a diagnostics scope that keeps the reports it provokes, rather than letting debug builds
    /// write them to standard error (see ``CapturesReports``).
    package static var capturesReports: Self { CapturesReports() }
}

extension NotificationDiagnostics.Event {
    /// The name of the report's kind, without its associated values (`"decodingFailed"`), for comparing a test's
    /// reports in one expectation.
    package var kindName: String {
        String(String(describing: kind).prefix { $0 != "(" })
    }
}
