import CTypedNotificationsRuntime
import Foundation

/// The typed observers of one `Notifiable` type on one `NotificationCenter`, in registration order, and the one
/// Foundation observer, its *bridge* (see ``FoundationBridge``), that decodes plain posts once for them.
///
/// `@unchecked Sendable`: `subscriptions` and the counts beside it, and `latest`, are used only under
/// ``ObserverRegistry``'s lock; `bridge` is set before the channel is published, then cleared under that lock (a weak
/// reference, which the runtime reads and clears atomically); `center` is a weak reference set once in `init`; the
/// rest never changes.
@usableFromInline
final class Channel: @unchecked Sendable {
    /// Weak: observations never keep a center alive.
    weak var center: NotificationCenter?
    /// The center's identity, for lookups under the lock without loading ``center`` (see ``ObserverRegistry``).
    let centerID: ObjectIdentifier
    let name: Notification.Name
    /// The `Notifiable` type: with the center, the channel's key in the registry.
    let subject: ObjectIdentifier
    /// The `Notifiable` type's module-qualified name, for ``Foundation/NotificationCenter/typedObservations``.
    let subjectName: String
    /// In registration order, with `nil` where an observer ended (``AnySubscription/slot`` finds its place, so ending
    /// one costs the same however many there are): the ends leave holes, removed from the end at once and elsewhere
    /// once they are half the array (``ObserverRegistry/remove(_:)``), so a post skips at most as many as it reaches.
    ///
    /// The runtime's exclusivity checks, which cannot see the lock, are off: they would add a dynamic access check to
    /// every append, removal and snapshot, which the lock already makes exclusive (they weigh on the observe-cancel
    /// row of the Performance article's instruction table). The counts keep them: they cost nothing measurable there.
    @exclusivity(unchecked) var subscriptions: [AnySubscription?] = []
    /// The `nil` holes in `subscriptions`.
    var holes = 0
    /// Owner-bound `subscriptions`: only those end without `cancel()`, so only then is a dead-owner sweep worth it.
    var ownerBoundCount = 0
    /// Registrations since the last sweep of dead owners: a registration sweeps once they reach half the observers,
    /// so that each pays a constant share of the sweeps (``ObserverRegistry/sweepIsDue(on:)``).
    var registrationsSinceSweep = 0
    /// Whether a sweep of the owners that load only on the main actor is scheduled there (one at a time).
    var mainActorSweepScheduled = false
    /// A ``LatestValueNotifiable`` type's channel stays while its center lives, so that its bridge keeps plain posts.
    let keepsLatest: Bool
    /// The latest post, for a channel that ``keepsLatest``; released outside the lock.
    var latest: LatestPost?
    /// Weak: the bridge's block owns it, so that it goes (and reports) when Foundation lets the block go.
    weak var bridge: BridgeRegistration?
    /// Taken before the bridge is registered, so a post can tell a bridge registered since it began.
    let ordinal = FoundationBridge.nextBridgeOrdinal()
    /// The thread that made the channel (see `tn_thread_marker`), so a post can tell a bridge its own thread
    /// registered during it from one another thread registered meanwhile. A later thread may reuse an ended one's
    /// marker, but a channel made since a post began was made while the posting thread ran, so an equal marker is the
    /// posting thread.
    let creatingThread = tn_thread_marker()
    #if DEBUG
    /// Posts and observations so far, for a discarded token's report (see `DiscardedTokens`). Atomic: any thread posts.
    private let activityCount = AtomicWord.make()
    #endif

    /// What ``activityCount`` is; 0 in release builds.
    var activity: UInt64 {
        #if DEBUG
        activityCount.load()
        #else
        0
        #endif
    }

    @usableFromInline
    func recordActivity() {
        #if DEBUG
        _ = activityCount.add(1)
        #endif
    }
    init(
        center: NotificationCenter,
        name: Notification.Name,
        subject: ObjectIdentifier,
        subjectName: String,
        keepsLatest: Bool
    ) {
        self.center = center
        centerID = ObjectIdentifier(center)
        self.name = name
        self.subject = subject
        self.subjectName = subjectName
        self.keepsLatest = keepsLatest
    }

