public import Foundation

/// An observation that lasts as long as its owner: what the owner-bound `observe(…for:…)` forms return.
///
/// Unlike a ``NotificationToken``, nothing needs to keep it: the observation ends by itself when the owner is
/// deallocated, and releasing this value does not end it. Its type says so, so that the compiler keeps it apart from
/// tokens: it cannot go into a `Set<NotificationToken>` whose clearing is meant to end observations. Keep it only to
/// end the observation early with ``cancel()``. A handler may capture it, or an object that holds it: however the
/// observation ends (``cancel()``, its owner's deinitialisation, its center's), this value lets go of it and of the
/// handler, so such a cycle is freed with the observation.
///
/// The owner is a class instance or an actor: an object whose lifetime can end the observation. A struct or an enum
/// has no lifetime of its own, so `observe(for: someStruct)` does not compile. The compiler then says the struct
/// "conform to 'Actor'", as the actor form is the last it tried; the fix is not to make it an actor: observe
/// `for:` the class that holds the value, or keep a ``NotificationToken`` from a form without `for:` in the struct.
///
/// ```swift
/// struct CounterDidChange: Notifiable { let count: Int }
/// final class CounterModel: Sendable {
///     func show(_ count: Int) { print(count) }
/// }
///
/// let center = NotificationCenter()
/// let model = CounterModel()
/// let observation = CounterDidChange.observe(for: model, in: center) { model, change in
///     model.show(change.count)
/// }
/// CounterDidChange(count: 1).post(in: center)   // prints 1
/// observation.cancel()
/// CounterDidChange(count: 2).post(in: center)   // prints nothing
/// ```
public struct OwnerBoundObservation: Sendable {
    /// The observation, held as a token holds it (but, as it is owner-bound, not ended when released): once it has
    /// ended, however it ended, this lets go of the observation and its handler (``AnySubscription/holder``), so that
    /// a handler may capture what holds this value.
    let handle: NotificationToken

    /// The value that holds an observation through `handle`, the token it was registered with (`heldBy:`).
    @usableFromInline
    init(_ handle: NotificationToken) {
        self.handle = handle
    }

    /// Ends the observation before its owner goes; idempotent and thread-safe, as ``NotificationToken/cancel()``.
    /// Once it returns, the observation's handler is let go of, so a handler may capture what holds this value and
    /// cancel through it.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// final class CounterModel: Sendable {}
    /// let model = CounterModel()
    /// let observation = CounterDidChange.observe(for: model) { _, change in print(change.count) }
    /// observation.cancel()
    /// ```
    public func cancel() {
        handle.cancel()
    }
}

extension NotificationCenter {
    /// Ends the owner-bound observation, if it is on this center; as ``OwnerBoundObservation/cancel()``.
    ///
    /// Without this overload, `removeObserver(_:)` would take the observation as `Any` and silently do nothing.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// final class CounterModel: Sendable {}
    /// let center = NotificationCenter()
    /// let model = CounterModel()
    /// let observation = CounterDidChange.observe(for: model, in: center) { _, change in print(change.count) }
    /// center.removeObserver(observation)
    /// CounterDidChange(count: 1).post(in: center)   // prints nothing
    /// ```
    ///
    /// - Parameter observation: What the owner-bound `observe` returned.
    public func removeObserver(_ observation: OwnerBoundObservation) {
        observation.handle.cancel(ifObserving: self)
    }
}
