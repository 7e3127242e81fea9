public import Foundation

/// The package's own ordered registry of typed observers, shared by every `NotificationCenter`.
///
/// It keeps, per `Notifiable` type, a ``TypeRecord``: the type's notification name and one ``Channel`` per center that
/// has live observers of it. One lock guards the records, the channels and their observers. A post takes it once, to
/// find its type's record, scan the type's channels (one per center that observes it, usually a single one) and take
/// a copy-on-write snapshot of the channel's observers. The bookkeeping is non-generic (``AnyChannel``,
/// ``AnySubscription``); only creating a channel and delivering a payload know the type.
///
/// A channel exists exactly while it has observers and its center lives: the last removal drops it and unregisters
/// its Foundation observer, so cancelled observations leave nothing behind; and when the center is deallocated,
/// Foundation lets the bridge go, whose ``BridgeRegistration`` drops the channel and releases its observers then
/// (``bridgeEnded(_:)``). Nothing of the package holds a center strongly, so no observation keeps one alive.
///
/// Under the lock a channel is found by its center's identity only, never by loading its weak reference: the load
/// makes a strong reference, and if it were the last one, releasing it would deallocate the center (and run whatever
/// its other observers' blocks captured) under the lock. A new center at a dead one's address cannot find the dead
/// one's channel: the channel is dropped while the dead center is deallocated, before its memory can be reused.
///
/// Nothing runs under the lock but the registry's own bookkeeping: Foundation observers are added before a channel
/// is published and removed after it is dropped, with the lock released, and observers that end are released after
/// it too (releasing one can run any deinitialiser, of whatever its handler captured).
@usableFromInline
final class ObserverRegistry: Sendable {
    @usableFromInline
    static let shared = ObserverRegistry()

    private struct State {
        /// Every type's record, by the type's identity.
        var records: [ObjectIdentifier: TypeRecord] = [:]
        /// The delivery target of each center and executor that live observations use, with how many use it; a
        /// target goes when its last observation does. Found by identity (see ``DeliveryTarget/serves(_:)``).
        var targets: [DeliveryTarget.Key: (target: DeliveryTarget, users: Int)] = [:]

        /// The shared target for `executor` on the center `centerID`, counted as used by one more observation.
        mutating func useTarget(_ executor: DeliveryTarget.Executor, on centerID: ObjectIdentifier) -> DeliveryTarget {
            let target = DeliveryTarget(executor, center: centerID)
            // An `async` handler's task is its own, never shared or kept here.
            if case .task = executor { return target }
            if let (existing, users) = targets[target.key], existing.serves(executor) {
                targets[target.key] = (existing, users + 1)
                return existing
            }
            // New, or the entry of a dead actor whose address this one took: that entry's observers no longer run.
            targets[target.key] = (target, 1)
            return target
        }

        /// Counts one observation of `target` less, dropping the entry with the last.
        mutating func releaseTarget(_ target: DeliveryTarget) {
            guard let (existing, users) = targets[target.key], existing === target else { return }
            targets[target.key] = users > 1 ? (existing, users - 1) : nil
        }
    }

    /// A channel's observers at one moment, with the channel's ``AnyChannel/cancellations`` at that moment.
    @usableFromInline
    struct Snapshot {
        /// All `Subscription<Event>` of the channel's `Event`, in registration order.
        @usableFromInline
        let subscriptions: [AnySubscription]
        @usableFromInline
        let cancellations: UInt64

        static var empty: Snapshot { Snapshot(subscriptions: [], cancellations: 0) }
    }

    /// What a post needs: the name, and the channel and observers to deliver to directly, as one consistent snapshot.
    @usableFromInline
    struct Route {
        @usableFromInline
        let name: Notification.Name
        @usableFromInline
        let snapshot: Snapshot
        /// Whether the type keeps its latest post: then the post must be routed by ``keepLatest(_:of:from:in:)``,
        /// which keeps it in the same step as it takes the observers.
        @usableFromInline
        var keepsLatest = false
    }

    /// What a registration that may have ended observers leaves to do once the lock is released.
    private struct Cleanup {
        /// Observers removed under the lock, released after it.
        var ended: [AnySubscription] = []
        /// The Foundation observer of a channel dropped under the lock, and the channel, removed after it.
        var bridge: (BridgeRegistration, AnyChannel)?

        /// Done outside the lock: Foundation and deinitialisers may do anything, including calling back in. The
        /// center is loaded here, not under the lock, since this may be the last strong reference to it.
        consuming func run() {
            if let (bridge, channel) = bridge, let center = channel.center {
                FoundationBridge.removeBridgeObserver(bridge, from: center)
            }
            withExtendedLifetime(ended) {}
        }
    }

