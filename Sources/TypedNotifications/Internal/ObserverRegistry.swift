public import Foundation

/// The package's own ordered registry of typed observers, shared by every `NotificationCenter`.
///
/// It keeps, per `Notifiable` type, the type's notification name and one ``Channel`` per center that has live
/// observers of it. One lock guards all of it, so a post costs one lock, one dictionary lookup keyed by the type's
/// `ObjectIdentifier`, a scan of that type's channels (one per center that observes it, usually a single one), and a
/// copy-on-write snapshot of the channel's observers. The bookkeeping is non-generic (``AnyChannel``,
/// ``AnySubscription``); only creating a channel and delivering a payload know the type.
///
/// A channel exists exactly while it has observers: the last removal unregisters its Foundation observer and drops
/// it, so cancelled observations leave nothing behind.
@usableFromInline
final class ObserverRegistry: Sendable {
    @usableFromInline
    static let shared = ObserverRegistry()

    /// What the registry knows about one `Notifiable` type.
    private struct TypeEntry {
        let name: Notification.Name
        /// At most one per center, each with at least one observer.
        var channels: [AnyChannel] = []

        func channel(in center: NotificationCenter) -> AnyChannel? {
            channels.first { $0.center === center }
        }
    }

    private struct State {
        /// Keyed by the `Notifiable` type's `ObjectIdentifier`.
        var types: [ObjectIdentifier: TypeEntry] = [:]
    }

    /// What a post needs: the name, and the observers to deliver to directly, as one consistent snapshot.
    @usableFromInline
    struct Route {
        @usableFromInline
        let name: Notification.Name
        /// All `Subscription<Subject>` for the posted `Subject`.
        @usableFromInline
        let subscriptions: [AnySubscription]
    }

    private let state = Locked(State())

    // MARK: - Posting

    @usableFromInline
    func route<Subject: Notifiable>(_ subject: Subject.Type, in center: NotificationCenter) -> Route {
        if let route = route(ObjectIdentifier(subject), in: center) { return route }
        cacheName(of: subject)
        return route(subject, in: center)
    }

    /// `nil` only before the type's name is cached.
    private func route(_ subject: ObjectIdentifier, in center: NotificationCenter) -> Route? {
        state.withLock { state in
            guard let entry = state.types[subject] else { return nil }
            return Route(name: entry.name, subscriptions: entry.channel(in: center)?.subscriptions ?? [])
        }
    }

    private func cacheName<Subject: Notifiable>(of subject: Subject.Type) {
        // Read outside the lock: a custom `notificationName` is user code.
        let name = subject.notificationName
        state.withLock { state in
            if state.types[ObjectIdentifier(subject)] == nil {
                state.types[ObjectIdentifier(subject)] = TypeEntry(name: name)
            }
        }
    }

    /// The current observers of `channel`, for delivering a plain post.
    func subscriptions(of channel: AnyChannel) -> [AnySubscription] {
        state.withLock { _ in channel.subscriptions }
    }

    // MARK: - Registering

    /// Registers a new observer, creating the channel (and its Foundation observer) for the first one.
    @usableFromInline
    func add<Subject: Notifiable>(
        _ subject: Subject.Type,
        in center: NotificationCenter,
        makeSubscription: (AnyChannel) -> Subscription<Subject>
    ) -> Subscription<Subject> {
        let typeID = ObjectIdentifier(subject)
        var ended: [AnySubscription] = []
        defer { Self.release(ended) }
        let added: Subscription<Subject>? = state.withLock { state in
            guard let entry = state.types[typeID] else { return nil }
            let channel: AnyChannel
            if let existing = entry.channel(in: center) {
                channel = existing
            } else {
                channel = Channel<Subject>(center: center, name: entry.name)
                // Foundation never calls back into us while holding its own lock, so registering under ours is safe.
                channel.bridge = channel.makeBridge()
                state.types[typeID]?.channels.append(channel)
            }
            // Observers whose owner is gone are dropped here too, so they never pile up.
            Self.sweepEndedOwners(of: channel, into: &ended)
            let subscription = makeSubscription(channel)
            channel.subscriptions.append(subscription)
            if subscription.isOwnerBound { channel.ownerBoundCount += 1 }
            return subscription
        }
        if let added { return added }
        cacheName(of: subject)
        return add(subject, in: center, makeSubscription: makeSubscription)
    }

    /// Removes one observer; the channel and its Foundation observer go with the last one.
    func remove(_ subscription: AnySubscription) {
        var ended: [AnySubscription] = []
        defer { Self.release(ended) }
        state.withLock { state in
            let channel = subscription.channel
            // Searched from the end: observers that come and go are usually the newest.
            guard let index = channel.subscriptions.lastIndex(where: { $0 === subscription }) else { return }
            channel.subscriptions.remove(at: index)
            if subscription.isOwnerBound { channel.ownerBoundCount -= 1 }
            Self.sweepEndedOwners(of: channel, into: &ended)
            Self.dropIfEmpty(channel, from: &state)
        }
    }

    /// Removes owner-bound observers whose owner is gone; free when the channel has no owner-bound observers.
    ///
    /// The removed observers go into `ended` rather than being released here: releasing one can run arbitrary
    /// deinitialisers (of whatever its handler captured, a token among them), which must not run under the lock.
    private static func sweepEndedOwners(of channel: AnyChannel, into ended: inout [AnySubscription]) {
        guard channel.ownerBoundCount > 0, channel.subscriptions.contains(where: { !$0.isAlive }) else { return }
        // One pass, so that an owner dying meanwhile cannot make an observer both kept and dropped.
        var kept: [AnySubscription] = []
        for subscription in channel.subscriptions {
            if subscription.isAlive { kept.append(subscription) } else { ended.append(subscription) }
        }
        channel.subscriptions = kept
        channel.ownerBoundCount = kept.count { $0.isOwnerBound }
    }

    /// Releases observers removed under the lock, once it is no longer held.
    private static func release(_ ended: [AnySubscription]) {
        withExtendedLifetime(ended) {}
    }

    private static func dropIfEmpty(_ channel: AnyChannel, from state: inout State) {
        guard channel.subscriptions.isEmpty,
            let index = state.types[channel.subject]?.channels.firstIndex(where: { $0 === channel })
        else { return }
        state.types[channel.subject]?.channels.remove(at: index)
        if let bridge = channel.bridge { channel.center.removeObserver(bridge) }
        channel.bridge = nil
    }

    // MARK: - Introspection, for tests

    /// Live typed observers and Foundation observers the package holds for `center`, after dropping observations
    /// whose owner is gone.
    func registrationCounts(in center: NotificationCenter) -> (observers: Int, foundationObservers: Int) {
        var ended: [AnySubscription] = []
        defer { Self.release(ended) }
        return state.withLock { state in
            let channels = state.types.values.compactMap { $0.channel(in: center) }
            for channel in channels {
                Self.sweepEndedOwners(of: channel, into: &ended)
                Self.dropIfEmpty(channel, from: &state)
            }
            let live = channels.filter { !$0.subscriptions.isEmpty }
            return (live.reduce(0) { $0 + $1.subscriptions.count }, live.count)
        }
    }
}
