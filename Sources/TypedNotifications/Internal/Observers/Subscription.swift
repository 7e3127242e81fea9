import Foundation

/// How a typed observer takes a payload, in the shape its observing form took it: a handler called with the payload
/// alone, or with the sender and the owner too, loaded once for the delivery
/// (``Subscription/admission(of:)``); or a queue of its own, emptied by one task (an `async` handler's or a
/// sequence's, see ``ConsumerQueue``).
@usableFromInline
enum Handler<Payload: Sendable>: Sendable {
    case payload(@Sendable (Payload) -> Void)
    /// `takesSender`: whether a queued delivery keeps the post's sender for it.
    case call(@Sendable (Payload, _ sender: AnyObject?, _ owner: AnyObject?) -> Void, takesSender: Bool)
    /// Appended on the posting thread; never given the sender.
    case queued(ConsumerQueue<Payload>)

    @usableFromInline
    var takesSender: Bool {
        if case .call(_, let takesSender) = self { takesSender } else { false }
    }
}

/// One typed observer; `@unchecked Sendable` as ``AnySubscription``: what it adds is immutable and `Sendable`.
@usableFromInline
final class Subscription<Event: Notifiable>: AnySubscription, @unchecked Sendable {
    typealias Payload = Event.Payload

    /// The common observer's handler (payload only, no target or owner), alone so the record stays small and a post
    /// needs one check (`rest == nil`); else a no-op. Not optional: calling an optional closure property copies it out,
    /// a retain and a release per observer and post (see the post-100 row of the Performance article's
    /// instruction table).
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
        /// ``Subscription/admission(of:)``).
        @usableFromInline
        let condition: (@Sendable (Event.Payload) -> Bool)?
        /// For the testing kit's recorders: undecodable plain posts, with their sender. A recorder records posts, not
        /// the state an observation starts with, so it gets no latest value.
        @usableFromInline
        let onDecodingFailure: (@Sendable (any Error, AnyObject?) -> Void)?
        /// The observer's own coalescing (its `coalescing:` option): posts gather in a burst of this observation's
        /// (in ``bursts``), whose end delivers one payload (``Subscription/deliverBurst(_:from:on:)``).
        @usableFromInline
        let coalescing: NotificationCoalescing<Event.Payload>?
        /// This observation's own table of bursts, closed when it ends; `nil` without coalescing.
        let bursts: Coalescer?
        /// For a coalescing observer whose owner loads only on the main actor: set while a check of the owner waits on
        /// its target (``Subscription/coalesce(_:from:isolation:)``), so that posts queue one check at a time.
        let ownerCheckQueued: AtomicWord?

        @usableFromInline
        init(
            handler: Handler<Event.Payload>,
            condition: (@Sendable (Event.Payload) -> Bool)?,
            owner: AnyObject?,
            onDecodingFailure: (@Sendable (any Error, AnyObject?) -> Void)?,
            coalescing: NotificationCoalescing<Event.Payload>?
        ) {
            self.owner = owner
            self.handler = handler
            self.condition = condition
            self.onDecodingFailure = onDecodingFailure
            self.coalescing = coalescing
            bursts = coalescing == nil ? nil : Coalescer(pacesByDelivery: true)
            ownerCheckQueued = coalescing == nil || owner == nil ? nil : AtomicWord.make()
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
        onDecodingFailure: (@Sendable (any Error, AnyObject?) -> Void)? = nil,
        coalescing: NotificationCoalescing<Event.Payload>? = nil
    ) {
        if case .payload(let handler) = handler, condition == nil, target == nil, owner == nil, coalescing == nil {
            direct = handler
            rest = nil
        } else {
            direct = { _ in }
            rest = Rest(
                handler: handler, condition: condition, owner: owner, onDecodingFailure: onDecodingFailure,
                coalescing: coalescing)
        }
        super.init(
            channel: channel,
            sender: sender,
            isOwnerBound: owner != nil,
            target: target,
            queueing: coalescing != nil ? .burst : handler.takesSender ? .payloadAndSender : .payload,
            site: site,
            kind: kind
        )
    }

    /// Whether the handler takes the post's sender, so that a delivery queued for it keeps the sender.
    var takesSender: Bool { rest?.handler.takesSender == true }

    override func ownerIsAlive() -> Bool {
        loadOwner() != nil
    }

    /// The owner, loaded (see "Weak loads" in ``AnySubscription``); `.some(nil)` for an observation without one, and
    /// `nil` once an owner-bound observation's owner is gone.
    func loadOwner() -> AnyObject?? {
        guard isOwnerBound, let rest else { return .some(nil) }
        guard let owner = rest.owner else { return nil }
        #if DEBUG
        TestHooks.didLoadOwner(owner)
        #endif
        return owner
    }

    override func reportDiscarded(site: ObservationSite) {
        guard let center = channel.center else { return }
        let kind = NotificationDiagnostics.Event.Kind.discardedToken(fileID: site.fileID, line: Int(site.line))
        NotificationDiagnostics.report(kind, for: Event.self, name: Event.notificationName, in: center)
    }

    override func didEnd() {
        discardPending()
        guard let rest else { return }
        rest.bursts?.close()
        if case .queued(let queue) = rest.handler { queue.finish() }
    }

    override func reportDecodingFailure(_ error: any Error, from postSender: AnyObject?) {
        guard let report = rest?.onDecodingFailure, !hasEnded, accepts(postSender), ownerIsAlive() else { return }
        report(error, postSender)
    }

