import Foundation

/// The package's own ordered registry of typed observers, shared by every `NotificationCenter`.
///
/// It keeps one ``Channel`` per (center, `Notifiable` type) that has live observers, and caches each type's
/// notification name. One lock guards all of it, so a post costs one lock: a name lookup and a channel lookup,
/// both keyed by `ObjectIdentifier`, and a copy-on-write snapshot of the channel's observers.
///
/// A channel exists exactly while it has observers: the last removal unregisters its Foundation observer and drops
/// it, so cancelled observations leave nothing behind.
final class ObserverRegistry: Sendable {
    static let shared = ObserverRegistry()

    private struct ChannelKey: Hashable {
        let center: ObjectIdentifier
        let subject: ObjectIdentifier
    }

    private struct State {
        var names: [ObjectIdentifier: Notification.Name] = [:]
        /// Each value is a `Channel<T>` for the `T` named by the key's `subject`.
        var channels: [ChannelKey: AnyObject] = [:]
    }

    /// What a post needs: the name, and the observers to deliver to directly, as one consistent snapshot.
    struct Route<Subject: Notifiable> {
        let name: Notification.Name
        let subscriptions: [Subscription<Subject>]
    }

    private let state = Locked(State())

    // MARK: - Posting

    func route<Subject: Notifiable>(_ subject: Subject.Type, in center: NotificationCenter) -> Route<Subject> {
        let typeID = ObjectIdentifier(subject)
        let key = ChannelKey(center: ObjectIdentifier(center), subject: typeID)
        let found: Route<Subject>? = state.withLock { state in
            guard let name = state.names[typeID] else { return nil }
            guard let stored = state.channels[key] else { return Route(name: name, subscriptions: []) }
            // Safe: the key's `subject` is `Subject`, and only `Channel<Subject>` is ever stored under it.
            let channel = unsafeDowncast(stored, to: Channel<Subject>.self)
            return Route(name: name, subscriptions: channel.subscriptions)
        }
        if let found { return found }
        cacheName(of: subject)
        return route(subject, in: center)
    }

    func name<Subject: Notifiable>(of subject: Subject.Type) -> Notification.Name {
        let typeID = ObjectIdentifier(subject)
        if let name = state.withLock({ $0.names[typeID] }) { return name }
        return cacheName(of: subject)
    }

    @discardableResult
    private func cacheName<Subject: Notifiable>(of subject: Subject.Type) -> Notification.Name {
        // Read outside the lock: a custom `notificationName` is user code.
        let name = subject.notificationName
        let typeID = ObjectIdentifier(subject)
        return state.withLock { state in
            if let existing = state.names[typeID] { return existing }
            state.names[typeID] = name
            return name
        }
    }

    /// The current observers of `channel`, for delivering a plain post.
    func subscriptions<Subject: Notifiable>(of channel: Channel<Subject>) -> [Subscription<Subject>] {
        state.withLock { _ in channel.subscriptions }
    }

    // MARK: - Registering

    /// Registers a new observer, creating the channel (and its Foundation observer) for the first one.
    func add<Subject: Notifiable>(
        _ subject: Subject.Type,
        in center: NotificationCenter,
        makeSubscription: (Channel<Subject>) -> Subscription<Subject>
    ) -> Subscription<Subject> {
        let name = name(of: subject)
        let key = ChannelKey(center: ObjectIdentifier(center), subject: ObjectIdentifier(subject))
        return state.withLock { state in
            let channel: Channel<Subject>
            if let stored = state.channels[key] {
                // Safe: see `route(_:in:)`.
                channel = unsafeDowncast(stored, to: Channel<Subject>.self)
                // Owner-bound observations whose owner is gone are dropped here, so they never pile up.
                channel.subscriptions.removeAll { !$0.isAlive }
            } else {
                channel = Channel(center: center, name: name)
                // Foundation never calls back into us while holding its own lock, so registering under ours is safe.
                channel.bridge = FoundationBridge.addBridgeObserver(for: channel)
                state.channels[key] = channel
            }
            let subscription = makeSubscription(channel)
            channel.subscriptions.append(subscription)
            return subscription
        }
    }

    /// Removes one observer; the channel and its Foundation observer go with the last one.
    func remove<Subject: Notifiable>(_ subscription: Subscription<Subject>, from channel: Channel<Subject>) {
        let key = ChannelKey(center: ObjectIdentifier(channel.center), subject: ObjectIdentifier(Subject.self))
        state.withLock { state in
            guard let index = channel.subscriptions.firstIndex(where: { $0 === subscription }) else { return }
            channel.subscriptions.remove(at: index)
            channel.subscriptions.removeAll { !$0.isAlive }
            if channel.subscriptions.isEmpty, state.channels[key] === channel {
                state.channels[key] = nil
                if let bridge = channel.bridge { channel.center.removeObserver(bridge) }
                channel.bridge = nil
            }
        }
    }

    // MARK: - Introspection, for tests

    /// Live typed observers and Foundation observers the package holds for `center`, after dropping observations
    /// whose owner is gone.
    func registrationCounts(in center: NotificationCenter) -> (observers: Int, foundationObservers: Int) {
        let centerID = ObjectIdentifier(center)
        var dead: [any Observation] = []
        state.withLock { state in
            for (key, stored) in state.channels where key.center == centerID {
                (stored as? any SweepableChannel)?.collectEnded(into: &dead)
            }
        }
        for observation in dead { observation.cancel() }
        return state.withLock { state in
            var observers = 0
            var bridges = 0
            for (key, stored) in state.channels where key.center == centerID {
                observers += (stored as? any SweepableChannel)?.observerCount ?? 0
                bridges += 1
            }
            return (observers, bridges)
        }
    }
}

/// Lets the registry inspect channels of any subject type; called only under the registry's lock.
protocol SweepableChannel {
    var observerCount: Int { get }
    func collectEnded(into list: inout [any Observation])
}
