import Foundation

// A new observer of a latest-value type: the latest post, handed to it first (see `ObserverRegistry.add`).

extension Subscription {
    /// Hands this new observer its type's latest post, first: the registry calls it under its lock while adding it, so
    /// no post reaches it before and none is both the latest and delivered live (a post takes that lock for both). Only
    /// the package's own locks are taken. A target or a sequence's buffer gets it queued here, ahead of live posts; a
    /// handler on the posting thread is called by the returned closure, which the registry runs after the lock, on the
    /// observing thread.
    ///
    /// - Parameters:
    ///   - filter: Held by the caller; the latest sender is loaded only if it has its identity (``AnySubscription``).
    ///   - onTarget: Whether the observing code runs on the observer's target (asked before the lock): then the latest
    ///     post runs before the observing call returns, as a post made there would.
    func replay(_ latest: LatestPost, filter: AnyObject?, onTarget: Bool) -> (() -> Void)? {
        if rest?.onDecodingFailure != nil { return nil }
        if let filter {
            guard latest.senderID == senderID, latest.sender === filter else { return nil }
        }
        // The channel keeps only posts of its own type (see `ObserverRegistry.keepLatest`).
        let payload = BoxedPayload<Payload>.unbox(latest.payload)
        if let target {
            let entry = DeliveryTarget.Entry(
                subscription: self, payload: latest.payload, sender: nil, replayed: takesSender ? latest : nil)
            let queued = target.enqueue(CollectionOfOne(entry), isCurrent: onTarget)
            return { target.finish(queued) }
        }
        if case .queued(let queue) = rest?.handler {
            // Ahead of live posts; a sequence has no waiting task yet, and its bound drops nothing worth a report (but
            // with a buffer of 0, this payload). An `async` handler's task starts after the lock.
            guard case .startsDrain = queue.append(payload, isPost: false) else { return nil }
            return { [self] in startTask(of: queue) }
        }
        // Not coalesced: an observation starts with the latest value at once.
        if rest?.coalescing != nil { return { [self] in deliverBurst(payload, from: latest.sender, on: nil) } }
        return { [self] in deliver(payload, from: latest.sender, isolation: nil) }
    }
}
