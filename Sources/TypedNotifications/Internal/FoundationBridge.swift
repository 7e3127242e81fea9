import CTypedNotificationsAtomics
public import Foundation

/// Where typed observers meet `NotificationCenter`: the one place that calls it.
///
/// - Each ``Channel`` registers one Foundation observer, its *bridge*, that decodes plain posts under the type's name
///   once and fans them out to the typed observers.
/// - A typed post delivers to its typed observers directly, without `userInfo`, then posts to Foundation so that plain
///   observers see it too, and the channel's bridge must skip that post: its typed observers already have it.
///
/// How the bridge recognises the post, the same way on every platform:
/// - When the post found a channel, its `userInfo` carries a ``PostMark`` under `Notification.typedPostKey`: a
///   number no other post in the process has. While the post is in Foundation, a *frame* on the posting thread's
///   stack holds the mark, the channel, and the dictionary it made. Foundation calls observers synchronously on the
///   posting thread, so the bridge finds the frame, and skips the notification that carries the frame's mark, once.
///   A post whose `userInfo` is `nil` (a `Void` payload) carries no mark: nothing in it can be copied, so the
///   notification with no `userInfo` and the same sender is the post (or one that cannot be told apart from it).
/// - The mark is a value inside the dictionary, so it survives Foundation handing `userInfo` over as another
///   dictionary: on Apple platforms `userInfo` is bridged to `NSDictionary` and back, and its storage means nothing.
///   When the bridge is handed the very dictionary the frame holds (same storage, which the frame keeps alive, so no
///   other dictionary can have it), it needs no search; otherwise it scans the values for the mark (not a lookup by
///   key: a lookup that finds its key compares `AnyHashable` keys, about 150 ns each on Linux). The shortcut changes
///   the cost, never the outcome.
/// - A frame is consumed once, so a plain observer that re-posts under the same name from inside delivery is still
///   delivered: a new `userInfo` carries no mark of an active frame, and a verbatim re-post of the same `userInfo` is
///   delivered once too (in place of the post it cannot be told apart from). A notification that reaches the bridge
///   on a thread with no frame for it (a re-post from another thread, or after the post returned) is a new post.
///
/// A typed post that found no channel needs no mark: a bridge registered while it is delivering is not in the
/// snapshot of observers that Foundation took for it. (Swift's Foundation takes that snapshot on every platform it
/// is open source on; Apple's is closed source, and the Guarantees article says what depends on it.)
///
/// Every call into Foundation goes through here, and none is made while the package holds a lock (checked in debug
/// builds by ``LockDiscipline``).
@usableFromInline
enum FoundationBridge {
    /// Registers `channel`'s bridge on `center`. The block owns the returned registration, which reports to the
    /// registry when Foundation lets the block go: when the observer is removed, or when the center is deallocated.
    static func addBridgeObserver<Event: Notifiable>(
        for channel: Channel<Event>,
        on center: NotificationCenter
    ) -> BridgeRegistration {
        LockDiscipline.assertNoLockHeld("adds a Foundation observer")
        let registration = BridgeRegistration(channel)
        // Paired with the acquire below, for ThreadSanitizer: Foundation hands the block to posting threads through a
        // lock of its own, which ThreadSanitizer cannot see on Linux (see `FoundationPublication`).
        FoundationPublication.publish()
        let token = center.addObserver(forName: channel.name, object: nil, queue: nil) { notification in
            FoundationPublication.acquire()
            // Safe: the registration was made for this `Channel<Event>`.
            unsafeDowncast(registration.channel, to: Channel<Event>.self).receivePlain(notification)
        }
        registration.keep(token)
        return registration
    }

    static func removeBridgeObserver(_ bridge: BridgeRegistration, from center: NotificationCenter) {
        LockDiscipline.assertNoLockHeld("removes a Foundation observer")
        if let token = bridge.token { center.removeObserver(token) }
    }

    /// Posts a typed notification to Foundation for plain observers; with a `channel` (an ``AnyChannel/ordinal``), its
    /// bridge skips this post.
    @usableFromInline
    static func post(
        name: Notification.Name,
        sender: AnyObject?,
        userInfo: consuming [AnyHashable: Any]?,
        skippedBy channel: UInt64?,
        in center: NotificationCenter
    ) {
        LockDiscipline.assertNoLockHeld("posts")
        guard let channel else {
            center.post(name: name, object: sender, userInfo: PlatformBridging.postable(userInfo))
            return
        }
        var frame = Frame(channel: channel, sender: sender, previous: tn_post_frame())
        if var marked = consume userInfo {
            // Consumed, so the dictionary `userInfo(for:)` made is still unique here and gains the mark in place.
            let mark = PostMark(thread: tn_thread_number(), post: tn_next_post_number())
            marked[Notification.typedPostKey] = mark
            // The frame holds the dictionary made here; what Foundation hands observers may be another (on Apple
            // platforms, and in the build that simulates them), and then the bridge scans it for the mark.
            frame.mark = mark
            frame.userInfo = marked
        }
        withUnsafeMutablePointer(to: &frame) { frame in
            tn_set_post_frame(frame)
            center.post(name: name, object: sender, userInfo: PlatformBridging.postable(frame.pointee.userInfo))
            tn_set_post_frame(frame.pointee.previous)
        }
    }

