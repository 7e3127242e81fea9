import Foundation

// A channel's end: dropped with its last observer (unless it keeps a latest value), or with its center, which the
// bridge's release reports (see `BridgeRegistration`).

extension ObserverRegistry {
    /// Drops a channel without observers, unless it keeps its type's latest post (then it lives as long as its center).
    static func dropIfEmpty(_ channel: Channel, in state: inout State) -> BridgeRegistration? {
        guard channel.subscriptions.isEmpty, !channel.keepsLatest,
            state.records[channel.subject]?.remove(channel) == true
        else { return nil }
        defer { channel.bridge = nil }
        return channel.bridge
    }

    /// Called by ``BridgeRegistration``'s `deinit`: if `channel` is still registered, its center is being deallocated,
    /// so the channel is dropped and its observers ended.
    func bridgeEnded(_ channel: Channel) {
        let (ended, latest): ([AnySubscription], LatestPost?) = state.withLock { state in
            guard state.records[channel.subject]?.remove(channel) == true else { return ([], nil) }
            let ended = channel.subscriptions.compactMap { $0 }
            for subscription in ended {
                subscription.markEnded()
                Self.letGoOfHolder(subscription)
                if let target = subscription.target { state.releaseTarget(target) }
            }
            defer {
                channel.subscriptions = []
                channel.holes = 0
                channel.ownerBoundCount = 0
                channel.bridge = nil
                channel.latest = nil
            }
            return (ended, channel.latest)
        }
        // Outside the lock: a sequence finishes here, and releases can run deinitialisers.
        for subscription in ended { subscription.didEnd() }
        withExtendedLifetime(latest) {}
    }
}
