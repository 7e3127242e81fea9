public import Foundation

// MARK: - Observing on a center

extension NotificationCenter {
    /// Calls `handler` with the payload of every `Subject` post on this center, until the token is cancelled or
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
    ///   - handler: Receives each payload.
    /// - Returns: The token that keeps the observation alive.
    @inlinable
    public func observe<Subject: Notifiable>(
        _ subject: Subject.Type,
        from sender: Subject.Sender? = nil,
        delivery: NotificationDelivery = .immediate,
        _ handler: @escaping @Sendable (Subject.Payload) -> Void
    ) -> NotificationToken {
        NotificationToken(register(subject, sender: sender, owner: nil, executor: delivery.executor, handler: handler))
    }

    /// Calls `handler` with `owner` and the payload of every `Subject` post, for as long as `owner` lives.
    ///
    /// Subscribe and forget: `owner` is not retained, and the observation ends by itself when `owner` is
    /// deallocated (its handler is never called after that, and its registration is dropped at the next post or
    /// observation on the same name and center). While the handler runs it holds `owner`, so an owner released
    /// from inside its own handler's nested posts lives, and is called, until that handler returns. The returned token may be ignored; releasing it does not end the
    /// observation, but ``NotificationToken/cancel()`` ends it early. Delivery is as for
    /// ``observe(_:from:delivery:_:)``.
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
    ///   - handler: Receives the owner and each payload.
    /// - Returns: A token that can end the observation early.
    @discardableResult
    public func observe<Subject: Notifiable, Owner: AnyObject & Sendable>(
        _ subject: Subject.Type,
        for owner: Owner,
        from sender: Subject.Sender? = nil,
        delivery: NotificationDelivery = .immediate,
        _ handler: @escaping @Sendable (Owner, Subject.Payload) -> Void
    ) -> NotificationToken {
        let subscription = register(subject, sender: sender, owner: owner, executor: delivery.executor) {
            [weak owner] payload in
            if let owner { handler(owner, payload) }
        }
        return NotificationToken(subscription, endsOnRelease: false)
    }

    /// Calls a main-actor `handler` with the payload of every `Subject` post, until the token is cancelled or
    /// released.
    ///
    /// The handler is isolated to the main actor at compile time and runs there, asynchronously: `post` enqueues the
    /// payload and returns, from any thread. For each observer, payloads posted from one thread arrive in post order;
    /// cancelling drops what is still queued. Otherwise as ``observe(_:from:delivery:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// @MainActor final class CounterLabel { var text = "" }
    ///
    /// let center = NotificationCenter()
    /// let label = CounterLabel()
    /// let token = center.observeOnMainActor(CounterDidChange.self) { change in label.text = "\(change.count)" }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - handler: Receives each payload on the main actor.
    /// - Returns: The token that keeps the observation alive.
    public func observeOnMainActor<Subject: Notifiable>(
        _ subject: Subject.Type,
        from sender: Subject.Sender? = nil,
        _ handler: @escaping @MainActor @Sendable (Subject.Payload) -> Void
    ) -> NotificationToken {
        let subscription = register(subject, sender: sender, owner: nil, executor: .mainActor) { payload in
            MainActor.assumeIsolated { handler(payload) }
        }
        return NotificationToken(subscription)
    }

    /// Calls a main-actor `handler` with `owner` and each `Subject` payload, for as long as `owner` lives.
    ///
    /// Combines ``observe(_:for:from:delivery:_:)`` (subscribe and forget, `owner` not retained) with
    /// ``observeOnMainActor(_:from:_:)`` (asynchronous, on the main actor, in post order).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// @MainActor final class CounterViewModel {
    ///     var text = ""
    ///     init(center: NotificationCenter) {
    ///         center.observeOnMainActor(CounterDidChange.self, for: self) { model, change in
    ///             model.text = "\(change.count)"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - owner: The object whose lifetime bounds the observation; passed back to the handler.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - handler: Receives the owner and each payload on the main actor.
    /// - Returns: A token that can end the observation early.
    @discardableResult
    public func observeOnMainActor<Subject: Notifiable, Owner: AnyObject & Sendable>(
        _ subject: Subject.Type,
        for owner: Owner,
        from sender: Subject.Sender? = nil,
        _ handler: @escaping @MainActor @Sendable (Owner, Subject.Payload) -> Void
    ) -> NotificationToken {
        let subscription = register(subject, sender: sender, owner: owner, executor: .mainActor) {
            [weak owner] payload in
            MainActor.assumeIsolated {
                if let owner { handler(owner, payload) }
            }
        }
        return NotificationToken(subscription, endsOnRelease: false)
    }

