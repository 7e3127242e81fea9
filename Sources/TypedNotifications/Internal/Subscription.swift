public import Foundation

/// The type-independent part of one observer: its filters, its lifetime, its target, and its place in a ``Channel``.
/// Tokens, owner-bound observations and sequences hold it to end the observation (``cancel()``).
///
/// The registry's bookkeeping (adding, removing, sweeping, counting) works on this non-generic class only, so it runs
/// as concrete code; only delivering a payload is generic.
///
/// Weak references are never loaded under a lock of the package: loading one makes a strong reference, and if the
/// other holders let go meanwhile, the object's `deinit` would run under the lock. The sender filter is compared by
/// identity first (``senderID``) and loaded only when the post's own sender, which the posting caller holds, has that
/// identity. The owner is loaded by ``ownerIsAlive()`` only, outside locks; for an observer on the main actor (or the
/// main queue), only there, so that the package never becomes the last holder of a main-actor object on another
/// thread.
///
/// `@unchecked Sendable` because of the two weak references, whose types need not be `Sendable`: the sender is only
/// ever compared by identity, never used, and the owner is `Sendable` where the public API accepts it (it is stored
/// as `AnyObject` only to be tested for `nil`). Everything else is immutable after `init` except `isCancelled`,
/// which is read and written only under `ObserverRegistry`'s lock, and the Swift runtime reads and clears weak
/// references atomically.
@usableFromInline
class AnySubscription: @unchecked Sendable {
    // The stored properties are in an order that leaves no padding: the one-byte ones share the site's last word.
    @usableFromInline
    let channel: AnyChannel
    /// The bit pattern of the sender filter's identity (`0` for none), compared with a post's sender before the weak
    /// reference is loaded.
    @usableFromInline
    let senderID: UInt
    /// Only payloads posted by this object are delivered. Being weak, a freed sender can never match again, even when
    /// a new object reuses its address. Set once, in `init`.
    @usableFromInline
    weak var sender: AnyObject?
    /// The serial target the handler runs on (a queue, the main actor, an actor, or an `async` handler's own task),
    /// or `nil` for an observer called on the posting thread.
    @usableFromInline
    let target: DeliveryTarget?
    /// Where the observation was made, for ``Foundation/NotificationCenter/typedObservations``.
    let site: ObservationSite
    @usableFromInline
    let isOwnerBound: Bool
    /// Whether the handler takes the sender, so that a queued delivery keeps it.
    let takesSender: Bool
    /// Set once, when the observation ends (cancelled, swept after its owner died, or its center gone). Guarded by
    /// the registry's lock; a post reads it only when its channel's ``AnyChannel/cancellations`` says an observer has
    /// ended.
    var isCancelled = false
    let kind: TypedObservation.Delivery

    @usableFromInline
    init(
        channel: AnyChannel,
        sender: AnyObject?,
        isOwnerBound: Bool,
        target: DeliveryTarget?,
        takesSender: Bool,
        site: ObservationSite,
        kind: TypedObservation.Delivery
    ) {
        self.channel = channel
        self.takesSender = takesSender
        self.site = site
        self.kind = kind
        self.sender = sender
        self.senderID = sender.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        self.isOwnerBound = isOwnerBound
        self.target = target
    }

    /// Whether the owner may be loaded on any thread: not for observers on the main actor or main queue (see above).
    final var ownerLoadsAnywhere: Bool { target?.isMain != true }

    /// `false` once the owner of an owner-bound observation has been deallocated. Loads the owner: call only outside
    /// the package's locks, and for an observer on the main actor only on the main actor.
    @usableFromInline
    func ownerIsAlive() -> Bool {
        true
    }

    @usableFromInline
    final func cancel() {
        if ObserverRegistry.shared.cancel(self) { discardPending() }
    }

