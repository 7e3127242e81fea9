import CTypedNotificationsRuntime
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
/// Owner-bound observations (``Notifiable/observe(for:from:in:delivery:where:coalescing:file:line:_:)``) return no
/// token but an ``OwnerBoundObservation``: they last as long as their owner, and nothing needs to keep them.
///
/// ## Guarantees
/// - ``cancel()`` is final: once it returns, on any thread, no call of the handler starts, on any target (the posting
///   thread, a queue, the main actor, an actor, an `async` handler's task): posts that start afterwards skip it, a
///   post already delivering skips it if it has not reached it yet, and queued deliveries are dropped. A `where:`
///   condition is part of the call: one that is running when ``cancel()`` returns never leads to the handler. A
///   call that had already started may finish; it is not waited for (see below). An `async` handler's call starts
///   in its task, at the last check, before the handler hops to its own isolation (a `@MainActor` closure's hop to
///   the main actor is part of the call). Releasing the token, and an owner's
///   death seen by the package, end the observation the same way.
/// - Cancelling twice, cancelling from inside the handler, or releasing the token on another thread never affects
///   any other observation.
///
/// - Important: ``cancel()`` does not wait for a handler that is already running on another thread: when it
///   returns, that call may still be in progress. So cancelling in `deinit` does not make an `unowned self` capture
///   safe: a post on another thread can be inside the handler, using the object being deinitialised. Capture
///   `[weak self]` instead, or observe with the owner-bound
///   ``Notifiable/observe(for:from:in:delivery:where:coalescing:file:line:_:)``, which hands the handler its owner and
///   keeps it alive while the handler runs.
///
/// A handler may capture its own token (to cancel itself after its first call), or an object that holds the token:
/// once ``cancel()`` has ended the observation, the token lets go of it, and with it of the handler, so such a cycle
/// is freed as soon as ``cancel()`` returns; Foundation's block observers keep theirs until the token is released. If
/// the center goes first, the token keeps the handler until it is cancelled or released, as Foundation's does. To wait
/// for one post, ``Notifiable/next(from:in:where:timeout:isolation:file:line:after:)`` needs no token at all.
///
/// Tokens compare by identity. They are `Sendable`: cancel or release them from any thread.
public final class NotificationToken: Hashable, @unchecked Sendable {
    // `@unchecked Sendable` for `observation`, the one mutable state, which is only read and written under the
    // registry's lock (`ObserverRegistry.add` and `cancel(_:released:)` for a token, and an ending observation
    // through its `holder`); the rest is immutable.

    /// The observation, until ``cancel()`` (or the token's release) takes it out and ends it, in one step under the
    /// registry's lock; for an ``OwnerBoundObservation``'s handle, also until it ends otherwise (its owner or its
    /// center gone) and takes itself out (``AnySubscription/holder``). Released outside the lock. Holding it no longer
    /// once it has ended lets a handler capture its own token: the cycle handler → token → observation → handler
    /// ends with the observation. Only under the registry's lock, but in `init`, before any other thread knows it.
    var observation: AnySubscription?

    #if DEBUG
    /// Where, when and on which thread the observation was made, for the report of a token released at once; `nil`
    /// for tokens the package makes for itself.
    private let made: DiscardedTokens.Made?
    #endif

    /// A token for `observation`; `site` is the observing call's, for the report of a discarded token. No other
    /// thread knows the token yet, so `init` sets `observation` without the lock.
    @usableFromInline
    init(_ observation: AnySubscription, site: ObservationSite? = nil) {
        self.observation = observation
        #if DEBUG
        made = site.map { DiscardedTokens.Made(site: $0, activity: observation.activity) }
        // Safe: the address is only stored in this thread's slot and later compared with another token's address; it is
        // never turned back into a reference, so an unretained pointer to a token that has gone is never dereferenced.
        if made != nil { tn_set_newest_token(Unmanaged.passUnretained(self).toOpaque()) }
        #endif
    }

    /// The handle of an ``OwnerBoundObservation`` about to be made: registering with it as the holder (`heldBy:`)
    /// puts the observation in it, in the step that adds it (``AnySubscription/holder``).
    @usableFromInline
    init() {
        #if DEBUG
        made = nil
        #endif
    }

