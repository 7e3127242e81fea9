import Foundation

/// The typed observers of one `Notifiable` type on one `NotificationCenter`, in registration order.
///
/// Each channel registers a single Foundation observer (its *bridge*) under the type's name, which decodes plain
/// posts once and fans them out here. Typed posts reach the observers directly, without `userInfo`.
///
/// `subscriptions` and `ownerBoundCount` are read and written only while `ObserverRegistry`'s lock is held; `bridge`
/// is set before the channel is published to the registry and then read only under that lock; `cancellations` is
/// atomic; `center` is a weak reference, which the runtime reads atomically, set once in `init`; the other
/// properties never change after `init`. That is what makes the class safe to share across threads.
///
/// The runtime's exclusivity checks on `subscriptions`, which cannot see the lock, are switched off: with them, an
/// observe-then-cancel cycle costs 18.1% more instructions (2,346 → 2,770) and a post to one observer 1.0% more
/// (callgrind, `Benchmarks/instructions.sh`). `ownerBoundCount` keeps them: they cost nothing measurable there.
///
/// A channel never keeps its center alive. When the center is deallocated, Foundation releases the bridge's block,
/// and with it the ``BridgeRegistration`` that tells the registry to drop the channel and its observers.
@usableFromInline
class AnyChannel: @unchecked Sendable {
    /// Weak: observations never keep a center alive. `nil` once the center is gone.
    weak var center: NotificationCenter?
    /// The center's identity, for finding the channel under the registry's lock without loading the weak reference.
    /// A new center at a dead one's address has the same identity, but never finds the dead one's channel: the
    /// registry drops it while the dead center is deallocated (see ``ObserverRegistry``). Outside the lock,
    /// ``isOn(_:)`` checks both.
    let centerID: ObjectIdentifier
    let name: Notification.Name
    /// The `Notifiable` type, which with the center is the channel's key in the registry.
    let subject: ObjectIdentifier
    /// The `Notifiable` type's module-qualified name, for ``Foundation/NotificationCenter/typedObservations``.
    let subjectName: String
    @exclusivity(unchecked) var subscriptions: [AnySubscription] = []
    /// How many of `subscriptions` are owner-bound: only those can end without a `cancel()`, so only then is a sweep
    /// for dead owners worth its cost.
    var ownerBoundCount = 0
    /// Whether the channel keeps its type's latest post (a ``LatestValueNotifiable`` type): then it stays while its
    /// center lives, observed or not, so that its bridge captures plain posts too.
    let keepsLatest: Bool
    /// The latest post, for a channel that ``keepsLatest``; read and written only under `ObserverRegistry`'s lock, and
    /// released outside it.
    var latest: LatestPost?
    /// Weak: the bridge's block owns it, so that it goes (and reports) when Foundation lets the block go. (The
    /// registration holds the channel strongly, and nothing holds the channel weakly.)
    weak var bridge: BridgeRegistration?
    /// Taken before the bridge is registered, so that a post can tell a bridge registered since it began (see
    /// `FoundationBridge`).
    let ordinal = FoundationBridge.nextBridgeOrdinal()
    #if DEBUG
    /// Posts and observations of the channel so far, for the report of a discarded token (see `DiscardedTokens`):
    /// debug builds only. Atomic: any thread posts.
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

    /// Counts a post or an observation of the channel, in debug builds.
    @usableFromInline
    func recordActivity() {
        #if DEBUG
        _ = activityCount.add(1)
        #endif
    }
    /// How many of the channel's observers have ended so far. A post compares it with the count it saw when it took
    /// its snapshot of observers: while they are equal, no observer in the snapshot has ended, and none needs the
    /// registry's lock to check.
    @usableFromInline
    let cancellations = AtomicWord.make()

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

    /// Whether an observer of this channel has ended since a snapshot that saw `count` cancellations.
    @inlinable
    final func hasCancellations(since count: UInt64) -> Bool {
        cancellations.load() != count
    }

}

/// The typed half of a channel: it registers and runs the bridge. `@unchecked Sendable` as ``AnyChannel``; it adds
/// no stored state.
final class Channel<Event: Notifiable>: AnyChannel, @unchecked Sendable {
    init(center: NotificationCenter, name: Notification.Name) {
        super.init(
            center: center,
            name: name,
            subject: ObjectIdentifier(Event.self),
            subjectName: String(reflecting: Event.self),
            keepsLatest: Event.self is any LatestValueNotifiable.Type
        )
    }

    /// A new channel with its bridge registered on `center`, before the channel is published to the registry.
    static func bridged(on center: NotificationCenter, name: Notification.Name) -> Channel<Event> {
        let channel = Channel(center: center, name: name)
        // The bridge's block owns the registration; the channel only refers to it.
        channel.bridge = FoundationBridge.addBridgeObserver(for: channel, on: center)
        return channel
    }

    /// Delivers a plain (non-typed) post that reached the bridge: decode once, then fan out in registration order.
    func receivePlain(_ notification: Notification) {
        guard Event.postsThroughFoundation else {
            // A typed-only type's typed posts never reach Foundation: this is a plain post, which its typed observers
            // do not see. Debug builds say so.
            #if DEBUG
            if let center {
                NotificationDiagnostics.report(.plainPostIgnored, for: Event.self, name: name, in: center)
            }
            #endif
            return
        }
        if FoundationBridge.isOwnPost(notification, on: self) { return }
        // A channel that keeps the latest post decodes every plain post, and takes its observers in the same step as
        // it keeps the post (see `ObserverRegistry.keepLatest`); the others decode only a post that reaches observers.
        let observers = keepsLatest ? nil : ObserverRegistry.shared.snapshot(of: self)
        if let observers, observers.subscriptions.isEmpty { return }
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
            let snapshot = observers ?? ObserverRegistry.shared.snapshot(of: self)
            for subscription in snapshot.subscriptions {
                subscription.reportDecodingFailure(error, from: sender, cancellationsSeen: snapshot.cancellations)
            }
            return
        }
        let snapshot = observers ?? ObserverRegistry.shared.keepLatest(LatestPost(payload, from: sender), on: self)
        // A plain post is never made on an actor that the compiler can name.
        snapshot.deliver(payload, of: Event.self, from: sender, isolation: nil)
    }
}

/// The latest post of a ``LatestValueNotifiable`` type on one center: its payload and, weakly, its sender.
///
/// `@unchecked Sendable` because the payload is held as `Any` (it is the type's `Sendable` payload) and the sender
/// need not be `Sendable`: it is only compared by identity, and handed to handlers that take the sender, as a post
/// hands it. Both are set once, in `init`; the runtime reads and clears weak references atomically.
final class LatestPost: @unchecked Sendable {
    let payload: Any
    /// Weak: keeping a post's latest value never keeps its sender alive.
    weak var sender: AnyObject?
    /// The sender's identity (`0` for none), compared under the registry's lock without loading ``sender``.
    let senderID: UInt

    init(_ payload: Any, from sender: AnyObject?) {
        self.payload = payload
        self.sender = sender
        senderID = sender.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
    }
}
