public import Foundation
public import TypedNotifications

extension NotificationRecorder {
    /// Returns the oldest payload that `next` has not returned yet, waiting for a post if there is none.
    ///
    /// The first call returns the first recorded payload, even if it was posted before the call; each later call
    /// returns the one after. This suits code that posts from another task or queue: the test waits for exactly the
    /// posts it needs, with no sleeps and no polling. Calls waiting together are served in the order they began.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// @Test func savingInTheBackgroundPostsInOrder() async throws {
    ///     let center = NotificationCenter()
    ///     let recorder = NotificationRecorder(Saved.self, in: center)
    ///     DispatchQueue.global().async {
    ///         Saved(id: 1).post(in: center)
    ///         Saved(id: 2).post(in: center)
    ///     }
    ///     #expect(try await recorder.next().id == 1)
    ///     #expect(try await recorder.next(timeout: .seconds(5)).id == 2)
    /// }
    /// ```
    ///
    /// - Returns: The payload.
    /// - Throws: `CancellationError` if the task is cancelled while it would wait; ``NotificationWaitError`` if the
    ///   recorder is cancelled before a post arrives. A payload already recorded is returned without checking either.
    public func next() async throws -> Event.Payload {
        try await recording.next(timeout: nil)
    }

    /// Returns the oldest payload that `next` has not returned yet, waiting at most `timeout` for a post if there is
    /// none.
    ///
    /// As ``next()``, with a safety net against a hanging test. Needs macOS 13, iOS 16, tvOS 16 or watchOS 9 (for
    /// `Duration`); on every system, ``next(timeout:)-(TimeInterval)`` takes the limit in seconds, as the library's
    /// waits do.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// @Test func savingPostsOnce() async throws {
    ///     let center = NotificationCenter()
    ///     let recorder = NotificationRecorder(Saved.self, in: center)
    ///     DispatchQueue.global().async { Saved(id: 1).post(in: center) }
    ///     #expect(try await recorder.next(timeout: .seconds(5)).id == 1)
    /// }
    /// ```
    ///
    /// - Parameter timeout: How long to wait at most, on the uptime clock; `nil` waits until a post arrives or
    ///   the task is cancelled. `.zero` or less does not wait: a payload already recorded is returned, and otherwise
    ///   the call throws at once (a negative timeout is reported as `.timedOut(seconds: 0)`). A timeout longer than
    ///   about 146 years is no limit in practice. A safety net against a hanging test, not a way to order events: the
    ///   wait ends when it elapses, however busy the system.
    /// - Returns: The payload.
    /// - Throws: `CancellationError` if the task is cancelled while it would wait; ``NotificationWaitError`` if
    ///   `timeout` elapses, or if the recorder is cancelled, before a post arrives. A payload already recorded is
    ///   returned without checking either.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    public func next(timeout: Duration?) async throws -> Event.Payload {
        try await recording.next(timeout: timeout.map(TimeLimit.init))
    }

    /// Returns the oldest payload that `next` has not returned yet, waiting at most `timeout` seconds for a post if
    /// there is none.
    ///
    /// As ``next(timeout:)-(Duration?)``, with the limit in seconds, as the library's waits take it
    /// (`NotificationSequence.next(where:timeout:)`): one kind of time limit in both modules,
    /// available on every system the package supports.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// @Test func savingPostsOnce() async throws {
    ///     let center = NotificationCenter()
    ///     let recorder = NotificationRecorder(Saved.self, in: center)
    ///     DispatchQueue.global().async { Saved(id: 1).post(in: center) }
    ///     #expect(try await recorder.next(timeout: 5).id == 1)
    /// }
    /// ```
    ///
    /// - Parameter timeout: How many seconds to wait at most, on the uptime clock. Zero, a negative limit or NaN
    ///   does not wait: a payload already recorded is returned, and otherwise the call throws at once (reported as
    ///   `.timedOut(seconds: 0)` for a negative or NaN limit). A limit longer than about 146 years, `.infinity`
    ///   included, is no limit in practice. For no limit at all, call ``next()``.
    /// - Returns: The payload.
    /// - Throws: As ``next(timeout:)-(Duration?)``.
    @_disfavoredOverload  // so that `.zero`, which both kinds spell, resolves to the `Duration` form
    public func next(timeout: TimeInterval) async throws -> Event.Payload {
        try await recording.next(timeout: TimeLimit(seconds: timeout))
    }

    /// Waits until at least `count` posts have been recorded, and returns every payload recorded by then.
    ///
    /// Returns at once if there are already that many. It does not affect what ``next()`` returns. Needs macOS 13,
    /// iOS 16, tvOS 16 or watchOS 9 (for `Duration`); on every system, ``waitForCount(_:timeout:)-(_,TimeInterval)``
    /// takes the limit in seconds, as the library's waits do.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// @Test func syncingPostsEveryItem() async throws {
    ///     let center = NotificationCenter()
    ///     let recorder = NotificationRecorder(Saved.self, in: center)
    ///     Task.detached {
    ///         for id in 1...3 { Saved(id: id).post(in: center) }
    ///     }
    ///     let saved = try await recorder.waitForCount(3, timeout: .seconds(5))
    ///     #expect(saved.map(\.id) == [1, 2, 3])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many posts to wait for; at least 0.
    ///   - timeout: How long to wait at most, on the uptime clock; `nil` waits until the posts arrive or the
    ///     task is cancelled. `.zero` or less does not wait: if `count` posts are recorded already they are returned,
    ///     and otherwise the call throws at once (a negative timeout is reported as `.timedOut(seconds: 0)`). A
    ///     timeout longer than about 146 years is no limit in practice. A safety net against a hanging test, not a
    ///     way to order events: the wait ends when it elapses, however busy the system.
    /// - Returns: Every payload recorded when the wait ended, in post order: `count` of them or more.
    /// - Throws: `CancellationError` if the task is cancelled while it would wait; ``NotificationWaitError`` if
    ///   `timeout` elapses, or if the recorder is cancelled, first.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    @discardableResult
    public func waitForCount(_ count: Int, timeout: Duration?) async throws -> [Event.Payload] {
        try await waitForCount(count, within: timeout.map(TimeLimit.init))
    }

    /// Waits at most `timeout` seconds until at least `count` posts have been recorded, and returns every payload
    /// recorded by then.
    ///
    /// As ``waitForCount(_:timeout:)-(_,Duration?)``, with the limit in seconds, as the library's waits take it
    /// (`NotificationSequence.next(where:timeout:)`): one kind of time limit in both modules,
    /// available on every system the package supports.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// @Test func syncingPostsEveryItem() async throws {
    ///     let center = NotificationCenter()
    ///     let recorder = NotificationRecorder(Saved.self, in: center)
    ///     Task.detached {
    ///         for id in 1...3 { Saved(id: id).post(in: center) }
    ///     }
    ///     let saved = try await recorder.waitForCount(3, timeout: 5)
    ///     #expect(saved.map(\.id) == [1, 2, 3])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - count: How many posts to wait for; at least 0.
    ///   - timeout: How many seconds to wait at most, on the uptime clock. Zero, a negative limit or NaN does
    ///     not wait: if `count` posts are recorded already they are returned, and otherwise the call throws at once
    ///     (reported as `.timedOut(seconds: 0)` for a negative or NaN limit). A limit longer than about 146 years,
    ///     `.infinity` included, is no limit in practice. For no limit at all, call ``waitForCount(_:)``.
    /// - Returns: Every payload recorded when the wait ended, in post order: `count` of them or more.
    /// - Throws: As ``waitForCount(_:timeout:)-(_,Duration?)``.
    @_disfavoredOverload  // so that `.zero`, which both kinds spell, resolves to the `Duration` form
    @discardableResult
    public func waitForCount(_ count: Int, timeout: TimeInterval) async throws -> [Event.Payload] {
        try await waitForCount(count, within: TimeLimit(seconds: timeout))
    }

    /// Waits until at least `count` posts have been recorded, and returns every payload recorded by then.
    ///
    /// As ``waitForCount(_:timeout:)-(_,Duration?)`` with no timeout: the wait ends when the posts arrive, when the
    /// recorder is cancelled, or when the test's task is cancelled. Available on every system the package supports.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// @Test func syncingPostsEveryItem() async throws {
    ///     let center = NotificationCenter()
    ///     let recorder = NotificationRecorder(Saved.self, in: center)
    ///     Task.detached {
    ///         for id in 1...3 { Saved(id: id).post(in: center) }
    ///     }
    ///     let saved = try await recorder.waitForCount(3)
    ///     #expect(saved.map(\.id) == [1, 2, 3])
    /// }
    /// ```
    ///
    /// - Parameter count: How many posts to wait for; at least 0.
    /// - Returns: Every payload recorded when the wait ended, in post order: `count` of them or more.
    /// - Throws: `CancellationError` if the task is cancelled while it would wait; ``NotificationWaitError`` if the
    ///   recorder is cancelled first.
    @discardableResult
    public func waitForCount(_ count: Int) async throws -> [Event.Payload] {
        try await waitForCount(count, within: nil)
    }

    private func waitForCount(_ count: Int, within timeout: TimeLimit?) async throws -> [Event.Payload] {
        precondition(count >= 0, "NotificationRecorder.waitForCount(_:) needs a count of at least 0, not \(count)")
        return try await recording.waitForCount(count, timeout: timeout)
    }
}
