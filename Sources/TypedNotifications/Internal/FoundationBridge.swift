public import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// Where typed observers meet `NotificationCenter`.
///
/// - Each ``Channel`` registers one Foundation observer, its *bridge*, that decodes plain posts under the type's name
///   and fans them out to the typed observers.
/// - A typed post delivers to its typed observers directly, then posts to Foundation so that plain observers see it
///   too. The bridge must then recognise that post as already delivered, without reading `userInfo` (reading it costs
///   more than the whole direct delivery). The typed post records a *frame* in a thread-local slot before calling
///   Foundation: which channel it is for, and the exact `userInfo` storage and sender it passes. Foundation calls
///   observers synchronously on the posting thread, so the bridge finds the frame, and skips the post if the
///   notification carries that very storage and sender. A frame is consumed once, so a plain observer that re-posts
///   under the same name from inside delivery is still delivered: a new `userInfo` never matches, and a verbatim
///   re-post of the same `userInfo` is delivered once too (in place of the one it is indistinguishable from).
/// - A typed post that found no channel needs no frame: a bridge registered while it is delivering is not in the
///   snapshot of observers that Foundation took for it. (`Notifiable.userInfo(for:)` runs in between and must
///   therefore not observe; it is meant to be a pure function of the payload.)
///
/// On platforms where Foundation may copy `userInfo` while posting (Apple's, which bridge to `NSDictionary`), the
/// frame could not be matched safely, so direct delivery is off and every post goes through the bridge.
@usableFromInline
enum FoundationBridge {
    static func addBridgeObserver<Subject: Notifiable>(for channel: Channel<Subject>) -> any NSObjectProtocol {
        channel.center.addObserver(forName: channel.name, object: nil, queue: nil) { [weak channel] notification in
            channel?.receivePlain(notification)
        }
    }

    /// Whether typed posts reach their typed observers directly, with the bridge skipping them (see above).
    @inlinable
    static var deliversDirectly: Bool {
        #if canImport(Glibc) || canImport(Musl) || canImport(Android)
        true
        #else
        false
        #endif
    }

    /// Posts a typed notification to Foundation for plain observers; the bridge of `subject` on `center` skips it.
    @usableFromInline
    static func post<Subject: Notifiable>(
        _ subject: Subject.Type,
        name: Notification.Name,
        sender: AnyObject?,
        userInfo: [AnyHashable: Any]?,
        in center: NotificationCenter
    ) {
        #if canImport(Glibc) || canImport(Musl) || canImport(Android)
        let slot = slot
        var frame = Frame(
            center: ObjectIdentifier(center),
            subject: ObjectIdentifier(subject),
            newestChannel: AnyChannel.newestOrdinal.load(ordering: .acquiring),
            userInfo: userInfo,
            sender: sender,
            previous: pthread_getspecific(slot)
        )
        withUnsafeMutablePointer(to: &frame) { pointer in
            pthread_setspecific(slot, pointer)
            center.post(name: name, object: sender, userInfo: userInfo)
            pthread_setspecific(slot, pointer.pointee.previous)
        }
        #else
        center.post(name: name, object: sender, userInfo: userInfo)
        #endif
    }

    /// Whether `notification` is the typed post that the current thread is making on `channel` (consumed once).
    static func isOwnPost(_ notification: Notification, on channel: AnyChannel) -> Bool {
        #if canImport(Glibc) || canImport(Musl) || canImport(Android)
        guard let raw = pthread_getspecific(slot) else { return false }
        channel.synchronizeWithCreation()
        // Safe: only `post(_:name:sender:userInfo:in:)` stores into the slot, always a pointer to a live `Frame`.
        let frame = raw.assumingMemoryBound(to: Frame.self)
        guard !frame.pointee.consumed,
            frame.pointee.subject == channel.subject,
            frame.pointee.center == ObjectIdentifier(channel.center),
            channel.ordinal <= frame.pointee.newestChannel
        else { return false }
        let object = notification.object.map { $0 as AnyObject }
        guard object === frame.pointee.sender, sameStorage(notification.userInfo, frame.pointee.userInfo) else {
            return false
        }
        frame.pointee.consumed = true
        return true
        #else
        return false
        #endif
    }
}

#if canImport(Glibc) || canImport(Musl) || canImport(Android)
extension FoundationBridge {
    /// One typed post in flight on this thread.
    private struct Frame {
        /// The center and `Notifiable` type of the post: together they name the channel whose bridge skips it (one
        /// created while typed observers were being called, before the Foundation post, included).
        let center: ObjectIdentifier
        let subject: ObjectIdentifier
        /// The newest channel when the post went to Foundation. Only channels up to it can have their bridge in
        /// Foundation's snapshot of observers for this post; a channel created later (by a plain observer, during
        /// the post) never sees the post itself, so a verbatim re-post that reaches its bridge is a new post and must
        /// neither be skipped nor consume the frame.
        let newestChannel: UInt64
        /// Kept alive by the frame, so no other dictionary can reuse its storage while the frame is active.
        let userInfo: [AnyHashable: Any]?
        let sender: AnyObject?
        var consumed = false
        let previous: UnsafeMutableRawPointer?
    }

    /// The innermost active frame of the current thread. Frames live on the stack of `post(_:name:…)`, which sets and
    /// restores the slot around the Foundation call, so a stored pointer never outlives its frame.
    private static let slot: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "TypedNotifications could not create its thread-local slot")
        return key
    }()

    /// Whether two `userInfo` values are the very same dictionary storage (or both `nil`), by their bit pattern.
    private static func sameStorage(_ lhs: [AnyHashable: Any]?, _ rhs: [AnyHashable: Any]?) -> Bool {
        withUnsafeBytes(of: lhs) { left in
            withUnsafeBytes(of: rhs) { right in left.elementsEqual(right) }
        }
    }
}
#endif
