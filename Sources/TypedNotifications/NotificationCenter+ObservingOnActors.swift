public import Foundation

// Observers isolated to an actor: the main actor, or any actor given as an argument.
//
// The rule, the same for both: an observer isolated to an actor runs synchronously during a post made on that actor,
// before `post` returns, after anything still queued for the actor's observers of that center (unless more than a
// batch waits: then the post is queued behind it); a post made anywhere else queues the payload for all of them in one
// step and returns at once, never waiting for the actor. Either way all observers of a center on one actor see one
// order, and never run concurrently. See `Internal/DeliveryTarget.swift`; how a post knows it is on the main actor:
// `PlatformIsolation` in `Internal/Platform.swift`.

// MARK: - Observing on a center

extension NotificationCenter {
    /// Calls a main-actor `handler` with the payload of every `Event` post, until the token is cancelled or
    /// released.
    ///
    /// Where the handler runs:
    /// - **During a post made on the main actor**, synchronously, before `post` returns, as an observer registered
    ///   with `queue: .main` runs for a post made on the main thread. Payloads still queued for the center's
    ///   main-actor observers (posted earlier from other threads) are delivered first, so all of them see the posts
    ///   in one order; when more than 64 wait, the post is queued behind them instead. A post is on the main actor
    ///   when its caller is isolated to the main actor (the compiler passes that as the post's `isolation`
    ///   argument); on Apple platforms also when its caller runs on the main thread.
    /// - **After a post made anywhere else**, on the main actor, asynchronously: `post` queues the payload for all
    ///   the center's main-actor observers in one step and returns at once, without waiting for the main actor.
    ///
    /// Observation begins when this method returns and ends when the token is cancelled or released; cancelling
    /// drops what is still queued. Otherwise as
    /// ``observe(_:from:delivery:file:line:_:)-(_,_,_,_,_,(Event.Payload)->Void)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// @MainActor final class CounterLabel { var text = "" }
    ///
    /// @MainActor func showCount(in center: NotificationCenter) {
    ///     let label = CounterLabel()
    ///     let token = center.observeOnMainActor(CounterDidChange.self) { change in label.text = "\(change.count)" }
    ///     center.post(CounterDidChange(count: 3))
    ///     print(label.text)   // prints 3: posted on the main actor, delivered before `post` returned
    ///     token.cancel()
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives each payload on the main actor.
    /// - Returns: The token that keeps the observation alive.
    public func observeOnMainActor<Event: Notifiable>(
        _ subject: Event.Type,
        from sender: Event.Sender? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Event.Payload) -> Void
    ) -> NotificationToken {
        let handler: Handler<Event.Payload> = .payload(PlatformIsolation.onMainActor(handler))
        return NotificationToken(
            register(
                subject,
                sender: sender,
                on: .mainActor,
                handler: handler,
                site: ObservationSite(fileID: file, line: line)
            )
        )
    }

    /// Calls a main-actor `handler` with `owner` and each `Event` payload, for as long as `owner` lives.
    ///
    /// Combines ``observe(_:for:from:delivery:file:line:_:)`` (subscribe and forget, `owner` not retained, the result
    /// need not be kept) with ``observeOnMainActor(_:from:file:line:_:)`` (on the main actor: during a post made there,
    /// otherwise queued, in post order).
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
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives the owner and each payload on the main actor.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    public func observeOnMainActor<Event: Notifiable, Owner: AnyObject & Sendable>(
        _ subject: Event.Type,
        for owner: Owner,
        from sender: Event.Sender? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Owner, Event.Payload) -> Void
    ) -> OwnerBoundObservation {
        // The owner is loaded on the main actor only (see `AnySubscription`).
        let body: @MainActor @Sendable (Event.Payload) -> Void = { [weak owner] payload in
            if let owner { handler(owner, payload) }
        }
        return OwnerBoundObservation(
            register(
                subject,
                sender: sender,
                owner: owner,
                on: .mainActor,
                handler: .payload(PlatformIsolation.onMainActor(body)),
                site: ObservationSite(fileID: file, line: line)
            )
        )
    }

    /// Calls `handler`, isolated to `actor`, with the payload of every `Event` post, until the token is cancelled
    /// or released, or `actor` is deallocated.
    ///
    /// The handler runs on `actor`: synchronously during a post made on `actor` (after anything still queued for
    /// the actor's observers of this center), otherwise queued, as a job on `actor`, while `post` returns at once.
    /// The center's observers on one actor see the posts in one order, each thread's in post order, and never run
    /// concurrently. `actor` is not retained, so an actor
    /// that keeps the token makes no cycle; once it is deallocated, the observation ends. Cancelling drops what is
    /// still queued.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// actor CounterTotal {
    ///     var total = 0
    ///     var token: NotificationToken?
    ///     func start(in center: NotificationCenter) {
    ///         token = center.observe(CounterDidChange.self, on: self) { total, change in total.total += change.count }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - actor: The actor the handler is isolated to; held weakly.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives the actor, isolated, and each payload.
    /// - Returns: The token that keeps the observation alive.
    public func observe<Event: Notifiable, Isolation: Actor>(
        _ subject: Event.Type,
        on actor: Isolation,
        from sender: Event.Sender? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated Isolation, Event.Payload) -> Void
    ) -> NotificationToken {
        NotificationToken(registerIsolated(subject, on: actor, from: sender, file: file, line: line, handler))
    }

    /// Calls `handler`, isolated to the actor `owner`, with each `Event` payload, for as long as `owner` lives.
    ///
    /// Subscribe and forget, for an actor: `owner` is not retained, the observation ends when it is deallocated, and
    /// the result need not be kept. Delivery is as for ``observe(_:on:from:file:line:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// actor CounterTotal {
    ///     var total = 0
    ///     init(center: NotificationCenter) {
    ///         center.observe(CounterDidChange.self, for: self) { total, change in total.total += change.count }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - owner: The actor whose lifetime bounds the observation, and to which the handler is isolated.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives the actor, isolated, and each payload.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    public func observe<Event: Notifiable, Owner: Actor>(
        _ subject: Event.Type,
        for owner: Owner,
        from sender: Event.Sender? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated Owner, Event.Payload) -> Void
    ) -> OwnerBoundObservation {
        OwnerBoundObservation(registerIsolated(subject, on: owner, from: sender, file: file, line: line, handler))
    }

    /// Both actor forms: bound to `actor`, which is held weakly, with a handler that the mailbox calls while isolated to
    /// it (never otherwise: `assumeIsolated` checks).
    private func registerIsolated<Event: Notifiable, Isolation: Actor>(
        _ subject: Event.Type,
        on actor: Isolation,
        from sender: Event.Sender?,
        file: StaticString,
        line: UInt,
        _ handler: @escaping @Sendable (isolated Isolation, Event.Payload) -> Void
    ) -> Subscription<Event> {
        register(
            subject,
            sender: sender,
            owner: actor,
            // The main actor is one target, whichever way it is observed.
            on: actor === MainActor.shared ? .mainActor : .actor(WeakActor(actor)),
            handler: .payload { [weak actor] payload in
                actor?.assumeIsolated { actor in handler(actor, payload) }
            },
            site: ObservationSite(fileID: file, line: line)
        )
    }
}

