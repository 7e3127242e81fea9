public import Foundation

// Registering and ending observations: a channel made (and bridged) for the first observer of a type on a center,
// an observer added under the lock, one cancelled, owners found dead.

extension ObserverRegistry {
    /// Registers an observer, making the channel (and its bridge) for the first one. For a type that keeps its latest
    /// post, the observer gets that post first, taken as it is added, so it gets every post exactly once (see
    /// ``Subscription/replay(_:filter:onTarget:)``). The caller holds `senderFilter`. Dead owners of the channel are
    /// swept when a sweep is due (``sweepIsDue(on:)``), so that registering costs the same however many there are.
    ///
    /// - Parameters:
    ///   - isolation: The actor the observing call runs on, as the compiler passes it. An observer isolated to that
    ///     actor gets the latest post before `add` returns, as it would a post made there (one rule, that of
    ///     ``DeliveryTarget/isCurrent(_:)``); elsewhere the post is queued for the observer's actor.
    ///   - holder: For an owner-bound observation, the handle that holds it, made before it: it does from the step
    ///     that adds it, so that the observation is in it before any other thread can end it
    ///     (``AnySubscription/holder``).
    @usableFromInline
    func add<Event: Notifiable>(
        _ subject: Event.Type,
        in center: NotificationCenter,
        on executor: DeliveryTarget.Executor?,
        isolation: (any Actor)?,
        senderFilter: AnyObject?,
        heldBy holder: NotificationToken?,
        makeSubscription: (Channel, DeliveryTarget?) -> Subscription<Event>
    ) -> Subscription<Event> {
        var added: Subscription<Event>?
        var replay: (() -> Void)?
        var sweeps = false
        // Whether this registration may load main-actor owners in its sweep; asked before the lock, as below.
        let onMainActor = Platform.isMainActor(isolation)
        // Asked here, not under the lock: without an isolation it calls Foundation (`Thread.isMainThread`).
        // The conformance check, a run-time lookup, only for an observer on a target.
        let startsOnTarget =
            executor.map {
                subject is any LatestValueNotifiable.Type && $0.isCurrent(isolation, onMainActor: onMainActor)
            }
            ?? false
        withChannel(
            of: ObjectIdentifier(subject),
            in: center,
            cacheName: { cacheName(of: subject) },
            makeChannel: { name in Channel.bridged(subject, on: center, name: name) },
            body: { state, channel in
                let target = executor.map { state.useTarget($0, on: channel.centerID) }
                let subscription = makeSubscription(channel, target)
                subscription.slot = UInt32(channel.subscriptions.count)
                channel.subscriptions.append(subscription)
                if subscription.isOwnerBound { channel.ownerBoundCount += 1 }
                if let holder {
                    holder.observation = subscription
                    subscription.holder = holder
                }
                if let latest = channel.latest {
                    replay = subscription.replay(latest, filter: senderFilter, onTarget: startsOnTarget)
                }
                sweeps = Self.sweepIsDue(on: channel)
                added = subscription
            })
        #if DEBUG
        if replay != nil { TestHooks.reached(.latestValueReplay, on: ObjectIdentifier(center)) }
        #endif
        replay?()
        // Set: `withChannel` returns only once `body` has run.
        let subscription = added!
        if sweeps { sweepEndedOwners(of: subscription.channel, onMainActor: onMainActor) }
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
        makeChannel: (Notification.Name) -> Channel,
        body: (inout State, Channel) -> Void
    ) {
        var spare: Channel?
        while true {
            let outcome: ChannelOutcome = state.withLock { state in
                guard let record = state.records[typeID] else { return .needsName }
                let channel: Channel
                if let existing = record.channel(in: center) {
                    channel = existing
                } else if let new = spare {
                    channel = new
                    record.add(new)
                    spare = nil
                } else {
                    return .needsChannel(record.name)
                }
                body(&state, channel)
                return .found
            }
            switch outcome {
            case .found:
                // Published by another thread meanwhile: this one's bridge goes.
                return Self.removeBridge(spare?.bridge)
            case .needsName:
                cacheName()
            case .needsChannel(let name):
                spare = makeChannel(name)
            }
        }
    }

    /// What ``withChannel(of:in:cacheName:makeChannel:body:)`` found under the lock.
    enum ChannelOutcome {
        case found
        /// The type has no record yet: its name is made outside the lock (a custom one is user code).
        case needsName
        /// The center has no channel of the type yet: one is made and bridged outside the lock.
        case needsChannel(Notification.Name)
    }

    /// Ends one observation (the last takes the channel and its bridge); `false` if it had already ended.
    func cancel(_ subscription: AnySubscription) -> Bool {
        var ended = false
        let dropped = state.withLock { state in
            // Ended without its handle (its owner found dead): the handle lets go of it.
            Self.letGoOfHolder(subscription)
            return Self.end(subscription, ended: &ended, in: &state)
        }
        Self.removeBridge(dropped)
        return ended
    }