    /// Drops deliveries still queued on the observer's target, for an observation that ended.
    final func discardPending() {
        target?.discardPending(for: self)
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

    @usableFromInline
    final var activity: UInt64 { channel.activity }

    /// Reports a discarded token; ``Subscription`` knows the type to name.
    @usableFromInline
    func reportDiscarded(site: ObservationSite) {}

    /// Whether a post from `postSender` is for this observer. The filter's weak reference is loaded only when
    /// `postSender`, which the caller holds, has its identity: then it is that object, or `nil` if the filter's
    /// object died and `postSender` took its address.
    @inlinable
    final func accepts(_ postSender: AnyObject?) -> Bool {
        guard senderID != 0 else { return true }
        guard let postSender, UInt(bitPattern: ObjectIdentifier(postSender)) == senderID else { return false }
        return sender === postSender
    }

    /// Tells an observer that wants to know about a plain post that could not be decoded, if it would have
    /// delivered the post; on the posting thread. ``Subscription`` knows whether it wants to.
    func reportDecodingFailure(_ error: any Error, from postSender: AnyObject?, cancellationsSeen count: UInt64) {}

    /// Runs a delivery that waited for this observer's target, if the observation is still active; on the target.
    func runQueued(_ payload: Any, sender: AnyObject?) {}

    /// Awaits an `async` handler with a delivery that waited for its task, if the observation is still active.
    func runQueuedAsync(_ payload: Any) async {}

    /// Called once the registry ended the observation without a `cancel()` (its center or owner is gone), outside
    /// its lock; a sequence finishes here.
    func didEnd() {}
}

/// A typed observer's handler, in the shape its observing API took it.
@usableFromInline
enum Handler<Payload: Sendable>: Sendable {
    /// Takes the payload: most observers.
    case payload(@Sendable (Payload) -> Void)
    /// Takes the payload and whoever posted it.
    case payloadAndSender(@Sendable (Payload, AnyObject?) -> Void)
    /// An `async` handler, run by a task of its own (a ``DeliveryTarget/Executor/task`` target), one delivery at a
    /// time. It never receives the sender, so none is kept.
    case async(@Sendable (Payload) async -> Void)
    /// Takes every post with its sender, decoded or, for a plain post that cannot be decoded, the error; for the
    /// testing kit.
    case everyPost(@Sendable (Result<Payload, any Error>, AnyObject?) -> Void)

    @usableFromInline
    var takesSender: Bool {
        switch self {
        case .payload, .async: false
        case .payloadAndSender, .everyPost: true
        }
    }
}

/// One typed observer: its handler, and what it needs to run it.
///
/// `@unchecked Sendable` as ``AnySubscription``; what it adds is immutable and `Sendable`.
@usableFromInline
final class Subscription<Event: Notifiable>: AnySubscription, @unchecked Sendable {
    typealias Payload = Event.Payload

    /// The common observer's handler (it takes the payload only, runs on the posting thread and has no owner), kept
    /// alone so that the record stays small and a post calls it with one check (`rest == nil`); a no-op for the
    /// others. Not optional: calling an optional closure property copies it out first, a retain and a release per
    /// observer and post (about 50 instructions; callgrind, a post with 100 observers).
    @usableFromInline
    let direct: @Sendable (Event.Payload) -> Void
    /// What the others need: their handler and owner; `nil` for the common observer.
    @usableFromInline
    let rest: Rest?

    /// The handler of an observer that is not ``direct``, and what else it needs.
    ///
    /// `@unchecked Sendable` because of the weak owner, as ``AnySubscription``'s sender; the rest is immutable and
    /// `Sendable`.
    @usableFromInline
    final class Rest: @unchecked Sendable {
        /// For owner-bound observations: once the owner is gone, the observation ends. Set once, in `init`.
        weak var owner: AnyObject?
        @usableFromInline
        let handler: Handler<Event.Payload>
        /// Called when the registry ends the observation without a `cancel()`.
        @usableFromInline
        let onEnd: (@Sendable () -> Void)?
        /// For a sequence: buffers the latest post for it, under the registry's lock (see
        /// ``Subscription/replay(_:filter:onTarget:cancellationsSeen:)``).
        @usableFromInline
        let bufferUnderLock: (@Sendable (Event.Payload) -> Void)?

