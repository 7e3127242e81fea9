public import Foundation

// Posting: `value.post()` for a type that is its own payload, `Type.post(payload)` for one that carries another.
// Both end in `NotificationCenter.deliver`, below: typed observers first, then the one Foundation post.

extension Notifiable where Payload == Self {
    /// Posts this value to the observers of its type.
    ///
    /// - Typed observers that run on the posting thread (the default) run synchronously, in registration order,
    ///   before `post` returns.
    /// - Observers on a queue, or with an `async` handler, have the post queued; `post` never waits for them.
    /// - Observers isolated to an actor (``observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)`` for
    ///   the main actor) run during the post when it is made on that actor, and are queued otherwise.
    /// - Plain `NotificationCenter` observers of ``notificationName`` see the post too, with `sender` as `object` and
    ///   ``userInfo(for:)`` as `userInfo`.
    ///
    /// - Important: Do not post `from: self` in a `deinit`. Observers filtering by that sender hold it weakly, so
    ///   they never receive the post, and a handler that keeps the sender it is given (a queued one, or one that
    ///   stores it) makes it outlive its `deinit`, which crashes the process. Debug builds report such a post
    ///   (``NotificationDiagnostics/Event/Kind/deinitializingSender``). Post before the object goes (from the method
    ///   that closes it), or without `from:`.
    ///
    /// ```swift
    /// final class Counter: Sendable {}
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// CounterDidChange(count: 3).post()
    ///
    /// let counter = Counter()
    /// let center = NotificationCenter()
    /// CounterDidChange(count: 4).post(from: counter, in: center)
    /// ```
    ///
    /// - Parameters:
    ///   - sender: The object posting it; observers filtering by sender compare it by identity. Not an object in its
    ///     `deinit`, nor a `NotificationCenter` (to post in a center, pass it as `center`).
    ///   - center: The center to post through; `.default` unless given.
    ///   - coalescing: To coalesce a burst of posts into one, delivered at its end (a throttle's first post at once; see
    ///     ``NotificationCoalescing``); `nil` (the default) delivers this post now.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public func post(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        coalescing: NotificationCoalescing<Self>? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) {
        if let coalescing {
            center.coalesce(self, as: Self.self, from: sender, coalescing: coalescing, isolation: isolation)
        } else {
            center.deliver(self, as: Self.self, from: sender, isolation: isolation)
        }
    }
}

extension Notifiable {
    /// Posts `payload` to the observers of this type: for a type whose ``Payload`` is not the type itself.
    ///
    /// Observers run as for ``post(from:in:coalescing:isolation:)``. For a type with no payload (`Payload == Void`),
    /// post `()`; a type that carries nothing is simpler as an empty struct posted with `post()`. As there, do not post
    /// `from: self` in a `deinit`: sender-filtered observers never receive it, and a handler that keeps the sender
    /// crashes the process (debug builds report it).
    ///
    /// ```swift
    /// enum UserDidLogIn: Notifiable {
    ///     typealias Payload = String   // the user name
    /// }
    ///
    /// let center = NotificationCenter()
    /// let token = UserDidLogIn.observe(in: center) { name in print(name) }
    /// UserDidLogIn.post("ada", in: center)   // prints "ada"
    /// ```
    ///
    /// - Parameters:
    ///   - payload: What observers receive.
    ///   - sender: The object posting it; observers filtering by sender compare it by identity. Not an object in its
    ///     `deinit`, nor a `NotificationCenter` (to post in a center, pass it as `center`).
    ///   - center: The center to post through; `.default` unless given.
    ///   - coalescing: To coalesce a burst of posts into one, delivered at its end (a throttle's first post at once; see
    ///     ``NotificationCoalescing``); `nil` (the default) delivers this post now.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public static func post(
        _ payload: Payload,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        coalescing: NotificationCoalescing<Payload>? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) {
        if let coalescing {
            center.coalesce(payload, as: Self.self, from: sender, coalescing: coalescing, isolation: isolation)
        } else {
            center.deliver(payload, as: Self.self, from: sender, isolation: isolation)
        }
    }
}

extension NotificationCenter {
    /// A coalesced post: it joins its burst, which ``deliver(_:as:from:isolation:)`` posts at its end (see
    /// ``NotificationCoalescing``).
    @usableFromInline
    func coalesce<Event: Notifiable>(
        _ payload: Event.Payload,
        as subject: Event.Type,
        from sender: AnyObject?,
        coalescing: NotificationCoalescing<Event.Payload>,
        isolation: (any Actor)?
    ) {
        #if DEBUG
        NotificationDiagnostics.checkPostSender(sender, of: subject, in: self)
        #endif
        // An `awaitDelivery(in:)` on this center, from any thread: the burst holds its wait.
        let waits = PendingDeliveries.enter(ObjectIdentifier(self))
        defer { if let waits { PendingDeliveries.leave(waits) } }
        Coalescer.post(payload, as: subject, from: sender, in: self, coalescing: coalescing, isolation: isolation)
    }

    /// The one posting path: delivers to the typed observers, then posts through Foundation for plain observers
    /// (unless the type is typed-only), then reports if diagnostics ask.
    @inlinable
    func deliver<Event: Notifiable>(
        _ payload: Event.Payload,
        as subject: Event.Type,
        from sender: AnyObject?,
        isolation: (any Actor)?
    ) {
        #if DEBUG
        NotificationDiagnostics.checkPostSender(sender, of: subject, in: self)  // `from: center`, or from a `deinit`
        #endif
        // An `awaitDelivery(in:)` on this center, from any thread: the deliveries this post queues hold its wait.
        let waits = PendingDeliveries.enter(ObjectIdentifier(self))
        defer { if let waits { PendingDeliveries.leave(waits) } }
        var route = ObserverRegistry.shared.route(subject, in: self)
        #if DEBUG
        if route.checksBridging {  // the first post of a type with a name of its own
            NotificationDiagnostics.checkBridging(payload, of: subject, name: route.name, sender: sender, in: self)
        }
        #endif
        if route.keepsLatest {
            route = ObserverRegistry.shared.keepLatest(
                payload, of: subject, from: sender, in: self, isolation: isolation)
        }
        #if DEBUG
        DiscardedTokens.posted(to: route.observers)  // a token made before was used
        #endif
        if let kept = route.keptLatest {
            route.observers.deliverLatest(payload, of: subject, from: sender, isolation: isolation, kept: kept)
        } else {
            route.observers.deliver(payload, of: subject, from: sender, isolation: isolation)
        }
        if subject.postsThroughFoundation {
            FoundationBridge.post(
                name: route.name,
                sender: sender,
                userInfo: subject.userInfo(for: payload),
                subject: ObjectIdentifier(subject),
                // A type that keeps its latest post has a bridge on this center, observers or not.
                observed: route.keepsLatest || !route.observers.isEmpty,
                in: self
            )
        }
        if NotificationDiagnostics.reportsPosts {
            let reached = route.observers.count { $0?.accepts(sender) == true }
            NotificationDiagnostics.reportPost(reached, for: subject, name: route.name, sender: sender, in: self)
        }
    }
}
