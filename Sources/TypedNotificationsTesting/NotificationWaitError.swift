/// Why a wait on a ``NotificationRecorder`` ended without the post it waited for.
///
/// Thrown by ``NotificationRecorder/next(timeout:)`` and ``NotificationRecorder/waitForCount(_:timeout:)``. Its
/// ``description`` names the notification type and lists what was posted, so a failing test explains itself:
///
/// ```
/// Timed out after 0.1 seconds waiting for 3 posts of Saved; 2 were posted: Saved(id: 1), Saved(id: 2)
/// ```
///
/// A task cancelled while waiting throws `CancellationError` instead.
///
/// ```swift
/// struct Saved: Notifiable { let id: Int }
///
/// @Test func savingPostsThreeTimes() async throws {
///     let center = NotificationCenter()
///     let recorder = NotificationRecorder(Saved.self, in: center)
///     Saved(id: 1).post(in: center)
///     do {
///         try await recorder.waitForCount(2, timeout: .milliseconds(100))
///     } catch let error as NotificationWaitError {
///         #expect(error.reason == .timedOut(seconds: 0.1))
///         #expect(error.postedCount == 1)
///     }
/// }
/// ```
public struct NotificationWaitError: Error, Sendable, CustomStringConvertible {
    /// Why the wait ended.
    public enum Reason: Sendable, Hashable {
        /// The timeout passed to the wait elapsed first; `seconds` is that timeout.
        ///
        /// In seconds rather than as a `Duration`, which needs macOS 13 / iOS 16: the error is thrown on every
        /// system the package supports.
        case timedOut(seconds: Double)
        /// The recorder was cancelled, so the post can no longer arrive.
        case recorderCancelled
    }

    /// Why the wait ended.
    public let reason: Reason

    /// How many posts the wait needed: the count given to ``NotificationRecorder/waitForCount(_:timeout:)``, or the
    /// position of the post that ``NotificationRecorder/next(timeout:)`` waited for (3 for the third post).
    public let expectedCount: Int

    /// How many posts the recorder had recorded when the wait ended.
    public let postedCount: Int

    /// A sentence naming the notification type, the wait, and what was posted.
    public let description: String
}