        @usableFromInline
        init(
            handler: Handler<Event.Payload>,
            owner: AnyObject?,
            onEnd: (@Sendable () -> Void)?,
            bufferUnderLock: (@Sendable (Event.Payload) -> Void)?
        ) {
            self.owner = owner
            self.handler = handler
            self.onEnd = onEnd
            self.bufferUnderLock = bufferUnderLock
        }
    }

    /// Inlinable, so that it is specialised with the observing call.
    @inlinable
    init(
        channel: AnyChannel,
        sender: Event.Sender?,
        owner: AnyObject?,
        target: DeliveryTarget?,
        handler: Handler<Event.Payload>,
        site: ObservationSite,
        kind: TypedObservation.Delivery,
        onEnd: (@Sendable () -> Void)? = nil,
        bufferUnderLock: (@Sendable (Event.Payload) -> Void)? = nil
    ) {
        if case .payload(let handler) = handler, target == nil, owner == nil, onEnd == nil {
            direct = handler
            rest = nil
        } else {
            direct = { _ in }
            rest = Rest(handler: handler, owner: owner, onEnd: onEnd, bufferUnderLock: bufferUnderLock)
        }
        super.init(
            channel: channel,
            sender: sender,
            isOwnerBound: owner != nil,
            target: target,
            takesSender: handler.takesSender,
            site: site,
            kind: kind
        )
    }

    /// The handler, in the shape its observing API took it.
    @usableFromInline
    var handler: Handler<Event.Payload> {
        rest?.handler ?? .payload(direct)
    }

    override func ownerIsAlive() -> Bool {
        guard isOwnerBound, let rest else { return true }
        let owner = rest.owner
        #if DEBUG
        if let owner { TestHooks.didLoadOwner(owner) }
        #endif
        return owner != nil
    }

    override func reportDiscarded(site: ObservationSite) {
        guard let center = channel.center else { return }
        let kind = NotificationDiagnostics.Event.Kind.discardedToken(fileID: site.fileID, line: Int(site.line))
        NotificationDiagnostics.report(kind, for: Event.self, name: Event.notificationName, in: center)
    }

    override func didEnd() {
        discardPending()
        rest?.onEnd?()
    }

    override func reportDecodingFailure(
        _ error: any Error,
        from postSender: AnyObject?,
        cancellationsSeen count: UInt64
    ) {
        guard case .everyPost(let handler) = handler, !hasEnded(cancellationsSeen: count), accepts(postSender),
            ownerIsAlive()
        else { return }
        handler(.failure(error), postSender)
    }

    /// Delivers one post to an observer that runs on the posting thread (or, for an `async` handler, queues it for
    /// its task), if the observation is still active and the sender matches. Observers on a shared target are not
    /// called here: see ``DeliveryTarget/dispatch(_:to:from:isolation:cancellationsSeen:)``.
    ///
    /// Inlinable, so that a post's loop over its observers is specialised in the caller.
    @inlinable
    func deliver(_ payload: Event.Payload, from postSender: AnyObject?, cancellationsSeen count: UInt64) {
        if hasEnded(cancellationsSeen: count) { return }
        if rest == nil {
            if accepts(postSender) { direct(payload) }
        } else {
            deliverOther(payload, from: postSender)
        }
    }

    /// The less common observers on the posting thread: owner-bound, taking the sender, or `async` (queued for the
    /// handler's task, without scanning the post's other observers).
    @usableFromInline
    func deliverOther(_ payload: Event.Payload, from postSender: AnyObject?) {
        // Checked before the sender filter, so that any post ends an observation whose owner is gone.
        guard ownerIsAlive() else {
            cancel()
            return
        }
        guard accepts(postSender) else { return }
        if let target {
            target.queue(payload, for: self)
        } else {
            run(payload, sender: postSender)
        }
    }

    /// Runs the handler now: on the posting thread, or on the target after the checks of a queued delivery.
    @usableFromInline
    func run(_ payload: Event.Payload, sender: AnyObject?) {
        switch handler {
        case .payload(let handler): handler(payload)
        case .payloadAndSender(let handler): handler(payload, sender)
        case .everyPost(let handler): handler(.success(payload), sender)
        case .async: preconditionFailure("an async handler runs from its task (see runQueuedAsync)")
        }
    }

