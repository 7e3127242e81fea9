import Foundation

// An observer's route, stage by stage (see "One route per observer" in `Subscription`): the one way in for a post, a
// burst's end and a latest value; the checks before a handler starts; and what runs on its target or its own queue.

extension Subscription {
    /// The one way into this observer's route, on the posting thread (or where a burst ends, or where a new observer
    /// registers). A post (`isPost`) passes the sender filter, the owner and the observer's own coalescing first; a
    /// burst's end and a latest value go straight to where the delivery waits: the observer's own queue (appended
    /// here), its target (the entry is returned, for the caller to queue in its one step, see ``DeliveryTarget``), or
    /// nowhere (run here, after the checks a queued delivery makes).
    ///
    /// - Parameters:
    ///   - boxed: `payload` boxed already (a post to a target boxes it once for all its observers); `nil` to box it
    ///     here if the delivery waits on a target.
    ///   - context: What the delivery carries from its post (see ``PostContext``).
    func receive(
        _ payload: Payload,
        boxed: AnyObject?,
        from sender: AnyObject?,
        isolation: (any Actor)?,
        isPost: Bool,
        context: PostContext
    ) -> DeliveryTarget.Entry? {
        var context = context
        if isPost {
            guard accepts(sender) else {
                // Any post ends an observation whose owner is gone, whoever sent it.
                if isOwnerBound, ownerLoadsAnywhere, loadOwner() == nil { cancel() }
                return nil
            }
            if let (coalescing, bursts) = route?.coalescing {
                switch coalesce(
                    payload, from: sender, isolation: isolation, into: (coalescing, bursts), context: context)
                {
                case .gathered:
                    return nil
                case .checksOwner:
                    return DeliveryTarget.Entry(
                        subscription: self, payload: OwnerCheck.shared, sender: nil, context: context)
                case .leads(let done):
                    // A throttle's first post of a quiet period goes on now, holding its window until it has run.
                    context.pending = PendingDeliveries(joining: context.pending.map { [$0] } ?? [], holding: done)
                }
            } else if route?.queue != nil, isOwnerBound, loadOwner() == nil {
                // The queue's task makes the other checks; an owner found dead ends the observation now.
                cancel()
                return nil
            }
        }
        if let queue = route?.queue {
            append(payload, to: queue, context: context, isPost: true)
            return nil
        }
        if target != nil {
            guard !hasEnded else { return nil }
            return DeliveryTarget.Entry(
                subscription: self, payload: boxed ?? BoxedPayload(payload), sender: takesSender ? sender : nil,
                context: context)
        }
        context.runHere {
            if let owner = admission(of: payload) { call(payload, sender: sender, owner: owner) }
        }
        return nil
    }

    /// The handler, after the checks: a latest value reaches the common observer's ``direct`` handler here too.
    private func call(_ payload: Payload, sender: AnyObject?, owner: AnyObject?) {
        if let route { route.call(payload, sender, owner) } else { direct(payload) }
    }

    /// Whether the handler starts: the observation is still active (``hasEnded``, the one rule on every thread and
    /// target), its owner lives, and the `where:` condition accepts `payload`; then, if either was asked, it is still
    /// active. Returns the owner, loaded for the handler (`.some(nil)` for an observation without one), or `nil` if the
    /// handler must not start; an owner found dead ends the observation. The owner is not held while the condition
    /// runs (it is loaded again after it), so that one that dies meanwhile never reaches the handler; without a
    /// condition it is loaded once. The condition is part of the call, so an observation whose `cancel()` returns while
    /// it runs, on any thread, never reaches its handler: this last check is the last step before the handler.
    func admission(of payload: Payload) -> AnyObject?? {
        guard !hasEnded else { return nil }
        var owner = loadOwner()
        let condition = route?.condition
        if let condition, owner != nil {
            owner = nil
            guard condition(payload) else { return nil }
            owner = loadOwner()
        }
        guard let owner else {
            cancel()
            return nil
        }
        guard condition == nil && !isOwnerBound || !hasEnded else { return nil }
        return .some(owner)
    }

    /// Runs a delivery that waited on the observer's target, where the target runs it: a check of the owner, or the
    /// handler after the checks.
    func runOnTarget(_ entry: DeliveryTarget.Entry) {
        if coalesces, entry.payload === OwnerCheck.shared { return checkOwner() }
        // The target queued a boxed `Payload` for this subscription (see `DeliveryTarget.dispatch`).
        let payload = BoxedPayload<Payload>.unbox(entry.payload)
        entry.context.runQueued {
            guard let owner = admission(of: payload) else { return }
            call(payload, sender: entry.replayed?.sender ?? entry.sender, owner: owner)
        }
    }

