public import Foundation

/// How a burst of posts is coalesced into one: the `coalescing:` argument of `post`, and of every observing form.
///
/// A coalesced post joins the *burst* in progress of posts of its type on its center, from its sender, or starts one;
/// at the burst's end, the burst is delivered as **one post**, with the latest payload (or the payloads merged, with
/// ``merging(_:)``), to every typed observer and, through Foundation, to plain observers. So a model that changes 200
/// times in a loop costs each observer one call, not 200. Only a throttle (``within(_:)``) delivers a post when it is
/// made: the first post of a quiet period, delivered at once as an uncoalesced post is; the posts that follow gather
/// into bursts.
///
/// - **When a burst ends:** with ``nextTurn``, at the next turn of the actor the burst began on: the main actor's next
///   job for a burst begun on the main actor, the actor's next job for one begun on another actor. So the posts that
///   one job makes form one burst. Nonisolated code has no turns: there a burst ends as soon as a task on the global
///   executor picks it up, possibly while the posts go on, so use ``within(_:)`` there. With ``within(_:)`` (a
///   throttle), a burst ends that many seconds after the previous delivery of its key was done (with
///   ``trailingOnly``, after its first post); with ``afterPause(_:)`` (a debounce), once no post has joined it for
///   that many seconds (a timer; no thread sleeps, no run loop is needed). Posting never blocks.
/// - **Where the burst is delivered:** it is posted at its end, on that context, as if by `post` there: observers on
///   the posting thread run there, observers isolated to that actor run during it, others have it queued, and plain
///   observers receive one Foundation post on that thread.
/// - **Order:** exactly as if the burst's payload were posted once, at the burst's end. Uncoalesced posts are
///   delivered when they are made, so an observer receives those made before the burst ends before the burst, and
///   those made after, after it (on one queue or actor, in that order).
/// - **Senders:** posts from different senders are different bursts (as `NotificationQueue`'s default coalescing
///   mask), so that sender filters still see every sender's latest post; ``acrossSenders`` makes one burst of them,
///   delivered with the latest sender. A poster's burst keeps its center and sender alive until it is delivered, at
///   most its window (so that no other object takes their addresses meanwhile); a burst holds the actor it ends on
///   weakly: an actor released meanwhile is not kept, and its burst is then delivered on the global executor.
/// - **Context:** the delivery runs in a detached task: none of the posting tasks' task-locals or priority.
/// - **Options:** a burst takes its end, merge and context from its first post; a later post with other options joins
///   it all the same.
/// - **One delivery at a time:** while a delivery of a burst's key (its type, center and sender) is not done, posts
///   gather in the key's next burst, whose end is scheduled only once that delivery is done: for a poster's burst,
///   once its post has returned; for an observer's, once its handler has run.
/// - **Latest values:** for a ``LatestValueNotifiable`` type, the burst becomes the latest post when it is delivered,
///   not before.
/// - **Observers:** given to an observing form (`T.observe(coalescing: .afterPause(0.3)) { … }`), the same values
///   coalesce the posts that one observer receives, whatever the poster did, into bursts of its own, delivered where
///   its handler runs; a `.nextTurn` burst ends at the next turn of the observer's actor. As its next burst waits
///   until its previous delivery has run, a busy queue or a slow `async` handler gets one delivery, with the latest
///   payload, when it is free, never a backlog. Its `where:` condition judges each burst's payload, and ending the
///   observation drops the burst in progress; an owner-bound observer whose owner is gone ends at the next post. See
///   <doc:LatestValuesAndCoalescing>.
///
/// ```swift
/// struct RowsDidChange: Notifiable { let changed: Set<Int> }
///
/// @MainActor func reloadRows(in center: NotificationCenter) {
///     for row in 0..<200 {
///         RowsDidChange(changed: [row % 3]).post(in: center, coalescing: .nextTurn)
///     }
///     // Observers receive one post, at the main actor's next turn: RowsDidChange(changed: [1])
/// }
///
/// let center = NotificationCenter()
/// RowsDidChange(changed: [7]).post(
///     in: center,
///     coalescing: .within(0.1).merging { RowsDidChange(changed: $0.changed.union($1.changed)) }
/// )
/// ```
public struct NotificationCoalescing<Payload: Sendable>: Sendable {
    enum End: Sendable, Equatable {
        case nextTurn
        case after(TimeInterval)
        case afterPause(TimeInterval)
    }

    let end: End
    let spansSenders: Bool
    let merge: (@Sendable (Payload, Payload) -> Payload)?
    /// Whether the first post of a quiet period is delivered at once (``within(_:)``, unless ``trailingOnly``).
    let leads: Bool

    init(end: End, spansSenders: Bool, merge: (@Sendable (Payload, Payload) -> Payload)?, leads: Bool = false) {
        self.end = end
        self.spansSenders = spansSenders
        self.merge = merge
        self.leads = leads
    }