    /// The checks before a handler runs on its target, in the order that makes each guarantee hold: an observation
    /// that ended (even during the delivery just before this one) is never called, and an owner that died ends it.
    /// Only on the target, so that a main-actor owner is loaded on the main actor.
    @usableFromInline
    func mayRunOnTarget() -> Bool {
        guard !ObserverRegistry.shared.isCancelled(self) else { return false }
        guard ownerIsAlive() else {
            cancel()
            return false
        }
        return true
    }

    override func runQueued(_ payload: Any, sender: AnyObject?) {
        guard mayRunOnTarget() else { return }
        // Safe: the target queued a `Payload` for this subscription (see `DeliveryTarget.dispatch`).
        run(payload as! Payload, sender: sender)
    }

    override func runQueuedAsync(_ payload: Any) async {
        guard mayRunOnTarget(), case .async(let handler) = handler else { return }
        // Safe, as in `runQueued`.
        await handler(payload as! Payload)
    }

    /// Hands the latest post of its type to this new observer, first: called by the registry under its lock, in the
    /// step that adds the observer, so that no post can reach the observer before it and none is both the latest and
    /// delivered live (a post takes the same lock to become the latest and to find its observers).
    ///
    /// What has a queue of its own (a target, including an `async` handler's task, or a sequence's buffer) gets the
    /// post queued here, ahead of any live post; a handler on the posting thread is called by the returned closure,
    /// which the registry runs after the lock, on the observing thread. Only the package's own locks are taken here.
    ///
    /// - Parameters:
    ///   - filter: The sender filter, which the caller holds: the latest post's sender is loaded only when it has the
    ///     filter's identity, and is then the filter itself (or `nil`, if the sender died and the filter took its
    ///     address), so that the load cannot release the last reference under the lock.
    ///   - onTarget: Whether the observing code runs on the observer's target (asked before the lock): then the latest
    ///     post runs before the observing call returns, as a post made there would.
    /// - Returns: What to run after the lock, if anything.
    func replay(
        _ latest: LatestPost, filter: AnyObject?, onTarget: Bool, cancellationsSeen count: UInt64
    ) -> (() -> Void)? {
        // The testing kit's recorders record posts, not the state an observation starts with.
        if case .everyPost = handler { return nil }
        if let filter {
            guard latest.senderID == senderID, latest.sender === filter else { return nil }
        }
        // Safe: the channel keeps only posts of its own type (see `ObserverRegistry.keepLatest`).
        let payload = latest.payload as! Payload
        if let target {
            let entry = DeliveryTarget.Entry(
                subscription: self, payload: payload, sender: nil, replayed: takesSender ? latest : nil)
            let queued = target.enqueue(CollectionOfOne(entry), isCurrent: onTarget)
            return { target.finish(queued) }
        }
        if let buffer = rest?.bufferUnderLock {
            buffer(payload)
            return nil
        }
        return { [self] in deliver(payload, from: latest.sender, cancellationsSeen: count) }
    }
}

/// Where an observation was made: the `#fileID` and `#line` of the observing call, kept as the literal's address and
/// the line.
///
/// `@unchecked Sendable` because of the pointer: it points at a string literal, immutable static data of the module
/// that made the observation, which is never written or freed while the process runs.
///
/// For memory, not speed: a `StaticString` and a `UInt` instead would cost 0.4% more instructions per
/// observe-then-cancel, but 32 bytes more per observation (184 against 152 bytes, where the plain `NotificationCenter`
/// twin takes 161; `TypedNotificationsRatios --filter memory`).
@usableFromInline
struct ObservationSite: @unchecked Sendable {
    /// The UTF-8 bytes of a `#fileID` literal, which the compiler ends with a NUL byte, as every string literal.
    private let start: UnsafePointer<UInt8>
    @usableFromInline
    let line: UInt32

    @usableFromInline
    init(fileID: StaticString, line: UInt) {
        // `#fileID` is always a string literal, so the static string has a pointer representation.
        start = fileID.utf8Start
        self.line = UInt32(truncatingIfNeeded: line)
    }

    @usableFromInline
    var fileID: String {
        String(cString: start)
    }
}