    /// The one registration path behind every `observe` spelling; inlinable, so that it is specialised for the
    /// observed type in the caller's module.
    @inlinable
    func register<Subject: Notifiable>(
        _ subject: Subject.Type,
        sender: Subject.Sender?,
        owner: AnyObject?,
        executor: Executor?,
        handler: @escaping @Sendable (Subject.Payload) -> Void
    ) -> Subscription<Subject> {
        ObserverRegistry.shared.add(subject, in: self) { channel in
            Subscription<Subject>(channel: channel, sender: sender, owner: owner, executor: executor, handler: handler)
        }
    }
}

// MARK: - Observing from a notification type

extension Notifiable {
    /// Calls `handler` with the payload of every post of this type, until the token is cancelled or released.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observe(_:from:delivery:_:)``; the same guarantees apply.
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
    ///   - handler: Receives each payload.
    /// - Returns: The token that keeps the observation alive.
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        _ handler: @escaping @Sendable (Payload) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, from: sender, delivery: delivery, handler)
    }

    /// Calls `handler` with `owner` and each payload of this type, for as long as `owner` lives.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observe(_:for:from:delivery:_:)``: `owner` is not retained and
    /// the observation ends when it is deallocated; the token may be ignored.
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
    ///   - handler: Receives the owner and each payload.
    /// - Returns: A token that can end the observation early.
    @discardableResult
    public static func observe<Owner: AnyObject & Sendable>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        _ handler: @escaping @Sendable (Owner, Payload) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, for: owner, from: sender, delivery: delivery, handler)
    }

    /// Calls a main-actor `handler` with each payload of this type, until the token is cancelled or released.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observeOnMainActor(_:from:_:)``: the handler runs on the main
    /// actor, asynchronously, in post order.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observeOnMainActor { change in
    ///     MainActor.assertIsolated()
    ///     print(change.count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - handler: Receives each payload on the main actor.
    /// - Returns: The token that keeps the observation alive.
    public static func observeOnMainActor(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> NotificationToken {
        center.observeOnMainActor(Self.self, from: sender, handler)
    }

    /// Calls a main-actor `handler` with `owner` and each payload of this type, for as long as `owner` lives.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observeOnMainActor(_:for:from:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// @MainActor final class CounterViewModel {
    ///     var text = ""
    ///     init() {
    ///         CounterDidChange.observeOnMainActor(for: self) { model, change in model.text = "\(change.count)" }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the observation; passed back to the handler.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - handler: Receives the owner and each payload on the main actor.
    /// - Returns: A token that can end the observation early.
    @discardableResult
    public static func observeOnMainActor<Owner: AnyObject & Sendable>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        _ handler: @escaping @MainActor @Sendable (Owner, Payload) -> Void
    ) -> NotificationToken {
        center.observeOnMainActor(Self.self, for: owner, from: sender, handler)
    }
}

extension Notifiable where Self: Equatable, Payload == Self {
    /// Calls `handler` for every post of a value equal to this one, until the token is cancelled or released.
    ///
    /// This is how enum cases act as notification names (`PaymentNotifications.accepted` below): all cases
    /// travel under the type's one name, and each observer sees only its case. Otherwise as
    /// ``Notifiable/observe(from:in:delivery:_:)-type.method``.
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
    ///   - handler: Receives each equal payload.
    /// - Returns: The token that keeps the observation alive.
    public func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        delivery: NotificationDelivery = .immediate,
        _ handler: @escaping @Sendable (Self) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, from: sender, delivery: delivery) { [self] payload in
            if payload == self { handler(payload) }
        }
    }
}