    /// Whether `notification` is the typed post in progress on this thread whose typed observers on `channel` were
    /// already reached directly; true once per post.
    static func isOwnPost(_ notification: Notification, on channel: AnyChannel) -> Bool {
        guard var frame = tn_post_frame()?.assumingMemoryBound(to: Frame.self) else { return false }
        if let userInfo = notification.userInfo {
            if !sameStorage(frame.pointee.userInfo, userInfo) {
                guard let mark = findMark(in: userInfo) else { return false }
                // Usually the innermost frame; an outer one when the notification is re-posted from a nested post.
                while frame.pointee.mark != mark {
                    guard let previous = frame.pointee.previous else { return false }
                    frame = previous.assumingMemoryBound(to: Frame.self)
                }
            }
        } else {
            let object = notification.object.map { $0 as AnyObject }
            guard frame.pointee.userInfo == nil, object === frame.pointee.sender else { return false }
        }
        guard frame.pointee.channel == channel.ordinal, !frame.pointee.consumed else { return false }
        frame.pointee.consumed = true
        return true
    }

    /// The mark among `userInfo`'s values. Searched by type, not looked up by key (see above); on Apple platforms the
    /// value may come back boxed by the Objective-C bridge, which `as?` unboxes.
    private static func findMark(in userInfo: [AnyHashable: Any]) -> PostMark? {
        for value in userInfo.values {
            if let mark = value as? PostMark { return mark }
        }
        return nil
    }

    /// Whether `rhs` is the very same dictionary storage as `lhs`, by their bit pattern.
    private static func sameStorage(_ lhs: [AnyHashable: Any]?, _ rhs: [AnyHashable: Any]) -> Bool {
        guard let lhs else { return false }
        return withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right in left.elementsEqual(right) }
        }
    }

    /// One typed post in Foundation, on the posting thread's stack; `tn_post_frame()` points at the innermost, and
    /// only that thread reads or writes it.
    private struct Frame {
        /// The ordinal of the channel whose typed observers the post reached directly.
        let channel: UInt64
        let sender: AnyObject?
        let previous: UnsafeMutableRawPointer?
        /// `nil` when the post has no `userInfo`.
        var mark: PostMark?
        /// Kept alive by the frame, so no other dictionary can have its storage while the frame is active.
        var userInfo: [AnyHashable: Any]?
        var consumed = false
    }
}

/// The mark of one typed post in its `userInfo`, under `Notification.typedPostKey`: unique in the process, because it
/// pairs a number given to the posting thread (never reused) with the count of that thread's posts.
///
/// A small value, so storing it in `userInfo` allocates nothing on Linux; on Apple platforms the Objective-C bridge
/// boxes it, as it does any Swift struct.
struct PostMark: Hashable, Sendable {
    let thread: UInt64
    let post: UInt64
}

/// One channel's Foundation observer: what removes it, and what notices when Foundation lets it go.
///
/// The bridge's block owns it, and nothing else holds it strongly, so it is deallocated exactly when Foundation
/// releases the block: when the package removes the observer, or when the center is deallocated with the observer
/// still registered. In the second case `deinit` tells the registry to drop the channel and release its observers,
/// so that nothing outlives the center it served.
///
/// Foundation's token must stay alive for `removeObserver(_:)`, but must not keep the block alive, or a dead
/// center's block would never go: ``FoundationObserverToken`` (in `Platform.swift`) keeps it as each platform's
/// Foundation requires.
///
/// It holds its channel strongly (the channel refers back to it weakly, so there is no cycle): a channel that nothing
/// refers to weakly keeps the runtime's fast path for retain and release, which every plain post that reaches the
/// bridge uses. After a normal removal, `deinit` finds the channel already dropped, and does nothing.
///
/// `@unchecked Sendable` because `storedToken` is set once, by `keep(_:)`, before the registration is published to
/// the registry (whose lock publishes it); `channel` never changes.
final class BridgeRegistration: @unchecked Sendable {
    let channel: AnyChannel
    private var storedToken: FoundationObserverToken?

    init(_ channel: AnyChannel) {
        self.channel = channel
    }

    deinit {
        ObserverRegistry.shared.bridgeEnded(channel)
    }

    func keep(_ token: any NSObjectProtocol) {
        storedToken = FoundationObserverToken(token)
    }

    /// Foundation's token, for `removeObserver(_:)`; `nil` once Foundation has let it go.
    var token: AnyObject? { storedToken?.object }
}
