public import Foundation

// Observers whose handler runs on the posting thread, or on a queue: the forms that take a
// ``NotificationDelivery``. Observers isolated to an actor are in `NotificationCenter+ObservingOnActors.swift`,
// `async` handlers in `NotificationCenter+ObservingAsync.swift`.

// MARK: - Observing on a center

extension NotificationCenter {
    /// Calls `handler` with the payload of every `Event` post on this center, until the token is cancelled or
    /// released.
    ///
    /// - The handler runs synchronously on the posting thread before `post` returns, unless `delivery` says
    ///   otherwise (see ``NotificationDelivery``). It is `@Sendable`: posts may come from any thread.
    /// - Observation begins when this method returns and ends when the returned token is cancelled or released, so a
    ///   token that is not kept never delivers.
    /// - Typed observers of one type run in registration order. One cancelled during a post is not called again,
    ///   even later in that post; one added during a post starts with the next post.
    /// - Plain posts under ``Notifiable/notificationName`` are decoded once with ``Notifiable/payload(from:)`` and
    ///   delivered too; those that do not decode are skipped.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = center.observe(CounterDidChange.self) { change in print(change.count) }
    /// center.post(CounterDidChange(count: 3))   // prints 3
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives each payload.
    /// - Returns: The token that keeps the observation alive.
    @inlinable
    public func observe<Event: Notifiable>(
        _ subject: Event.Type,
        from sender: Event.Sender? = nil,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Event.Payload) -> Void
    ) -> NotificationToken {
        NotificationToken(
            register(
                subject,
                sender: sender,
                on: delivery.executor,
                handler: .payload(handler),
                site: ObservationSite(fileID: file, line: line)
            )
        )
    }

    /// Calls `handler` with the payload and the sender of every `Event` post on this center, until the token is
    /// cancelled or released.
    ///
    /// For code that observes many senders and must know which one posted. The sender is the post's `from:` object,
    /// or for a plain post its `object`; it is `nil` when there is none or when it is not a `Event.Sender`. With a
    /// queue ``NotificationDelivery``, the sender is kept until the handler has run, as Foundation keeps `object`
    /// for observers registered with a queue. Otherwise as ``observe(_:from:delivery:file:line:_:)-(_,_,_,_,_,(Event.Payload)->Void)``.
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
    /// let token = center.observe(DocumentDidSave.self) { save, document in
    ///     print(document?.title ?? "?", save.bytes)
    /// }
    /// center.post(DocumentDidSave(bytes: 10), from: Document(title: "Notes"))   // prints "Notes 10"
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives each payload and its sender.
    /// - Returns: The token that keeps the observation alive.
    public func observe<Event: Notifiable>(
        _ subject: Event.Type,
        from sender: Event.Sender? = nil,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Event.Payload, Event.Sender?) -> Void
    ) -> NotificationToken {
        NotificationToken(
            register(
                subject,
                sender: sender,
                on: delivery.executor,
                handler: .payloadAndSender { payload, sender in handler(payload, sender as? Event.Sender) },
                site: ObservationSite(fileID: file, line: line)
            )
        )
    }

    /// Calls `handler` with `owner` and the payload of every `Event` post, for as long as `owner` lives.
    ///
    /// Subscribe and forget: `owner` is not retained, and the observation ends by itself when `owner` is
    /// deallocated (its handler is never called after that, and its registration is dropped at the next post or
    /// observation on the same name and center). While the handler runs it holds `owner`, so an owner released
    /// from inside its own handler's nested posts lives, and is called, until that handler returns. Nothing needs to
    /// keep the returned ``OwnerBoundObservation``; its ``OwnerBoundObservation/cancel()`` ends the observation
    /// early. Delivery is as for ``observe(_:from:delivery:file:line:_:)-(_,_,_,_,_,(Event.Payload)->Void)``.
    ///
    /// When `owner` is an actor, the overload whose handler is isolated to it is chosen instead
    /// (``observe(_:for:from:file:line:_:)``).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// final class CounterModel: Sendable {
    ///     func show(_ count: Int) { print(count) }
    /// }
    ///
    /// let center = NotificationCenter()
    /// let model = CounterModel()
    /// center.observe(CounterDidChange.self, for: model) { model, change in model.show(change.count) }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - owner: The object whose lifetime bounds the observation; passed back to the handler.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives the owner and each payload.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    @_disfavoredOverload
    public func observe<Event: Notifiable, Owner: AnyObject & Sendable>(
        _ subject: Event.Type,
        for owner: Owner,
        from sender: Event.Sender? = nil,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, Event.Payload) -> Void
    ) -> OwnerBoundObservation {
        let handler: Handler<Event.Payload> = .payload { [weak owner] payload in
            if let owner { handler(owner, payload) }
        }
        return OwnerBoundObservation(
            register(
                subject,
                sender: sender,
                owner: owner,
                on: delivery.executor,
                handler: handler,
                site: ObservationSite(fileID: file, line: line)
            )
        )
    }

    /// Calls `handler` with every `Event` post on this center, from any sender, with its sender: decoded, or, for a
    /// plain post that ``Notifiable/payload(from:)`` cannot decode, the error. For the testing kit, which reports
    /// both; otherwise as ``observe(_:from:delivery:file:line:_:)-(_,_,_,_,_,(Event.Payload,Event.Sender?)->Void)``.
    package func observeEveryPost<Event: Notifiable>(
        _ subject: Event.Type,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Result<Event.Payload, any Error>, AnyObject?) -> Void
    ) -> NotificationToken {
        NotificationToken(
            register(
                subject, sender: nil, on: nil, handler: .everyPost(handler),
                site: ObservationSite(fileID: file, line: line))
        )
    }

    /// The one registration path behind every `observe` spelling; inlinable, so that it is specialised for the
    /// observed type in the caller's module.
    ///
    /// - Parameters:
    ///   - executor: The serial target the handler runs on, or `nil` for the posting thread (or, for an `async`
    ///     handler, a task of its own).
    ///   - kind: How introspection lists it; by default from `executor` and `handler`.
    ///   - onEnd: Called when the observation ends without a `cancel()`: its center or owner went.
    @inlinable
    func register<Event: Notifiable>(
        _ subject: Event.Type,
        sender: Event.Sender?,
        owner: AnyObject? = nil,
        on executor: DeliveryTarget.Executor?,
        handler: Handler<Event.Payload>,
        site: ObservationSite,
        kind: TypedObservation.Delivery? = nil,
        onEnd: (@Sendable () -> Void)? = nil
    ) -> Subscription<Event> {
        // A center given as the sender filter (`observe(from: center)` for `in: center`) never fires: reported in
        // debug builds.
        NotificationDiagnostics.checkSenderFilter(sender, for: subject, in: self, site: site)
        return ObserverRegistry.shared.add(subject, in: self, on: executor) { channel, target in
            Subscription<Event>(
                channel: channel,
                sender: sender,
                owner: owner,
                target: target,
                handler: handler,
                site: site,
                kind: kind ?? TypedObservation.Delivery(executor, handler),
                onEnd: onEnd
            )
        }
    }
}

