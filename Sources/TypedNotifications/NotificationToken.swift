import CTypedNotificationsAtomics
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
/// Owner-bound observations (``Notifiable/observe(for:from:in:delivery:where:file:line:_:)``) return no token but an
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
///   `[weak self]` instead, or observe with the owner-bound ``Notifiable/observe(for:from:in:delivery:where:file:line:_:)``, which
///   hands the handler its owner and keeps it alive while the handler runs.
///
/// Tokens compare by identity. They are `Sendable`: cancel or release them from any thread.
public final class NotificationToken: Hashable, Sendable {
    private let observation: any Observation

    #if DEBUG
    /// Where and when the observation was made, for the report of a token released at once; `nil` for tokens the
    /// package makes for itself.
    private let made: (site: ObservationSite, uptime: UInt64)?
    #endif

    /// A token for `observation`; `site` is the observing call's, for the report of a discarded token.
    @usableFromInline
    init(_ observation: any Observation, site: ObservationSite? = nil) {
        self.observation = observation
        #if DEBUG
        made = site.map { ($0, DispatchTime.now().uptimeNanoseconds) }
        if made != nil { DiscardedTokens.made(self) }
        #endif
    }

    deinit {
        observation.cancel()
        #if DEBUG
        if let made, DiscardedTokens.releasedAtOnce(self, madeAt: made.uptime) {
            observation.reportDiscarded(site: made.site)
        }
        #endif
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
        DiscardedTokens.touch()
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
        DiscardedTokens.touch()  // kept
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
/// Each thread remembers the newest token it made, in a thread-local word (`tn_newest_token`), until it next calls
/// into the package (posts, observes, cancels, lists observations). A token released on that thread while it is still
/// remembered there, within ``window`` of being made, was almost surely never kept: `_ =` releases it as the statement
/// ends, before anything else can happen, while a kept token is used, or outlives the next call into the package.
@usableFromInline
enum DiscardedTokens {
    /// How soon after being made a release counts as at once: a quarter of a second, far longer than a statement takes
    /// even under ThreadSanitizer, and far shorter than a screen that observes usually lives.
    static let window: UInt64 = 250_000_000

    /// Records `token` as the newest this thread made.
    static func made(_ token: NotificationToken) {
        #if DEBUG
        tn_set_newest_token(Unmanaged.passUnretained(token).toOpaque())
        #endif
    }

    /// Forgets the newest token this thread made: the thread called into the package since. Every post calls it, in
    /// debug builds only.
    @usableFromInline
    static func touch() {
        #if DEBUG
        tn_set_newest_token(nil)
        #endif
    }

    /// Whether `token`, being released on this thread, is still the newest this thread made and was made within
    /// ``window``; forgets it either way. Compares addresses only: the token is in its `deinit`.
    static func releasedAtOnce(_ token: NotificationToken, madeAt uptime: UInt64) -> Bool {
        guard tn_newest_token() == Unmanaged.passUnretained(token).toOpaque() else { return false }
        tn_set_newest_token(nil)
        return DispatchTime.now().uptimeNanoseconds - uptime < window
    }
}
