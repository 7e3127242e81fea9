public import Foundation

// MARK: - Posting on a center

extension NotificationCenter {
    /// Posts `notification`, whose payload is the value itself, optionally on behalf of `sender`.
    ///
    /// Typed observers run synchronously on this thread, in registration order, before the method returns. Those
    /// with a queue ``NotificationDelivery`` or an `async` handler have their delivery queued instead; those isolated
    /// to an actor run during the post when it is made on that actor (for the main actor, see
    /// ``observeOnMainActor(_:from:file:line:_:)``), and are queued otherwise. Plain
    /// `NotificationCenter` observers of ``Notifiable/notificationName`` see the post too, with `sender` as `object`
    /// and ``Notifiable/userInfo(for:)`` as `userInfo`.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// center.post(CounterDidChange(count: 3))
    /// ```
    ///
    /// - Parameters:
    ///   - notification: The value to post; observers receive it.
    ///   - sender: The object posting it; observers filtering by sender compare it by identity.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public func post<Event: Notifiable>(
        _ notification: Event,
        from sender: Event.Sender? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) where Event.Payload == Event {
        deliver(notification, as: Event.self, from: sender, isolation: isolation)
    }

    /// Posts `payload` as a `Event` notification, optionally on behalf of `sender`.
    ///
    /// Delivery is as for ``post(_:from:isolation:)-(Event,_,_)``.
    ///
    /// ```swift
    /// struct User: Sendable { let name: String }
    /// enum UserDidLogIn: Notifiable { typealias Payload = User }
    ///
    /// let center = NotificationCenter()
    /// center.post(UserDidLogIn.self, payload: User(name: "Ada"))
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type.
    ///   - payload: What observers receive.
    ///   - sender: The object posting it; observers filtering by sender compare it by identity.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public func post<Event: Notifiable>(
        _ subject: Event.Type,
        payload: Event.Payload,
        from sender: Event.Sender? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) {
        deliver(payload, as: subject, from: sender, isolation: isolation)
    }

    /// Posts a payload-less `Event` notification, optionally on behalf of `sender`.
    ///
    /// Delivery is as for ``post(_:from:isolation:)-(Event,_,_)``.
    ///
    /// ```swift
    /// enum AppDidBecomeActive: Notifiable { typealias Payload = Void }
    /// let center = NotificationCenter()
    /// center.post(AppDidBecomeActive.self)
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type.
    ///   - sender: The object posting it; observers filtering by sender compare it by identity.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public func post<Event: Notifiable>(
        _ subject: Event.Type,
        from sender: Event.Sender? = nil,
        isolation: isolated (any Actor)? = #isolation
    ) where Event.Payload == Void {
        deliver((), as: subject, from: sender, isolation: isolation)
    }

    /// The one posting path, the same on every platform: typed observers first, directly and without `userInfo`;
    /// then, unless the type is typed-only (``Notifiable/postsThroughFoundation``), Foundation, for plain observers, with the package's bridge told to skip this post (see
    /// `FoundationBridge`).
    ///
    /// Inlinable, so that it is specialised for the posted type in the caller's module.
    @inlinable
    func deliver<Event: Notifiable>(
        _ payload: Event.Payload,
        as subject: Event.Type,
        from sender: AnyObject?,
        isolation: (any Actor)?
    ) {
        let route = ObserverRegistry.shared.route(subject, in: self)
        route.snapshot.deliver(payload, of: subject, from: sender, isolation: isolation)
        if subject.postsThroughFoundation {
            FoundationBridge.post(
                name: route.name,
                sender: sender,
                userInfo: subject.userInfo(for: payload),
                subject: ObjectIdentifier(subject),
                observed: !route.snapshot.subscriptions.isEmpty,
                in: self
            )
        }
        if NotificationDiagnostics.reportsPosts {
            let reached = route.snapshot.subscriptions.count { $0.accepts(sender) }
            NotificationDiagnostics.reportPost(reached, for: subject, name: route.name, sender: sender, in: self)
        }
    }
}

// MARK: - Posting from a notification type

extension Notifiable where Payload == Self {
    /// Posts this value to the observers of its type, optionally on behalf of `sender`.
    ///
    /// Typed observers run as for ``Foundation/NotificationCenter/post(_:from:isolation:)-(Event,_,_)``: on this
    /// thread before the method returns, except those queued by their delivery or isolation. Plain observers see it
    /// too.
    ///
    /// ```swift
    /// final class Counter: Sendable {}
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// let counter = Counter()
    /// let center = NotificationCenter()
    /// CounterDidChange(count: 3).post()
    /// CounterDidChange(count: 3).post(from: counter, in: center)
    /// ```
    ///
    /// - Parameters:
    ///   - sender: The object posting it; observers filtering by sender compare it by identity.
    ///   - center: The center to post through; `.default` unless given.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public func post(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        isolation: isolated (any Actor)? = #isolation
    ) {
        center.deliver(self, as: Self.self, from: sender, isolation: isolation)
    }
}

extension Notifiable {
    /// Posts `payload` to the observers of this type, optionally on behalf of `sender`.
    ///
    /// Delivery is as for ``Foundation/NotificationCenter/post(_:from:isolation:)-(Event,_,_)``.
    ///
    /// ```swift
    /// struct User: Sendable { let name: String }
    /// enum UserDidLogIn: Notifiable { typealias Payload = User }
    ///
    /// UserDidLogIn.post(User(name: "Ada"))
    /// ```
    ///
    /// - Parameters:
    ///   - payload: What observers receive.
    ///   - sender: The object posting it; observers filtering by sender compare it by identity.
    ///   - center: The center to post through; `.default` unless given.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public static func post(
        _ payload: Payload,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        isolation: isolated (any Actor)? = #isolation
    ) {
        center.deliver(payload, as: Self.self, from: sender, isolation: isolation)
    }
}

extension Notifiable where Payload == Void {
    /// Posts this payload-less notification, optionally on behalf of `sender`.
    ///
    /// Delivery is as for ``Foundation/NotificationCenter/post(_:from:isolation:)-(Event,_,_)``.
    ///
    /// ```swift
    /// enum AppDidBecomeActive: Notifiable { typealias Payload = Void }
    /// AppDidBecomeActive.post()
    /// ```
    ///
    /// - Parameters:
    ///   - sender: The object posting it; observers filtering by sender compare it by identity.
    ///   - center: The center to post through; `.default` unless given.
    ///   - isolation: The actor the caller is isolated to, which the compiler passes: observers isolated to it run
    ///     during the post. Leave the default.
    @inlinable
    public static func post(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        isolation: isolated (any Actor)? = #isolation
    ) {
        center.deliver((), as: Self.self, from: sender, isolation: isolation)
    }
}
