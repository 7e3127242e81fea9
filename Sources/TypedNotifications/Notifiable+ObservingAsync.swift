public import Foundation

// Observers whose handler is `async`: it may suspend, and the next delivery waits for it.

extension Notifiable {
    /// Calls an `async` `handler` with the payload of every post of this type, one delivery at a time, until the
    /// token is cancelled or released.
    ///
    /// - **Where the handler runs:** in a task of the observation's own, where the closure's isolation says (a
    ///   `@MainActor` closure on the main actor, otherwise on the global concurrent executor). `post` never waits: it
    ///   queues the payload and returns. The task awaits each call before the next, so the handler never overlaps
    ///   itself and sees each thread's posts in post order (unlike Foundation's `AsyncMessage` observers). The task is
    ///   the observation's, shared by the calls made while posts keep arriving: a call that cancels it (through
    ///   `withUnsafeCurrentTask`) cancels those after it too.
    /// - **When observation ends:** when the token is cancelled or released (what is still queued is dropped; a call
    ///   already running finishes), or when the center is deallocated.
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
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     in the observation\'s task, just before the handler is called (before the handler hops to its own
    ///     isolation, if it has one). `nil` for every payload.
    ///     For one case of an enum whose cases carry values:
    ///     `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives each payload, one at a time.
    /// - Returns: The token that keeps the observation alive.
    public static func observe(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Payload) async -> Void
    ) -> NotificationToken {
        return NotificationToken(
            center.register(
                Self.self, sender: sender, on: nil,
                handler: .queued(ConsumerQueue { payload, _ in await handler(payload) }),
                condition: condition?.accepts, coalescing: coalescing, site: ObservationSite(fileID: file, line: line),
                kind: .async),
            site: ObservationSite(fileID: file, line: line)
        )
    }

    /// Calls an `async` `handler` with `owner` and the payload of every post of this type, one delivery at a time,
    /// for as long as `owner` lives.
    ///
    /// - **Where the handler runs:** as for
    ///   ``observe(from:in:where:coalescing:file:line:_:)``. While a call runs, including
    ///   across its suspensions, it holds `owner`.
    /// - **When observation ends:** when `owner` is deallocated (no call starts after that), when
    ///   ``OwnerBoundObservation/cancel()`` is called, or when the center is deallocated.
    /// - The owner is loaded, and may be released, in the observation's task (or, to end the observation once it has
    ///   died, on a posting thread): for a `@MainActor` class that must be deinitialised on the main actor, use
    ///   ``observeOnMainActor(for:from:in:where:coalescing:file:line:isolation:_:)``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// final class CounterUploader: Sendable {
    ///     func upload(_ count: Int) async {}
    /// }
    ///
    /// let uploader = CounterUploader()
    /// CounterDidChange.observe(for: uploader) { uploader, change async in
    ///     await uploader.upload(change.count)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - owner: The object whose lifetime bounds the observation; passed back to the handler.
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - condition: Only the payloads it accepts are delivered (`.equals(x)`, `.matching { … }`); it runs
    ///     in the observation\'s task, just before the handler is called (before the handler hops to its own
    ///     isolation, if it has one). `nil` for every payload.
    ///     For one case of an enum whose cases carry values:
    ///     `.matching { if case .finished = $0 { true } else { false } }`.
    ///   - coalescing: Delivers the latest payload of each burst of posts instead of every post: after a pause
    ///     (``NotificationCoalescing/afterPause(_:)``, a debounce), at most one per window
    ///     (``NotificationCoalescing/within(_:)``, a throttle), or once per turn of the observer's actor
    ///     (``NotificationCoalescing/nextTurn``); see <doc:LatestValuesAndCoalescing>. `nil` for every post.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - handler: Receives the owner and each payload, one at a time.
    /// - Returns: What can end the observation early; it need not be kept.
    @discardableResult
    @_disfavoredOverload
    public static func observe<Owner: AnyObject & Sendable>(
        for owner: Owner,
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        coalescing: NotificationCoalescing<Payload>? = nil,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Owner, Payload) async -> Void
    ) -> OwnerBoundObservation {
        // The owner is loaded once per delivery, by the checks before the handler, and handed to it.
        let body: @Sendable (Payload, AnyObject?) async -> Void = { payload, owner in
            guard let owner else { return }
            await handler(unsafeDowncast(owner, to: Owner.self), payload)
        }
        let handle = NotificationToken()
        _ = center.register(
            Self.self, sender: sender, owner: owner, on: nil, handler: .queued(ConsumerQueue(handler: body)),
            condition: condition?.accepts, coalescing: coalescing, site: ObservationSite(fileID: file, line: line),
            kind: .async, heldBy: handle)
        return OwnerBoundObservation(handle)
    }
}
