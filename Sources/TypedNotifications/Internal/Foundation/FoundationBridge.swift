import CTypedNotificationsRuntime
public import Foundation

/// Where typed observers meet `NotificationCenter`: the one place that calls it, never under a lock of the package
/// (checked in debug builds by ``LockDiscipline``). A typed post reaches its typed observers directly, then goes to
/// Foundation for plain observers; each ``Channel``'s Foundation observer, its *bridge*, decodes plain posts for the
/// typed observers but must skip that one (observers registered since it began start with the next post).
///
/// How a bridge recognises the post: during `post(name:object:userInfo:)` a *record* sits on the posting thread's stack
/// (found through a thread-local pointer) with the post's type, center and sender, the dictionary handed to Foundation
/// (kept alive, so no other can take its storage) and the newest bridge when it began. As Foundation calls observers
/// synchronously, a bridge matches a record of its type and center by sender and `userInfo` storage (or none), and
/// skips the first match, once. A bridge registered by the posting thread during the post is never called for it
/// (assumed, as Swift's Foundation does; see the Guarantees article), so what it gets is a re-post, delivered; one
/// registered by another thread meanwhile may or may not be called for it, and skips it like any other. A relay with
/// another sender, center or dictionary (a transformer copies it to change it) is a new post, delivered; a verbatim
/// re-post (same sender and dictionary) cannot be told apart, and is delivered once, instead of or after the original.
/// The record names type and center, not a channel, so a channel replaced during the post skips it too. Exact where
/// observers get the posted dictionary itself (Swift's Foundation; Apple's bridging adopts its native storage).
///
/// Where Foundation hands over a copy (as the build simulating Apple platforms does), storage proves nothing: once
/// ``Platform/foundationCopiesUserInfo`` says so, an observed typed post's `userInfo` carries a number unique
/// to it under `Notification.typedPostKey` (a property-list and JSON value), compared instead. A plain observer that
/// copies that entry, changes the payload and re-posts from the same sender then looks like a verbatim re-post.
@usableFromInline
enum FoundationBridge {
    /// Registers `channel`'s bridge on `center`; its block owns the returned ``BridgeRegistration``.
    static func addBridgeObserver<Event: Notifiable>(
        for channel: Channel,
        of subject: Event.Type,
        on center: NotificationCenter
    ) -> BridgeRegistration {
        LockDiscipline.assertNoLockHeld("adds a Foundation observer")
        let registration = BridgeRegistration(channel)
        // Pairs with the acquire below (see `publication`).
        publication.add(1)
        registration.token = Platform.addObserver(channel.name, on: center) { notification in
            _ = publication.load()
            #if DEBUG
            channel.recordActivity()  // a plain post: a token made before was used
            #endif
            withExtendedLifetime(registration) { channel.receivePlain(notification, of: subject) }
        }
        return registration
    }

    static func removeBridgeObserver(_ bridge: BridgeRegistration, from center: NotificationCenter) {
        LockDiscipline.assertNoLockHeld("removes a Foundation observer")
        if let token = bridge.token { center.removeObserver(token) }
    }

    /// Publishes the fields of a channel and its bridge, which `NotificationCenter` hands to posting threads (for the
    /// bridge's block) through a lock of its own: safe, but invisible on Linux to ThreadSanitizer, which flags the
    /// first reads. So the bridge's registration adds to it once the bridge and its channel exist, and the block loads
    /// it before reading them: one release and one acquire on one word per plain post that reaches a bridge, a plain
    /// load on x86 and ARM. For ThreadSanitizer, not for speed: without them it reports races in the suite, all such
    /// first reads (in `addBridgeObserver` and `isOwnPost`, `Channel.recordActivity`,
    /// `ObserverRegistry.observers(of:)`); suppressing those functions would hide real races in them too.
    private static let publication = AtomicWord.make()

    /// Posts a typed notification to Foundation for plain observers, with a record that lets `subject`'s bridges on
    /// `center` skip it. Without typed observers (`observed`) it needs no record: the type has no bridge on `center`,
    /// and one registered during the post is not called for it.
    @usableFromInline
    static func post(
        name: Notification.Name,
        sender: AnyObject?,
        userInfo: consuming [AnyHashable: Any]?,
        subject: ObjectIdentifier,
        observed: Bool,
        in center: NotificationCenter
    ) {
        LockDiscipline.assertNoLockHeld("posts")
        guard observed else {
            center.post(name: name, object: sender, userInfo: Platform.postable(userInfo))
            return
        }
        var record = PostRecord(
            subject: subject,
            center: ObjectIdentifier(center),
            sender: sender,
            newestBridge: newestBridge.load(),
            previous: tn_post_frame()
        )
        if var userInfo = consume userInfo {
            if Platform.foundationCopiesUserInfo {
                let mark = Int(truncatingIfNeeded: nextMark.add(1))
                userInfo[Notification.typedPostKey] = mark
                record.mark = mark
            }
            record.userInfo = Platform.postable(userInfo)
        }
        withUnsafeMutablePointer(to: &record) { record in
            tn_set_post_frame(record)
            #if DEBUG
            TestHooks.reached(.foundationPost, on: ObjectIdentifier(center))
            #endif
            center.post(name: name, object: sender, userInfo: record.pointee.userInfo)
            tn_set_post_frame(record.pointee.previous)
        }
    }

    /// The last mark given to a post, where Foundation copies `userInfo`.
    private static let nextMark = AtomicWord.make()
    /// The ordinal of the newest channel, whose bridge is registered next.
    private static let newestBridge = AtomicWord.make()

