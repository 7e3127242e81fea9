public import Foundation

/// The package's own ordered registry of typed observers, shared by every `NotificationCenter`.
///
/// Per `Notifiable` type it keeps a ``TypeRecord``: the type's name and one ``Channel`` per center with live
/// observers. One lock guards channels and observers, and the records' insertion; a post finds its type's record
/// without it (``TypeRecords``), then takes it once, to find its center's channel and take a copy-on-write snapshot of
/// the observers, or not at all for a type no center observes. The bookkeeping is non-generic (``Channel``,
/// ``AnySubscription``).
/// A channel lives while it has observers and its center lives (a latest-value type's, while its center lives): the
/// last removal drops it and its bridge; a center's deallocation releases the bridge, whose ``BridgeRegistration``
/// drops it (``bridgeEnded(_:)``).
///
/// One state, one lock, a file per concern: routing a post and the post loop here; registering and ending
/// observations in `+Registering`; latest values in `+LatestValues`; a channel's end with its last observer or its
/// center in `+CenterLifetime`; what `typedObservations` lists in `+Introspection`.
///
/// Under the lock a channel is found by its center's identity, never by loading a weak reference the caller does not
/// hold: the load makes a strong reference, and releasing the last one would deallocate the center (running whatever
/// its observers captured) under the lock. A new center at a dead one's address cannot find the dead one's channel:
/// it is dropped while the dead center is deallocated, before the memory can be reused (see ``Platform/checksCenterIdentity``).
///
/// Only the registry's bookkeeping runs under the lock. Foundation observers are added before a channel is published
/// and removed after it is dropped, outside it; ended observers and replaced latest posts are released outside it
/// too, as releasing one can run any deinitialiser.
@usableFromInline
final class ObserverRegistry: Sendable {
    @usableFromInline
    static let shared = ObserverRegistry()

    struct State {
        /// The same table as ``ObserverRegistry/records``, changed only here, under the lock.
        let records: TypeRecords
        /// Shared delivery targets, found by identity (``DeliveryTarget/serves(_:)``), with their observation counts.
        var targets: [DeliveryTarget.Key: (target: DeliveryTarget, users: Int)] = [:]

        /// The target for `executor` on `centerID`, with one more user.
        mutating func useTarget(_ executor: DeliveryTarget.Executor, on centerID: ObjectIdentifier) -> DeliveryTarget {
            let key = DeliveryTarget.Key(executor, center: centerID)
            if let (existing, users) = targets[key], existing.serves(executor) {
                targets[key] = (existing, users + 1)
                return existing
            }
            // New, or a dead actor's entry at this one's address: its observers no longer run.
            let target = DeliveryTarget(executor, center: centerID)
            targets[key] = (target, 1)
            return target
        }

        /// One user less; the last drops the entry.
        mutating func releaseTarget(_ target: DeliveryTarget) {
            guard let (existing, users) = targets[target.key], existing === target else { return }
            targets[target.key] = users > 1 ? (existing, users - 1) : nil
        }
    }

    /// What a post needs: the name and the observers to deliver to directly, as one consistent snapshot.
    @usableFromInline
    struct PostPlan {
        @usableFromInline
        let name: Notification.Name
        /// The channel's observers when the post took them: `Subscription<Event>`s of the posted `Event`, in
        /// registration order, with `nil` where one ended (see ``Channel/subscriptions``); each is checked again as
        /// the post reaches it (``AnySubscription/hasEnded``).
        @usableFromInline
        var observers: [AnySubscription?] = []
        /// Whether the post must go through ``keepLatest(_:of:from:in:isolation:)``, which keeps it as it takes the observers.
        @usableFromInline
        var keepsLatest = false
        /// For a latest-value type's post, what it did under the registry's lock as it became the latest
        /// (``keepLatest``): its targets' entries, queued; and the first posts of a quiet period that the bursts of
        /// observers without a target gathered, for the post loop to deliver in their place, with the waits each holds.
        /// `nil` for other posts.
        @usableFromInline
        var keptLatest: KeptLatest?

        @usableFromInline
        typealias KeptLatest = (queued: [DeliveryTarget.Queued], leads: [(AnySubscription, PendingDeliveries)])
        #if DEBUG
        /// Whether this post is the one that checks the type's bridging halves (``TypeRecord/takesBridgingCheck()``).
        @usableFromInline
        var checksBridging = false
        #endif
    }

    /// Removes the bridge of a channel that the lock's holder dropped (or made and did not need), after the lock:
    /// Foundation and deinitialisers may call back in. Loads the center here, not under the lock: this may be its
    /// last strong reference.
    static func removeBridge(_ bridge: BridgeRegistration?) {
        if let bridge, let center = bridge.channel.center {
            FoundationBridge.removeBridgeObserver(bridge, from: center)
        }
    }

    /// Read and written by the extensions in the other `ObserverRegistry+` files, only inside `withLock`.
    let state: Locked<State>
    /// Every type's record: inserted under the lock (through `State`), found without it (see ``TypeRecords``).
    let records = TypeRecords()

    private init() {
        state = Locked(State(records: records))
        // Foundation is probed here, on the first use of the registry, outside its lock: lookups under the lock ask.
        _ = Platform.foundationReleasesObserversOfDeadCenters
    }

    // MARK: - Posting

