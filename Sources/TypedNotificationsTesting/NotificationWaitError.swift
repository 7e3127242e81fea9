public import Foundation
import TypedNotifications

/// Why a wait on a ``NotificationRecorder`` ended without the post it waited for.
///
/// Thrown by ``NotificationRecorder/next(timeout:)-(Duration?)`` and
/// ``NotificationRecorder/waitForCount(_:timeout:)-(_,Duration?)``. Its ``description`` names the notification type
/// and lists what was posted, so a failing test explains itself:
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
public struct NotificationWaitError: LocalizedError, Sendable, CustomStringConvertible {
    /// Why the wait ended.
    public enum Reason: Sendable, Hashable {
        /// The timeout passed to the wait elapsed first; `seconds` is that timeout, or 0 for a negative one (which,
        /// like zero, has elapsed before the wait begins).
        ///
        /// In seconds rather than as a `Duration`, which needs macOS 13 / iOS 16: the error is thrown on every
        /// system the package supports.
        case timedOut(seconds: Double)
        /// The recorder was cancelled, so the post can no longer arrive.
        case recorderCancelled

        /// Whether two reasons are the same case with the same timeout; two NaN timeouts are the same, so that
        /// every reason equals itself.
        ///
        /// A wait never reports a NaN timeout (a `Duration` has none), but a reason made by hand may hold one.
        ///
        /// ```swift
        /// let reason = NotificationWaitError.Reason.timedOut(seconds: .nan)
        /// #expect(reason == reason)
        /// ```
        public static func == (lhs: Reason, rhs: Reason) -> Bool {
            switch (lhs, rhs) {
            case (.timedOut(let left), .timedOut(let right)): TimeLimit.isSame(left, right)
            case (.recorderCancelled, .recorderCancelled): true
            case (.timedOut, _), (.recorderCancelled, _): false
            }
        }

        /// Hashes the case and the timeout, every NaN timeout alike, consistently with ``==(_:_:)``.
        ///
        /// ```swift
        /// let reasons: Set<NotificationWaitError.Reason> = [.timedOut(seconds: 1), .recorderCancelled]
        /// #expect(reasons.contains(.timedOut(seconds: 1)))
        /// ```
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .timedOut(let seconds):
                hasher.combine(0)
                TimeLimit.hash(seconds, into: &hasher)
            case .recorderCancelled:
                hasher.combine(1)
            }
        }
    }

    /// Why the wait ended.
    public let reason: Reason

    /// How many posts the wait needed: the count given to
    /// ``NotificationRecorder/waitForCount(_:timeout:)-(_,Duration?)``, or the position of the post that
    /// ``NotificationRecorder/next(timeout:)-(Duration?)`` waited for (3 for the third post).
    public let expectedCount: Int

    /// How many posts the recorder had recorded when the wait ended.
    public let postedCount: Int

    /// A sentence naming the notification type, the wait, and what was posted.
    public let description: String

    /// The same sentence as ``description``, so that `localizedDescription` says what went wrong.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// let recorder = NotificationRecorder(Saved.self, in: NotificationCenter())
    /// do {
    ///     _ = try await recorder.waitForCount(1, timeout: 0)
    /// } catch {
    ///     // prints "Timed out after 0.0 seconds waiting for 1 post of Saved; none was posted"
    ///     print(error.localizedDescription)
    /// }
    /// ```
    public var errorDescription: String? { description }
}
