public import Foundation

// Observers whose handler is `async`: it may suspend, and the next delivery waits for it.

// MARK: - Observing on a center

extension NotificationCenter {
    /// Calls an `async` `handler` with the payload of every `Event` post, one delivery at a time, until the token is
    /// cancelled or released.
    ///
    /// - `post` never waits: it queues the payload and returns. A task then calls the handler with each queued payload
    ///   in turn, awaiting each call before the next, so the handler never overlaps itself and sees each thread's
    ///   posts in post order (unlike Foundation's `AsyncMessage` observers, which run concurrently).
    /// - The handler runs where its own isolation says: a `@MainActor` closure on the main actor, otherwise on the
    ///   global concurrent executor.
    /// - Observation begins when this method returns and ends when the token is cancelled or released; cancelling
    ///   drops what is still queued (a call already running finishes).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// actor Uploader { func upload(_ count: Int) async {} }
    ///
    /// let center = NotificationCenter()
    /// let uploader = Uploader()
    /// let token = center.observe(CounterDidChange.self) { change async in
    ///     await uploader.upload(change.count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to observe.
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - file: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - line: Where the observation is made, for ``typedObservations``; leave the default.
    ///   - handler: Receives each payload, one at a time.
    /// - Returns: The token that keeps the observation alive.
    public func observe<Event: Notifiable>(
        _ subject: Event.Type,
        from sender: Event.Sender? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Event.Payload) async -> Void
    ) -> NotificationToken {
        NotificationToken(
            register(
                subject,
                sender: sender,
                on: nil,
                handler: .async(handler),
                site: ObservationSite(fileID: file, line: line)
            )
        )
    }
}

// MARK: - Observing from a notification type

extension Notifiable {
    /// Calls an `async` `handler` with each payload of this type, one delivery at a time, until the token is cancelled
    /// or released.
    ///
    /// Shorthand for ``Foundation/NotificationCenter/observe(_:from:file:line:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// actor Uploader { func upload(_ count: Int) async {} }
    ///
    /// let uploader = Uploader()
    /// let token = CounterDidChange.observe { change async in await uploader.upload(change.count) }
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each payload, one at a time.
    /// - Returns: The token that keeps the observation alive.
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Payload) async -> Void
    ) -> NotificationToken {
        center.observe(Self.self, from: sender, file: file, line: line, handler)
    }
}
