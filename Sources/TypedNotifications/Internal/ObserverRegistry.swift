public import Foundation

/// The package's own ordered registry of typed observers, shared by every `NotificationCenter`.
///
/// Per `Notifiable` type it keeps a ``TypeRecord``: the type's name and one ``Channel`` per center with live
/// observers. One lock guards records, channels and observers; a post takes it once, to find its channel and take a
/// copy-on-write snapshot of the observers. The bookkeeping is non-generic (``AnyChannel``, ``AnySubscription``).
/// A channel lives exactly while it has observers and its center lives: the last removal drops it and its bridge; a
/// center's deallocation releases the bridge, whose ``BridgeRegistration`` drops it (``bridgeEnded(_:)``).
///
/// Under the lock a channel is found by its center's identity, never by loading a weak reference the caller does not
/// hold: the load makes a strong reference, and releasing the last one would deallocate the center (running whatever
/// its observers captured) under the lock. A new center at a dead one's address cannot find the dead one's channel:
/// it is dropped while the dead center is deallocated, before the memory can be reused (see ``CenterIdentity``).
///
/// Only the registry's bookkeeping runs under the lock. Foundation observers are added before a channel is published
/// and removed after it is dropped, outside it; ended observers and replaced latest posts are released outside it
/// too, as releasing one can run any deinitialiser.
@usableFromInline
final class ObserverRegistry: Sendable {
    @usableFromInline
    static let shared = ObserverRegistry()

    private struct State {
        var records: [ObjectIdentifier: TypeRecord] = [:]
        /// Shared delivery targets, found by identity (``DeliveryTarget/serves(_:)``), with their observation counts.
        var targets: [DeliveryTarget.Key: (target: DeliveryTarget, users: Int)] = [:]

        /// The shared target for `executor` on `centerID`, with one more user.
        mutating func useTarget(_ executor: DeliveryTarget.Executor, on centerID: ObjectIdentifier) -> DeliveryTarget {
            let target = DeliveryTarget(executor, center: centerID)
            // An `async` handler's task is its own, never shared.
            if case .task = executor { return target }
            if let (existing, users) = targets[target.key], existing.serves(executor) {
                targets[target.key] = (existing, users + 1)
                return existing
            }
            // New, or a dead actor's entry at this one's address: its observers no longer run.
            targets[target.key] = (target, 1)
            return target
        }

        /// One user less; the last drops the entry.
        mutating func releaseTarget(_ target: DeliveryTarget) {
            guard let (existing, users) = targets[target.key], existing === target else { return }
            targets[target.key] = users > 1 ? (existing, users - 1) : nil
        }
    }

    /// A channel's observers and its ``AnyChannel/cancellations``, at one moment.
    @usableFromInline
    struct Snapshot {
        /// `Subscription<Event>`s of the channel's `Event`, in registration order.
        @usableFromInline
        let subscriptions: [AnySubscription]
        @usableFromInline
        let cancellations: UInt64

        static var empty: Snapshot { Snapshot(subscriptions: [], cancellations: 0) }
    }

    /// What a post needs: the name and the observers to deliver to directly, as one consistent snapshot.
    @usableFromInline
    struct Route {
        @usableFromInline
        let name: Notification.Name
        @usableFromInline
        let snapshot: Snapshot
        /// Whether the post must go through ``keepLatest(_:of:from:in:)``, which keeps it as it takes the observers.
        @usableFromInline
        var keepsLatest = false
        #if DEBUG
        /// Whether this post is the one that checks the type's bridging halves (``TypeRecord/checksBridging``).
        @usableFromInline
        var checksBridging = false
        #endif
    }

    /// What a registration leaves to do outside the lock: Foundation and deinitialisers may call back in.
    private struct Cleanup {
        var ended: [AnySubscription] = []
        var bridge: (BridgeRegistration, AnyChannel)?

        /// Loads the center here, not under the lock: this may be its last strong reference.
        consuming func run() {
            if let (bridge, channel) = bridge, let center = channel.center {
                FoundationBridge.removeBridgeObserver(bridge, from: center)
            }
            withExtendedLifetime(ended) {}
        }
    }

