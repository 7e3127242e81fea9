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
/// The stamp is what recognises a post, on every platform. It is a class instance, so it is the very same object
/// wherever the dictionary goes: on Apple platforms Foundation bridges `userInfo` to `NSDictionary`, and observers may
/// read back a different dictionary, whose storage means nothing, but the object in it is still the stamp. A stamp is
/// consumed once, so a plain observer that re-posts under the same name from inside delivery is still delivered: a
/// new `userInfo` carries no stamp, and a verbatim re-post of the same `userInfo` is delivered once too (in place of
/// the post it cannot be told apart from).
///
/// Finding the stamp costs a scan of `userInfo`'s values (not a lookup by key: a lookup that finds its key compares
/// `AnyHashable` keys, about 150 ns each on Linux). A shortcut skips even that: while the post is in Foundation, a
/// *frame* on the posting thread's stack holds the stamp and the dictionary that carries it. When the bridge is handed
/// that very dictionary (the same storage, which the frame keeps alive, so no other dictionary can have it), it
/// carries that stamp, and the scan is not needed. Where Foundation hands over a different dictionary, the scan finds
/// the same stamp: the shortcut changes the cost, never the outcome.
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
        userInfo: consuming [AnyHashable: Any]?,
        skippedBy channel: AnyChannel?,
        in center: NotificationCenter
    ) {
        LockDiscipline.assertNoLockHeld("posts")
        guard let channel else {
            center.post(name: name, object: sender, userInfo: PlatformBridging.postable(userInfo))
            return
        }
        // Consumed, so that the dictionary `userInfo(for:)` made is still unique here and gains the stamp in place.
        var stamped = userInfo ?? [:]
        let stamp = PostStamp.make(for: channel)
        stamped[Notification.typedPostKey] = stamp
        // The frame holds the dictionary made here; what Foundation hands observers may be another (on Apple
        // platforms, and in the build that simulates them), and then the bridge finds the stamp by scanning.
        var frame = Frame(stamp: stamp, userInfo: stamped, previous: tn_post_frame())
        withUnsafeMutablePointer(to: &frame) { frame in
            tn_set_post_frame(frame)
            center.post(name: name, object: sender, userInfo: PlatformBridging.postable(frame.pointee.userInfo))
            tn_set_post_frame(frame.pointee.previous)
        }
    }

    /// Whether `notification` is a typed post whose typed observers on `channel` were already reached directly.
    ///
    /// True once per typed post: the stamp is consumed here.
    static func isOwnPost(_ notification: Notification, on channel: AnyChannel) -> Bool {
        guard let userInfo = notification.userInfo else { return false }
        let stamp: PostStamp
        if let frame = tn_post_frame()?.assumingMemoryBound(to: Frame.self),
            sameStorage(frame.pointee.userInfo, userInfo)
        {
            stamp = frame.pointee.stamp
        } else if let found = findStamp(in: userInfo) {
            stamp = found
        } else {
            return false
        }
        return stamp.channel == channel.ordinal && stamp.consume()
    }

    /// The stamp among `userInfo`'s values, found by its type (only this package can make one).
    private static func findStamp(in userInfo: [AnyHashable: Any]) -> PostStamp? {
        for value in userInfo.values where type(of: value) == PostStamp.self {
            // Safe: the value's dynamic type was just checked.
            return (value as! PostStamp)
        }
        return nil
    }

    /// Whether two dictionaries are the very same storage, by their bit pattern.
    private static func sameStorage(_ lhs: [AnyHashable: Any]?, _ rhs: [AnyHashable: Any]) -> Bool {
        withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: Optional(rhs)) { right in left.elementsEqual(right) }
        }
    }

    /// One typed post in Foundation, on the posting thread's stack; `tn_post_frame()` points at the innermost.
    private struct Frame {
        let stamp: PostStamp
        /// Kept alive by the frame, so no other dictionary can have its storage while the frame is active.
        let userInfo: [AnyHashable: Any]?
        let previous: UnsafeMutableRawPointer?
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
