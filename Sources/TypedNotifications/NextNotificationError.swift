public import Foundation

/// Why a wait for the next notification ended without one, and what the wait saw meanwhile.
///
/// Thrown by ``Notifiable/next(from:in:where:timeout:isolation:file:line:after:)`` and
/// ``NotificationSequence/next(where:timeout:)``. A task cancelled while waiting throws `CancellationError` instead.
/// Its ``description`` (also its `localizedDescription`) names the notification type, the time limit, and the posts
/// the condition turned down, so a failing test or a log line explains itself:
///
/// ```
/// Timed out after 1.0 seconds waiting for the next LoginCompleted matching the condition; 2 posts did not match,
/// the last: LoginCompleted(userID: "u7")
/// ```
///
/// ```swift
/// struct UploadDidFinish: Notifiable { let id: Int }
///
/// let center = NotificationCenter()
/// do {
///     _ = try await UploadDidFinish.next(in: center, where: .matching { $0.id == 7 }, timeout: 0.01) {
///         UploadDidFinish(id: 6).post(in: center)   // stands for the work that should post id 7
///     }
/// } catch let error as NextNotificationError {
///     print(error.reason, error.rejectedCount)   // prints "timedOut(seconds: 0.01) 1"
/// }
/// ```
public struct NextNotificationError: LocalizedError, Sendable, Hashable, CustomStringConvertible {
    /// Why the wait ended.
    public enum Reason: Sendable, Hashable {
        /// The time limit passed first; `seconds` is the limit the wait was given, or 0 for a negative or NaN one
        /// (such a limit has passed before the wait begins, as zero has).
        ///
        /// In seconds rather than as a `Duration`, which needs macOS 13 / iOS 16: the wait is available on every
        /// system the package supports.
        case timedOut(seconds: TimeInterval)
        /// The observation ended first: its center was deallocated, or an earlier wait or `for await` loop over the
        /// same sequence ended it.
        case observationEnded

        /// Whether two reasons are the same case with the same limit; two NaN limits are the same limit, so that every
        /// reason equals itself.
        ///
        /// A wait never reports a NaN limit (it reports 0 for one), but a reason made by hand may hold one.
        ///
        /// ```swift
        /// let reason = NextNotificationError.Reason.timedOut(seconds: .nan)
        /// print(reason == reason)   // prints "true"
        /// ```
        public static func == (lhs: Reason, rhs: Reason) -> Bool {
            switch (lhs, rhs) {
            case (.timedOut(let left), .timedOut(let right)): TimeLimit.isSame(left, right)
            case (.observationEnded, .observationEnded): true
            case (.timedOut, _), (.observationEnded, _): false
            }
        }

        /// Hashes the case and the limit, every NaN limit alike, consistently with ``==(_:_:)``.
        ///
        /// ```swift
        /// let reasons: Set<NextNotificationError.Reason> = [.timedOut(seconds: 1), .timedOut(seconds: 1)]
        /// print(reasons.count)   // prints "1"
        /// ```
        public func hash(into hasher: inout Hasher) {
            switch self {
            case .timedOut(let seconds):
                hasher.combine(0)
                TimeLimit.hash(seconds, into: &hasher)
            case .observationEnded:
                hasher.combine(1)
            }
        }
    }

    /// Why the wait ended.
    public let reason: Reason
    /// The notification type waited for, as messages name it (`UploadDidFinish`), followed by ` from the given
    /// sender` when the wait observed one sender.
    public let waitedFor: String
    /// Whether the wait had a condition (`where:`), which only some posts satisfy.
    public let hasCondition: Bool
    /// How many posts the condition rejected during this wait; 0 without a condition.
    public let rejectedCount: Int
    /// The last post the condition rejected, described briefly (`String(describing:)`, at most 120 characters);
    /// `nil` if it rejected none.
    public let lastRejected: String?

    /// The longest description of a rejected post that the error keeps: enough to tell posts apart in a message.
    static var describedLength: Int { 120 }

    init(reason: Reason, waitedFor: String, hasCondition: Bool, rejectedCount: Int, lastRejected: String?) {
        self.reason = reason
        self.waitedFor = waitedFor
        self.hasCondition = hasCondition
        self.rejectedCount = rejectedCount
        self.lastRejected = lastRejected
    }

    /// A sentence saying why the wait ended, for which type, and which posts it turned down.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// do {
    ///     _ = try await Saved.next(in: NotificationCenter(), timeout: 0) {}
    /// } catch let error as NextNotificationError {
    ///     print(error)   // prints "Timed out after 0.0 seconds waiting for the next Saved; none was posted"
    /// }
    /// ```
    public var description: String {
        let wanted = "the next \(waitedFor)" + (hasCondition ? " matching the condition" : "")
        let cause =
            switch reason {
            case .timedOut(let seconds): "Timed out after \(seconds) seconds waiting for \(wanted)"
            case .observationEnded:
                "The observation ended (its center was deallocated, or an earlier wait or loop over the sequence "
                    + "ended it) while waiting for \(wanted)"
            }
        let seen =
            switch rejectedCount {
            case 0: "none was posted"
            case 1: "1 post did not match"
            default: "\(rejectedCount) posts did not match"
            }
        return cause + "; " + seen + (lastRejected.map { ", the last: " + $0 } ?? "")
    }

    /// The same sentence as ``description``, so that `localizedDescription` says what went wrong.
    ///
    /// ```swift
    /// struct UploadDidFinish: Notifiable { let id: Int }
    ///
    /// do {
    ///     _ = try await UploadDidFinish.next(in: NotificationCenter(), timeout: 0) {}
    /// } catch {
    ///     print(error.localizedDescription)   // "Timed out after 0.0 seconds waiting for the next UploadDidFinish…"
    /// }
    /// ```
    public var errorDescription: String? { description }

    /// `payload` described for ``lastRejected``: at most ``describedLength`` characters, cut with "…".
    static func describe(_ payload: some Any) -> String {
        let text = String(describing: payload)
        guard text.count > describedLength else { return text }
        return text.prefix(describedLength - 1) + "…"
    }
}
