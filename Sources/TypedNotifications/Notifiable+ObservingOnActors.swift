public import Foundation

// Observers isolated to an actor: the main actor, or any actor given as the owner.
//
// The rule, the same for both: an observer isolated to an actor runs synchronously during a post made on that actor,
// before `post` returns, after anything still queued for the actor's observers of that center (unless more than a
// batch waits: then the post is queued behind it); a post made anywhere else queues the payload for all of them in one
// step and returns at once, never waiting for the actor. Either way all observers of a center on one actor see one
// order, and never run concurrently. An observation is a post's mirror image: made on its handler's actor (the
// caller's `#isolation`), it runs a latest-value type's kept payload before it returns; made elsewhere, it queues it.
// See `Internal/Targets/DeliveryTarget.swift`; how a post knows it is on the main actor: `Platform` in
// `Internal/Foundation/Platform.swift`.

extension Notifiable {
    /// Calls `handler` on the main actor with the payload of every post of this type, until the token is cancelled or
    /// released.
    ///
    /// - **Where the handler runs:** on the main actor. During a post made on the main actor it runs synchronously,
    ///   before `post` returns; a post from any other thread queues the payload and returns at once. All main-actor
    ///   observers of a center share one queue, so they see the center's posts in one order.
    /// - **When observation begins:** before this call returns. For a ``LatestValueNotifiable`` type, the kept latest
    ///   payload comes first: called on the main actor (a `@MainActor` function or type, as `isolation` tells), the
    ///   handler receives it before this call returns, on every platform; called elsewhere, at the main actor's next
    ///   turn, before any later post.
    /// - **When observation ends:** when the token is cancelled or released (what is still queued for it is dropped),
    ///   or when the center is deallocated. To tie it to a view model or view controller instead of a token, use
    ///   ``observeOnMainActor(for:from:in:where:coalescing:file:line:isolation:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// @MainActor final class CounterLabel {
    ///     var text = ""
    ///     var token: NotificationToken?
    ///
    ///     func start(in center: NotificationCenter) {
    ///         token = CounterDidChange.observeOnMainActor(in: center) { [weak self] change in
    ///             self?.text = "\(change.count)"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     where the handler runs, just before it would. `nil` for every payload.
    ///     For one case of an enum whose cases carry values:
    ///     `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: on the main actor, a kept latest
    ///     payload runs the handler before this call returns. Leave the default.
    ///   - handler: Receives each payload, on the main actor.
    /// - Returns: The token that keeps the observation alive.
    public static func observeOnMainActor(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        isolation: isolated (any Actor)? = #isolation,
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> NotificationToken {
        return NotificationToken(
            center.register(
                Self.self, sender: sender, on: .mainActor, handler: .payload(Platform.onMainActor(handler)),
                condition: condition?.accepts, coalescing: coalescing, site: ObservationSite(fileID: file, line: line),
                isolation: isolation),
            site: ObservationSite(fileID: file, line: line)
        )
    }

    /// Calls `handler` on the main actor with `owner` and the payload of every post of this type, for as long as
    /// `owner` lives: the form for a `@MainActor` view model or view controller.
    ///
    /// - **Where the handler runs:** on the main actor, as for
    ///   ``observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)``. While it runs it holds `owner`.
    /// - **When observation begins:** before this call returns; a ``LatestValueNotifiable`` type's kept latest payload
    ///   comes first, before this call returns when it is made on the main actor (as in the `init` below), on every
    ///   platform.
    /// - **When observation ends:** when `owner` is deallocated, when ``OwnerBoundObservation/cancel()`` is called, or
    ///   when the center is deallocated. `owner` is not retained, and is loaded on the main actor only, so a
    ///   `@MainActor` class is never released elsewhere by this observation.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// @MainActor final class CounterViewModel {
    ///     private(set) var text = ""
    ///
    ///     init(center: NotificationCenter = .default) {
    ///         CounterDidChange.observeOnMainActor(for: self, in: center) { model, change in
    ///             model.text = "\(change.count)"
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the observation; passed back to the handler.
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     where the handler runs, just before it would. `nil` for every payload.
    ///     For one case of an enum whose cases carry values:
    ///     `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: on the main actor, a kept latest
    ///     payload runs the handler before this call returns. Leave the default.
    ///   - handler: Receives the owner and each payload, on the main actor.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    public static func observeOnMainActor<Owner: AnyObject & Sendable>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        isolation: isolated (any Actor)? = #isolation,
        _ handler: @escaping @MainActor @Sendable (Owner, Payload) -> Void
    ) -> OwnerBoundObservation {
        // The owner is loaded once per delivery, on the main actor only (see `AnySubscription`), and handed over.
        let body: @MainActor @Sendable (Payload, AnyObject?) -> Void = { payload, owner in
            if let owner { handler(unsafeDowncast(owner, to: Owner.self), payload) }
        }
        let handle = NotificationToken()
        _ = center.register(
            Self.self, sender: sender, owner: owner, on: .mainActor,
            handler: .call(Platform.onMainActor(body), takesSender: false), condition: condition?.accepts,
            coalescing: coalescing,
            site: ObservationSite(fileID: file, line: line), isolation: isolation, heldBy: handle)
        return OwnerBoundObservation(handle)
    }

    /// Calls `handler`, isolated to `actor`, with the payload of every post of this type, for as long as `actor`
    /// lives.
    ///
    /// - **Where the handler runs:** on `actor`. During a post made on `actor` it runs synchronously, before `post`
    ///   returns; a post from anywhere else queues the payload and returns at once. All observers of a center on one
    ///   actor share one queue, so they see the center's posts in one order and never run concurrently.
    /// - **When observation begins:** before this call returns; a ``LatestValueNotifiable`` type's kept latest payload
    ///   comes first, before this call returns when it is made on `actor` (as in `start(in:)` below).
    /// - **When observation ends:** when `actor` is deallocated (it is not retained), when
    ///   ``OwnerBoundObservation/cancel()`` is called, or when the center is deallocated.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// actor CounterStore {
    ///     private(set) var latest = 0
    ///
    ///     func start(in center: NotificationCenter) {
    ///         CounterDidChange.observe(for: self, in: center) { store, change in
    ///             store.latest = change.count
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - actor: The actor the handler is isolated to, and whose lifetime bounds the observation.
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     where the handler runs, just before it would. `nil` for every payload.
    ///     For one case of an enum whose cases carry values:
    ///     `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: on `actor`, a kept latest
    ///     payload runs the handler before this call returns. Leave the default.
    ///   - handler: Receives the actor, isolated, and each payload.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    public static func observe<Isolation: Actor>(
        for actor: Isolation,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        isolation: isolated (any Actor)? = #isolation,
        _ handler: @escaping @Sendable (isolated Isolation, Payload) -> Void
    ) -> OwnerBoundObservation {
        let handle = NotificationToken()
        _ = center.register(
            Self.self,
            sender: sender,
            owner: actor,
            // The main actor is one target, whichever way it is observed.
            on: actor === MainActor.shared ? .mainActor : .actor(WeakActor(actor)),
            // The actor is loaded once per delivery, by the checks before the handler, and handed to it.
            handler: .call(
                { payload, _, owner in
                    guard let owner else { return }
                    unsafeDowncast(owner, to: Isolation.self).assumeIsolated { actor in handler(actor, payload) }
                }, takesSender: false),
            condition: condition?.accepts, coalescing: coalescing,
            site: ObservationSite(fileID: file, line: line),
            isolation: isolation, heldBy: handle)
        return OwnerBoundObservation(handle)
    }
}