    /// The name and the observers of a post. Without the lock for a type that no center observes (what a plain post
    /// costs: the post-0 row of the Performance article's instruction table) and for a latest-value type, whose
    /// observers ``keepLatest(_:of:from:in:isolation:)`` takes under the lock as it keeps the post.
    @usableFromInline
    func route<Event: Notifiable>(_ subject: Event.Type, in center: NotificationCenter) -> PostPlan {
        guard let record = records[ObjectIdentifier(subject)] else {
            cacheName(of: subject)
            return route(subject, in: center)
        }
        var route: PostPlan
        if record.keepsLatest {
            route = PostPlan(name: record.name, keepsLatest: true)
        } else if record.hasChannels {
            let observers = state.withLock { _ in record.channel(in: center)?.subscriptions }
            route = PostPlan(name: record.name, observers: observers ?? [])
        } else {
            route = PostPlan(name: record.name)
        }
        #if DEBUG
        route.checksBridging = record.takesBridgingCheck()
        #endif
        return route
    }

    func cacheName<Event: Notifiable>(of subject: Event.Type) {
        // Outside the lock: a custom `notificationName` is user code (the default one makes the record itself, so a
        // record made here is that of a type with a name of its own).
        record(of: subject, name: subject.notificationName, hasOwnName: true)
    }

    /// The default ``Notifiable/notificationName``: derived from the type's name once (`String(reflecting:)` walks
    /// the type's metadata and builds a new string), then read from its record, so a post pays only the read (the
    /// post-0 row of the Performance article's instruction table). Debug builds check the new name against the other
    /// types' derived names then, after the lock, as the check may call a diagnostics handler; reads from the record
    /// never check.
    func derivedName<Event: Notifiable>(of subject: Event.Type) -> Notification.Name {
        if let name = records[ObjectIdentifier(subject)]?.name { return name }
        let name = record(of: subject, name: Notification.Name(DerivedNames.stableName(String(reflecting: subject))))
        NotificationDiagnostics.checkDerivedName(name, of: subject)
        return name
    }

    /// Makes the record of `subject` with `name`, unless it has one; returns the record's name. A type with a name of
    /// its own (`hasOwnName`) bridges an existing name, so debug builds check its bridging halves on its first post.
    @discardableResult
    func record<Event: Notifiable>(
        of subject: Event.Type,
        name: Notification.Name,
        hasOwnName: Bool = false
    ) -> Notification.Name {
        let record = TypeRecord(
            of: ObjectIdentifier(subject), name: name, keepsLatest: subject is any LatestValueNotifiable.Type,
            checksBridging: hasOwnName)
        return state.withLock { state in
            if let existing = state.records[record.subject] { return existing.name }
            state.records.insert(record)
            return name
        }
    }

    /// The current observers of `channel`, for delivering a plain post.
    func observers(of channel: Channel) -> [AnySubscription?] {
        state.withLock { _ in channel.subscriptions }
    }
}

extension [AnySubscription?] {
    /// Delivers one post, typed or plain: to observers on a target through it (see ``DeliveryTarget``), to the others
    /// on this thread, in registration order (those of the posting actor during the post, in their place); not a
    /// latest-value type's post, which ``deliverLatest(_:of:from:isolation:kept:)`` delivers. Inlinable, so that it is
    /// specialised for the posted type in the caller's module.
    @inlinable
    func deliver<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        isolation: (any Actor)?
    ) {
        if isEmpty { return }
        // The targets the post has reached: usually none or one (the main actor), kept without allocating.
        var firstTarget: DeliveryTarget?
        var otherTargets: [DeliveryTarget] = []
        withUnsafeBytes { slots in
            for offset in stride(from: 0, to: slots.count, by: MemoryLayout<AnySubscription?>.stride) {
                // Safe: `add` puts only `Subscription<Event>`s in the channel of `Event` (kept as `AnySubscription`
                // only so that the bookkeeping is not generic, see `withChannel`); a slot is an optional reference,
                // which an optional `Unmanaged` of either class matches in layout; this array keeps it alive. Loaded
                // so rather than iterated and cast down, which retains each observer twice: about 25 instructions an
                // observer (the post-100 row of the Performance article's instruction table).
                guard let slot = slots.load(fromByteOffset: offset, as: Unmanaged<Subscription<Event>>?.self) else {
                    continue
                }
                let subscription = slot.takeUnretainedValue()
                if let target = subscription.target {
                    if firstTarget == nil {
                        firstTarget = target
                    } else if firstTarget === target || otherTargets.contains(where: { $0 === target }) {
                        continue
                    } else {
                        otherTargets.append(target)
                    }
                    target.dispatch(payload, to: self, from: sender, isolation: isolation)
                } else {
                    subscription.deliver(payload, from: sender, isolation: isolation)
                }
            }
        }
    }

    /// Delivers a latest-value type's post, which entered every observer's queue and bursts under the registry's lock
    /// (``DeliveryTarget/enqueueInLatestOrder``), in registration order: each target runs or schedules what the post
    /// queued there as the post first reaches it; an observer that coalesces has its owner checked and gets the first
    /// post of a quiet period that its bursts gathered (`kept.leads`); one on this thread gets the post; and one with
    /// a queue of its own that the post did not reach still ends if its owner is gone, as at any post.
    @inlinable
    func deliverLatest<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        isolation: (any Actor)?,
        kept: ObserverRegistry.PostPlan.KeptLatest
    ) {
        var reached: [DeliveryTarget] = []
        for case let subscription? in self {
            // Safe, as in `deliver`.
            let subscription = unsafeDowncast(subscription, to: Subscription<Event>.self)
            if subscription.coalesces {
                subscription.receiveGathered(payload, from: sender, isolation: isolation, kept: kept)
            }
            if let target = subscription.target {
                guard !reached.contains(where: { $0 === target }) else { continue }
                reached.append(target)
                target.finish(kept.queued)
            } else if !subscription.coalesces
                && (!subscription.waitsInOwnQueue || subscription.isOwnerBound && !subscription.accepts(sender))
            {
                subscription.deliver(payload, from: sender, isolation: isolation)
            }
        }
    }
}
