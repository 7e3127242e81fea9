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

/// One post of `Event` as a ``PostObserver`` saw it.
struct ObservedPost<Event: Notifiable>: Sendable {
    /// The decoded payload, or why `Event.payload(from:)` could not decode it.
    let payload: Result<Event.Payload, any Error>
    /// Who posted it (`object` of the notification).
    let sender: SenderReference
    /// `false` when the observer filters by sender and another object posted it.
    let isFromObservedSender: Bool
    /// Where it was made, for an observer of an `expectPosts` block; always ``PostOrigin/inScope`` otherwise.
    let origin: PostOrigin
}

/// A typed observer of every `Event` post on a center, from any sender, that tells who posted each.
///
/// It observes through the package's own typed observation with the sender (the package-level `observeEveryPost`,
/// which also hands on plain posts that do not decode, as errors): each post, typed or plain, reaches it exactly once,
/// synchronously on the posting thread, in the order typed observers are called.
///
/// Sender filtering is done here, by identity against a weak reference, so that posts from other senders can be
/// reported too.
final class PostObserver<Event: Notifiable>: Sendable {
    private let token: NotificationToken

    /// Starts observing before it returns.
    ///
    /// - Parameters:
    ///   - scope: The `expectPosts` block whose posts count, which the handler is told the origin of each post
    ///     against; `nil` for every post.
    ///   - file: The `#fileID` of the test code that made the recorder or expectation, which introspection lists.
    ///   - line: Its `#line`.
    init(
        center: NotificationCenter,
        sender: Event.Sender?,
        scope: PostScope? = nil,
        file: StaticString,
        line: UInt,
        handler: @escaping @Sendable (ObservedPost<Event>) -> Void
    ) {
        let observed = SenderReference(sender)
        let filtersBySender = sender != nil
        token = center.observeEveryPost(Event.self, file: file, line: line) { payload, object in
            var isFromObservedSender = true
            if filtersBySender {
                isFromObservedSender = object.map(observed.refers(to:)) ?? false
            }
            handler(
                ObservedPost(
                    payload: payload,
                    sender: SenderReference(object),
                    isFromObservedSender: isFromObservedSender,
                    // On the posting thread, so it reads the posting task's scope.
                    origin: scope?.originOfCurrentPost() ?? .inScope
                )
            )
        }
    }

    /// Ends the observation: no post that starts after this returns reaches the handler. Idempotent, thread-safe.
    func cancel() {
        token.cancel()
    }
}