    private let state = Locked(State())

    private init() {
        // Foundation is probed here, on the first use of the registry, outside its lock: lookups under the lock ask.
        _ = CenterIdentity.foundationReleasesObserversOfDeadCenters
    }

    // MARK: - Posting

    @usableFromInline
    func route<Event: Notifiable>(_ subject: Event.Type, in center: NotificationCenter) -> Route {
        let id = ObjectIdentifier(subject)
        #if DEBUG
        var checksBridging = false
        #endif
        let route: Route? = state.withLock { state in
            guard let record = state.records[id] else { return nil }
            #if DEBUG
            if record.checksBridging {
                state.records[id]?.checksBridging = false
                checksBridging = true
            }
            #endif
            if record.keepsLatest { return Route(name: record.name, snapshot: .empty, keepsLatest: true) }
            return Route(name: record.name, snapshot: record.channel(in: center).map(Self.snapshot) ?? .empty)
        }
        #if DEBUG
        if var route {
            route.checksBridging = checksBridging
            return route
        }
        #else
        if let route { return route }
        #endif
        cacheName(of: subject)
        return self.route(subject, in: center)
    }

    private func cacheName<Event: Notifiable>(of subject: Event.Type) {
        // Outside the lock: a custom `notificationName` is user code (the default one makes the record itself, so a
        // record made here is that of a type with a name of its own).
        record(of: subject, name: subject.notificationName, hasOwnName: true)
    }

    /// The default ``Notifiable/notificationName``: derived from the type's name once (`String(reflecting:)` costs
    /// about 580 ns), then read from its record. Debug builds check the new name against the other types' derived
    /// names then, after the lock, as the check may call a diagnostics handler; reads from the record never check.
    func derivedName<Event: Notifiable>(of subject: Event.Type) -> Notification.Name {
        if let name = state.withLock({ $0.records[ObjectIdentifier(subject)]?.name }) { return name }
        let name = record(of: subject, name: Notification.Name(DerivedNames.stableName(String(reflecting: subject))))
        NotificationDiagnostics.checkDerivedName(name, of: subject)
        return name
    }

    /// Makes the record of `subject` with `name`, unless it has one; returns the record's name. A type with a name of
    /// its own (`hasOwnName`) bridges an existing name, so debug builds check its bridging halves on its first post.
    @discardableResult
    private func record<Event: Notifiable>(
        of subject: Event.Type,
        name: Notification.Name,
        hasOwnName: Bool = false
    ) -> Notification.Name {
        let keepsLatest = subject is any LatestValueNotifiable.Type
        return state.withLock { state in
            if let existing = state.records[ObjectIdentifier(subject)] { return existing.name }
            var record = TypeRecord(name: name, keepsLatest: keepsLatest)
            #if DEBUG
            record.checksBridging = hasOwnName
            #endif
            state.records[ObjectIdentifier(subject)] = record
            return name
        }
    }

    /// The current observers of `channel`, for delivering a plain post.
    func snapshot(of channel: AnyChannel) -> Snapshot {
        state.withLock { _ in Self.snapshot(of: channel) }
    }

    /// Only under the lock, so that the count matches the observers.
    private static func snapshot(of channel: AnyChannel) -> Snapshot {
        Snapshot(
            subscriptions: channel.subscriptions,
            cancellations: channel.cancellations.loadRelaxed()
        )
    }

    /// Whether `subscription` has ended; for posts that saw its channel's cancellation count change.
    @usableFromInline
    func isCancelled(_ subscription: AnySubscription) -> Bool {
        state.withLock { _ in subscription.isCancelled }
    }

    // MARK: - Registering

    /// Registers an observer, making the channel (and its bridge) for the first one. For a type that keeps its latest
    /// post, the observer gets that post first, taken as it is added, so it gets every post exactly once (see
    /// ``Subscription/replay(_:filter:onTarget:cancellationsSeen:)``). The caller holds `senderFilter`.
    ///
    /// - Parameter isolation: The actor the observing call runs on, as the compiler passes it. An observer isolated to
    ///   that actor gets the latest post before `add` returns, as it would a post made there (one rule, that of
    ///   ``DeliveryTarget/isCurrent(_:)``); elsewhere the post is queued for the observer's actor.
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
            case .dispatch, .operation, .task: break
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