    // MARK: - An observer with a queue of its own

    /// Appends a payload to this observer's own queue: starts an `async` handler's task if the queue was idle, and
    /// reports what a sequence's bounded buffer drops. A post's delivery (`isPost`) holds its context; a latest value,
    /// appended under the registry's lock, holds nothing and is not reported.
    func append(_ payload: Payload, to queue: ConsumerQueue<Payload>, context: PostContext, isPost: Bool) {
        finishAppend(queue.append(payload, context: context, isPost: isPost), to: queue)
    }

    /// What an append leaves to do, outside every lock.
    func finishAppend(_ appended: ConsumerQueueAppend, to queue: ConsumerQueue<Payload>) {
        switch appended {
        case .queued, .ended: break
        case .startsDrain: startTask(of: queue)
        case .dropped:
            guard queue.reportsDrops, let center = channel.center else { return }
            NotificationDiagnostics.report(.dropped, for: Event.self, name: Event.notificationName, in: center)
        }
    }

    /// Starts the task that calls an `async` handler with what its queue holds, after the checks a queued handler
    /// makes.
    func startTask(of queue: ConsumerQueue<Payload>) {
        queue.drain { [self] payload in admission(of: payload) }
    }

    // MARK: - A latest value

    /// Hands this new observer its type's latest post, first: the registry calls it under its lock while adding it, so
    /// no post reaches it before and none is both the latest and delivered live (a post takes that lock for both). Only
    /// the package's own locks are taken. A target or a sequence's buffer gets it queued here, ahead of live posts; a
    /// handler on the posting thread gets it through its route (not coalesced: an observation starts with the latest
    /// value at once) by the returned closure, which the registry runs after the lock, on the observing thread. One
    /// that coalesces takes it as its key's first delivery now, wherever it waits
    /// (``Coalescer/leadsLatest(of:in:senderID:coalescing:)``), so that a post another thread makes meanwhile gathers
    /// behind it, and a busy target has no second delivery waiting behind it.
    ///
    /// - Parameters:
    ///   - filter: Held by the caller; the latest sender is loaded only if it has its identity (``AnySubscription``).
    ///   - onTarget: Whether the observing code runs on the observer's target (asked before the lock): then the latest
    ///     post runs before the observing call returns, as a post made there would.
    func replay(_ latest: LatestPost, filter: AnyObject?, onTarget: Bool) -> (() -> Void)? {
        if route?.onDecodingFailure != nil { return nil }
        if let filter {
            guard latest.senderID == senderID, latest.sender === filter else { return nil }
        }
        // The channel keeps only posts of its own type (see `ObserverRegistry.keepLatest`).
        let payload = BoxedPayload<Payload>.unbox(latest.payload)
        var context = PostContext(scope: NotificationDiagnostics.queuedScope)
        if let (coalescing, bursts) = route?.coalescing {
            // Wherever it waits, its delivery holds `done` until its handler has run, as a burst's does.
            guard
                let done = bursts.leadsLatest(
                    of: Event.self, in: channel.centerID, senderID: latest.senderID, coalescing: coalescing)
            else { return nil }
            context.pending = PendingDeliveries(joining: [], holding: done)
        }
        if let target {
            let entry = DeliveryTarget.Entry(
                subscription: self, payload: latest.payload, sender: nil, replayed: takesSender ? latest : nil,
                context: context)
            let queued = target.enqueue(CollectionOfOne(entry), isCurrent: onTarget)
            return { target.finish(queued) }
        }
        if let queue = route?.queue {
            // Ahead of live posts; a sequence has no waiting task yet, and its bound drops nothing worth a report (but
            // with a buffer of 0, this payload). An `async` handler's task starts after the lock.
            // A coalescing observer's is kept with what it holds (`done`), as a post's delivery is.
            let appended = queue.append(payload, context: context, isPost: context.pending != nil)
            guard case .startsDrain = appended else { return nil }
            return { [self] in startTask(of: queue) }
        }
        return { [self] in
            _ = receive(payload, boxed: nil, from: latest.sender, isolation: nil, isPost: false, context: context)
        }
    }
}
