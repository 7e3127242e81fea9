import Foundation

/// How an observing form hands its handler to ``Subscription``: called with the payload alone, or with the sender and
/// the owner too (loaded once for the delivery, ``Subscription/admission(of:)``); or a queue of its own, emptied by one
/// task (an `async` handler's or a sequence's, see ``ConsumerQueue``). Registration composes it into the observer's
/// route (``Subscription/Route``), once.
@usableFromInline
enum Handler<Payload: Sendable>: Sendable {
    case payload(@Sendable (Payload) -> Void)
    /// `takesSender`: whether a queued delivery keeps the post's sender for it.
    case call(@Sendable (Payload, _ sender: AnyObject?, _ owner: AnyObject?) -> Void, takesSender: Bool)
    /// Appended on the posting thread; never given the sender.
    case queued(ConsumerQueue<Payload>)
}

/// One typed observer.
///
/// **One route per observer.** What an observer does with a payload is decided once, at registration, as the stages
/// of its route: sender filter, owner, its own coalescing, where it waits (its target, its own queue, or nowhere),
/// then the `where:` condition, the owner loaded for the call and the last check that it is still active, and the
/// handler. A post, a burst's end and a latest value all enter the one path
/// (``receive(_:boxed:from:isolation:isPost:context:)``); a post passes every stage, the other two start where a
/// delivery waits. The common observer (a handler of the payload alone, on the posting thread, with nothing else) is
/// the one test of the fast path (``deliver(_:from:isolation:)``).
///
/// `@unchecked Sendable` as ``AnySubscription``, and safe because what it adds is immutable and `Sendable`.
@usableFromInline
final class Subscription<Event: Notifiable>: AnySubscription, @unchecked Sendable {
    typealias Payload = Event.Payload

    /// The common observer's handler (payload only, no target or owner), alone so the record stays small and a post
    /// needs one check (`route == nil`); else a no-op. Not optional: calling an optional closure property copies it
    /// out, a retain and a release per observer and post (see the post-100 row of the Performance article's
    /// instruction table).
    @usableFromInline
    let direct: @Sendable (Event.Payload) -> Void
    /// The stages of every other observer; `nil` for the common one.
    @usableFromInline
    let route: Route?

    /// The route of an observer that is not ``direct``, composed at registration. `@unchecked Sendable` for the weak
    /// owner, as ``AnySubscription``; the rest is immutable and `Sendable`.
    @usableFromInline
    final class Route: @unchecked Sendable {
        /// For owner-bound observations: once the owner is gone, the observation ends. Set once, in `init`.
        weak var owner: AnyObject?
        /// The observer's own coalescing (its `coalescing:` option) and its table of bursts, closed when it ends:
        /// posts gather there, and a burst's end delivers one payload (``Subscription/deliverBurst(_:from:on:)``).
        let coalescing: (NotificationCoalescing<Event.Payload>, bursts: Coalescer)?
        /// For a coalescing observer whose owner loads only on the main actor: set while a check of the owner waits on
        /// its target (``Subscription/coalesce(_:from:isolation:into:context:)``), so that posts queue one at a time.
        let ownerCheckQueued: AtomicWord?
        /// Where its deliveries wait, if it has a queue of its own (an `async` handler, a sequence), whose task makes
        /// the last checks and runs the handler; else they wait on the observer's target, or nowhere.
        let queue: ConsumerQueue<Event.Payload>?
        /// The `where:` condition: part of a call, so it runs where the handler runs, just before it would (see
        /// ``Subscription/admission(of:)``).
        let condition: (@Sendable (Event.Payload) -> Bool)?
        /// The handler, with the post's sender and the owner loaded for it; a no-op for an observer with a ``queue``.
        let call: @Sendable (Event.Payload, _ sender: AnyObject?, _ owner: AnyObject?) -> Void
        /// For the testing kit's recorders: undecodable plain posts, with their sender. A recorder records posts, not
        /// the state an observation starts with, so it gets no latest value.
        let onDecodingFailure: (@Sendable (any Error, AnyObject?) -> Void)?