    /// For a typed post: makes it the latest of `subject` on `center` and takes the observers it reaches, in one step.
    @usableFromInline
    func keepLatest<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        in center: NotificationCenter
    ) -> Route {
        let post = LatestPost(payload, from: sender)
        var route: Route?
        var replaced: LatestPost?
        withChannel(
            of: ObjectIdentifier(subject),
            in: center,
            cacheName: { cacheName(of: subject) },
            makeChannel: { name in Channel<Event>.bridged(on: center, name: name) },
            body: { _, channel in
                route = Route(name: channel.name, snapshot: Self.snapshot(of: channel), keepsLatest: true)
                replaced = channel.latest
                channel.latest = post
            })
        withExtendedLifetime(replaced) {}  // released here, outside the lock: it may hold the last reference
        // Set: `withChannel` returns only once `body` has run.
        return route!
    }

    /// For a plain post: makes `post` the latest of `channel`'s type and takes the observers it reaches, in one step.
    func keepLatest(_ post: LatestPost, on channel: AnyChannel) -> Snapshot {
        let (snapshot, replaced): (Snapshot, LatestPost?) = state.withLock { _ in
            defer { channel.latest = post }
            return (Self.snapshot(of: channel), channel.latest)
        }
        withExtendedLifetime(replaced) {}
        return snapshot
    }

    func latest<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) -> LatestPost? {
        state.withLock { $0.records[ObjectIdentifier(subject)]?.channel(in: center)?.latest }
    }

    /// Forgets the latest post of `subject` on `center`, releasing it outside the lock.
    func clearLatest<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) {
        let cleared: LatestPost? = state.withLock { state in
            guard let channel = state.records[ObjectIdentifier(subject)]?.channel(in: center) else {
                return nil
            }
            defer { channel.latest = nil }
            return channel.latest
        }
        withExtendedLifetime(cleared) {}
    }

    /// Runs `body` under the lock with the channel of `typeID` on `center`. A new one (`makeChannel`) is bridged
    /// before the lock is taken, then published; if another thread published one meanwhile, that one is used and the
    /// spare unregistered. So every published channel has its bridge, and an observation has begun when `add` returns.
    ///
    /// Not generic, so that registering needs no generic type's metadata at run time: with a generic result, an
    /// observe-then-cancel cycle cost 79% more instructions (2,307 → 4,128; callgrind, `Benchmarks/instructions.sh`).
    private func withChannel(
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
                    state.records[typeID]?.channels.append(new)
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

    private enum ChannelOutcome {
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
    private static func end(_ subscription: AnySubscription) {
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

    /// Drops a channel without observers, unless it keeps its type's latest post (then it lives as long as its center).
    private static func dropIfEmpty(_ channel: AnyChannel, in state: inout State, into cleanup: inout Cleanup) {
        guard channel.subscriptions.isEmpty, !channel.keepsLatest,
            state.records[channel.subject]?.remove(channel) == true
        else { return }
        if let bridge = channel.bridge { cleanup.bridge = (bridge, channel) }
        channel.bridge = nil
    }

    /// Called by ``BridgeRegistration``'s `deinit`: if `channel` is still registered, its center is being deallocated,
    /// so the channel is dropped and its observers ended.
    func bridgeEnded(_ channel: AnyChannel) {
        let (ended, latest): ([AnySubscription], LatestPost?) = state.withLock { state in
            guard state.records[channel.subject]?.remove(channel) == true else { return ([], nil) }
            for subscription in channel.subscriptions {
                Self.end(subscription)
                if let target = subscription.target { state.releaseTarget(target) }
            }
            defer {
                channel.subscriptions = []
                channel.ownerBoundCount = 0
                channel.bridge = nil
                channel.latest = nil
            }
            return (channel.subscriptions, channel.latest)
        }
        // Outside the lock: a sequence finishes here, and releases can run deinitialisers.
        for subscription in ended { subscription.didEnd() }
        withExtendedLifetime(latest) {}
    }

    // MARK: - Introspection, for tests

    /// `subject`'s bridge on `center`; a test holds it to act as a Foundation that keeps dead centers' observers.
    func bridge<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) -> BridgeRegistration? {
        let channel = state.withLock { $0.records[ObjectIdentifier(subject)]?.channel(in: center) }
        return channel?.bridge
    }

    /// How many channels `subject` has, on every center; for tests that dead centers leave none.
    func channelCount<Event: Notifiable>(of subject: Event.Type) -> Int {
        state.withLock { $0.records[ObjectIdentifier(subject)]?.channels.count ?? 0 }
    }

    /// The live typed observations on `center`, by type name then registration order, after a sweep of dead owners.
    func observations(in center: NotificationCenter) -> [TypedObservation] {
        let channels = sweepChannels(of: center)
        return state.withLock { _ in
            channels.sorted { $0.subjectName < $1.subjectName }.flatMap { channel in
                channel.subscriptions.filter { !$0.isCancelled }.map { subscription in
                    TypedObservation(
                        typeName: channel.subjectName,
                        name: channel.name,
                        delivery: subscription.kind,
                        filtersBySender: subscription.senderID != 0,
                        isOwnerBound: subscription.isOwnerBound,
                        fileID: subscription.site.fileID,
                        line: Int(subscription.site.line)
                    )
                }
            }
        }
    }

    /// Live typed observers and Foundation observers the package holds for `center`, after a sweep of dead owners.
    func registrationCounts(in center: NotificationCenter) -> (observers: Int, foundationObservers: Int) {
        let channels = sweepChannels(of: center)
        return state.withLock { _ in
            let live = channels.filter { !$0.subscriptions.isEmpty || $0.keepsLatest }
            return (live.reduce(0) { $0 + $1.subscriptions.count }, live.count)
        }
    }

    private func sweepChannels(of center: NotificationCenter) -> [AnyChannel] {
        let channels = state.withLock { $0.records.values.compactMap { $0.channel(in: center) } }
        for channel in channels { sweepEndedOwners(of: channel) }
        return channels
    }
}

extension ObserverRegistry.Snapshot {
    /// Delivers one post, typed or plain: to observers on a target through it (see ``DeliveryTarget``), to the others
    /// on this thread, in registration order (those of the posting actor during the post, in their place). Inlinable,
    /// so that it is specialised for the posted type in the caller's module.
    @inlinable
    func deliver<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        isolation: (any Actor)?
    ) {
        if subscriptions.isEmpty { return }
        var targets = PostTargets()
        for subscription in subscriptions {
            // The package's one downcast. Safe: `add` puts only `Subscription<Event>`s in the channel of `Event`;
            // they are kept as `AnySubscription` only so that the bookkeeping is not generic (see `withChannel`).
            let subscription = unsafeDowncast(subscription, to: Subscription<Event>.self)
            if let target = subscription.target, target.isShared {
                if targets.isFirstVisit(to: target) {
                    target.dispatch(
                        payload,
                        to: subscriptions,
                        from: sender,
                        isolation: isolation,
                        cancellationsSeen: cancellations
                    )
                }
            } else {
                subscription.deliver(payload, from: sender, cancellationsSeen: cancellations)
            }
        }
    }
}

/// The targets a post has reached: usually none or one (the main actor), kept without allocating; more in an array.
@usableFromInline
struct PostTargets {
    @usableFromInline
    var first: DeliveryTarget?
    @usableFromInline
    var others: [DeliveryTarget] = []

    @usableFromInline
    init() {}

    /// Whether the post reaches `target` for the first time, which it then remembers.
    @inlinable
    mutating func isFirstVisit(to target: DeliveryTarget) -> Bool {
        guard let first else {
            first = target
            return true
        }
        if first === target || others.contains(where: { $0 === target }) { return false }
        others.append(target)
        return true
    }
}
