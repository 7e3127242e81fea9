public import Foundation

/// Why a wait for the next notification ended without one.
///
/// Thrown by ``Notifiable/next(from:in:where:timeout:file:line:)`` and ``NotificationSequence/next(where:timeout:)``.
/// A task cancelled while waiting throws `CancellationError` instead.
///
/// ```swift
/// struct UploadDidFinish: Notifiable { let id: Int }
///
/// let center = NotificationCenter()
/// do {
///     _ = try await UploadDidFinish.next(in: center, timeout: 0.01)
/// } catch NextNotificationError.timedOut(let seconds) {
///     print("timed out after", seconds, "s")   // prints "timed out after 0.01 s"
/// }
/// ```
public enum NextNotificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The time limit passed first; `seconds` is the limit the wait was given, or 0 for a negative or NaN one (such
    /// a limit has passed before the wait begins, as zero has).
    ///
    /// In seconds rather than as a `Duration`, which needs macOS 13 / iOS 16: the wait is available on every system
    /// the package supports.
    case timedOut(seconds: TimeInterval)
    /// The observation ended first: its center was deallocated, or an earlier wait or `for await` loop over the same
    /// sequence ended it.
    case observationEnded

    /// A sentence saying why the wait ended.
    ///
    /// ```swift
    /// let error = NextNotificationError.timedOut(seconds: 2)
    /// print(error.description.prefix(24))   // prints "Timed out after 2.0 seco"
    /// ```
    public var description: String {
        switch self {
        case .timedOut(let seconds): "Timed out after \(seconds) seconds waiting for the next notification"
        case .observationEnded: "The observation ended before the next notification arrived"
        }
    }

    /// Whether two errors are the same case with the same limit; two NaN limits are the same limit, so that every
    /// error equals itself.
    ///
    /// A wait never throws a NaN limit (it reports 0 for one), but an error made by hand may hold one.
    ///
    /// ```swift
    /// let error = NextNotificationError.timedOut(seconds: .nan)
    /// print(error == error)   // prints "true"
    /// ```
    public static func == (lhs: NextNotificationError, rhs: NextNotificationError) -> Bool {
        switch (lhs, rhs) {
        case (.timedOut(let left), .timedOut(let right)): TimeLimit.isSame(left, right)
        case (.observationEnded, .observationEnded): true
        case (.timedOut, _), (.observationEnded, _): false
        }
    }

    /// Hashes the case and the limit, every NaN limit alike, consistently with ``==(_:_:)``.
    ///
    /// ```swift
    /// let errors: Set<NextNotificationError> = [.timedOut(seconds: 1), .timedOut(seconds: 1), .observationEnded]
    /// print(errors.count)   // prints "2"
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
