import Foundation

// An observer's own coalescing (its `coalescing:` option): what it receives gathers in bursts of its own, in a table
// of its own (a `Coalescer`), handed to it on the posting thread (by its target's `dispatch`, `AnySubscription.coalesces`); a
// burst's end queues one delivery on the observer's target, in that target's one order with its other observers, or
// runs it on the posting thread. The table's next burst is scheduled only once that delivery has run, so at most one
// delivery waits for the observer wherever it waits.

/// What a post did with an observer's own coalescing (``Subscription/coalesce(_:from:isolation:into:context:)``).
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
    /// check is queued on its target, once at a time); then the post gathers. The condition is judged when the burst
    /// is delivered, where the handler runs.
    func coalesce(
        _ payload: Payload,
        from postSender: AnyObject?,
        isolation: (any Actor)?,
        into coalescing: (NotificationCoalescing<Payload>, bursts: Coalescer),
        context: PostContext
    ) -> CoalescingOutcome {
        // Inside `awaitDelivery`, a post its own task makes runs on `awaitDelivery`'s actor.
        let isolation = PendingDeliveries.isolation(of: isolation)
        let ownerLoads = ownerLoadsHere(onMainActor: Platform.isMainActor(isolation))
        if ownerLoads, loadOwner() == nil {
            cancel()
            return .gathered
        }
        let endContext = burstContext(of: Coalescer.endContext(of: isolation))
        let gathered = gather(
            payload, from: postSender, into: coalescing, context: endContext, pending: context.pending)
        coalescing.bursts.finish(gathered)
        return outcome(of: gathered, ownerLoads: ownerLoads)
    }

    /// A latest-value type's post to this observer, which coalesces, under the registry's lock, in the step that
    /// makes it the latest (see ``DeliveryTarget/enqueueInLatestOrder``): so its bursts gather the type's posts in the
    /// order the center keeps them, and end on the latest, whichever threads post. Only the package's own locks are
    /// taken; the owner is checked after the lock (``receiveGathered(_:from:isolation:kept:)``).
    ///
    /// Returns what enters its target's queue in this step (a throttle's first post of a quiet period, or a check of
    /// a main-actor owner), a first post to deliver after the lock for an observer without a target (the waits it
    /// holds), and what to run after the lock.
    func gatherLatest(
        _ boxed: AnyObject, from sender: AnyObject?, context: PostContext, isolation: (any Actor)?, onMainActor: Bool
    ) -> (entry: DeliveryTarget.Entry?, lead: PendingDeliveries?, after: () -> Void) {
        guard let coalescing = route?.coalescing, !hasEnded, accepts(sender) else { return (nil, nil, {}) }
        // The channel's latest post boxes a payload of its own type (see `ObserverRegistry.keepLatest`).
        let payload = BoxedPayload<Payload>.unbox(boxed)
        let endContext = burstContext(of: isolation ?? (onMainActor ? MainActor.shared : nil))
        let gathered = gather(payload, from: sender, into: coalescing, context: endContext, pending: context.pending)
        let after = { coalescing.bursts.finish(gathered) }
        // An owner that may be loaded here is, after the lock (`receiveGathered`).
        switch outcome(of: gathered, ownerLoads: ownerLoadsHere(onMainActor: onMainActor)) {
        case .gathered:
            return (nil, nil, after)
        case .checksOwner:
            let check = DeliveryTarget.Entry(
                subscription: self, payload: OwnerCheck.shared, sender: nil, context: context)
            return (check, nil, after)
        case .leads(let done):
            let lead = PendingDeliveries(joining: context.pending.map { [$0] } ?? [], holding: done)
            guard target != nil else { return (nil, lead, after) }
            let entry = DeliveryTarget.Entry(
                subscription: self, payload: boxed, sender: takesSender ? sender : nil,
                context: PostContext(scope: context.scope, pending: lead))
            return (entry, nil, after)
        }
    }

    /// After the registry's lock, for a latest-value type's post that gathered for this observer in it
    /// (``gatherLatest(_:from:context:isolation:onMainActor:)``): its owner is checked where it may be loaded here, and
    /// a first post of a quiet period that its bursts gathered (among `kept.leads`, with the waits it holds) is
    /// delivered.
    @usableFromInline
    func receiveGathered(
        _ payload: Event.Payload, from sender: AnyObject?, isolation: (any Actor)?,
        kept: ObserverRegistry.PostPlan.KeptLatest
    ) {
        // On the main actor as `gatherLatest` found it (`ObserverRegistry.keepLatest`'s `queueingContext`).
        if ownerLoadsHere(onMainActor: Platform.isMainActor(PendingDeliveries.isolation(of: isolation))),
            loadOwner() == nil
        {
            return cancel()
        }
        guard let lead = kept.leads.first(where: { $0.0 === self })?.1 else { return }
        let context = PostContext(scope: NotificationDiagnostics.queuedScope, pending: lead)
        _ = receive(payload, boxed: nil, from: sender, isolation: isolation, isPost: false, context: context)
    }

    /// Whether this observation has an owner that a post may load where it runs: anywhere, or for a main-actor
    /// owner, on the main actor (`onMainActor`, asked only then).
    private func ownerLoadsHere(onMainActor: @autoclosure () -> Bool) -> Bool {
        isOwnerBound && (ownerLoadsAnywhere || onMainActor())
    }

    /// Where this observer's bursts end: on its actor (the main actor or its actor), or else on `postContext`, that of
    /// the post that began the burst, as a poster's does; held weakly. No actor is loaded here.
    private func burstContext(of postContext: (any Actor)?) -> WeakActor? {
        switch target?.executor {
        case .mainActor: WeakActor(MainActor.shared)
        case .actor(let actor): actor
        default: postContext.map(WeakActor.init)
        }
    }

    /// Gathers a post into this observation's bursts, whose end delivers through ``deliverBurst(_:from:on:)``. Takes
    /// only the package's own locks.
    private func gather(
        _ payload: Payload, from sender: AnyObject?,
        into coalescing: (NotificationCoalescing<Payload>, bursts: Coalescer),
        context: WeakActor?, pending: PendingDeliveries?
    ) -> Coalescer.Gathered {
        // An `async` handler's own posts to itself are not waited for from its task (see `awaitDelivery`): its next
        // burst is delivered only after the handler returns, so the wait would be for itself.
        var pending = pending?.waitsOnly
        if let queue = route?.queue { pending = pending?.attached(excludingDrainOf: queue) }
        return coalescing.bursts.gather(
            payload, of: Event.self, from: sender, in: channel.centerID, coalescing: coalescing.0, context: context,
            pending: pending
        ) { [weak self] payload, sender, context in
            self?.deliverBurst(payload, from: sender, on: context)
        }
    }

    /// What a gathered post leaves to the caller: nothing, a check on its target of an owner that the post did not load
    /// (`ownerLoads`; once at a time), or a first post to deliver now, whose delivery checks the owner.
    private func outcome(of gathered: Coalescer.Gathered, ownerLoads: Bool) -> CoalescingOutcome {
        if let lead = gathered.lead {
            route?.ownerCheckQueued?.store(0)
            return .leads(lead)
        }
        let checksOwner = isOwnerBound && !ownerLoads && route?.ownerCheckQueued?.set() == true
        return checksOwner ? .checksOwner : .gathered
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
        // The burst's own delivery holds what `Coalescer.deliver` collects it into, its `DeliveryDone` included (a
        // post's context leaves that out: `PostContext.current`).
        let held = PostContext(scope: NotificationDiagnostics.queuedScope, pending: PendingDeliveries.current)
        let entry = receive(payload, boxed: nil, from: sender, isolation: context, isPost: false, context: held)
        guard let entry, let target else { return }
        target.queue(entry, isCurrent: target.isCurrent(context))
    }
}
