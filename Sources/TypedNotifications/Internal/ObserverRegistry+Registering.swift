public import Foundation

// Registering and ending observations: a channel made (and bridged) for the first observer of a type on a center,
// an observer added under the lock, one cancelled, owners found dead.

extension ObserverRegistry {
    /// Registers an observer, making the channel (and its bridge) for the first one. For a type that keeps its latest
    /// post, the observer gets that post first, taken as it is added, so it gets every post exactly once (see
    /// ``Subscription/replay(_:filter:onTarget:cancellationsSeen:)``). The caller holds `senderFilter`.
    ///
    /// - Parameters:
    ///   - isolation: The actor the observing call runs on, as the compiler passes it. An observer isolated to that
    ///     actor gets the latest post before `add` returns, as it would a post made there (one rule, that of
    ///     ``DeliveryTarget/isCurrent(_:)``); elsewhere the post is queued for the observer's actor.
    @usableFromInline
    func add<Event: Notifiable>(
        _ subject: Event.Type,
        in center: NotificationCenter,
        on executor: DeliveryTarget.Executor?,
        isolation: (any Actor)?,
        senderFilter: AnyObject?,
        makeSubscription: (AnyChannel, DeliveryTarget?) -> Subscription<Event>
    ) -> Subscription<Event> {
        var added: Subscription<Event>?
        var replay: (() -> Void)?
        var sweeps = false
        // Asked here, not under the lock: without an isolation it calls Foundation (`Thread.isMainThread`). An actor
        // is compared by identity only: the caller runs on `isolation`, so it is alive, and the observed actor is
        // the one the caller passed in.
        var startsOnTarget = false
        if let executor, subject is any LatestValueNotifiable.Type {
            switch executor {
            case .mainActor: startsOnTarget = PlatformIsolation.isMainActor(isolation)
            case .actor(let actor): startsOnTarget = isolation.map { ObjectIdentifier($0) == actor.id } ?? false
            case .dispatch, .operation: break
            }
        }
        withChannel(
            of: ObjectIdentifier(subject),
            in: center,
            cacheName: { cacheName(of: subject) },
            makeChannel: { name in Channel<Event>.bridged(on: center, name: name) },
            body: { state, channel in
                let target = executor.map { state.useTarget($0, on: channel.centerID) }
                let subscription = makeSubscription(channel, target)
                channel.subscriptions.append(subscription)
                if subscription.isOwnerBound { channel.ownerBoundCount += 1 }
                if let latest = channel.latest {
                    let count = channel.cancellations.loadRelaxed()
                    replay = subscription.replay(
                        latest, filter: senderFilter, onTarget: startsOnTarget, cancellationsSeen: count)
                }
                sweeps = channel.ownerBoundCount > 0
                added = subscription
            })
        replay?()
        // Set: `withChannel` returns only once `body` has run.
        let subscription = added!
        if sweeps { sweepEndedOwners(of: subscription.channel) }
        return subscription
    }

    /// Runs `body` under the lock with the channel of `typeID` on `center`. A new one (`makeChannel`) is bridged
    /// before the lock is taken, then published; if another thread published one meanwhile, that one is used and the
    /// spare unregistered. So every published channel has its bridge, and an observation has begun when `add` returns.
    ///
    /// Not generic, so that registering needs no generic type's metadata at run time: a generic result would look a
    /// generic type's metadata up on every observation and cancellation (the observe-cancel row of the Performance
    /// article's instruction table is what it would raise).
    func withChannel(
        of typeID: ObjectIdentifier,
        in center: NotificationCenter,
        cacheName: () -> Void,
        makeChannel: (Notification.Name) -> AnyChannel,
        body: (inout State, AnyChannel) -> Void
    ) {
        var spare: AnyChannel?
        while true {
            var cleanup = Cleanup()
            let outcome: ChannelOutcome = state.withLock { state in
                guard let entry = state.records[typeID] else { return .needsName }
                let channel: AnyChannel
                if let existing = entry.channel(in: center) {
                    channel = existing
                } else if let new = spare {
                    channel = new
                    state.records[typeID]?.add(new)
                    spare = nil
                } else {
                    return .needsChannel(entry.name)
                }
                body(&state, channel)
                return .found
            }
            if let unused = spare, case .found = outcome, let bridge = unused.bridge {
                cleanup.bridge = (bridge, unused)
            }
            cleanup.run()
            switch outcome {
            case .found:
                return
            case .needsName:
                cacheName()
            case .needsChannel(let name):
                spare = makeChannel(name)
            }
        }
    }

    enum ChannelOutcome {
        case found
        case needsName
        case needsChannel(Notification.Name)
    }

    /// Ends one observation (the last takes the channel and its bridge); `false` if it had already ended.
    func cancel(_ subscription: AnySubscription) -> Bool {
        var cleanup = Cleanup()
        let ended = state.withLock { state in
            guard !subscription.isCancelled else { return false }
            let channel = subscription.channel
            Self.end(subscription)
            // Searched from the end: observers that come and go are usually the newest.
            if let index = channel.subscriptions.lastIndex(where: { $0 === subscription }) {
                channel.subscriptions.remove(at: index)
                if subscription.isOwnerBound { channel.ownerBoundCount -= 1 }
            }
            if let target = subscription.target { state.releaseTarget(target) }
            Self.dropIfEmpty(channel, in: &state, into: &cleanup)
            return true
        }
        cleanup.run()
        return ended
    }

    /// Marks `subscription` ended, so that posts whose snapshot still holds it skip it. Only under the lock.
    static func end(_ subscription: AnySubscription) {
        subscription.isCancelled = true
        subscription.channel.cancellations.add(1)
    }

    /// Ends the owner-bound observations of `channel` whose owner is gone. Owners are loaded outside the lock (a load
    /// can run the owner's `deinit`, which may cancel a token), and those of main-actor and main-queue observers only
    /// on the main actor (see ``AnySubscription``); elsewhere they wait for the next delivery there.
    func sweepEndedOwners(of channel: AnyChannel, onMainActor: Bool = PlatformIsolation.isMainActor(nil)) {
        let candidates = state.withLock { _ in
            channel.subscriptions.filter { $0.isOwnerBound && (onMainActor || $0.ownerLoadsAnywhere) }
        }
        for subscription in candidates where !subscription.ownerIsAlive() {
            subscription.cancel()
        }
    }
}
