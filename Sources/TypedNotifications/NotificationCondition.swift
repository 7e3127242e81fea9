/// Which payloads an observation delivers: the `where:` argument of every observing form.
///
/// A value rather than a closure, so that a call keeps a single trailing closure (its handler), as Swift's style
/// guides and linters ask: `where: .equals(.accepted)`, `where: .matching { $0.count > 3 }`. The condition runs where
/// the handler runs (for an `async` handler, in the observation's task), just before it would be called, and only the
/// payloads it accepts reach the handler.
///
/// ```swift
/// enum PaymentDidFinish: Notifiable, Equatable {
///     case accepted, rejected
/// }
/// struct CounterDidChange: Notifiable { let count: Int }
///
/// let center = NotificationCenter()
/// let accepted = PaymentDidFinish.observe(in: center, where: .equals(.accepted)) { _ in print("accepted") }
/// let large = CounterDidChange.observe(in: center, where: .matching { $0.count > 3 }) { change in
///     print("large:", change.count)
/// }
/// PaymentDidFinish.accepted.post(in: center)   // prints "accepted"
/// CounterDidChange(count: 5).post(in: center)  // prints "large: 5"
/// ```
public struct NotificationCondition<Payload: Sendable>: Sendable {
    @usableFromInline
    let accepts: @Sendable (Payload) -> Bool

    /// Delivers the payloads for which `condition` returns `true`.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observe(where: .matching { $0.count.isMultiple(of: 2) }) { change in
    ///     print("even:", change.count)
    /// }
    /// ```
    ///
    /// - Parameter condition: Runs where the handler runs (for an `async` handler, in the observation's task), once
    ///   per post, just before the handler would.
    public static func matching(_ condition: @escaping @Sendable (Payload) -> Bool) -> Self {
        Self(accepts: condition)
    }
}

extension NotificationCondition where Payload: Equatable {
    /// Delivers the payloads equal to `value`: for observing one case of an enum.
    ///
    /// ```swift
    /// enum Playback: Notifiable, Equatable {
    ///     case play, pause
    /// }
    /// let token = Playback.observeOnMainActor(where: .equals(.pause)) { _ in print("paused") }
    /// ```
    ///
    /// - Parameter value: The payload to deliver.
    public static func equals(_ value: Payload) -> Self {
        Self(accepts: { $0 == value })
    }
}