    private let state = Locked(State())

    // MARK: - Posting

    @usableFromInline
    func route<Event: Notifiable>(_ subject: Event.Type, in center: NotificationCenter) -> Route {
        let id = ObjectIdentifier(subject)
        let route: Route? = state.withLock { state in
            guard let record = state.records[id] else { return nil }
            if record.keepsLatest { return Route(name: record.name, snapshot: .empty, keepsLatest: true) }
            return Route(name: record.name, snapshot: record.channel(in: center).map(Self.snapshot) ?? .empty)
        }
        if let route { return route }
        cacheName(of: subject)
        return self.route(subject, in: center)
    }

    private func cacheName<Event: Notifiable>(of subject: Event.Type) {
        // Read outside the lock: a custom `notificationName` is user code. (The default one makes the record itself.)
        record(of: subject, name: subject.notificationName)
    }

    /// The default ``Notifiable/notificationName``: derived from the type's name once (`String(reflecting:)` costs
    /// about 580 ns), then read from the type's record, without a lock.
    func derivedName<Event: Notifiable>(of subject: Event.Type) -> Notification.Name {
        if let name = state.withLock({ $0.records[ObjectIdentifier(subject)]?.name }) { return name }
        return record(of: subject, name: Notification.Name(DerivedNames.stableName(String(reflecting: subject)))).name
    }

    /// The record of `subject`, made with `name` if it has none yet.
    @discardableResult
    private func record<Event: Notifiable>(of subject: Event.Type, name: Notification.Name) -> TypeRecord {
        let keepsLatest = subject is any LatestValueNotifiable.Type
        return state.withLock { state in
            if let existing = state.records[ObjectIdentifier(subject)] { return existing }
            let record = TypeRecord(name: name, keepsLatest: keepsLatest)
            state.records[ObjectIdentifier(subject)] = record
            return record
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

    /// Registers a new observer, creating the channel (and its Foundation observer) for the first one.
    ///
    /// For a type that keeps its latest post, the new observer receives that post first, taken in the same step as it
    /// is added: so it receives every post exactly once, either as the latest or live, never both (see
    /// ``Subscription/replay(_:filter:onTarget:cancellationsSeen:)``).
    ///
    /// - Parameter senderFilter: The observer's sender filter, which the caller holds.
    @usableFromInline
    func add<Event: Notifiable>(
        _ subject: Event.Type,
        in center: NotificationCenter,
        on executor: DeliveryTarget.Executor?,
        senderFilter: AnyObject?,
        makeSubscription: (AnyChannel, DeliveryTarget?) -> Subscription<Event>
    ) -> Subscription<Event> {
        var added: Subscription<Event>?
        var replay: (() -> Void)?
        var sweeps = false
        // Where a main-actor observer of a latest value is made, asked here: the answer asks Foundation
        // (`Thread.isMainThread`), never to be called under the lock.
        var observesOnMainActor = false
        if case .mainActor? = executor, subject is any LatestValueNotifiable.Type {
            observesOnMainActor = PlatformIsolation.isMainActor(nil)
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
                        latest, filter: senderFilter, onTarget: observesOnMainActor, cancellationsSeen: count)
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

    /// Makes `post` the latest of `subject` on `center` and takes the observers it reaches, in one step; for a typed
    /// post. Makes the channel (and its Foundation observer, which then keeps plain posts too) for the first.
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

    /// Makes `post` the latest of `channel`'s type and takes the observers it reaches, in one step; for a plain post.
    func keepLatest(_ post: LatestPost, on channel: AnyChannel) -> Snapshot {
        let (snapshot, replaced): (Snapshot, LatestPost?) = state.withLock { _ in
            defer { channel.latest = post }
            return (Self.snapshot(of: channel), channel.latest)
        }
        withExtendedLifetime(replaced) {}
        return snapshot
    }

    /// The latest post of `subject` on `center`, if it keeps one.
    func latest<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) -> LatestPost? {
        state.withLock { $0.records[ObjectIdentifier(subject)]?.channel(in: center)?.latest }
    }

    /// Forgets the latest post of `subject` on `center`; it is released after the lock.
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

    /// Runs `body` under the lock with the channel of the type `typeID` on `center`, making the channel (with its
    /// bridge, by `makeChannel`) first if there is none.
    ///
    /// A new channel is made and bridged to Foundation before the lock is taken, and only then published; if another
    /// thread published one for the same type and center meanwhile, that one is used and the spare is unregistered.
    /// So every published channel has its Foundation observer, and an observation has begun when `add` returns.
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

    private enum ChannelOutcome {
        case found
        case needsName
        case needsChannel(Notification.Name)
    }

    /// Ends one observation; the channel and its Foundation observer go with the last one.
    ///
    /// - Returns: `true` if this call ended it, `false` if it had already ended.
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

    /// Ends the owner-bound observations of `channel` whose owner is gone.
    ///
    /// The owners are loaded outside the lock: loading one makes a strong reference, and if its other holders let go
    /// meanwhile, its `deinit` runs here, where it may cancel a token of its own. Owners of main-actor and main-queue
    /// observers are loaded only on the main actor (see ``AnySubscription``); elsewhere they wait for the next delivery
    /// there.
    func sweepEndedOwners(of channel: AnyChannel, onMainActor: Bool = PlatformIsolation.isMainActor(nil)) {
        let candidates = state.withLock { _ in
            channel.subscriptions.filter { $0.isOwnerBound && (onMainActor || $0.ownerLoadsAnywhere) }
        }
        for subscription in candidates where !subscription.ownerIsAlive() {
            subscription.cancel()
        }
    }

    /// Drops a channel without observers, unless it keeps its type's latest post: that one stays while its center
    /// lives.
    private static func dropIfEmpty(_ channel: AnyChannel, in state: inout State, into cleanup: inout Cleanup) {
        guard channel.subscriptions.isEmpty, !channel.keepsLatest,
            state.records[channel.subject]?.remove(channel) == true
        else { return }
        if let bridge = channel.bridge { cleanup.bridge = (bridge, channel) }
        channel.bridge = nil
    }

    /// Drops `channel` and releases its observers, if it is still registered: Foundation let its bridge go without
    /// the package removing it, so its center is being deallocated. Called by ``BridgeRegistration``'s `deinit`.
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
        // Outside the lock: a sequence finishes here, and releasing an observer or the latest post can run any
        // deinitialiser.
        for subscription in ended { subscription.didEnd() }
        withExtendedLifetime(latest) {}
    }

    // MARK: - Introspection, for tests

    /// The Foundation observer of `subject`'s channel on `center`, for the test that simulates a Foundation that keeps
    /// a dead center's observers (by holding it, so that the channel outlives its center).
    func bridge<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) -> BridgeRegistration? {
        let channel = state.withLock { $0.records[ObjectIdentifier(subject)]?.channel(in: center) }
        return channel?.bridge
    }

