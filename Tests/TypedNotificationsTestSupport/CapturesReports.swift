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
/// runs in a diagnostics scope of its own that receives its reports, as do the threads it starts with
/// ``onThreads(_:_:)`` and ``onNewThread(_:)``.
///
/// The scope only counts them: it keeps no event, and so neither the center nor anything else an event refers to,
/// and allocates nothing per report (the leak tests measure the heap while they provoke reports).
///
/// ```swift
/// @Test(.capturesReports) func aReleasedTokenEndsItsObservation() { … }
/// ```
package struct CapturesReports: TestTrait, SuiteTrait, TestScoping {
    /// How many reports the running test case's scope received, for the threads it starts to report into; `nil`
    /// outside a test with the trait.
    @TaskLocal package static var current: Counter?

    package var isRecursive: Bool { true }

    /// A scope per test case, never one around a whole suite, so that each case has its own.
    package func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    package func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        try await Self.capturing(function)
    }

    /// Runs `body` as the trait runs a test case: for an exit test's body, which runs in a child process without
    /// the test's traits.
    package static func capturing(
        isolation: isolated (any Actor)? = #isolation,
        _ body: () async throws -> Void
    ) async rethrows {
        let reported = Counter()
        try await $current.withValue(
            reported,
            operation: {
                try await NotificationDiagnostics.withHandler(
                    { _ in reported.increment() }, isolation: isolation, operation: body)
            },
            isolation: isolation)
    }

    /// `body`, made to report into the running test case's scope wherever it runs (a thread has no task-locals), if
    /// the test has the trait; `body` itself otherwise.
    package static func carried(
        _ body: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        guard let reported = current else { return body }
        return { NotificationDiagnostics.withHandler({ _ in reported.increment() }, operation: body) }
    }
}

extension Trait where Self == CapturesReports {
    /// Runs each test case in a diagnostics scope that receives the reports it provokes, rather than letting debug
    /// builds write them to standard error (see ``CapturesReports``).
    package static var capturesReports: Self { CapturesReports() }
}

extension NotificationDiagnostics.Event {
    /// The name of the report's kind, without its associated values (`"decodingFailed"`), for comparing a test's
    /// reports in one expectation.
    package var kindName: String {
        String(String(describing: kind).prefix { $0 != "(" })
    }
}
