import CTypedNotificationsRuntime
public import Foundation

/// Where typed observers meet `NotificationCenter`: the one place that calls it.
///
/// - Each ``Channel`` registers one Foundation observer, its *bridge*, that decodes plain posts under the type's name
///   once and fans them out to the typed observers.
/// - A typed post delivers to its typed observers directly, without `userInfo`, then posts to Foundation so that plain
///   observers see it too, and every bridge of its type on its center must skip that post: the observers that were
///   registered when it began already have it, and those registered since start with the next post.
///
/// How a bridge recognises the post, in one paragraph: while the package is inside `post(name:object:userInfo:)`, a
/// *record* of the post sits on the posting thread (a frame on its stack, found through a thread-local pointer): the
/// post's type and center, its sender, the very dictionary it hands Foundation (which the record keeps alive, so that
/// no other dictionary can have its storage meanwhile), and the newest bridge registered when it began. Foundation
/// calls observers synchronously on the posting thread, so a bridge that receives a notification looks for a record
/// of its own type and center, from the same sender, with the same `userInfo` storage (or, for a post without
/// `userInfo`, none either). A bridge registered before the post began (so Foundation calls it for the post) skips
/// the first such notification it receives, once; a bridge registered since (a plain observer observed during the
/// post) is never called for the post, so whatever it receives is a re-post, and is delivered. Nothing a plain
/// observer does can look like the post: a relay with another sender, another center or a new dictionary (a
/// transformer copies the dictionary before it changes it) is a new post, delivered to the typed observers it is for;
/// only a verbatim re-post (same sender, same dictionary) cannot be told apart, and is delivered once, in place of
/// the original or after it. Since the record names the type and center, not one channel, a channel made during the
/// post (a handler that cancels the last observation and observes again) skips the post too. This is exact where
/// Foundation hands observers the posted dictionary itself: Swift's Foundation does, and Apple's bridging adopts the
/// native storage of a Swift dictionary on the way back; it assumes, as Swift's Foundation does, that an observer
/// added while a post is delivered is not called for it (see the Guarantees article).
///
/// Where Foundation hands observers a copy instead (the build that simulates Apple platforms makes one, standing for a
/// Foundation that rebuilds the dictionary), the storage proves nothing. ``PlatformBridging/foundationCopiesUserInfo``
/// finds out once per process, and then the `userInfo` of a typed post that has typed observers carries one more entry,
/// a number unique to the post under `Notification.typedPostKey` (a property-list and JSON value), which the record
/// remembers and the bridge compares instead. There, a plain observer that copies the `userInfo` with that entry, changes the payload and
/// re-posts it from the same sender cannot be told from a verbatim re-post.
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
        // The block owns the registration, and refers to the typed channel (which the registration holds too).
        let token = center.addObserver(forName: channel.name, object: nil, queue: nil) { notification in
            FoundationPublication.acquire()
            #if DEBUG
            channel.recordActivity()  // a plain post: a token made before was used
            #endif
            withExtendedLifetime(registration) { channel.receivePlain(notification) }
        }
        registration.keep(token)
        return registration
    }

    static func removeBridgeObserver(_ bridge: BridgeRegistration, from center: NotificationCenter) {
        LockDiscipline.assertNoLockHeld("removes a Foundation observer")
        if let token = bridge.token { center.removeObserver(token) }
    }

    /// Posts a typed notification to Foundation for plain observers, with a record that lets the bridges of `subject`
    /// on `center` skip it.
    ///
    /// - Parameter observed: Whether the post found typed observers. Without them it needs no record: the type has no
    ///   bridge on `center`, and one registered during the post is not called for it (Foundation's snapshot of its
    ///   observers; see the Guarantees article).
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
            center.post(name: name, object: sender, userInfo: PlatformBridging.postable(userInfo))
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
            if PlatformBridging.foundationCopiesUserInfo {
                let mark = Int(truncatingIfNeeded: nextMark.add(1))
                userInfo[Notification.typedPostKey] = mark
                record.mark = mark
            }
            record.userInfo = PlatformBridging.postable(userInfo)
        }
        withUnsafeMutablePointer(to: &record) { record in
            tn_set_post_frame(record)
            center.post(name: name, object: sender, userInfo: record.pointee.userInfo)
            tn_set_post_frame(record.pointee.previous)
        }
    }

    /// The last mark given to a post, where Foundation copies `userInfo`.
    private static let nextMark = AtomicWord.make()
    /// The ordinal of the newest channel, whose bridge is registered next.
    private static let newestBridge = AtomicWord.make()

    /// An ordinal for a new channel, taken before its bridge is registered: a post whose record saw a smaller newest
    /// ordinal began before the bridge existed.
    static func nextBridgeOrdinal() -> UInt64 {
        newestBridge.add(1)
    }

    /// Whether `notification` is the typed post in progress on this thread that `channel`'s bridge must skip: the
    /// post itself, the first time that bridge receives it (see above).
    static func isOwnPost(_ notification: Notification, on channel: AnyChannel) -> Bool {
        var next = tn_post_frame()
        while let raw = next {
            let record = raw.assumingMemoryBound(to: PostRecord.self)
            next = record.pointee.previous
            guard record.pointee.subject == channel.subject, record.pointee.center == channel.centerID,
                record.pointee.isPost(of: notification)
            else { continue }
            // Registered since the post began: Foundation never calls it for the post, so this is a re-post.
            if channel.ordinal > record.pointee.newestBridge { return false }
            if record.pointee.consume(by: channel) { return true }
        }
        return false
    }

    /// Whether `notification` is a typed post in progress on this thread on the center `centerID`, of any type; for
    /// telling another type's typed post under a shared name from a plain post that fails to decode.
    static func isTypedPost(_ notification: Notification, on centerID: ObjectIdentifier) -> Bool {
        var next = tn_post_frame()
        while let raw = next {
            let record = raw.assumingMemoryBound(to: PostRecord.self)
            if record.pointee.center == centerID, record.pointee.isPost(of: notification) { return true }
            next = record.pointee.previous
        }
        return false
    }

    /// One typed post in Foundation, on the posting thread's stack; `tn_post_frame()` points at the innermost, and
    /// only that thread reads or writes it.
    ///
    /// Records on the stack and the one-word storage comparison (``StorageIdentity``) pay together: a heap record
    /// and a generic byte comparison cost 5.5% more instructions for a post to one observer (7,752 → 8,177; 2.9% and
    /// 3.4% apart), and a Swift thread-local (`Thread.current.threadDictionary`) instead of the C one 345% more
    /// (callgrind, `Benchmarks/instructions.sh`).
    private struct PostRecord {
        let subject: ObjectIdentifier
        let center: ObjectIdentifier
        let sender: AnyObject?
        /// The newest channel's ordinal when the post began: bridges up to it were registered before.
        let newestBridge: UInt64
        let previous: UnsafeMutableRawPointer?
        /// The dictionary handed to Foundation; kept alive by the record, so no other dictionary can have its storage
        /// while the record is active. `nil` when the post has no `userInfo`.
        var userInfo: [AnyHashable: Any]?
        /// The number under `Notification.typedPostKey`, where Foundation copies `userInfo`.
        var mark: Int?
        /// The channels whose bridges have skipped the post: usually one, more when handlers replaced the channel
        /// during the post.
        var firstConsumer: ObjectIdentifier?
        var otherConsumers: [ObjectIdentifier] = []

        /// Marks the post skipped by `channel`'s bridge; `false` if that bridge already skipped it.
        mutating func consume(by channel: AnyChannel) -> Bool {
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
                return StorageIdentity.same(posted, received)
            default:
                return false
            }
        }
    }
}

/// Whether two dictionaries share their storage: the very dictionary, not an equal one.
///
/// A `Dictionary` is one reference to its storage, so equal bit patterns mean the same storage. The storage compared
/// against is kept alive by its `PostRecord`, so no other dictionary can be given its address meanwhile.
enum StorageIdentity {
    static func same(_ lhs: [AnyHashable: Any], _ rhs: [AnyHashable: Any]) -> Bool {
        withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right in
                // One word: compared as one (a generic byte comparison costs 266 more instructions per observed post,
                // 3.4% of a post to one observer; see `PostRecord`).
                guard left.count == MemoryLayout<UInt>.size else { return left.elementsEqual(right) }
                return left.load(as: UInt.self) == right.load(as: UInt.self)
            }
        }
    }
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