    /// How many channels the registry holds for `subject`, on every center; for tests that check that dead centers
    /// leave none.
    func channelCount<Event: Notifiable>(of subject: Event.Type) -> Int {
        state.withLock { $0.records[ObjectIdentifier(subject)]?.channels.count ?? 0 }
    }

    /// The live typed observations on `center`, grouped by type (sorted by name), each type's in registration order,
    /// after ending those whose owner is gone (see ``sweepEndedOwners(of:onMainActor:)``).
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

    /// Live typed observers and Foundation observers the package holds for `center`, after ending observations whose
    /// owner is gone.
    func registrationCounts(in center: NotificationCenter) -> (observers: Int, foundationObservers: Int) {
        let channels = sweepChannels(of: center)
        return state.withLock { _ in
            let live = channels.filter { !$0.subscriptions.isEmpty || $0.keepsLatest }
            return (live.reduce(0) { $0 + $1.subscriptions.count }, live.count)
        }
    }

    /// The channels of `center`, each swept of observations whose owner is gone.
    private func sweepChannels(of center: NotificationCenter) -> [AnyChannel] {
        let channels = state.withLock { $0.records.values.compactMap { $0.channel(in: center) } }
        for channel in channels { sweepEndedOwners(of: channel) }
        return channels
    }
}

extension ObserverRegistry.Snapshot {
    /// Delivers one post, typed or plain, to these observers: those on a target through it (see ``DeliveryTarget``),
    /// the others on this thread, in registration order; those of the actor the post is made on run during it, at
    /// their place in that order.
    ///
    /// Inlinable, so that it is specialised for the posted type in the caller's module.
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
            // The package's one downcast. Safe: a channel holds only `Subscription<Event>`s of its own `Event`
            // (`ObserverRegistry.add` adds them to the channel of `Event`). The registry keeps them as
            // `AnySubscription`, so that its bookkeeping is not generic (see `withChannel`); delivering is the one
            // step that needs the type back.
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

/// The targets one post has reached so far: usually none or one (the main actor), kept without allocating; more in an
/// array.
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