    /// Whether the channel is `center`'s: the same identity, and not a dead center's whose address `center` reuses.
    final func isOn(_ center: NotificationCenter) -> Bool {
        centerID == ObjectIdentifier(center) && self.center === center
    }

}

/// The typed half: a new channel of a type, and its plain posts, generic over the type only where it is decoded.
extension Channel {
    /// A new channel of `Event`, with its bridge registered on `center`, before it is published to the registry.
    static func bridged<Event: Notifiable>(
        _ subject: Event.Type, on center: NotificationCenter, name: Notification.Name
    ) -> Channel {
        let channel = Channel(
            center: center,
            name: name,
            subject: ObjectIdentifier(Event.self),
            subjectName: String(reflecting: Event.self),
            keepsLatest: Event.self is any LatestValueNotifiable.Type
        )
        channel.bridge = FoundationBridge.addBridgeObserver(for: channel, of: subject, on: center)
        return channel
    }

    /// Delivers a plain post that reached the bridge: decoded once, fanned out in registration order.
    func receivePlain<Event: Notifiable>(_ notification: Notification, of subject: Event.Type) {
        guard Event.postsThroughFoundation else {
            // Typed-only: its typed posts never reach Foundation, so this is a plain post, unseen by its observers.
            #if DEBUG
            if let center {
                NotificationDiagnostics.report(.plainPostIgnored, for: Event.self, name: name, in: center)
            }
            #endif
            return
        }
        if FoundationBridge.isOwnPost(notification, on: self) { return }
        // A plain post on a center that an `awaitDelivery(in:)` waits on, from any thread.
        let waits = PendingDeliveries.enter(centerID)
        defer { if let waits { PendingDeliveries.leave(waits) } }
        // A latest-keeping channel decodes every plain post, taking its observers as it keeps it (`keepLatest`);
        // the others decode only a post that reaches observers.
        let observers = keepsLatest ? nil : ObserverRegistry.shared.observers(of: self)
        if let observers, observers.isEmpty { return }
        let sender = notification.object.map { $0 as AnyObject }
        let payload: Event.Payload
        do {
            payload = try Event.payload(from: notification)
        } catch {
            // Another type's typed post under a shared name is no plain post that failed: it is not reported.
            if FoundationBridge.isTypedPost(notification, on: centerID) { return }
            if let center {
                NotificationDiagnostics.report(.decodingFailed(error), for: Event.self, name: name, in: center)
            }
            for case let subscription? in observers ?? ObserverRegistry.shared.observers(of: self) {
                subscription.reportDecodingFailure(error, from: sender)
            }
            return
        }
        // A plain post is never made on an actor that the compiler can name.
        if let observers { return observers.deliver(payload, of: Event.self, from: sender, isolation: nil) }
        let plan = ObserverRegistry.shared.keepLatest(
            LatestPost(BoxedPayload(payload), from: sender), from: sender, on: self)
        // Set: a latest-value post's plan holds what it did under the lock.
        plan.observers.deliverLatest(payload, of: Event.self, from: sender, isolation: nil, kept: plan.keptLatest!)
    }
}

/// The latest post of a ``LatestValueNotifiable`` type on one center: its payload and, weakly, its sender.
///
/// `@unchecked Sendable`: the payload is the type's `Sendable` payload in its box; the sender, not necessarily
/// `Sendable`, is compared by identity and handed to handlers as a post hands it. Both are set once, in `init`; the
/// runtime reads and clears weak references atomically.
final class LatestPost: @unchecked Sendable {
    /// A ``BoxedPayload`` of the type's payload: queued as it is for the observers the post reaches.
    let payload: AnyObject
    /// Weak: keeping a post's latest value never keeps its sender alive.
    weak var sender: AnyObject?
    /// The sender's identity (`0` for none), compared under the registry's lock without loading ``sender``.
    let senderID: UInt

    init(_ payload: AnyObject, from sender: AnyObject?) {
        self.payload = payload
        self.sender = sender
        senderID = sender.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
    }
}
