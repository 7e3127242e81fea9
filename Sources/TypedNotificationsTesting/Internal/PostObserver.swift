import Foundation
import TypedNotifications

/// A weak reference to the object that posted a notification, compared by identity.
///
/// `@unchecked Sendable` because the object need not be `Sendable`. That is safe because the testing kit only compares
/// it by identity (`===`) and hands it out only as a `Sender` that is `Sendable` (``NotificationRecorder/senders``);
/// the Swift runtime reads and clears weak references atomically. Being weak, it never keeps a sender alive, and a
/// freed sender never matches a new object that reuses its address.
struct SenderReference: @unchecked Sendable {
    weak var object: AnyObject?

    init(_ object: AnyObject?) {
        self.object = object
    }

    func refers(to other: AnyObject) -> Bool {
        object === other
    }
}

/// One post of `Subject` as a ``PostObserver`` saw it.
struct ObservedPost<Subject: Notifiable>: Sendable {
    /// The decoded payload, or why `Subject.payload(from:)` could not decode it.
    let payload: Result<Subject.Payload, any Error>
    /// Who posted it (`object` of the notification).
    let sender: SenderReference
    /// `false` when the observer filters by sender and another object posted it.
    let isFromObservedSender: Bool
}

/// A plain Foundation observer of one `Notifiable` type's name that sees every post once, with its sender.
///
/// The testing kit needs each post's sender, which the typed handlers of `TypedNotifications` do not receive, so it
/// observes the way plain `NotificationCenter` code does: typed posts reach plain observers with `object` set to the
/// sender and `userInfo` from `Subject.userInfo(for:)`, and plain posts arrive as they are. Either way, each post
/// reaches this observer exactly once, synchronously on the posting thread, and its payload is decoded with
/// `Subject.payload(from:)`, as the package's bridge decodes plain posts for typed observers. A decoding error is handed
/// on, never thrown.
///
/// Sender filtering is done here, by identity against a weak reference, not with Foundation's `object:` parameter,
/// which on Linux compares addresses only and would match a new object at a freed sender's address.
final class PostObserver<Subject: Notifiable>: Sendable {
    private let center: NotificationCenter
    private let sender: SenderReference
    private let filtersBySender: Bool
    private let handler: @Sendable (ObservedPost<Subject>) -> Void
    /// Foundation's registration, taken out exactly once by ``cancel()``: on Linux, removing a stale registration a
    /// second time can remove another, newer observer.
    private let registration = Locked<Registration?>(nil)
    /// Set first by ``cancel()``. Foundation on Linux still calls an observer removed during a post that is already
    /// delivering, so ``receive(_:)`` checks it.
    private let cancelled = AtomicWord.make()

    /// Starts observing before it returns.
    init(
        center: NotificationCenter,
        sender: Subject.Sender?,
        handler: @escaping @Sendable (ObservedPost<Subject>) -> Void
    ) {
        self.center = center
        self.sender = SenderReference(sender)
        self.filtersBySender = sender != nil
        self.handler = handler
        // Foundation hands the block below to posting threads through its own lock, which ThreadSanitizer cannot see
        // on Linux; this release, paired with the acquire in `receive(_:)`, lets it see the fields above published.
        FoundationPublication.publish()
        let token = center.addObserver(forName: Subject.notificationName, object: nil, queue: nil) {
            [weak self] notification in
            self?.receive(notification)
        }
        registration.withLock { $0 = Registration(token: token) }
    }

    deinit {
        cancel()
    }

    /// Ends the observation: no post that starts after this returns reaches the handler. Idempotent, thread-safe.
    func cancel() {
        guard cancelled.set() else { return }
        guard let registration = registration.withLock({ $0.take() }) else { return }
        center.removeObserver(registration.token)
    }

    private func receive(_ notification: Notification) {
        FoundationPublication.acquire()
        guard !cancelled.isSet else { return }
        let object = notification.object.map { $0 as AnyObject }
        var isFromObservedSender = true
        if filtersBySender {
            isFromObservedSender = object.map(sender.refers(to:)) ?? false
        }
        let payload = Result { try Subject.payload(from: notification) }
        let sender = SenderReference(object)
        handler(ObservedPost(payload: payload, sender: sender, isFromObservedSender: isFromObservedSender))
    }
}

/// Foundation's observer token.
///
/// `@unchecked Sendable` because `NSObjectProtocol` is not `Sendable`; that is safe because the token is never used,
/// only stored under ``PostObserver``'s lock and handed back to `removeObserver(_:)` once.
private struct Registration: @unchecked Sendable {
    let token: any NSObjectProtocol
}
