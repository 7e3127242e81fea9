public import Foundation

/// The type-independent part of one observer, in a ``Channel``: the registry's bookkeeping runs on it as concrete code;
/// only delivering a payload is generic. An observation ends on ``cancel()``, when its owner is found dead (by a post,
/// a sweep or its target), or when its center goes; then its handler is never called, even for a queued delivery.
///
/// **Weak loads.** No weak reference is loaded under a package lock: loading makes a strong reference, and if the other
/// holders let go meanwhile, `deinit` would run under the lock. The sender filter is loaded only if the post's sender
/// (held by the poster) has its identity (``senderID``). The owner is loaded only in ``ownerIsAlive()``, outside locks,
/// and for a main-actor or main-queue observer only on the main actor, so that the package never becomes the last
/// holder of a main-actor object on another thread.
///
/// `@unchecked Sendable` for the two weak references, whose types need not be `Sendable`: the sender is only compared
/// by identity, the owner only tested for `nil` (it is `Sendable` where the public API takes it), and the runtime reads
/// and clears weak references atomically. All else but `isCancelled` (registry's lock) is immutable after `init`.
@usableFromInline
class AnySubscription: @unchecked Sendable {
    // Ordered to leave no padding: the one-byte properties share the site's last word.
    @usableFromInline
    let channel: AnyChannel
    /// The sender filter's identity as a bit pattern (`0` for none); see "Weak loads" above.
    @usableFromInline
    let senderID: UInt
    /// Weak, so that a freed sender never matches again, even when a new object takes its address. Set once, in `init`.
    @usableFromInline
    weak var sender: AnyObject?
    /// Where the handler runs (see ``DeliveryTarget``); `nil` for an observer called on the posting thread.
    @usableFromInline
    let target: DeliveryTarget?
    /// Where the observation was made, for ``Foundation/NotificationCenter/typedObservations``.
    let site: ObservationSite
    @usableFromInline
    let isOwnerBound: Bool
    /// Whether the handler takes the sender, so that a queued delivery keeps it.
    let takesSender: Bool
    /// Set when the observation ends (registry's lock); a post reads it only if ``AnyChannel/cancellations`` moved.
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

    /// Whether the owner may be loaded on any thread: not for an observer on the main actor or main queue.
    final var ownerLoadsAnywhere: Bool { target?.isMain != true }

    /// `false` once an owner-bound observation's owner is gone. Loads the owner: see "Weak loads" above.
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

    /// Whether the observation has ended, for a post that saw `count` cancellations: lock-free unless there were more.
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

    /// Whether a post from `postSender` is for this observer. Loads the filter only when `postSender` has its identity:
    /// then it is that object, or `nil` if the filter's object died and `postSender` took its address.
    @inlinable
    final func accepts(_ postSender: AnyObject?) -> Bool {
        guard senderID != 0 else { return true }
        guard let postSender, UInt(bitPattern: ObjectIdentifier(postSender)) == senderID else { return false }
        return sender === postSender
    }

    /// Reports an undecodable plain post to an observer that wants it and would have taken it; on the posting thread.
    func reportDecodingFailure(_ error: any Error, from postSender: AnyObject?, cancellationsSeen count: UInt64) {}

    /// Runs a delivery that waited for this observer's target, if the observation is still active; on the target.
    func runQueued(_ payload: Any, sender: AnyObject?) {}

    /// Awaits an `async` handler with a delivery that waited for its task, if the observation is still active.
    func runQueuedAsync(_ payload: Any) async {}

    /// Called, outside its lock, once the registry ended the observation without `cancel()`; a sequence finishes here.
    func didEnd() {}
}

/// A typed observer's handler, in the shape its observing API took it.
@usableFromInline
enum Handler<Payload: Sendable>: Sendable {
    case payload(@Sendable (Payload) -> Void)
    case payloadAndSender(@Sendable (Payload, AnyObject?) -> Void)
    /// Run by its own ``DeliveryTarget/Executor/task`` target, one delivery at a time; never given the sender.
    case async(@Sendable (Payload) async -> Void)
    /// For the testing kit: every post with its sender, decoded or, for an undecodable plain post, the error.
    case everyPost(@Sendable (Result<Payload, any Error>, AnyObject?) -> Void)

    @usableFromInline
    var takesSender: Bool {
        switch self {
        case .payload, .async: false
        case .payloadAndSender, .everyPost: true
        }
    }
}

/// One typed observer; `@unchecked Sendable` as ``AnySubscription``: what it adds is immutable and `Sendable`.
@usableFromInline
final class Subscription<Event: Notifiable>: AnySubscription, @unchecked Sendable {
    typealias Payload = Event.Payload

    /// The common observer's handler (payload only, no target or owner), alone so the record stays small and a post
    /// needs one check (`rest == nil`); else a no-op. Not optional: calling an optional closure property copies it out,
    /// a retain and a release per observer and post (about 50 instructions; callgrind, a post with 100 observers).
    @usableFromInline
    let direct: @Sendable (Event.Payload) -> Void
    /// What the others need: their handler and owner; `nil` for the common observer.
    @usableFromInline
    let rest: Rest?

    /// The handler of an observer that is not ``direct``, and what else it needs. `@unchecked Sendable` for the weak
    /// owner, as ``AnySubscription``; the rest is immutable and `Sendable`.
    @usableFromInline
    final class Rest: @unchecked Sendable {
        /// For owner-bound observations: once the owner is gone, the observation ends. Set once, in `init`.
        weak var owner: AnyObject?
        @usableFromInline
        let handler: Handler<Event.Payload>
        /// The `where:` condition: part of a call, so it runs where the handler runs, just before it would (see
        /// ``Subscription/admits(_:stillActive:)``).
        @usableFromInline
        let condition: (@Sendable (Event.Payload) -> Bool)?
        /// Called when the registry ends the observation without a `cancel()`.
        @usableFromInline
        let onEnd: (@Sendable () -> Void)?
        /// For a sequence: buffers the latest post for it under the registry's lock (in `replay`).
        @usableFromInline
        let bufferUnderLock: (@Sendable (Event.Payload) -> Void)?

