public import Foundation

/// A notification whose latest payload each center keeps, so that observers that start late receive it first: the
/// current state ("session restored", "configuration loaded", a badge count), not only later changes.
///
/// Conform instead of to ``Notifiable``; nothing else changes in how the type is posted and observed.
///
/// - **What is kept:** per center, the payload of the latest post of the type, typed or plain (decoded as its
///   observers decode it), and its sender, weakly. One payload per type and center, no more. A center starts keeping
///   it at the type's first typed post or observation there; from then on plain posts of the name are captured too,
///   observed or not, until the center is deallocated.
/// - **Observers start with it.** Every observation made while a latest payload is kept receives it first (if its
///   sender filter accepts the latest sender), then every later post, exactly once: a post is either the latest value
///   an observation starts with or delivered to it live, never both and never neither, whatever threads post and
///   observe meanwhile. A handler on a queue or an actor, an `async` handler and a sequence receive the latest payload
///   before any live post. A handler isolated to an actor (the main actor's included) observed on that actor, as the
///   compiler knows it (a `@MainActor` function, a method of the actor), receives it before the observing call
///   returns, on every platform: the rule of posts (see
///   ``Notifiable/observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)``). A handler on the posting
///   thread receives it on the observing thread before `observe` returns; a post made meanwhile on another thread may
///   reach it first, as any two posts from different threads may. The Combine publisher's subscriber receives it on
///   subscribing, once it has demand. A sequence starts with it too, so
///   ``Notifiable/next(from:in:where:timeout:isolation:file:line:after:)`` returns it at once when the condition
///   accepts it: "wait until the state is ready" does not wait when it already is.
/// - **Reading and clearing:** ``latest(in:)`` reads it; ``clearLatest(in:)`` forgets it (and releases it), so that
///   observations made after start with nothing. A center's death releases it too, and a new center at the same
///   address never sees it.
///
/// ```swift
/// struct UnreadCount: LatestValueNotifiable { let count: Int }
///
/// let center = NotificationCenter()
/// UnreadCount(count: 3).post(in: center)          // no observer yet: kept
/// let badge = UnreadCount.observe(in: center) { unread in
///     print("badge:", unread.count)               // prints "badge: 3", then "badge: 4"
/// }
/// UnreadCount(count: 4).post(in: center)
/// print(UnreadCount.latest(in: center)?.count ?? 0)  // prints "4"
/// ```
public protocol LatestValueNotifiable: Notifiable {}

extension LatestValueNotifiable {
    /// The payload of the latest post of this type on `center`, or `nil` if there is none (nothing posted since the
    /// center started keeping it, or ``clearLatest(in:)``).
    ///
    /// ```swift
    /// struct UnreadCount: LatestValueNotifiable { let count: Int }
    ///
    /// let center = NotificationCenter()
    /// UnreadCount(count: 2).post(in: center)
    /// print(UnreadCount.latest(in: center)?.count ?? 0)   // prints "2"
    /// ```
    ///
    /// - Parameter center: The center whose latest post to read; `.default` unless given.
    public static func latest(in center: NotificationCenter = .default) -> Payload? {
        // The channel keeps only posts of its own type.
        ObserverRegistry.shared.latest(of: Self.self, in: center).map { BoxedPayload<Payload>.unbox($0.payload) }
    }

    /// Forgets the latest post of this type on `center`: observations made after this start with nothing, and
    /// ``latest(in:)`` returns `nil` until the next post. Observations already made are unaffected.
    ///
    /// ```swift
    /// struct SessionRestored: LatestValueNotifiable { let user: String }
    ///
    /// let center = NotificationCenter()
    /// SessionRestored(user: "ada").post(in: center)
    /// SessionRestored.clearLatest(in: center)          // signed out
    /// print(SessionRestored.latest(in: center) == nil) // prints "true"
    /// ```
    ///
    /// - Parameter center: The center whose latest post to forget; `.default` unless given.
    public static func clearLatest(in center: NotificationCenter = .default) {
        ObserverRegistry.shared.clearLatest(of: Self.self, in: center)
    }
}
