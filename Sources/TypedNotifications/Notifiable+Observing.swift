public import Foundation

// Observers whose handler runs on the posting thread or on a queue (the forms that take a `NotificationDelivery`).
// Observers isolated to an actor are in `Notifiable+ObservingOnActors.swift`, `async` handlers in
// `Notifiable+ObservingAsync.swift`; all of them register through `NotificationCenter.register`, at the end of this
// file.
//
// The options are the same everywhere: `for:` binds the observation to an owner, `from:` filters by sender, `in:`
// names the center, `where:` filters payloads. A handler that takes two arguments takes the payload last.

extension Notifiable {
    /// Calls `handler` with the payload of every post of this type, until the token is cancelled or released.
    ///
    /// - **Where the handler runs:** synchronously on the posting thread, before `post` returns, unless `delivery`
    ///   names a queue (see ``NotificationDelivery``). The handler is `@Sendable` because posts may come from any
    ///   thread; for a handler on the main actor, use
    ///   ``observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)``.
    /// - **When observation ends:** when the returned token is cancelled or released, or when the center is
    ///   deallocated. Keep the token (in a property, or with ``NotificationToken/store(in:)``); a token that is not
    ///   kept ends the observation at once, which debug builds report. To tie the observation to an object instead,
    ///   use ``observe(for:from:in:delivery:where:coalescing:file:line:_:)``.
    /// - Observation begins when this method returns. Observers of one type run in registration order; one cancelled
    ///   during a post is not called again, even later in that post; one added during a post starts with the next.
    /// - Plain posts under ``notificationName`` are decoded once with ``payload(from:)`` and delivered too; those that
    ///   do not decode are skipped (and reported in debug builds).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// let center = NotificationCenter()
    /// let token = CounterDidChange.observe(in: center) { change in print(change.count) }
    /// CounterDidChange(count: 3).post(in: center)   // prints 3
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` (the posting thread) unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     where the handler runs, just before it would. `nil` for every payload. For one case of an enum whose
    ///     cases carry values: `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made, for ``Foundation/NotificationCenter/typedObservations``; leave the
    ///     default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each payload.
    /// - Returns: The token that keeps the observation alive.
    @inlinable
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Payload) -> Void
    ) -> NotificationToken {
        NotificationToken(
            center.register(
                Self.self,
                sender: sender,
                on: delivery.executor,
                handler: .payload(handler),
                condition: condition?.accepts, coalescing: coalescing,
                site: ObservationSite(fileID: file, line: line)
            ),
            site: ObservationSite(fileID: file, line: line)
        )
    }

    /// Calls `handler` with the sender and the payload of every post of this type, until the token is cancelled or
    /// released.
    ///
    /// For code that observes many senders and must know which one posted. The sender is the post's `from:` object,
    /// or for a plain post its `object`; it is `nil` when there is none or when it is not a ``Sender``. With a queue
    /// ``NotificationDelivery``, the sender is kept until the handler has run, as Foundation keeps `object` for
    /// observers registered with a queue. Where the handler runs and when observation ends: as for
    /// ``observe(from:in:delivery:where:coalescing:file:line:_:)-(_,_,_,_,_,_,_,(Payload)->Void)``.
    ///
    /// ```swift
    /// final class Document: Sendable {
    ///     let title: String
    ///     init(title: String) { self.title = title }
    /// }
    /// struct DocumentDidSave: Notifiable {
    ///     typealias Sender = Document
    ///     let bytes: Int
    /// }
    ///
    /// let center = NotificationCenter()
    /// let token = DocumentDidSave.observe(in: center) { document, save in
    ///     print(document?.title ?? "?", save.bytes)
    /// }
    /// DocumentDidSave(bytes: 10).post(from: Document(title: "Notes"), in: center)   // prints "Notes 10"
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` (the posting thread) unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     where the handler runs, just before it would. `nil` for every payload. For one case of an enum whose
    ///     cases carry values: `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives the sender and each payload.
    /// - Returns: The token that keeps the observation alive.
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Sender?, Payload) -> Void
    ) -> NotificationToken {
        let handler: Handler<Payload> = .call(
            { payload, sender, _ in handler(sender as? Sender, payload) }, takesSender: true)
        return NotificationToken(
            center.register(
                Self.self, sender: sender, on: delivery.executor, handler: handler, condition: condition?.accepts,
                coalescing: coalescing,
                site: ObservationSite(fileID: file, line: line)),
            site: ObservationSite(fileID: file, line: line)
        )
    }

    /// Calls `handler` with `owner` and the payload of every post of this type, for as long as `owner` lives.
    ///
    /// Subscribe and forget: `owner` is not retained, and nothing needs to keep the returned value. `owner` is a class
    /// instance (or an actor, for the form below): a struct has no lifetime to end the observation, and does not
    /// compile here (see ``OwnerBoundObservation``).
    ///
    /// - **Where the handler runs:** as for
    ///   ``observe(from:in:delivery:where:coalescing:file:line:_:)-(_,_,_,_,_,_,_,(Payload)->Void)``: on the posting
    ///   thread unless `delivery` names a queue. While it runs it holds `owner`.
    /// - **When observation ends:** when `owner` is deallocated (the handler is never called after that), when
    ///   ``OwnerBoundObservation/cancel()`` is called, or when the center is deallocated.
    /// - `owner` is `Sendable` because the handler receives it on the posting thread or queue; for a `@MainActor`
    ///   class, use ``observeOnMainActor(for:from:in:where:coalescing:file:line:isolation:_:)``. When `owner` is an
    ///   actor, the form whose handler is isolated to it is chosen
    ///   (``observe(for:from:in:where:coalescing:file:line:isolation:_:)``).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// final class CounterLog: Sendable {
    ///     func record(_ count: Int) { print("count:", count) }
    /// }
    ///
    /// let center = NotificationCenter()
    /// let log = CounterLog()
    /// CounterDidChange.observe(for: log, in: center) { log, change in log.record(change.count) }
    /// CounterDidChange(count: 3).post(in: center)   // prints "count: 3"
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the observation, a class instance; passed back to the handler.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` (the posting thread) unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     where the handler runs, just before it would. `nil` for every payload. For one case of an enum whose
    ///     cases carry values: `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives the owner and each payload.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    @_disfavoredOverload
    public static func observe<Owner: AnyObject & Sendable>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, Payload) -> Void
    ) -> OwnerBoundObservation {
        // The owner is loaded once per delivery, by the checks before the handler, and handed to it.
        let handler: Handler<Payload> = .call(
            { payload, _, owner in
                if let owner { handler(unsafeDowncast(owner, to: Owner.self), payload) }
            }, takesSender: false)
        let handle = NotificationToken()
        _ = center.register(
            Self.self, sender: sender, owner: owner, on: delivery.executor, handler: handler,
            condition: condition?.accepts, coalescing: coalescing, site: ObservationSite(fileID: file, line: line),
            heldBy: handle)
        return OwnerBoundObservation(handle)
    }
}

