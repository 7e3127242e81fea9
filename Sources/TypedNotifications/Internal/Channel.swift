import Foundation
import Synchronization

/// The typed observers of one `Notifiable` type on one `NotificationCenter`, in registration order.
///
/// Each channel registers a single Foundation observer (its *bridge*) under the type's name, which decodes plain
/// posts once and fans them out here. Typed posts reach the observers directly, without `userInfo`.
///
/// `subscriptions`, `ownerBoundCount` and `bridge` are read and written only while `ObserverRegistry`'s lock is held;
/// the other properties never change. That is what makes the class safe to share across threads, and why the
/// runtime's exclusivity checks on `subscriptions` (which cannot see the lock) are switched off.
@usableFromInline
class AnyChannel: @unchecked Sendable {
    /// Held strongly: a center stays alive while it has typed observers, so its identity is never reused meanwhile.
    let center: NotificationCenter
    let name: Notification.Name
    /// The `Notifiable` type, which with the center is the channel's key in the registry.
    let subject: ObjectIdentifier
    @exclusivity(unchecked) var subscriptions: [AnySubscription] = []
    /// How many of `subscriptions` are owner-bound: only those can end without a `cancel()`, so only then is a sweep
    /// for dead owners worth its cost.
    var ownerBoundCount = 0
    var bridge: (any NSObjectProtocol)?
    /// When the channel was created, counted across all channels: a typed post's frame applies only to channels
    /// created before it posted to Foundation (see `FoundationBridge`).
    let ordinal: UInt64

    /// The ordinal of the newest channel.
    static let newestOrdinal = Atomic<UInt64>(0)

    /// Set at the end of `init`; see ``synchronizeWithCreation()``.
    private let created = Atomic<Bool>(false)

    init(center: NotificationCenter, name: Notification.Name, subject: ObjectIdentifier) {
        self.center = center
        self.name = name
        self.subject = subject
        ordinal = Self.newestOrdinal.add(1, ordering: .acquiringAndReleasing).newValue
        created.store(true, ordering: .releasing)
    }

    /// Makes the channel's constant fields visibly published to the calling thread before it reads them outside the
    /// registry's lock, as the bridge does.
    ///
    /// Foundation already publishes the bridge to posting threads safely, through its own lock; but on Linux that
    /// lock is invisible to ThreadSanitizer, which would otherwise report the first reads as races. This
    /// acquire, paired with the release at the end of `init`, is what the sanitizer can see; it is a plain load on
    /// x86 and ARM.
    func synchronizeWithCreation() {
        _ = created.load(ordering: .acquiring)
    }

    /// Registers the bridge; called once, by the registry, when the channel is created.
    func makeBridge() -> any NSObjectProtocol {
        fatalError("subclass responsibility")
    }
}

/// The typed half of a channel: it registers and runs the bridge. `@unchecked Sendable` as ``AnyChannel``; it adds
/// no stored state.
final class Channel<Subject: Notifiable>: AnyChannel, @unchecked Sendable {
    init(center: NotificationCenter, name: Notification.Name) {
        super.init(center: center, name: name, subject: ObjectIdentifier(Subject.self))
    }

    override func makeBridge() -> any NSObjectProtocol {
        FoundationBridge.addBridgeObserver(for: self)
    }

    /// Delivers a plain (non-typed) post that reached the bridge: decode once, then fan out in registration order.
    func receivePlain(_ notification: Notification) {
        if FoundationBridge.isOwnPost(notification, on: self) { return }
        let subscriptions = ObserverRegistry.shared.subscriptions(of: self)
        guard !subscriptions.isEmpty else { return }
        let payload: Subject.Payload
        do {
            payload = try Subject.payload(from: notification)
        } catch {
            NotificationDiagnostics.report(.decodingFailed(error), for: Subject.self, name: name, in: center)
            return
        }
        let sender = notification.object.map { $0 as AnyObject }
        for subscription in subscriptions {
            // Safe: a channel only ever holds `Subscription<Subject>`s (see `ObserverRegistry.add`).
            unsafeDowncast(subscription, to: Subscription<Subject>.self).deliver(payload, from: sender)
        }
    }
}