    /// Coalesces the posts made until the next turn of the context the burst began on (see above).
    ///
    /// ```swift
    /// struct CartDidChange: Notifiable { let itemCount: Int }
    /// CartDidChange(itemCount: 3).post(coalescing: .nextTurn)
    /// ```
    public static var nextTurn: Self {
        Self(end: .nextTurn, spansSenders: false, merge: nil)
    }

    /// A *throttle*: the first post of a quiet period is delivered at once, then at most one delivery per `seconds`
    /// while posts keep coming, each with the latest payload (or the window's payloads merged), ending with the last.
    ///
    /// A window starts when a delivery is done: for an observer's own coalescing, once its handler has run (so a busy
    /// queue or a slow `async` handler gets one delivery, with the latest payload, when it is free, never a backlog);
    /// for a poster's, once its post has returned. A quiet period is a window with no post: the next
    /// post is again delivered at once. ``trailingOnly`` delivers nothing at once.
    ///
    /// ```swift
    /// struct UploadProgress: Notifiable { let fraction: Double }
    /// let center = NotificationCenter()
    /// let token = UploadProgress.observe(in: center, coalescing: .within(0.25)) { progress in
    ///     print(progress.fraction)   // the first post at once, then at most one every 0.25 s, ending with the last
    /// }
    /// UploadProgress(fraction: 0.1).post(in: center)   // prints 0.1
    /// ```
    ///
    /// - Parameter seconds: The window: how long after a delivery the next one may come; measured by a timer. A
    ///   negative or NaN value counts as 0, and one above 10⁹ (about 31 years; `.infinity` too) as 10⁹, so that any
    ///   value sets a timer.
    public static func within(_ seconds: TimeInterval) -> Self {
        Self(end: .after(Swift.min(Swift.max(0, seconds), longestBurst)), spansSenders: false, merge: nil, leads: true)
    }

    /// The same coalescing without a delivery at the start of a quiet period: a ``within(_:)`` burst then begins with
    /// its first post and is delivered, latest payload or merged, at the end of its window. For batching, where one
    /// delivery per window matters more than showing the first post at once (rows that changed, to reload together).
    /// ``nextTurn`` and ``afterPause(_:)`` deliver only at a burst's end already.
    ///
    /// ```swift
    /// struct RowsDidChange: Notifiable { let changed: Set<Int> }
    /// RowsDidChange(changed: [3]).post(
    ///     coalescing: .within(0.1).trailingOnly.merging { RowsDidChange(changed: $0.changed.union($1.changed)) }
    /// )
    /// ```
    public var trailingOnly: Self {
        Self(end: end, spansSenders: spansSenders, merge: merge, leads: false)
    }

    /// Coalesces posts until none has come for `seconds`: a *debounce*, for "once the user pauses". Each post
    /// restarts the wait, so posts that keep coming closer together than `seconds` are delivered only once they stop.
    ///
    /// ```swift
    /// struct SearchTextDidChange: Notifiable { let text: String }
    /// let center = NotificationCenter()
    /// let token = SearchTextDidChange.observe(in: center, coalescing: .afterPause(0.3)) { change in
    ///     print("search for", change.text)   // once typing pauses for 0.3 s: the latest text
    /// }
    /// ```
    ///
    /// - Parameter seconds: How long no post must come before the burst ends; measured by a timer, and bounded as
    ///   for ``within(_:)``.
    public static func afterPause(_ seconds: TimeInterval) -> Self {
        Self(end: .afterPause(Swift.min(Swift.max(0, seconds), longestBurst)), spansSenders: false, merge: nil)
    }

    /// The longest a burst lasts, in seconds: its nanoseconds fit the timer's `UInt64`.
    static var longestBurst: TimeInterval { 1_000_000_000 }

    /// The same coalescing, delivering the burst's payloads combined by `merge` (in post order: `merge(earlier,
    /// later)`) instead of its latest payload: to count the posts, or to collect what they carry.
    ///
    /// `merge` runs at the burst's end, on its context, outside the package's locks; the burst keeps its payloads until
    /// then.
    ///
    /// ```swift
    /// struct MessagesDidArrive: Notifiable { let count: Int }
    /// MessagesDidArrive(count: 1).post(
    ///     coalescing: .nextTurn.merging { MessagesDidArrive(count: $0.count + $1.count) }
    /// )
    /// ```
    ///
    /// - Parameter merge: Combines two payloads of the burst, earlier first.
    public func merging(_ merge: @escaping @Sendable (_ earlier: Payload, _ later: Payload) -> Payload) -> Self {
        Self(end: end, spansSenders: spansSenders, merge: merge, leads: leads)
    }

    /// The same coalescing, with the posts of every sender in one burst, delivered with the latest post's sender.
    ///
    /// ```swift
    /// struct DownloadDidProgress: Notifiable { let fraction: Double }
    /// DownloadDidProgress(fraction: 0.5).post(coalescing: .nextTurn.acrossSenders)
    /// ```
    public var acrossSenders: Self {
        Self(end: end, spansSenders: true, merge: merge, leads: leads)
    }
}