        @usableFromInline
        init(
            handler: Handler<Event.Payload>,
            condition: (@Sendable (Event.Payload) -> Bool)?,
            owner: AnyObject?,
            onDecodingFailure: (@Sendable (any Error, AnyObject?) -> Void)?,
            coalescing: NotificationCoalescing<Event.Payload>?
        ) {
            self.owner = owner
            self.condition = condition
            self.onDecodingFailure = onDecodingFailure
            self.coalescing = coalescing.map { ($0, Coalescer(pacesByDelivery: true)) }
            ownerCheckQueued = coalescing == nil || owner == nil ? nil : AtomicWord.make()
            switch handler {
            case .payload(let handler):
                call = { payload, _, _ in handler(payload) }
                queue = nil
            case .call(let handler, _):
                call = handler
                queue = nil
            case .queued(let queue):
                call = { _, _, _ in }
                self.queue = queue
            }
        }
    }

    /// Inlinable, so that it is specialised with the observing call.
    @inlinable
    init(
        channel: Channel,
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
            route = nil
        } else {
            direct = { _ in }
            route = Route(
                handler: handler, condition: condition, owner: owner, onDecodingFailure: onDecodingFailure,
                coalescing: coalescing)
        }
        super.init(
            channel: channel,
            sender: sender,
            isOwnerBound: owner != nil,
            target: target,
            coalesces: coalescing != nil,
            takesSender: { if case .call(_, true) = handler { true } else { false } }(),
            waitsInOwnQueue: { if case .queued = handler { true } else { false } }(),
            site: site,
            kind: kind
        )
    }

    override func ownerIsAlive() -> Bool {
        loadOwner() != nil
    }

    /// The owner, loaded (see "Weak loads" in ``AnySubscription``); `.some(nil)` for an observation without one, and
    /// `nil` once an owner-bound observation's owner is gone.
    func loadOwner() -> AnyObject?? {
        guard isOwnerBound, let route else { return .some(nil) }
        guard let owner = route.owner else { return nil }
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
        route?.coalescing?.bursts.close()
        route?.queue?.finish()
    }

    override func reportDecodingFailure(_ error: any Error, from postSender: AnyObject?) {
        guard let report = route?.onDecodingFailure, !hasEnded, accepts(postSender), ownerIsAlive() else { return }
        report(error, postSender)
    }

    /// Delivers a post on the posting thread (or appends it to the observer's own queue) if still active and the
    /// sender matches; not for observers on a shared ``DeliveryTarget``, which ``DeliveryTarget/dispatch`` serves.
    /// Inlinable, to be specialised in a post's loop: the common observer is one test and a call.
    @inlinable
    func deliver(_ payload: Event.Payload, from postSender: AnyObject?, isolation: (any Actor)?) {
        if hasEnded { return }
        if route == nil {
            if accepts(postSender) { direct(payload) }
        } else {
            receivePost(payload, from: postSender, isolation: isolation)
        }
    }

    /// The rarer observers on the posting thread: a post enters their route.
    @usableFromInline
    func receivePost(_ payload: Event.Payload, from postSender: AnyObject?, isolation: (any Actor)?) {
        _ = receive(payload, boxed: nil, from: postSender, isolation: isolation, isPost: true, context: .current)
    }

    override func receive(
        _ boxed: AnyObject, from postSender: AnyObject?, isolation: (any Actor)?, context: PostContext
    ) -> DeliveryTarget.Entry? {
        // `dispatch` boxes a post of this subscription's channel, whose `Event` it observes.
        let payload = BoxedPayload<Payload>.unbox(boxed)
        return receive(payload, boxed: boxed, from: postSender, isolation: isolation, isPost: true, context: context)
    }

    override func runQueued(_ entry: DeliveryTarget.Entry) {
        runOnTarget(entry)
    }

    override func receiveInCenterOrder(
        _ boxed: AnyObject, from sender: AnyObject?, context: PostContext, isolation: (any Actor)?, onMainActor: Bool
    ) -> (entry: DeliveryTarget.Entry?, lead: PendingDeliveries?, after: () -> Void) {
        if coalesces {
            return gatherLatest(boxed, from: sender, context: context, isolation: isolation, onMainActor: onMainActor)
        }
        guard let queue = route?.queue, !hasEnded, accepts(sender) else { return (nil, nil, {}) }
        // The channel's latest post boxes a payload of its own type (see `ObserverRegistry.keepLatest`).
        let (appended, after) = queue.appendInCenterOrder(BoxedPayload<Payload>.unbox(boxed), context: context)
        return (
            nil, nil,
            { [self] in
                after()
                finishAppend(appended, to: queue)
            }
        )
    }
}
