import Foundation

// An observer's own coalescing (its `coalescing:` option): what it receives gathers in bursts of its own, in a table
// of its own (a `Coalescer`), handed to it on the posting thread (by its target's `dispatch`, `Queueing.burst`); a
// burst's end queues one delivery on the observer's target, in that target's one order with its other observers, or
// runs it on the posting thread.

extension Subscription {
    /// Adds a post to this observation's own burst (``Rest/coalescing``); the burst ends on the observer's actor (the
    /// main actor or its actor), or else on the context of the post that began it (`isolation`), as a poster's does,
    /// and is then delivered by ``deliverBurst(_:from:on:)``.
    func gather(
        _ payload: Event.Payload,
        from postSender: AnyObject?,
        isolation: (any Actor)?,
        coalescing: NotificationCoalescing<Payload>,
        into bursts: Coalescer
    ) {
        let context: (any Actor)? =
            switch target?.executor {
            case .mainActor: MainActor.shared
            case .actor(let actor): actor.actor
            default: Coalescer.endContext(of: PendingDeliveries.isolation(of: isolation))
            }
        bursts.gather(
            payload, of: Event.self, from: postSender, in: channel.centerID, coalescing: coalescing, context: context
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
        let count = channel.cancellations.load()
        guard !ObserverRegistry.shared.isCancelled(self) else { return }
        let entry = DeliveryTarget.Entry(
            subscription: self, payload: payload, sender: takesSender ? sender : nil,
            pending: PendingDeliveries.current)
        target.queue(CollectionOfOne(entry), isCurrent: target.isCurrent(context), cancellationsSeen: count)
    }
}