extension Notifiable where Self: Equatable, Payload == Self {
    /// Calls `handler` for every post of this type equal to this value: observing one case of an enum.
    ///
    /// Shorthand for ``observe(from:in:delivery:where:coalescing:file:line:_:)-(_,_,_,_,_,_,_,(Payload)->Void)`` with
    /// `where: .equals(self)`, for the enum-as-names style: `PaymentDidFinish.accepted.observe { … }`. Where the
    /// handler runs and when observation ends: as for the form it is shorthand for.
    ///
    /// It exists for this one form, and fits cases without associated values:
    /// - **Every other form** (``observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)``, an owner, an
    ///   actor, an `async` handler) takes the same condition as `where:`:
    ///   `PaymentDidFinish.observeOnMainActor(where: .equals(.accepted)) { … }`. Written on a case
    ///   (`.accepted.observeOnMainActor`), they do not compile: the compiler says a static member cannot be used on
    ///   an instance.
    /// - **A case with an associated value** compares its values too: `.finished(id: 0).observe` receives only the
    ///   posts of `.finished(id: 0)`, never those of other ids. To receive every post of the case, write
    ///   `PaymentDidFinish.observe(where: .matching { if case .finished = $0 { true } else { false } })`. Debug builds
    ///   report the shorthand on such a case
    ///   (``NotificationDiagnostics/Event/Kind/caseFilterWithAssociatedValue(caseName:fileID:line:)``), and on a
    ///   value that is not an enum case (``NotificationDiagnostics/Event/Kind/caseFilterOnNonEnum(fileID:line:)``),
    ///   where equality is rarely what is meant.
    ///
    /// ```swift
    /// enum PaymentDidFinish: Notifiable, Equatable {
    ///     case accepted, rejected
    ///     case refunded(id: Int)
    /// }
    ///
    /// let center = NotificationCenter()
    /// let token = PaymentDidFinish.accepted.observe(in: center) { _ in print("accepted") }
    /// let refunds = PaymentDidFinish.observe(
    ///     in: center, where: .matching { if case .refunded = $0 { true } else { false } }
    /// ) { _ in print("refunded") }
    /// PaymentDidFinish.accepted.post(in: center)   // prints "accepted"
    /// PaymentDidFinish.rejected.post(in: center)   // prints nothing
    /// PaymentDidFinish.refunded(id: 7).post(in: center)   // prints "refunded"
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` (the posting thread) unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each post equal to this value.
    /// - Returns: The token that keeps the observation alive.
    public func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Self) -> Void
    ) -> NotificationToken {
        NotificationDiagnostics.checkCaseFilter(self, in: center, site: ObservationSite(fileID: file, line: line))
        return Self.observe(
            from: sender, in: center, delivery: delivery, where: .equals(self), file: file, line: line, handler)
    }
}

extension NotificationCenter {
    /// Calls `handler` with every `Event` post on this center, from any sender, with its sender: decoded, or, for a
    /// plain post that ``Notifiable/payload(from:)`` cannot decode, the error. For the testing kit, which reports
    /// both; on the posting thread, until the token is cancelled or released.
    package func observeEveryPost<Event: Notifiable>(
        _ subject: Event.Type,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Result<Event.Payload, any Error>, AnyObject?) -> Void
    ) -> NotificationToken {
        NotificationToken(
            register(
                subject, sender: nil, on: nil,
                handler: .call({ payload, sender, _ in handler(.success(payload), sender) }, takesSender: true),
                site: ObservationSite(fileID: file, line: line),
                onDecodingFailure: { error, sender in handler(.failure(error), sender) })
        )
    }

    /// The one registration path behind every observing form; inlinable, so that it is specialised for the observed
    /// type in the caller's module.
    ///
    /// - Parameters:
    ///   - executor: The serial target the handler runs on, or `nil` for the posting thread (and for an observer with
    ///     a queue of its own, `handler` ``Handler/queued(_:)``: an `async` handler, a sequence).
    ///   - condition: The `where:` condition, run where the handler runs, just before it would (see
    ///     ``Subscription/admission(of:)``).
    ///   - coalescing: The observer's own coalescing of what it receives, if it asked for one.
    ///   - kind: How introspection lists it; by default from `executor`.
    ///   - isolation: The actor the observing call runs on, for an observer isolated to an actor: if it is that
    ///     actor, the latest post of a ``LatestValueNotifiable`` type runs before the call returns.
    ///   - holder: For an owner-bound observation, the handle that holds it, made before it: it holds it from the
    ///     step that adds it (``AnySubscription/holder``).
    @inlinable
    func register<Event: Notifiable>(
        _ subject: Event.Type,
        sender: Event.Sender?,
        owner: AnyObject? = nil,
        on executor: DeliveryTarget.Executor?,
        handler: Handler<Event.Payload>,
        condition: (@Sendable (Event.Payload) -> Bool)? = nil,
        coalescing: NotificationCoalescing<Event.Payload>? = nil,
        site: ObservationSite,
        kind: TypedObservation.Delivery? = nil,
        onDecodingFailure: (@Sendable (any Error, AnyObject?) -> Void)? = nil,
        isolation: (any Actor)? = nil,
        heldBy holder: NotificationToken? = nil
    ) -> Subscription<Event> {
        // Mistakes that compile and never fire (a center as the sender filter, an owner in its `deinit`, a subclass
        // of a conforming class): reported in debug builds.
        NotificationDiagnostics.checkObservation(of: subject, sender: sender, owner: owner, in: self, site: site)
        return ObserverRegistry.shared.add(
            subject, in: self, on: executor, isolation: isolation, senderFilter: sender, heldBy: holder
        ) { channel, target in
            #if DEBUG
            channel.recordActivity()  // another observation: a token made before was kept
            #endif
            return Subscription<Event>(
                channel: channel,
                sender: sender,
                owner: owner,
                target: target,
                handler: handler,
                condition: condition,
                site: site,
                kind: kind ?? TypedObservation.Delivery(executor),
                onDecodingFailure: onDecodingFailure,
                coalescing: coalescing
            )
        }
    }
}