    /// Taken before a new channel's bridge is registered: a post that saw a smaller newest ordinal began before it.
    static func nextBridgeOrdinal() -> UInt64 {
        newestBridge.add(1)
    }

    /// Whether `channel`'s bridge must skip `notification`: the typed post in progress here, received the first time.
    static func isOwnPost(_ notification: Notification, on channel: Channel) -> Bool {
        var next = tn_post_frame()
        while let raw = next {
            let record = raw.assumingMemoryBound(to: PostRecord.self)
            next = record.pointee.previous
            guard record.pointee.subject == channel.subject, record.pointee.center == channel.centerID,
                record.pointee.isPost(of: notification)
            else { continue }
            // Made since the post began, by this thread: inside the post, so registered after Foundation took its list
            // of observers, and never called for it: this is a re-post. One made by another thread meanwhile may have
            // been registered before Foundation took its list; its observers started after the post's typed half, so
            // it skips the post like any other bridge.
            if channel.ordinal > record.pointee.newestBridge, channel.creatingThread == tn_thread_marker() {
                return false
            }
            if record.pointee.consume(by: channel) { return true }
        }
        return false
    }

    /// Whether `notification` is a typed post, of any type, in progress on this thread on the center `centerID`.
    static func isTypedPost(_ notification: Notification, on centerID: ObjectIdentifier) -> Bool {
        var next = tn_post_frame()
        while let raw = next {
            let record = raw.assumingMemoryBound(to: PostRecord.self)
            if record.pointee.center == centerID, record.pointee.isPost(of: notification) { return true }
            next = record.pointee.previous
        }
        return false
    }

    /// Whether two dictionaries are the very same, not equal ones: a `Dictionary` is one reference to its storage, so
    /// equal bit patterns mean the same storage (kept alive by its `PostRecord`, so its address is not reused).
    static func hasSameStorage(_ lhs: [AnyHashable: Any], _ rhs: [AnyHashable: Any]) -> Bool {
        withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right in
                // One word: compared as one load and one comparison, not byte by byte (every observed post makes it;
                // see `PostRecord`).
                guard left.count == MemoryLayout<UInt>.size else { return left.elementsEqual(right) }
                return left.load(as: UInt.self) == right.load(as: UInt.self)
            }
        }
    }

    /// One typed post in Foundation, on the posting thread's stack; `tn_post_frame()` points at the innermost, and
    /// only that thread reads or writes it. On the stack, so that recognising a post allocates nothing,
    /// and found through a C thread-local, one load, where `Thread.current.threadDictionary` would cost a dictionary
    /// lookup on every post. With the one-word storage comparison (``hasSameStorage(_:_:)``), this is what the
    /// first-observer row of the Performance article's instruction table pays to recognise the post.
    private struct PostRecord {
        let subject: ObjectIdentifier
        let center: ObjectIdentifier
        let sender: AnyObject?
        /// The newest channel's ordinal when the post began: bridges up to it were registered before.
        let newestBridge: UInt64
        let previous: UnsafeMutableRawPointer?
        /// The dictionary handed to Foundation (`nil` for none), kept alive so that no other can take its storage.
        var userInfo: [AnyHashable: Any]?
        /// The number under `Notification.typedPostKey`, where Foundation copies `userInfo`.
        var mark: Int?
        /// The channels whose bridges skipped the post: usually one, more if handlers replaced the channel meanwhile.
        var firstConsumer: ObjectIdentifier?
        var otherConsumers: [ObjectIdentifier] = []

        /// Marks the post skipped by `channel`'s bridge; `false` if that bridge already skipped it.
        mutating func consume(by channel: Channel) -> Bool {
            let id = ObjectIdentifier(channel)
            guard let firstConsumer else {
                firstConsumer = id
                return true
            }
            guard firstConsumer != id, !otherConsumers.contains(id) else { return false }
            otherConsumers.append(id)
            return true
        }

        func isPost(of notification: Notification) -> Bool {
            guard (notification.object as AnyObject?) === sender else { return false }
            switch (userInfo, notification.userInfo) {
            case (nil, nil):
                return true
            case (let posted?, let received?):
                if let mark { return received[Notification.typedPostKey] as? Int == mark }
                return FoundationBridge.hasSameStorage(posted, received)
            default:
                return false
            }
        }
    }
}

/// One channel's Foundation observer: what removes it, and what notices when Foundation lets it go.
///
/// Only the bridge's block holds it strongly, so it goes exactly when Foundation releases the block: when the
/// package removes the observer (then `deinit` finds the channel dropped), or when the center is deallocated with the
/// observer registered (then `deinit` has the registry drop the channel and end its observers).
///
/// It holds its channel strongly (the channel's reference back is weak, so no cycle): a channel that nothing refers
/// to weakly keeps the runtime's fast path for retain and release, which every plain post to the bridge uses.
///
/// `@unchecked Sendable` because `token` is set once, by `FoundationBridge.addBridgeObserver`, before the registration
/// is published to the registry (whose lock publishes it); `channel` never changes.
final class BridgeRegistration: @unchecked Sendable {
    let channel: Channel
    /// Foundation's token, for `removeObserver(_:)`; `nil` once Foundation has let it go. Weak: it lasts as long as the
    /// observer's registration (``Platform/addObserver(_:on:using:)``), and on Apple platforms it holds the observer's
    /// block, which holds this registration: a strong reference here would keep both alive after the center is gone.
    weak var token: AnyObject?

    init(_ channel: Channel) {
        self.channel = channel
    }

    deinit {
        ObserverRegistry.shared.bridgeEnded(channel)
    }
}