    deinit {
        // Releasing the token ends its observation, unless it is owner-bound: only an ``OwnerBoundObservation``
        // holds such a token, whose observation lasts as long as its owner (it holds it through a token only so that
        // cancelling lets go of the handler). Told by the observation, not a flag of the token's own, which would
        // make every token a larger allocation (the memory row of `TypedNotificationsRatios --filter memory`).
        let (observation, ended) = ObserverRegistry.shared.cancel(self, released: true)
        guard let observation else { return }
        if ended { observation.didEnd() }
        #if DEBUG
        if let made, made.isReleased(self, atOnceWith: observation.activity) {
            observation.reportDiscarded(site: made.site)
        }
        #endif
    }  // the observation is released here, outside every lock

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
        #if DEBUG
        _ = made?.kept.set()
        #endif
        let (observation, ended) = ObserverRegistry.shared.cancel(self)
        if ended { observation?.didEnd() }
    }  // the observation is released here, outside every lock: it may hold the last reference to the handler

    /// Cancels the observation if it is on `center`.
    func cancel(ifObserving center: NotificationCenter) {
        #if DEBUG
        _ = made?.kept.set()  // a deliberate end, as `cancel()`: not a discarded token
        #endif
        // The channel is retained under the lock and released outside it; its center is loaded outside it.
        let channel = ObserverRegistry.shared.state.withLock { _ in observation?.channel }
        if let channel, channel.isOn(center) { cancel() }
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
        #if DEBUG
        _ = made?.kept.set()
        #endif
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
    /// let token = CounterDidChange.observe(in: center) { change in print(change.count) }
    /// center.removeObserver(token)
    /// CounterDidChange(count: 1).post(in: center)   // prints nothing
    /// ```
    ///
    /// - Parameter token: The token that `observe` returned.
    public func removeObserver(_ token: NotificationToken) {
        token.cancel(ifObserving: self)
    }
}

/// Recognising a token released right after it was made (`_ = Type.observe { … }`), in debug builds.
///
/// `_ =` releases the token as its statement ends, on the thread that made it, before anything else happens. So a token
/// is reported when it is released, within ``DiscardedTokens/window``:
/// - on the thread that made it, which made no other token since (a thread-local word, `tn_newest_token`);
/// - with no post of its type on its center since, from any thread (a counter per channel, bumped by typed posts, by
///   plain posts through the bridge, and by observations);
/// - never stored with ``NotificationToken/store(in:)`` nor cancelled (a flag on the token).
/// A token that is kept is almost always used in one of those ways, or outlives the window. Each condition is local to
/// one thread, channel or token, so tests running in parallel on other centers never change the outcome.
@usableFromInline
enum DiscardedTokens {
    /// How soon after being made a release counts as at once: a quarter of a second, far longer than a statement takes
    /// even under ThreadSanitizer, and far shorter than a screen that observes usually lives.
    static let window: UInt64 = 250_000_000

    /// Records a post of the type of `subscriptions`, on their center: a token made before it was used.
    @usableFromInline
    static func posted(to subscriptions: [AnySubscription?]) {
        #if DEBUG
        subscriptions.last??.channel.recordActivity()
        #endif
    }

    /// A token's making, as ``NotificationToken`` keeps it in debug builds.
    struct Made: @unchecked Sendable {
        // `@unchecked Sendable` because of `thread`, an address only ever compared, never dereferenced; `kept` is
        // atomic.
        let site: ObservationSite
        let madeAt = TimeLimit.now()
        let thread: UnsafeRawPointer? = tn_thread_marker()
        /// The channel's activity when the token was made.
        let activity: UInt64
        /// Set when the token is stored or cancelled.
        let kept = AtomicWord.make()

        init(site: ObservationSite, activity: UInt64) {
            self.site = site
            self.activity = activity
        }

        /// Whether `token`, being released now with its channel at `activity`, is released at once.
        func isReleased(_ token: NotificationToken, atOnceWith activity: UInt64) -> Bool {
            // Safe: both sides are addresses compared as numbers, never dereferenced (see `init`); `token` is alive
            // here.
            let newest: UnsafeRawPointer? = tn_newest_token()
            guard thread == tn_thread_marker(), newest == UnsafeRawPointer(Unmanaged.passUnretained(token).toOpaque())
            else { return false }
            tn_set_newest_token(nil)
            return !kept.isSet && activity == self.activity
                && TimeLimit.nanoseconds(since: madeAt) < DiscardedTokens.window
        }
    }
}