        @usableFromInline
        init(
            handler: Handler<Event.Payload>,
            condition: (@Sendable (Event.Payload) -> Bool)?,
            owner: AnyObject?,
            onEnd: (@Sendable () -> Void)?,
            bufferUnderLock: (@Sendable (Event.Payload) -> Void)?
        ) {
            self.owner = owner
            self.handler = handler
            self.condition = condition
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
        condition: (@Sendable (Event.Payload) -> Bool)? = nil,
        site: ObservationSite,
        kind: TypedObservation.Delivery,
        onEnd: (@Sendable () -> Void)? = nil,
        bufferUnderLock: (@Sendable (Event.Payload) -> Void)? = nil
    ) {
        if case .payload(let handler) = handler, condition == nil, target == nil, owner == nil, onEnd == nil {
            direct = handler
            rest = nil
        } else {
            direct = { _ in }
            rest = Rest(
                handler: handler, condition: condition, owner: owner, onEnd: onEnd, bufferUnderLock: bufferUnderLock)
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

    /// Delivers a post on the posting thread (or queues it for an `async` handler's task) if still active and the
    /// sender matches; not for observers on a shared ``DeliveryTarget``. Inlinable, to be specialised in a post's loop.
    @inlinable
    func deliver(_ payload: Event.Payload, from postSender: AnyObject?, cancellationsSeen count: UInt64) {
        if hasEnded(cancellationsSeen: count) { return }
        if rest == nil {
            if accepts(postSender) { direct(payload) }
        } else {
            deliverOther(payload, from: postSender, cancellationsSeen: count)
        }
    }

    /// The rarer observers on the posting thread: owner-bound, conditional, taking the sender, or `async` (queued for
    /// its task).
    @usableFromInline
    func deliverOther(_ payload: Event.Payload, from postSender: AnyObject?, cancellationsSeen count: UInt64) {
        // Checked before the sender filter, so that any post ends an observation whose owner is gone.
        guard ownerIsAlive() else {
            cancel()
            return
        }
        guard accepts(postSender) else { return }
        if let target {
            target.queue(payload, for: self)
        } else if admits(payload, stillActive: { !hasEnded(cancellationsSeen: count) }) {
            run(payload, sender: postSender)
        }
    }

    /// Whether the handler starts, after the caller's own check that the observation is active and its owner loaded:
    /// the `where:` condition accepts `payload`, and if it ran or an owner was loaded, the observation is still
    /// active (`stillActive`). The condition is part of the call, so an observation whose `cancel()` returns while it
    /// runs, on any thread, never reaches its handler; this last check is the last step before the handler.
    @inlinable
    func admits(_ payload: Event.Payload, stillActive: () -> Bool) -> Bool {
        if let condition = rest?.condition { return condition(payload) && stillActive() }
        return !isOwnerBound || stillActive()
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

    /// The checks made on the target before a queued handler starts: the observation is active, its owner lives (a
    /// main-actor owner is loaded only here, see ``AnySubscription``), and ``admits(_:stillActive:)``.
    @usableFromInline
    func mayRunOnTarget(_ payload: Event.Payload) -> Bool {
        let registry = ObserverRegistry.shared
        guard !registry.isCancelled(self) else { return false }
        guard ownerIsAlive() else {
            cancel()
            return false
        }
        return admits(payload) { !registry.isCancelled(self) }
    }

    override func runQueued(_ payload: Any, sender: AnyObject?) {
        // Safe: the target queued a `Payload` for this subscription (see `DeliveryTarget.dispatch`).
        let payload = payload as! Payload
        guard mayRunOnTarget(payload) else { return }
        run(payload, sender: sender)
    }

    override func runQueuedAsync(_ payload: Any) async {
        // Safe, as in `runQueued`.
        let payload = payload as! Payload
        guard case .async(let handler) = handler, mayRunOnTarget(payload) else { return }
        await handler(payload)
    }

    /// Hands this new observer its type's latest post, first: the registry calls it under its lock while adding it, so
    /// no post reaches it before and none is both the latest and delivered live (a post takes that lock for both). Only
    /// the package's own locks are taken. A target or a sequence's buffer gets it queued here, ahead of live posts; a
    /// handler on the posting thread is called by the returned closure, which the registry runs after the lock, on the
    /// observing thread.
    ///
    /// - Parameters:
    ///   - filter: Held by the caller; the latest sender is loaded only if it has its identity (``AnySubscription``).
    ///   - onTarget: Whether the observing code runs on the observer's target (asked before the lock): then the latest
    ///     post runs before the observing call returns, as a post made there would.
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

/// Where an observation was made: the observing call's `#fileID` literal, by address, and its `#line`.
/// `@unchecked Sendable` for the pointer, to a string literal: static data of its module, never written or freed.
///
/// For memory, not speed: a `StaticString` and a `UInt` instead would cost 0.4% more instructions per
/// observe-then-cancel, but 32 bytes more per observation (184 against 152 bytes, where the plain `NotificationCenter`
/// twin takes 161; `TypedNotificationsRatios --filter memory`).
@usableFromInline
struct ObservationSite: @unchecked Sendable {
    /// A `#fileID` literal's UTF-8 bytes, NUL-terminated (for `String(cString:)`) as every string literal is.
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
