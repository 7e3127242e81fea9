import Foundation

// An observer's own coalescing (its `coalescing:` option): what it receives gathers in bursts of its own, in a table
// of its own (a `Coalescer`), handed to it on the posting thread (by its target's `dispatch`, `Queueing.burst`); a
// burst's end queues one delivery on the observer's target, in that target's one order with its other observers, or
// runs it on the posting thread. The table's next burst is scheduled only once that delivery has run, so at most one
// delivery waits for the observer wherever it waits.

/// What a post did with an observer's own coalescing (``Subscription/coalesce(_:from:isolation:)``).
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
    /// Takes a post into this observation's own coalescing (``Rest/coalescing``), after its sender filter: an owner
    /// found dead ends the observation now, where it may be loaded here (a main-actor owner on the main actor; else a
    /// check is queued on its target, once at a time); the condition is judged when the burst is delivered, where
    /// the handler runs.
    func coalesce(_ payload: Payload, from postSender: AnyObject?, isolation: (any Actor)?) -> CoalescingOutcome {
        guard let rest, let coalescing = rest.coalescing, let bursts = rest.bursts else { return .gathered }
        var checksOwner = false
        if isOwnerBound {
            if ownerLoadsAnywhere || Platform.isMainActor(isolation) {
                if loadOwner() == nil {
                    cancel()
                    return .gathered
                }
            } else if rest.ownerCheckQueued?.set() == true {
                checksOwner = true
            }
        }
        if let done = gather(payload, from: postSender, isolation: isolation, coalescing: coalescing, into: bursts) {
            rest.ownerCheckQueued?.store(0)  // the delivery checks the owner
            return .leads(done)
        }
        return checksOwner ? .checksOwner : .gathered
    }

    /// Runs a queued ``OwnerCheck`` on the target: a dead owner ends the observation.
    func checkOwner() {
        rest?.ownerCheckQueued?.store(0)
        if loadOwner() == nil { cancel() }
    }

    /// Adds a post to this observation's own burst (``Rest/coalescing``); the burst ends on the observer's actor (the
    /// main actor or its actor), or else on the context of the post that began it (`isolation`), as a poster's does,
    /// and is then delivered by ``deliverBurst(_:from:on:)``. Returns the ``Coalescer/DeliveryDone`` of a throttle's
    /// first post of a quiet period, which the caller delivers now.
    func gather(
        _ payload: Event.Payload,
        from postSender: AnyObject?,
        isolation: (any Actor)?,
        coalescing: NotificationCoalescing<Payload>,
        into bursts: Coalescer
    ) -> Coalescer.DeliveryDone? {
        let context: (any Actor)? =
            switch target?.executor {
            case .mainActor: MainActor.shared
            case .actor(let actor): actor.actor
            default: Coalescer.endContext(of: PendingDeliveries.isolation(of: isolation))
            }
        // An `async` handler's own posts to itself are not waited for from its task (see `awaitDelivery`): its next
        // burst is delivered only after the handler returns, so the wait would be for itself.
        var pending = PendingDeliveries.current?.waitsOnly
        if case .queued(let queue) = rest?.handler { pending = pending?.attached(excludingDrainOf: queue) }
        return bursts.gather(
            payload, of: Event.self, from: postSender, in: channel.centerID, coalescing: coalescing, context: context,
            pending: pending
        ) { [weak self] payload, sender, context in
            self?.deliverBurst(payload, from: sender, on: context)
        }
    }

    /// Delivers a burst's payload to this observation as a post made on `context` would be, without coalescing: queued
    /// on its target or its own queue, or run now with the checks a queued delivery makes. The observation may have
    /// ended since the burst was taken (its merge is user code): then nothing is queued, or what was is dropped.
    func deliverBurst(_ payload: Payload, from sender: AnyObject?, on context: (any Actor)?) {
        if case .queued(let queue) = rest?.handler { return append(payload, to: queue) }
        guard let target else {
            guard let owner = admissionOnTarget(of: payload) else { return }
            return run(payload, sender: sender, owner: owner)
        }
        guard !hasEnded else { return }
        let entry = DeliveryTarget.Entry(
            subscription: self, payload: BoxedPayload(payload), sender: takesSender ? sender : nil,
            pending: PendingDeliveries.current)
        target.queue(CollectionOfOne(entry), isCurrent: target.isCurrent(context))
    }
}