// MARK: - Observing from a notification type

extension Notifiable {
    /// Calls a main-actor `handler` with each payload of this type, until the token is cancelled or released.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observeOnMainActor(_:from:file:line:_:)``: during a post made on
    /// the main actor, synchronously; otherwise queued for the main actor, in post order.
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
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each payload on the main actor.
    /// - Returns: The token that keeps the observation alive.
    public static func observeOnMainActor(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> NotificationToken {
        center.observeOnMainActor(Self.self, from: sender, file: file, line: line, handler)
    }

    /// Calls a main-actor `handler` with `owner` and each payload of this type, for as long as `owner` lives.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observeOnMainActor(_:for:from:file:line:_:)``.
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
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives the owner and each payload on the main actor.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    public static func observeOnMainActor<Owner: AnyObject & Sendable>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @MainActor @Sendable (Owner, Payload) -> Void
    ) -> OwnerBoundObservation {
        center.observeOnMainActor(Self.self, for: owner, from: sender, file: file, line: line, handler)
    }

    /// Calls `handler`, isolated to `actor`, with each payload of this type, until the token is cancelled or
    /// released, or `actor` is deallocated.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observe(_:on:from:file:line:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// actor CounterTotal {
    ///     var total = 0
    ///     var token: NotificationToken?
    ///     func start() {
    ///         token = CounterDidChange.observe(on: self) { total, change in total.total += change.count }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - actor: The actor the handler is isolated to; held weakly.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives the actor, isolated, and each payload.
    /// - Returns: The token that keeps the observation alive.
    public static func observe<Isolation: Actor>(
        on actor: Isolation,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated Isolation, Payload) -> Void
    ) -> NotificationToken {
        center.observe(Self.self, on: actor, from: sender, file: file, line: line, handler)
    }

    /// Calls `handler`, isolated to the actor `owner`, with each payload of this type, for as long as `owner` lives.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observe(_:for:from:file:line:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// actor CounterTotal {
    ///     var total = 0
    ///     init() {
    ///         CounterDidChange.observe(for: self) { total, change in total.total += change.count }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The actor whose lifetime bounds the observation, and to which the handler is isolated.
    ///   - sender: Only posts from this object are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives the actor, isolated, and each payload.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    public static func observe<Owner: Actor>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (isolated Owner, Payload) -> Void
    ) -> OwnerBoundObservation {
        center.observe(Self.self, for: owner, from: sender, file: file, line: line, handler)
    }
}
