import Testing
import TypedNotificationsTestSupport

/// Runs `body`, which is expected to record issues, and returns them instead of failing the test, so that a test can
/// check failure messages word for word. If `body` records none, the test fails ("known issue was not recorded").
func recordedIssues(
    isolation: isolated (any Actor)? = #isolation,
    _ body: () async -> Void
) async -> [Issue] {
    let issues = Recorded<Issue>()
    await withKnownIssue("a failure the testing kit reports on purpose, whose message this test checks") {
        await body()
    } matching: { issue in
        issues.append(issue)
        return true
    }
    return issues.values
}

extension Issue {
    /// The issue's comments as one string.
    var message: String {
        comments.map(\.rawValue).joined(separator: "\n")
    }
}
