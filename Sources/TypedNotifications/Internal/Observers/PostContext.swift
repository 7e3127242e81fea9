import Foundation

/// What a delivery carries from the post that made it, as one value, captured once where the post is made
/// (``current``) and kept by whatever queues the delivery (a target's entry, an observer's own queue, a coalesced
/// delivery): the diagnostics scope the handler's reports go to, and the waits of `awaitDelivery` that the delivery
/// holds until it has run or been dropped (see ``PendingDeliveries``; release is the signal). Where the post ran
/// (its isolation) is decided when it is queued (``DeliveryTarget/isCurrent(_:)``), so a queued delivery needs none.
struct PostContext: Sendable {
    /// The diagnostics scope open where the post (or, for a latest value, the observation) was made.
    var scope: NotificationDiagnostics.Scope?
    /// For a post made inside `awaitDelivery`: what its delivery holds.
    var pending: PendingDeliveries?

    /// The context of a post made now on this thread. Its waits are `awaitDelivery`'s alone, without what a delivery
    /// running here holds until it is done (a coalescing observer's ``Coalescer/DeliveryDone``): a post that the
    /// observer's handler makes must not hold the observer's next burst back until that post's observers have run.
    static var current: PostContext {
        PostContext(scope: NotificationDiagnostics.queuedScope, pending: PendingDeliveries.current?.waitsOnly)
    }

    /// Runs a queued handler where its post was made, as far as its reports go (to the post's scope); the waits stay
    /// held, not installed, so that what the handler posts is not waited for by the post's `awaitDelivery`.
    func runQueued<Result>(_ body: () -> Result) -> Result {
        NotificationDiagnostics.reporting(to: scope, body)
    }

    /// Runs a handler on the posting thread in this context: its reports go to the post's scope, and what it posts
    /// reports to the post's waits (for a throttle's first post, those that also hold the next window back).
    func runHere<Result>(_ body: () -> Result) -> Result {
        NotificationDiagnostics.reporting(to: scope) {
            guard let pending, pending !== PendingDeliveries.current else { return body() }
            return PendingDeliveries.collecting(into: pending, body)
        }
    }
}
