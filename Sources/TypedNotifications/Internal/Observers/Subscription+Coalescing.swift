import Foundation

// An observer's own coalescing (its `coalescing:` option): what it receives gathers in bursts of its own, in a table
// of its own (a `Coalescer`), handed to it on the posting thread (by its target's `dispatch`, `AnySubscription.coalesces`); a
// burst's end queues one delivery on the observer's target, in that target's one order with its other observers, or
// runs it on the posting thread. The table's next burst is scheduled only once that delivery has run, so at most one
// delivery waits for the observer wherever it waits.

/// What a post did with an observer's own coalescing (``Subscription/coalesce(_:from:isolation:into:context:latestOrder:)``).
enum CoalescingOutcome {
    /// It joined or began a burst, delivered at the burst's end.
    case gathered
    /// A throttle's first post of a quiet period: the caller delivers it now, holding `done` until it has run.
    case leads(Coalescer.DeliveryDone)
    /// It joined a burst, and the observer's main-actor owner is to be checked on its target, where alone it loads.
    case checksOwner
}

/// What a post queues on a coalescing observer's main-actor target to check its owner: a dead owner ends the
/// observation at the next post, as it does for an observer that does not coalesce. One instance, told apart from a
/// payload by identity.
final class OwnerCheck: Sendable {
    static let shared = OwnerCheck()
}

extension Subscription {
    /// A post's stage in this observation's own coalescing (``Route/coalescing``), after its sender filter: an owner
    /// found dead ends the observation now, where it may be loaded here (a main-actor owner on the main actor; else a
    /// check is queued on its target, once at a time); the condition is judged when the burst is delivered, where
    /// the handler runs. `latestOrder`, a latest-value type's post's number in the center's order, lets the burst keep
    /// the post the center keeps last (see ``Coalescer/gather(_:of:from:in:coalescing:context:order:pending:deliver:)``).
    func coalesce(
        _ payload: Payload,
        from postSender: AnyObject?,
        isolation: (any Actor)?,
        into coalescing: (NotificationCoalescing<Payload>, bursts: Coalescer),
        context: PostContext,
        latestOrder: UInt64 = 0
    ) -> CoalescingOutcome {
        var checksOwner = false
        if isOwnerBound {
            if ownerLoadsAnywhere || Platform.isMainActor(isolation) {
                if loadOwner() == nil {
                    cancel()
                    return .gathered
                }
            } else if route?.ownerCheckQueued?.set() == true {
                checksOwner = true
            }
        }
        // The burst ends on the observer's actor (the main actor or its actor), or else on the context of the post
        // that began it, as a poster's does, and is then delivered by `deliverBurst`.
        let endContext: (any Actor)? =
            switch target?.executor {
            case .mainActor: MainActor.shared
            case .actor(let actor): actor.actor
            default: Coalescer.endContext(of: PendingDeliveries.isolation(of: isolation))
            }
        // An `async` handler's own posts to itself are not waited for from its task (see `awaitDelivery`): its next
        // burst is delivered only after the handler returns, so the wait would be for itself.
        var pending = context.pending?.waitsOnly
        if let queue = route?.queue { pending = pending?.attached(excludingDrainOf: queue) }
        let lead = coalescing.bursts.gather(
            payload, of: Event.self, from: postSender, in: channel.centerID, coalescing: coalescing.0,
            context: endContext, order: latestOrder, pending: pending
        ) { [weak self] payload, sender, context in
            self?.deliverBurst(payload, from: sender, on: context)
        }
        if let lead {
            route?.ownerCheckQueued?.store(0)  // the delivery checks the owner
            return .leads(lead)
        }
        return checksOwner ? .checksOwner : .gathered
    }

    /// Delivers a new observer's latest value on the observing thread, after the registry's lock, as the first
    /// delivery of its own coalescing's key (see ``Coalescer/leadsLatest(of:in:from:coalescing:order:)``): a post
    /// that another thread makes meanwhile gathers behind it, and one that reached the observer first supersedes it, so
    /// the observer never ends on its latest value after a newer post.
    func replayAhead(
        _ payload: Payload, from sender: AnyObject?, order: UInt64,
        into coalescing: (NotificationCoalescing<Payload>, bursts: Coalescer), context: PostContext
    ) {
        guard
            let lead = coalescing.bursts.leadsLatest(
                of: Event.self, in: channel.centerID, from: sender, coalescing: coalescing.0, order: order)
        else { return }
        var context = context
        context.pending = PendingDeliveries(joining: context.pending.map { [$0] } ?? [], holding: lead)
        _ = receive(payload, boxed: nil, from: sender, isolation: nil, isPost: false, context: context)
    }

    /// Runs a queued ``OwnerCheck`` on the target: a dead owner ends the observation.
    func checkOwner() {
        route?.ownerCheckQueued?.store(0)
        if loadOwner() == nil { cancel() }
    }

    /// Delivers a burst's payload, on the actor it ended on (`context`), through the rest of the route, as a post made
    /// there would be: queued on the target, appended to the observer's own queue, or run now with the checks a queued
    /// delivery makes. The observation may have ended since the burst was taken (its merge is user code): then nothing
    /// is queued, or what was is dropped.
    func deliverBurst(_ payload: Payload, from sender: AnyObject?, on context: (any Actor)?) {
        let entry = receive(payload, boxed: nil, from: sender, isolation: context, isPost: false, context: .current)
        guard let entry, let target else { return }
        target.queue(entry, isCurrent: target.isCurrent(context))
    }
}
