public import Foundation

/// What a ``NotificationToken`` holds on to: one registered observation that it can end.
@usableFromInline
protocol Observation: AnyObject, Sendable {
    /// Ends the observation; idempotent and thread-safe.
    func cancel()

    /// Whether the observation is on `center`.
    func isObserving(_ center: NotificationCenter) -> Bool
}

/// The type-independent part of one observer: its filters, its lifetime, and its place in a ``Channel``.
///
/// The registry's bookkeeping (adding, removing, sweeping, counting) works on this non-generic class only, so it runs
/// as concrete code; only ``Subscription/deliver(_:from:)`` is generic.
///
/// `@unchecked Sendable` because of the two weak references, whose types need not be `Sendable`: the sender is only
/// ever compared by identity, never used, and the owner is `Sendable` where the public API accepts it (it is stored
/// as `AnyObject` only to be tested for `nil`). Everything else is immutable after `init` except `isCancelled`,
/// which is read and written only under `ObserverRegistry`'s lock, and the Swift runtime reads and clears weak
/// references atomically.
@usableFromInline
class AnySubscription: Observation, @unchecked Sendable {
    @usableFromInline
    let channel: AnyChannel
    /// Only payloads posted by this object (compared by identity) are delivered. Being weak, a freed sender can
    /// never match again, even when a new object reuses its address. Set once, in `init`.
    @usableFromInline
    weak var sender: AnyObject?
    @usableFromInline
    let filtersBySender: Bool
    /// For owner-bound observations: once the owner is gone, the observation ends. Set once, in `init`.
    @usableFromInline
    weak var owner: AnyObject?
    @usableFromInline
    let isOwnerBound: Bool
    /// Set once, when the observation ends (cancelled, or swept after its owner died). Guarded by the registry's
    /// lock; a post reads it only when its channel's ``AnyChannel/cancellations`` says an observer has ended.
    var isCancelled = false

    init(channel: AnyChannel, sender: AnyObject?, owner: AnyObject?) {
        self.channel = channel
        self.sender = sender
        self.filtersBySender = sender != nil
        self.owner = owner
        self.isOwnerBound = owner != nil
    }

    /// `false` once the owner of an owner-bound observation has been deallocated.
    @inlinable
    final var isAlive: Bool { !isOwnerBound || owner != nil }

    @usableFromInline
    final func cancel() {
        if ObserverRegistry.shared.cancel(self) { discardPending() }
    }

    /// Whether the observation has ended, for a post whose snapshot saw `count` cancellations on the channel.
    ///
    /// Free of locks while no observer of the channel has ended since the snapshot, which is almost always.
    @inlinable
    final func hasEnded(cancellationsSeen count: UInt64) -> Bool {
        channel.hasCancellations(since: count) && ObserverRegistry.shared.isCancelled(self)
    }

    @usableFromInline
    final func isObserving(_ center: NotificationCenter) -> Bool {
        channel.isOn(center)
    }

    /// Whether a post from `postSender` is for this observer.
    @inlinable
    final func accepts(_ postSender: AnyObject?) -> Bool {
        guard filtersBySender else { return true }
        guard let postSender, let sender else { return false }
        return postSender === sender
    }

    /// Drops deliveries still queued for an asynchronous observer.
    func discardPending() {}
}

/// One typed observer: its handler, and for asynchronous delivery the mailbox in front of it.
///
/// `@unchecked Sendable` as ``AnySubscription``; what it adds is immutable and `Sendable` (a `@Sendable` handler and a
/// `Sendable` mailbox).
@usableFromInline
final class Subscription<Subject: Notifiable>: AnySubscription, @unchecked Sendable {
    typealias Payload = Subject.Payload

    @usableFromInline
    let handler: @Sendable (Subject.Payload) -> Void
    /// For asynchronous delivery: the FIFO that hands payloads to the handler's queue or actor.
    @usableFromInline
    let mailbox: Mailbox<Subject.Payload>?

    @usableFromInline
    init(
        channel: AnyChannel,
        sender: Subject.Sender?,
        owner: AnyObject?,
        executor: Executor?,
        handler: @escaping @Sendable (Subject.Payload) -> Void
    ) {
        self.handler = handler
        self.mailbox = executor.map(Mailbox.init)
        super.init(channel: channel, sender: sender, owner: owner)
    }

    override func discardPending() {
        mailbox?.discardPending()
    }

    /// Delivers one post if the observation is still active and the sender matches.
    ///
    /// Inlinable, so that a post's loop over its observers is specialised in the caller.
    /// - Parameter count: The channel's ``AnyChannel/cancellations`` when the post took its snapshot of observers.
    /// - Returns: whether the handler was reached (or its delivery queued).
    @discardableResult
    @inlinable
    func deliver(_ payload: Subject.Payload, from postSender: AnyObject?, cancellationsSeen count: UInt64) -> Bool {
        if hasEnded(cancellationsSeen: count) { return false }
        // Checked before the sender filter, so that any post ends an observation whose owner is gone.
        guard isAlive else {
            cancel()
            return false
        }
        if !accepts(postSender) { return false }
        if let mailbox {
            enqueue(payload, in: mailbox)
        } else {
            handler(payload)
        }
        return true
    }

    @usableFromInline
    func enqueue(_ payload: Subject.Payload, in mailbox: Mailbox<Subject.Payload>) {
        mailbox.enqueue(payload) { payload in self.runHandler(payload) }
    }

    /// The last check before the handler runs, for deliveries that waited in a mailbox.
    private func runHandler(_ payload: Payload) {
        guard !ObserverRegistry.shared.isCancelled(self) else { return }
        guard isAlive else {
            cancel()
            return
        }
        handler(payload)
    }
}
