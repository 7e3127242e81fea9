/// Which payloads an observation delivers: the `where:` argument of every observing form.
///
/// A value rather than a closure, so that a call keeps a single trailing closure (its handler), as Swift's style
/// guides and linters ask: `where: .equals(.accepted)`, `where: .matching { $0.count > 3 }`. The condition runs where
/// the handler runs (for an `async` handler, in the observation's task), just before it would be called, and only the
/// payloads it accepts reach the handler.
///
/// To observe one case of an enum: `.equals(.accepted)` for a case without associated values; for a case with them,
/// `.matching { if case .refunded = $0 { true } else { false } }`, since `.equals(.refunded(id: 0))` (like the
/// shorthand `PaymentDidFinish.refunded(id: 0).observe`) accepts only the posts whose values are equal too.
///
/// ```swift
/// enum PaymentDidFinish: Notifiable, Equatable {
///     case accepted, rejected
///     case refunded(id: Int)
/// }
/// struct CounterDidChange: Notifiable { let count: Int }
///
/// let center = NotificationCenter()
/// let accepted = PaymentDidFinish.observe(in: center, where: .equals(.accepted)) { _ in print("accepted") }
/// let refunds = PaymentDidFinish.observe(
///     in: center, where: .matching { if case .refunded = $0 { true } else { false } }
/// ) { _ in print("refunded") }
/// let large = CounterDidChange.observe(in: center, where: .matching { $0.count > 3 }) { change in
///     print("large:", change.count)
/// }
/// PaymentDidFinish.accepted.post(in: center)   // prints "accepted"
/// PaymentDidFinish.refunded(id: 7).post(in: center)   // prints "refunded"
/// CounterDidChange(count: 5).post(in: center)  // prints "large: 5"
/// ```
public struct NotificationCondition<Payload: Sendable>: Sendable {
    @usableFromInline
    let accepts: @Sendable (Payload) -> Bool

    /// Delivers the payloads for which `condition` returns `true`: a test on a payload's values, or one case of an enum
    /// whatever its associated values (`.matching { if case .refunded = $0 { true } else { false } }`).
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
    /// Delivers the payloads equal to `value`: for observing one case of an enum that has no associated values.
    ///
    /// For a case with associated values, equality compares them too, so `.equals(.refunded(id: 0))` never delivers
    /// `.refunded(id: 7)`; to deliver every post of the case, use
    /// ``matching(_:)``: `.matching { if case .refunded = $0 { true } else { false } }`.
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
