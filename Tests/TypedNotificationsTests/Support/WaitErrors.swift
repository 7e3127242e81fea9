import Testing
import TypedNotifications

/// Expects `body` to throw a ``NextNotificationError`` for `reason`, and returns it, so that a test can check the rest
/// of what it says.
@discardableResult
func expectWaitEnds<Result>(
    _ reason: NextNotificationError.Reason,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Result
) async -> NextNotificationError? {
    do {
        let result = try await body()
        Issue.record(
            "expected the wait to end with \(reason), but it returned \(result)", sourceLocation: sourceLocation)
        return nil
    } catch let error as NextNotificationError {
        #expect(error.reason == reason, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected the wait to end with \(reason), but it threw \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
