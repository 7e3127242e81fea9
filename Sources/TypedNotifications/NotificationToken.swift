public import Foundation

/// A handle to one typed observation. Releasing it, or calling ``cancel()``, ends the observation.
///
/// `observe` returns a token and is not `@discardableResult`: a token that is not kept is released at once and its
/// observation never delivers, and the compiler warns about it. Keep the token as long as you want notifications,
/// in a property or in a set:
///
/// ```swift
/// struct CounterDidChange: Notifiable { let count: Int }
///
/// final class CounterLabel {
///     private var tokens: Set<NotificationToken> = []
///     init(center: NotificationCenter) {
///         CounterDidChange.observe(in: center) { change in print(change.count) }
///             .store(in: &tokens)
///     }
/// }   // deinit releases the tokens, which ends both observations
/// ```
///
/// Owner-bound observations (``Notifiable/observe(for:from:in:delivery:file:line:_:)``) return no token but an
/// ``OwnerBoundObservation``: they last as long as their owner, and nothing needs to keep them.
///
/// ## Guarantees
/// - ``cancel()`` is idempotent and thread-safe. After it returns, no post that starts afterwards reaches the handler,
///   and a post already delivering skips it if it has not reached it yet. Queued deliveries are dropped.
/// - Cancelling twice, cancelling from inside the handler, or releasing the token on another thread never affects
///   any other observation.
///
/// - Important: ``cancel()`` does not wait for a handler that is already running on another thread: when it
///   returns, that call may still be in progress. So cancelling in `deinit` does not make an `unowned self` capture
///   safe: a post on another thread can be inside the handler, using the object being deinitialised. Capture
///   `[weak self]` instead, or observe with the owner-bound ``Notifiable/observe(for:from:in:delivery:file:line:_:)``, which
///   hands the handler its owner and keeps it alive while the handler runs.
///
/// Tokens compare by identity. They are `Sendable`: cancel or release them from any thread.
public final class NotificationToken: Hashable, Sendable {
    private let observation: any Observation

    @usableFromInline
    init(_ observation: any Observation) {
        self.observation = observation
    }

    deinit {
        observation.cancel()
    }

    /// Ends the observation. Idempotent and thread-safe.
    ///
    /// No post that starts after this returns reaches the handler, and deliveries still queued are dropped; a handler
    /// already running on another thread is not waited for (see the note on ``NotificationToken``).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observe { change in print(change.count) }
    /// token.cancel()
    /// CounterDidChange(count: 1).post()   // prints nothing
    /// ```
    public func cancel() {
        observation.cancel()
    }

    /// Cancels the observation if it is on `center`.
    func cancel(ifObserving center: NotificationCenter) {
        if observation.isObserving(center) { observation.cancel() }
    }

    /// Keeps the token in `set`, so that the observation lasts as long as the set holds it.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// var tokens: Set<NotificationToken> = []
    /// CounterDidChange.observe { change in print(change.count) }.store(in: &tokens)
    /// ```
    ///
    /// - Parameter set: The set that keeps the token alive.
    public func store(in set: inout Set<NotificationToken>) {
        set.insert(self)
    }

    /// Whether both are the same token.
    public static func == (lhs: NotificationToken, rhs: NotificationToken) -> Bool {
        lhs === rhs
    }

    /// Hashes the token's identity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }
}

extension NotificationCenter {
    /// Ends the typed observation that `token` keeps, if it is on this center; as ``NotificationToken/cancel()``.
    ///
    /// For code that removes observers the Foundation way, as Foundation's Message API and classic observers do:
    /// without this overload, `removeObserver(_:)` would take the token as `Any` and silently do nothing. A token of
    /// another center's observation is left alone, as Foundation leaves an observer it does not know.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = center.observe(CounterDidChange.self) { change in print(change.count) }
    /// center.removeObserver(token)
    /// center.post(CounterDidChange(count: 1))   // prints nothing
    /// ```
    ///
    /// - Parameter token: The token that `observe` returned.
    public func removeObserver(_ token: NotificationToken) {
        token.cancel(ifObserving: self)
    }
}
