import Foundation

// How a post reaches a target: its entries queued in one step, then run now or by a drain (see "One order per
// target" in `DeliveryTarget`).

extension DeliveryTarget {
    /// A latest-value type's post, under the registry's lock, in the step that makes it the latest: queued for every
    /// target among `subscriptions`, appended to the observers' own queues, and gathered into the bursts of those that
    /// coalesce. So every observer receives a type's posts in the order the center keeps them, whichever threads post,
    /// and ends on the latest. Nothing here calls out: the observers' state is read directly (the lock is held), the
    /// sender filter is loaded only for the poster's own sender, which the poster holds, no owner is loaded, and only
    /// the package's own locks are taken. `appended` collects what must wait until after every lock (waking a task,
    /// releasing replaced payloads, scheduling a burst's end); `leads`, the first posts of a quiet period that the
    /// post loop delivers to observers without a target, in their place, with the waits each holds.
    static func enqueueInLatestOrder(
        _ payload: AnyObject,
        to subscriptions: [AnySubscription?],
        from sender: AnyObject?,
        isolation: (any Actor)?,
        onMainActor: Bool,
        context: PostContext,
        appended: inout [() -> Void],
        leads: inout [(AnySubscription, PendingDeliveries)]
    ) -> [Queued] {
        var queuedPosts: [Queued] = []
        var visited: [DeliveryTarget] = []
        for case let subscription? in subscriptions {
            guard let target = subscription.target else {
                // An `async` handler's or a sequence's own queue, or its own bursts; what it leaves runs after.
                guard subscription.waitsInOwnQueue || subscription.coalesces else { continue }
                let (_, lead, after) = subscription.receiveInCenterOrder(
                    payload, from: sender, context: context, isolation: isolation, onMainActor: onMainActor)
                appended.append(after)
                if let lead { leads.append((subscription, lead)) }
                continue
            }
            guard !visited.contains(where: { $0 === target }) else { continue }
            visited.append(target)
            let entries = subscriptions.compactMap { observer -> Entry? in
                guard let observer, observer.target === target, !observer.hasEnded else { return nil }
                if observer.coalesces {
                    let (entry, _, after) = observer.receiveInCenterOrder(
                        payload, from: sender, context: context, isolation: isolation, onMainActor: onMainActor)
                    appended.append(after)
                    return entry
                }
                guard observer.accepts(sender) else { return nil }
                let kept = observer.takesSender ? sender : nil
                return Entry(subscription: observer, payload: payload, sender: kept, context: context)
            }
            guard !entries.isEmpty else { continue }
            let isCurrent = target.isCurrent(isolation, onMainActor: onMainActor)
            queuedPosts.append(target.enqueue(entries, isCurrent: isCurrent))
        }
        return queuedPosts
    }

    /// Queues one post for this target's observers among `subscriptions`, in one step; see ``DeliveryTarget``.
    /// Inlinable, so that it is specialised for the payload's type where the post is: unspecialised, each box looks
    /// its class's metadata up in the runtime (the main-actor-1 row of the Performance article's instruction table).
    /// Never inlined, so that the post's loop over its observers keeps its size (the post-100 row).
    @inlinable @inline(never)
    func dispatch<Payload: Sendable>(
        _ payload: Payload,
        to subscriptions: [AnySubscription?],
        from sender: AnyObject?,
        isolation: (any Actor)?
    ) {
        dispatch(boxed: BoxedPayload(payload), to: subscriptions, from: sender, isolation: isolation)
    }

    /// ``dispatch(_:to:from:isolation:)`` once the payload is boxed. A post usually has one observer on a target: its
    /// entry is queued without an array.
    @usableFromInline
    func dispatch(
        boxed: AnyObject, to subscriptions: [AnySubscription?], from sender: AnyObject?, isolation: (any Actor)?
    ) {
        let context = PostContext.current
        var first: Entry?
        var others: [Entry] = []
        // Observers that ended earlier in the post get nothing queued, so nothing of the post is kept for them.
        for case let observer? in subscriptions where observer.target === self && !observer.hasEnded {
            let entry: Entry
            if observer.coalesces {
                // It gathers the post into its own bursts first, whose end queues one delivery here.
                guard let leading = observer.receive(boxed, from: sender, isolation: isolation, context: context) else {
                    continue
                }
                entry = leading
            } else {
                guard observer.accepts(sender) else { continue }
                let kept = observer.takesSender ? sender : nil
                entry = Entry(subscription: observer, payload: boxed, sender: kept, context: context)
            }
            if first == nil { first = entry } else { others.append(entry) }
        }
        guard let first else { return }
        let runsHere = isCurrent(isolation ?? context.pending?.isolationHere)
        if others.isEmpty {
            queue(first, isCurrent: runsHere)
        } else {
            others.insert(first, at: 0)
            queue(others, isCurrent: runsHere)
        }
    }