// MARK: - Observing from a notification type

extension Notifiable {
    /// Calls `handler` with the payload of every post of this type, until the token is cancelled or released.
    ///
    /// Shorthand for
    /// ``Foundation/NotificationCenter/observe(_:from:delivery:file:line:_:)-(_,_,_,_,_,(Event.Payload)->Void)``;
    /// the same guarantees apply.
    ///
    /// ```swift
    /// final class Thermometer: Sendable {}
    /// struct Reading: Notifiable {
    ///     typealias Sender = Thermometer
    ///     let celsius: Double
    /// }
    ///
    /// let sensor = Thermometer()
    /// let center = NotificationCenter()
    /// let token = Reading.observe(from: sensor, in: center) { reading in print(reading.celsius) }
    /// Reading(celsius: 21).post(from: sensor, in: center)   // prints 21.0
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each payload.
    /// - Returns: The token that keeps the observation alive.
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Payload) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, from: sender, delivery: delivery, file: file, line: line, handler)
    }

    /// Calls `handler` with the payload and the sender of every post of this type, until the token is cancelled or
    /// released.
    ///
    /// Shorthand for
    /// ``Foundation/NotificationCenter/observe(_:from:delivery:file:line:_:)-(_,_,_,_,_,(Event.Payload,Event.Sender?)->Void)``.
    ///
    /// ```swift
    /// final class Thermometer: Sendable {}
    /// struct Reading: Notifiable {
    ///     typealias Sender = Thermometer
    ///     let celsius: Double
    /// }
    ///
    /// let kitchen = Thermometer()
    /// let center = NotificationCenter()
    /// let token = Reading.observe(in: center) { reading, thermometer in
    ///     print(thermometer === kitchen ? "kitchen" : "elsewhere", reading.celsius)
    /// }
    /// Reading(celsius: 21).post(from: kitchen, in: center)   // prints "kitchen 21.0"
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each payload and its sender.
    /// - Returns: The token that keeps the observation alive.
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Payload, Sender?) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, from: sender, delivery: delivery, file: file, line: line, handler)
    }

    /// Calls `handler` with `owner` and each payload of this type, for as long as `owner` lives.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observe(_:for:from:delivery:file:line:_:)``: `owner` is not
    /// retained and the observation ends when it is deallocated; the result need not be kept.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// final class CounterModel: Sendable {
    ///     init(center: NotificationCenter) {
    ///         CounterDidChange.observe(for: self, in: center) { model, change in model.show(change.count) }
    ///     }
    ///     func show(_ count: Int) { print(count) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the observation; passed back to the handler.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
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
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, Payload) -> Void
    ) -> OwnerBoundObservation {
        center.observe(Self.self, for: owner, from: sender, delivery: delivery, file: file, line: line, handler)
    }
}

extension Notifiable where Self: Equatable, Payload == Self {
    /// Calls `handler` for every post of a value equal to this one, until the token is cancelled or released.
    ///
    /// This is how enum cases act as notification names (`PaymentNotifications.accepted` below): all cases
    /// travel under the type's one name, and each observer sees only its case. Otherwise as
    /// ``Notifiable/observe(from:in:delivery:file:line:_:)-(_,_,_,_,_,(Payload)->Void)``.
    ///
    /// ```swift
    /// enum PaymentNotifications: Notifiable, Equatable {
    ///     case accepted, rejected
    /// }
    ///
    /// let token = PaymentNotifications.accepted.observe { _ in print("accepted") }
    /// PaymentNotifications.rejected.post()   // prints nothing
    /// PaymentNotifications.accepted.post()   // prints "accepted"
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - delivery: Where the handler runs; ``NotificationDelivery/immediate`` unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each equal payload.
    /// - Returns: The token that keeps the observation alive.
    public func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Self) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, from: sender, delivery: delivery, file: file, line: line) { [self] payload in
            if payload == self { handler(payload) }
        }
    }
}
