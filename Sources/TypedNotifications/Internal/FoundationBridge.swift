import CTypedNotificationsAtomics
public import Foundation

/// Where typed observers meet `NotificationCenter`: the one place that calls it.
///
/// - Each ``Channel`` registers one Foundation observer, its *bridge*, that decodes plain posts under the type's name
///   once and fans them out to the typed observers.
/// - A typed post delivers to its typed observers directly, without `userInfo`, then posts to Foundation so that plain
///   observers see it too. When the post found a channel, its `userInfo` carries a ``PostStamp`` under
///   `Notification.typedPostKey`, naming that channel, and the channel's bridge skips the post that carries it.
///
/// The stamp is a class instance, so it is the very same object wherever the dictionary goes: on Apple platforms
/// Foundation bridges `userInfo` to `NSDictionary` and observers may read back a different dictionary, whose
/// storage means nothing, but the object under the key is still the stamp. A stamp is consumed once, so a plain
/// observer that re-posts under the same name from inside delivery is still delivered: a new `userInfo` carries no
/// stamp, and a verbatim re-post of the same `userInfo` is delivered once too (in place of the post it cannot be told
/// apart from).
///
/// A typed post that found no channel needs no stamp: a bridge registered while it is delivering is not in the
/// snapshot of observers that Foundation took for it. (Swift's Foundation takes that snapshot on every platform it
/// is open source on; Apple's is closed source, and the Guarantees article says what depends on it.)
///
/// Every call into Foundation goes through here, and none is made while the package holds a lock (checked in debug
/// builds by ``LockDiscipline``).
@usableFromInline
enum FoundationBridge {
    static func addBridgeObserver<Subject: Notifiable>(for channel: Channel<Subject>) -> any NSObjectProtocol {
        LockDiscipline.assertNoLockHeld("adds a Foundation observer")
        return channel.center.addObserver(forName: channel.name, object: nil, queue: nil) {
            [weak channel] notification in
            channel?.receivePlain(notification)
        }
    }

    static func removeBridgeObserver(_ bridge: any NSObjectProtocol, from center: NotificationCenter) {
        LockDiscipline.assertNoLockHeld("removes a Foundation observer")
        center.removeObserver(bridge)
    }

    /// Posts a typed notification to Foundation for plain observers; with a `channel`, its bridge skips this post.
    @usableFromInline
    static func post(
        name: Notification.Name,
        sender: AnyObject?,
        userInfo: [AnyHashable: Any]?,
        skippedBy channel: AnyChannel?,
        in center: NotificationCenter
    ) {
        LockDiscipline.assertNoLockHeld("posts")
        var userInfo = userInfo
        if let channel {
            if userInfo == nil { userInfo = [:] }
            userInfo?[Notification.typedPostKey] = PostStamp.make(for: channel)
        }
        center.post(name: name, object: sender, userInfo: PlatformBridging.postable(userInfo))
    }

    /// Whether `notification` is a typed post whose typed observers on `channel` were already reached directly.
    ///
    /// True once per typed post: the stamp is consumed here.
    static func isOwnPost(_ notification: Notification, on channel: AnyChannel) -> Bool {
        guard let stamp = notification.userInfo?[Notification.typedPostKey] as? PostStamp else { return false }
        return stamp.channel == channel.ordinal && stamp.consume()
    }
}

/// The mark of one typed post in its `userInfo`: which channel's observers it was delivered to directly, and whether
/// that channel's bridge has skipped it yet.
///
/// One allocation: the channel's ordinal is the header, never written after `make`, and the consumed flag the single
/// element, accessed only through C11 atomics, so any thread that receives the notification may consume it.
final class PostStamp: ManagedBuffer<UInt64, UInt64> {
    static func make(for channel: AnyChannel) -> PostStamp {
        let buffer = create(minimumCapacity: 1) { _ in channel.ordinal }
        buffer.withUnsafeMutablePointerToElements { $0.initialize(to: 0) }
        // Safe: `create` called on this class makes an instance of it.
        return unsafeDowncast(buffer, to: PostStamp.self)
    }

    /// The ordinal of the channel whose observers the post reached directly.
    var channel: UInt64 { header }

    /// Marks the stamp as skipped; `true` only for the first call.
    func consume() -> Bool {
        withUnsafeMutablePointerToElements { tn_atomic_exchange($0, 1) == 0 }
    }
}
