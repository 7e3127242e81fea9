import Foundation
import Synchronization

/// What a ``NotificationToken`` holds on to: one registered observation that it can end.
protocol Observation: AnyObject, Sendable {
    /// Ends the observation; idempotent and thread-safe.
    func cancel()
}

/// One typed observer on one ``Channel``: its handler, its filters, and whether it has ended.
///
/// `@unchecked Sendable` because of the two weak references, whose types need not be `Sendable`: the sender is only
/// ever compared by identity, never used, and the owner is `Sendable` where the public API accepts it (it is stored
/// as `AnyObject` only to be tested for `nil`). Everything else is immutable after `init` except `cancelled`, which
/// is atomic, and the Swift runtime reads and clears weak references atomically.
final class Subscription<Subject: Notifiable>: Observation, @unchecked Sendable {
    typealias Payload = Subject.Payload

    private let channel: Channel<Subject>
    /// Only payloads posted by this object (compared by identity) are delivered. Being weak, a freed sender can
    /// never match again, even when a new object reuses its address.
    private weak let sender: Subject.Sender?
    private let filtersBySender: Bool
    /// For owner-bound observations: once the owner is gone, the observation ends.
    private weak let owner: AnyObject?
    private let isOwnerBound: Bool
    private let handler: @Sendable (Payload) -> Void
    /// For asynchronous delivery: the FIFO that hands payloads to the handler's queue or actor.
    private let mailbox: Mailbox<Payload>?
    private let cancelled = Atomic<Bool>(false)

    init(
        channel: Channel<Subject>,
        sender: Subject.Sender?,
        owner: AnyObject?,
        executor: Executor?,
        handler: @escaping @Sendable (Payload) -> Void
    ) {
        self.channel = channel
        self.sender = sender
        self.filtersBySender = sender != nil
        self.owner = owner
        self.isOwnerBound = owner != nil
        self.handler = handler
        self.mailbox = executor.map(Mailbox.init)
    }

    var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    /// `false` once the owner of an owner-bound observation has been deallocated.
    var isAlive: Bool { !isOwnerBound || owner != nil }

    func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        mailbox?.discardPending()
        channel.remove(self)
    }

    /// Delivers one post if the observation is still active and the sender matches.
    /// - Returns: whether the handler was reached (or its delivery queued).
    @discardableResult
    func deliver(_ payload: Payload, from postSender: AnyObject?) -> Bool {
        if isCancelled { return false }
        if filtersBySender {
            guard let postSender, let sender, postSender === sender else { return false }
        }
        guard isAlive else {
            cancel()
            return false
        }
        if let mailbox {
            mailbox.enqueue(payload) { payload in self.runHandler(payload) }
        } else {
            handler(payload)
        }
        return true
    }

    /// The last check before the handler runs, for deliveries that waited in a mailbox.
    private func runHandler(_ payload: Payload) {
        guard !isCancelled else { return }
        guard isAlive else {
            cancel()
            return
        }
        handler(payload)
    }
}