    /// Takes a token's observation out of it and ends it, in one step under the lock, so that a `cancel()` that finds
    /// the token empty returns only once the observation has ended, whichever thread took it; and so that no ending
    /// observation reaches a handle after it (``AnySubscription/holder``). A token's release (`released`) ends its
    /// observation unless it is owner-bound: an ``OwnerBoundObservation``'s lasts as long as its owner. Returns the
    /// observation and whether this call ended it; the caller releases it, outside the lock (it may hold the last
    /// reference to the handler, and so to anything the handler captured, the token itself among them).
    func cancel(_ token: NotificationToken, released: Bool = false) -> (observation: AnySubscription?, ended: Bool) {
        var ended = false
        let (observation, dropped) = state.withLock { state -> (AnySubscription?, BridgeRegistration?) in
            guard let observation = token.observation else { return (nil, nil) }
            token.observation = nil
            observation.holder = nil
            if released && observation.isOwnerBound { return (observation, nil) }
            return (observation, Self.end(observation, ended: &ended, in: &state))
        }
        Self.removeBridge(dropped)
        return (observation, ended)
    }

    /// Ends `subscription` unless it has ended (then `ended` stays `false`); returns the bridge to remove if its
    /// channel went with it. Only under the lock.
    private static func end(
        _ subscription: AnySubscription, ended: inout Bool, in state: inout State
    ) -> BridgeRegistration? {
        guard !subscription.hasEnded else { return nil }
        ended = true
        subscription.markEnded()
        remove(subscription)
        if let target = subscription.target { state.releaseTarget(target) }
        return dropIfEmpty(subscription.channel, in: &state)
    }

    /// Takes an observation that ends without its handle (``AnySubscription/holder``) out of it, if it has one, so
    /// that the handle no longer keeps it (and its handler) alive. Releasing the handle's reference here runs no
    /// `deinit`: every caller holds the observation until after the lock (`cancel(_:)`'s argument, `bridgeEnded`'s
    /// list). Only under the lock.
    static func letGoOfHolder(_ subscription: AnySubscription) {
        guard let holder = subscription.holder else { return }
        subscription.holder = nil
        holder.observation = nil
    }

    /// Takes an observation that ended out of its channel's observers, in constant amortised time: the last one is
    /// removed (with the holes before it), any other leaves a hole at its ``AnySubscription/slot``, and once the holes
    /// are half the array it is compacted, its observers renumbered (a cost shared by the ends that made the holes).
    /// The subscription is released with the array's reference: at once, unless a post's snapshot still holds it.
    /// Only under the lock.
    static func remove(_ subscription: AnySubscription) {
        let channel = subscription.channel
        let index = Int(subscription.slot)
        guard index < channel.subscriptions.count, channel.subscriptions[index] === subscription else { return }
        if subscription.isOwnerBound { channel.ownerBoundCount -= 1 }
        if index == channel.subscriptions.count - 1 {
            channel.subscriptions.removeLast()
            while let last = channel.subscriptions.last, last == nil {
                channel.subscriptions.removeLast()
                channel.holes -= 1
            }
            return
        }
        channel.subscriptions[index] = nil
        channel.holes += 1
        guard channel.holes * 2 >= channel.subscriptions.count else { return }
        channel.subscriptions.removeAll { $0 == nil }
        channel.holes = 0
        for (slot, remaining) in channel.subscriptions.enumerated() { remaining?.slot = UInt32(slot) }
    }

    /// Whether the registration just added to `channel` sweeps its dead owners: only when the channel has owner-bound
    /// observers, and then always while it is small (at most ``smallChannel`` observers: a bounded cost), and otherwise
    /// once the registrations since the last sweep reach half the observers, so that a sweep, which visits every
    /// observer, costs each registration a constant share. Posts end a dead owner's observation meanwhile. Only under
    /// the lock.
    static func sweepIsDue(on channel: Channel) -> Bool {
        guard channel.ownerBoundCount > 0 else { return false }
        channel.registrationsSinceSweep += 1
        let observers = channel.subscriptions.count - channel.holes
        guard observers <= smallChannel || channel.registrationsSinceSweep * 2 >= observers else { return false }
        channel.registrationsSinceSweep = 0
        return true
    }

    /// Up to this many observers, a registration sweeps its channel's dead owners every time.
    static var smallChannel: Int { 32 }

    /// Ends the owner-bound observations of `channel` whose owner is gone. Owners are loaded outside the lock (a load
    /// can run the owner's `deinit`, which may cancel a token), and those of main-actor and main-queue observers only
    /// on the main actor (see ``AnySubscription``): off it, one sweep of those is scheduled on the main actor, unless
    /// one is already, so that they are cleared even where nothing is delivered on the main actor.
    func sweepEndedOwners(of channel: Channel, onMainActor: Bool = Platform.isMainActor(nil)) {
        let (candidates, schedules) = state.withLock { _ in
            var candidates: [AnySubscription] = []
            var skipped = false
            for case let subscription? in channel.subscriptions where subscription.isOwnerBound {
                if onMainActor || subscription.ownerLoadsAnywhere {
                    candidates.append(subscription)
                } else {
                    skipped = true
                }
            }
            let schedules = skipped && !channel.mainActorSweepScheduled
            if schedules { channel.mainActorSweepScheduled = true }
            return (candidates, schedules)
        }
        for subscription in candidates where !subscription.ownerIsAlive() {
            subscription.cancel()
        }
        if schedules { scheduleMainActorSweep(of: channel) }
    }

    /// Sweeps `channel`'s owners on the main actor, where those of main-actor and main-queue observers may be loaded.
    /// Detached, as a target's drain, so that it carries none of the registering task's task-locals.
    private func scheduleMainActorSweep(of channel: Channel) {
        Task.detached { @MainActor in
            self.state.withLock { _ in channel.mainActorSweepScheduled = false }
            self.sweepEndedOwners(of: channel, onMainActor: true)
        }
    }
}
