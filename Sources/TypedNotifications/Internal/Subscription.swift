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
/// as concrete code; only
/// ``Subscription/deliver(_:from:cancellationsSeen:isolation:)`` is generic.
///
/// `@unchecked Sendable` (and the two weak references exempt from the runtime's exclusivity checks, which cost more than
/// the rest of `init`) because of the two weak references, whose types need not be `Sendable`: the sender is only
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
    @exclusivity(unchecked) weak var sender: AnyObject?
    /// For owner-bound observations: once the owner is gone, the observation ends. Set once, in `init`.
    @usableFromInline
    @exclusivity(unchecked) weak var owner: AnyObject?
    /// Where the observation was made, for ``Foundation/NotificationCenter/typedObservations``.
    let site: ObservationSite
    // The one-byte fields follow one another, so that they share a word.
    @usableFromInline
    let filtersBySender: Bool
    @usableFromInline
    let isOwnerBound: Bool
    /// Set once, when the observation ends (cancelled, or swept after its owner died). Guarded by the registry's
    /// lock; a post reads it only when its channel's ``AnyChannel/cancellations`` says an observer has ended.
    @exclusivity(unchecked) var isCancelled = false
    let kind: ObservationKind

    @usableFromInline
    init(channel: AnyChannel, sender: AnyObject?, owner: AnyObject?, site: ObservationSite, kind: ObservationKind) {
        self.channel = channel
        self.site = site
        self.kind = kind
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

/// One delivery waiting in a ``Mailbox``: the payload, and the sender for handlers that take it.
///
/// `@unchecked Sendable` because the sender need not be `Sendable`. It is only kept for a handler that asked for it
/// (otherwise `nil`), and handed to that handler on its queue or actor, as Foundation hands `object` to an observer
/// registered with a queue; the package itself only compares it by identity.
@usableFromInline
struct Delivery<Payload: Sendable>: @unchecked Sendable {
    @usableFromInline
    let payload: Payload
    @usableFromInline
    let sender: AnyObject?

    @usableFromInline
    init(_ payload: Payload, sender: AnyObject?) {
        self.payload = payload
        self.sender = sender
    }
}

/// A typed observer's handler, in the shape its observing API took it.
@usableFromInline
enum Handler<Payload: Sendable>: Sendable {
    /// Takes the payload: most observers.
    case payload(@Sendable (Payload) -> Void)
    /// Takes the payload and whoever posted it.
    case payloadAndSender(@Sendable (Payload, AnyObject?) -> Void)
    /// An `async` handler, run by a task, one delivery at a time.
    case async(@Sendable (Payload, AnyObject?) async -> Void)
    /// Takes every post with its sender, decoded or, for a plain post that cannot be decoded, the error; for the
    /// testing kit.
    case everyPost(@Sendable (Result<Payload, any Error>, AnyObject?) -> Void)

    var takesSender: Bool {
        if case .payload = self { return false }
        return true
    }
}

/// One typed observer: its handler, and for asynchronous delivery the mailbox in front of it.
///
/// The common observer (called on the posting thread with the payload only) keeps just its closure: `rest` is `nil`,
/// the record stays small, and a delivery is one check and one call. The others keep their mailbox and a handler of
/// another shape in ``Rest``.
///
/// `@unchecked Sendable` as ``AnySubscription``; what it adds is immutable and `Sendable` (a `Sendable` handler and a
/// `Sendable` class).
@usableFromInline
final class Subscription<Event: Notifiable>: AnySubscription, @unchecked Sendable {
    typealias Payload = Event.Payload

    /// What a less common observation needs besides its closure.
    @usableFromInline
    final class Rest: Sendable {
        /// For asynchronous delivery: the FIFO that hands payloads to the handler's queue, actor or task.
        @usableFromInline
        let mailbox: Mailbox<Delivery<Event.Payload>>?
        /// The handler when it takes more than the payload (or is `async`); `nil` when it takes the payload only,
        /// which is then the subscription's `handler`.
        @usableFromInline
        let handler: Handler<Event.Payload>?

        @usableFromInline
        init(mailbox: Mailbox<Delivery<Event.Payload>>?, handler: Handler<Event.Payload>?) {
            self.mailbox = mailbox
            self.handler = handler
        }
    }

    /// The handler that takes the payload only; a no-op when ``Rest/handler`` has the handler instead.
    @usableFromInline
    let handler: @Sendable (Event.Payload) -> Void
    @usableFromInline
    let rest: Rest?

    /// Inlinable, so that it is specialised with the observing call: generic code would look up the mailbox's type at
    /// run time on every observation.
    @inlinable
    init(
        channel: AnyChannel,
        sender: Event.Sender?,
        owner: AnyObject?,
        executor: Executor?,
        handler: Handler<Event.Payload>,
        site: ObservationSite,
        kind: ObservationKind?
    ) {
        var mailbox: Mailbox<Delivery<Event.Payload>>?
        if let executor { mailbox = Mailbox(executor) }
        if case .payload(let body) = handler {
            self.handler = body
            rest = mailbox == nil ? nil : Rest(mailbox: mailbox, handler: nil)
        } else {
            self.handler = { _ in }
            rest = Rest(mailbox: mailbox, handler: handler)
        }
        super.init(
            channel: channel,
            sender: sender,
            owner: owner,
            site: site,
            kind: kind ?? ObservationKind(executor: executor, handler: handler)
        )
    }

    override func discardPending() {
        rest?.mailbox?.discardPending()
    }

    /// Tells an observer that wants to know about a plain post that could not be decoded, if it would have
    /// delivered the post; on the posting thread.
    func reportDecodingFailure(_ error: any Error, from postSender: AnyObject?, cancellationsSeen count: UInt64) {
        guard case .everyPost(let handler)? = rest?.handler, !hasEnded(cancellationsSeen: count), isAlive,
            accepts(postSender)
        else { return }
        handler(.failure(error), postSender)
    }

    /// Delivers one post if the observation is still active and the sender matches.
    ///
    /// Inlinable, so that a post's loop over its observers is specialised in the caller.
    /// - Parameters:
    ///   - count: The channel's ``AnyChannel/cancellations`` when the post took its snapshot of observers.
    ///   - isolation: The actor the post was made on, if any: an observer isolated to it runs during the post.
    /// - Returns: whether the handler was reached (or its delivery queued).
    @discardableResult
    @inlinable
    func deliver(
        _ payload: Event.Payload,
        from postSender: AnyObject?,
        cancellationsSeen count: UInt64,
        isolation: (any Actor)?
    ) -> Bool {
        if hasEnded(cancellationsSeen: count) { return false }
        // Checked before the sender filter, so that any post ends an observation whose owner is gone.
        guard isAlive else {
            cancel()
            return false
        }
        if !accepts(postSender) { return false }
        if let rest {
            deliver(payload, from: postSender, isolation: isolation, with: rest)
        } else {
            handler(payload)
        }
        return true
    }

    /// Delivery for the less common observers: queued, or with a handler of another shape.
    @usableFromInline
    func deliver(_ payload: Event.Payload, from postSender: AnyObject?, isolation: (any Actor)?, with rest: Rest) {
        if let mailbox = rest.mailbox {
            deliverLater(payload, from: postSender, isolation: isolation, through: mailbox)
        } else {
            run(Delivery(payload, sender: postSender))
        }
    }

    /// Queues a delivery, or, for an observer isolated to the actor the post is made on, delivers what is queued and
    /// then this one, before the post goes on.
    @usableFromInline
    func deliverLater(
        _ payload: Event.Payload,
        from postSender: AnyObject?,
        isolation: (any Actor)?,
        through mailbox: Mailbox<Delivery<Event.Payload>>
    ) {
        let delivery = Delivery(payload, sender: rest?.handler?.takesSender == true ? postSender : nil)
        if case .async? = rest?.handler {
            mailbox.enqueue(delivery) { delivery in await self.runQueued(delivery) }
        } else if mailbox.executor.isCurrent(isolation) {
            while let queued = mailbox.takeQueued() { runQueued(queued) }
            run(delivery)
        } else {
            mailbox.enqueue(delivery) { delivery in self.runQueued(delivery) }
        }
    }

    @usableFromInline
    func run(_ delivery: Delivery<Event.Payload>) {
        switch rest?.handler {
        case nil: handler(delivery.payload)
        case .payload(let handler): handler(delivery.payload)
        case .payloadAndSender(let handler): handler(delivery.payload, delivery.sender)
        case .everyPost(let handler): handler(.success(delivery.payload), delivery.sender)
        case .async: preconditionFailure("an async handler runs from its mailbox")
        }
    }

    /// Whether a delivery that waited in the mailbox may still run.
    private var mayRunQueued: Bool {
        guard !ObserverRegistry.shared.isCancelled(self) else { return false }
        guard isAlive else {
            cancel()
            return false
        }
        return true
    }

    /// The last check before the handler runs, for deliveries that waited in a mailbox.
    private func runQueued(_ delivery: Delivery<Payload>) {
        if mayRunQueued { run(delivery) }
    }

    private func runQueued(_ delivery: Delivery<Payload>) async {
        guard mayRunQueued, case .async(let handler)? = rest?.handler else { return }
        await handler(delivery.payload, delivery.sender)
    }
}

/// Where an observation was made: the `#fileID` and `#line` of the observing call, kept as the literal's address and
/// the line, in twelve bytes (so that the one-byte fields after it share its last word).
///
/// `@unchecked Sendable` because of the pointer: it points at a string literal, immutable static data of the module
/// that made the observation, which is never written or freed while the process runs.
@usableFromInline
struct ObservationSite: @unchecked Sendable {
    /// The UTF-8 bytes of a `#fileID` literal, which the compiler ends with a NUL byte, as every string literal.
    private let start: UnsafePointer<UInt8>
    let line: UInt32

    @usableFromInline
    init(fileID: StaticString, line: UInt) {
        // `#fileID` is always a string literal, so the static string has a pointer representation.
        start = fileID.utf8Start
        self.line = UInt32(truncatingIfNeeded: line)
    }

    var fileID: String {
        String(cString: start)
    }
}

/// How an observation delivers, for ``Foundation/NotificationCenter/typedObservations``.
@usableFromInline
enum ObservationKind: Sendable {
    case immediate, queue, mainActor, actor, async, sequence, publisher

    @usableFromInline
    init(executor: Executor?, handler: Handler<some Sendable>) {
        if case .async = handler {
            self = .async
            return
        }
        switch executor {
        case nil: self = .immediate
        case .dispatch, .operation: self = .queue
        case .actor(let target): self = target.actor === MainActor.shared ? .mainActor : .actor
        case .task: self = .async
        }
    }
}