    /// Delivers a post on the posting thread (or appends it to the observer's own queue) if still active and the
    /// sender matches; not for observers on a shared ``DeliveryTarget``, which ``DeliveryTarget/dispatch`` serves.
    /// Inlinable, to be specialised in a post's loop.
    @inlinable
    func deliver(_ payload: Event.Payload, from postSender: AnyObject?, isolation: (any Actor)?) {
        if hasEnded { return }
        if rest == nil {
            if accepts(postSender) { direct(payload) }
        } else {
            deliverOther(payload, from: postSender, isolation: isolation)
        }
    }

    /// The rarer observers on the posting thread: owner-bound, conditional, taking the sender, with a queue of their
    /// own (an `async` handler, a sequence), or coalescing what they receive (gathered, whatever their target).
    @usableFromInline
    func deliverOther(_ payload: Event.Payload, from postSender: AnyObject?, isolation: (any Actor)?) {
        guard accepts(postSender) else {
            // Any post ends an observation whose owner is gone, whoever sent it.
            if isOwnerBound, ownerLoadsAnywhere, loadOwner() == nil { cancel() }
            return
        }
        if rest?.coalescing != nil {
            // Without a target: on the posting thread, or its own queue. A throttle's first post goes now.
            guard case .leads(let done) = coalesce(payload, from: postSender, isolation: isolation) else { return }
            let pending = PendingDeliveries(joining: PendingDeliveries.current.map { [$0] } ?? [], holding: done)
            return PendingDeliveries.collecting(into: pending) {
                deliverBurst(payload, from: postSender, on: isolation)
            }
        }
        if case .queued(let queue) = rest?.handler {
            // The queue's task makes the checks; an owner found dead ends the observation now.
            if isOwnerBound, loadOwner() == nil { return cancel() }
            append(payload, to: queue)
        } else if let owner = admission(of: payload) {
            run(payload, sender: postSender, owner: owner)
        }
    }

    /// Whether the handler starts, after the caller's own check that the observation is active: the owner lives, the
    /// `where:` condition accepts `payload`, and if either was asked, the observation is still active (``hasEnded``,
    /// the one rule on every thread and target). Returns the owner, loaded for the handler (`.some(nil)` for an
    /// observation without one), or `nil` if the handler must not start; an owner found dead ends the observation.
    /// The owner is not held while the condition runs (it is loaded again after it), so that one that dies meanwhile
    /// never reaches the handler; without a condition it is loaded once. The condition is part of the call, so an
    /// observation whose `cancel()` returns while it runs, on any thread, never reaches its handler: this last check
    /// is the last step before the handler.
    private func admission(of payload: Event.Payload) -> AnyObject?? {
        var owner = loadOwner()
        let condition = rest?.condition
        if let condition, owner != nil {
            owner = nil
            guard condition(payload) else { return nil }
            owner = loadOwner()
        }
        guard let owner else {
            cancel()
            return nil
        }
        guard condition == nil && !isOwnerBound || !hasEnded else { return nil }
        return .some(owner)
    }

    /// The checks made on the target before a queued handler starts: the observation is active, then
    /// ``admission(of:)`` (a main-actor owner is loaded only here, see ``AnySubscription``). No lock: the ended flag
    /// is the rule the posting thread follows too.
    func admissionOnTarget(of payload: Event.Payload) -> AnyObject?? {
        guard !hasEnded else { return nil }
        return admission(of: payload)
    }

    /// Runs the handler now: on the posting thread, or on the target after the checks of a queued delivery.
    func run(_ payload: Event.Payload, sender: AnyObject?, owner: AnyObject?) {
        switch rest?.handler {
        case .call(let handler, _): handler(payload, sender, owner)
        case .payload(let handler): handler(payload)
        case nil: direct(payload)
        case .queued: preconditionFailure("a queued observer's task takes its payloads (see ConsumerQueue)")
        }
    }

    override func gather(
        _ payload: AnyObject, from postSender: AnyObject?, isolation: (any Actor)?
    ) -> DeliveryTarget.Entry? {
        // `dispatch` boxes a post of this subscription's channel, whose `Event` it observes.
        let typed = BoxedPayload<Payload>.unbox(payload)
        guard accepts(postSender) else {
            // Any post ends an observation whose owner is gone, whoever sent it.
            if isOwnerBound, ownerLoadsAnywhere, loadOwner() == nil { cancel() }
            return nil
        }
        let pending = PendingDeliveries.current
        switch coalesce(typed, from: postSender, isolation: isolation) {
        case .gathered:
            return nil
        case .leads(let done):
            return DeliveryTarget.Entry(
                subscription: self, payload: payload, sender: takesSender ? postSender : nil,
                pending: PendingDeliveries(joining: pending.map { [$0] } ?? [], holding: done))
        case .checksOwner:
            return DeliveryTarget.Entry(subscription: self, payload: OwnerCheck.shared, sender: nil, pending: pending)
        }
    }

    override func runQueued(_ payload: AnyObject, sender: AnyObject?) {
        if queueing == .burst, payload === OwnerCheck.shared { return checkOwner() }
        // The target queued a boxed `Payload` for this subscription (see `DeliveryTarget.dispatch`).
        let payload = BoxedPayload<Payload>.unbox(payload)
        guard let owner = admissionOnTarget(of: payload) else { return }
        run(payload, sender: sender, owner: owner)
    }
}