    /// Queues `entries` and runs them, now (`isCurrent`, see ``State/runsNow(isCurrent:)``) or by scheduling a drain;
    /// outside every lock. The caller found their observers active; one that has ended since then had what was queued
    /// for it discarded (``discardPending(for:)``), perhaps before these entries came: they are discarded too, so that
    /// nothing stays queued, holding its payload and an `awaitDelivery` wait, for an ended observation. Its flag is set
    /// before that discard, so the check after queueing sees it.
    func queue(_ entries: some Collection<Entry>, isCurrent: Bool) {
        #if DEBUG
        TestHooks.reached(.queueing, on: key.center)
        #endif
        let queued = enqueue(entries, isCurrent: isCurrent)
        for entry in entries where entry.subscription.hasEnded {
            discardPending(for: entry.subscription)
        }
        finish(queued)
    }

    /// As `queue(_:isCurrent:)` with a collection, for one entry, the usual post: moved into the queue, not
    /// copied (each copy retains and releases every reference the entry holds), and with no array (the main-actor-1
    /// row of the Performance article's instruction table).
    func queue(_ entry: consuming Entry, isCurrent: Bool) {
        #if DEBUG
        TestHooks.reached(.queueing, on: key.center)
        #endif
        let subscription = entry.subscription
        let queued = enqueue(entry, isCurrent: isCurrent)
        if subscription.hasEnded { discardPending(for: subscription) }
        finish(queued)
    }

    /// Queues `entries` in one step; the caller then calls ``finish(_:)`` outside every lock. Takes only the target's
    /// lock, so the registry may call it under its own, to queue a new observer's latest post before any live post.
    func enqueue(_ entries: some Sequence<Entry>, isCurrent: Bool) -> Queued {
        state.withLock { state in
            let runsNow = state.runsNow(isCurrent: isCurrent)
            for entry in entries { state.append(entry) }
            return state.queued(on: self, runsNow: runsNow)
        }
    }

    /// As `enqueue(_:isCurrent:)` with a sequence, for one entry, which it moves into the queue.
    func enqueue(_ entry: consuming Entry, isCurrent: Bool) -> Queued {
        var entry = Optional(entry)
        return state.withLock { state in
            let runsNow = state.runsNow(isCurrent: isCurrent)
            // `take()` moves the entry out of the optional, which the closure can only borrow.
            if let entry = entry.take() { state.append(entry) }
            return state.queued(on: self, runsNow: runsNow)
        }
    }

    /// Runs what ``enqueue(_:isCurrent:)`` queued, now or by scheduling a drain; outside every lock.
    func finish(_ queued: Queued) {
        if queued.schedules { schedule() }
        if let last = queued.runsThrough {
            while let entry = take(through: last) { entry.run() }
        }
    }

    /// Runs this target's entries among `queuedPosts` (a latest-value type's post, queued under the registry's lock).
    @usableFromInline
    func finish(_ queuedPosts: [Queued]) {
        for queued in queuedPosts where queued.target === self { finish(queued) }
    }

    /// Discards what is queued for `subscription`, which ended, in constant amortised time whatever the queue holds:
    /// its entries count as ended from now on, and are dropped, released after the lock, at once when they make up
    /// half the queue with the other ended entries or the queue is short (``State/dropEndedEntries()``); otherwise
    /// when the target reaches them (the ended flag stops them there) or a later discard drops them with others. So
    /// ended entries never outnumber the live ones by more than a short queue, and an observer with nothing queued
    /// (one that ends in its own handler, or whose dead owner its delivery found) costs one lock round trip.
    func discardPending(for subscription: AnySubscription) {
        let dropped = state.withLock { state -> [Entry] in
            if !subscription.tally.isDiscarded {
                subscription.tally.isDiscarded = true
                state.endedEntries += Int(subscription.tally.queued)
            }
            return state.dropEndedEntries()
        }
        withExtendedLifetime(dropped) {}
    }
}
