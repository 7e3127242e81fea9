public import Foundation

/// An asynchronous sequence of the payloads posted for one `Notifiable` type on one center.
///
/// Made by ``Notifiable/notifications(from:in:bufferingPolicy:file:line:)``.
///
/// - Observation begins when the sequence is made, so a post right after that call is never missed, even before
///   iteration starts. So make the sequence *before* the task that iterates it, not inside it: a sequence made
///   inside `Task { … }` starts observing only when the task first runs, and misses what is posted until then.
/// - Payloads are buffered without bound by default: nothing is dropped. Choose
///   ``BufferingPolicy/bufferingNewest(_:)`` or ``BufferingPolicy/bufferingOldest(_:)`` to bound it; each payload
///   a bounded buffer drops is reported through ``NotificationDiagnostics`` as
///   ``NotificationDiagnostics/Event/Kind/dropped``, never silently.
/// - Observation ends when the iterating task is cancelled, when the loop exits, or when the sequence is released
///   without being iterated. The sequence is single-pass: a loop that starts after the observation ended receives
///   what was still buffered, then ends; it never waits for posts that can no longer arrive. Iterate it from one
///   task at a time: two tasks waiting for the next payload at once is a programming error, and traps with a message
///   saying so. For several consumers, make one sequence each.
///
/// ```swift
/// struct CounterDidChange: Notifiable { let count: Int }
/// let center = NotificationCenter()
/// let changes = CounterDidChange.notifications(in: center)
/// CounterDidChange(count: 1).post(in: center)   // buffered
/// for await change in changes {
///     print(change.count)                  // 1
///     break
/// }
/// ```
public struct NotificationSequence<Element: Sendable>: AsyncSequence, Sendable {
    /// How many payloads the sequence keeps while nobody is waiting for them.
    public enum BufferingPolicy: Sendable {
        /// Keep every payload (the default).
        case unbounded
        /// Keep the newest `limit` payloads, dropping older ones.
        case bufferingNewest(Int)
        /// Keep the oldest `limit` payloads, dropping newer ones.
        case bufferingOldest(Int)

        /// The observation's own queue, bounded as this policy says (see ``ConsumerQueue``).
        func makeQueue(reportsDrops: Bool) -> ConsumerQueue<Element> {
            let (limit, keepsNewest) =
                switch self {
                case .unbounded: (Int.max, false)
                case .bufferingNewest(let limit): (limit, true)
                case .bufferingOldest(let limit): (limit, false)
                }
            return ConsumerQueue(limit: limit, keepsNewest: keepsNewest, reportsDrops: reportsDrops)
        }
    }

    /// Owns the observation: it ends when the last sequence copy and iterator referring to it are gone.
    final class Lifetime: Sendable {
        /// What the observation appends to, and the iterating task takes from.
        let queue: ConsumerQueue<Element>
        /// What the observation waits for, as ``NextNotificationError`` names it: `UploadDidFinish`, or
        /// `UploadDidFinish from the given sender`.
        let waitedFor: String
        private let observation: AnySubscription
        /// Set while a task waits in ``AsyncIterator/next()``, to catch a second task waiting at once.
        private let waiting = AtomicWord.make()

        init(queue: ConsumerQueue<Element>, observation: AnySubscription, waitedFor: String) {
            self.queue = queue
            self.observation = observation
            self.waitedFor = waitedFor
        }

        deinit { end() }

        /// Ends the observation and its queue, so that no loop waits for a post that cannot arrive.
        func end() {
            observation.cancel()
            queue.finish()
        }

        /// The next payload, or `nil` once the observation has ended and what it buffered is taken. A cancelled task
        /// ends the observation, and is still handed what is buffered.
        func next(isolation: isolated (any Actor)? = #isolation) async -> Element? {
            await queue.next(isolation: isolation) { self.end() }
        }

        func beginWaiting() {
            precondition(
                waiting.set(),
                "NotificationSequence<\(Element.self)> is iterated by two tasks at once; make one sequence per task"
            )
        }

        func endWaiting() {
            waiting.store(0)
        }
    }

    let lifetime: Lifetime

    init(queue: ConsumerQueue<Element>, observation: AnySubscription, waitedFor: String) {
        lifetime = Lifetime(queue: queue, observation: observation, waitedFor: waitedFor)
    }

    /// Iterates the payloads; ending the iteration (the loop exits) ends the observation.
    public struct AsyncIterator: AsyncIteratorProtocol {
        /// Cancels the observation when the iterator goes away, that is, when the loop exits.
        final class IterationEnd {
            let lifetime: Lifetime
            init(_ lifetime: Lifetime) { self.lifetime = lifetime }
            deinit { lifetime.end() }
        }

        let end: IterationEnd

        /// The next payload, or `nil` once the iterating task is cancelled.
        ///
        /// ```swift
        /// struct CounterDidChange: Notifiable { let count: Int }
        /// let center = NotificationCenter()
        /// var iterator = CounterDidChange.notifications(in: center).makeAsyncIterator()
        /// CounterDidChange(count: 1).post(in: center)
        /// let first = await iterator.next()   // CounterDidChange(count: 1)
        /// ```
        public mutating func next() async -> Element? {
            end.lifetime.beginWaiting()
            defer { end.lifetime.endWaiting() }
            return await end.lifetime.next(isolation: nil)
        }

        /// The next payload, or `nil` once the iterating task is cancelled, run in the caller's isolation.
        ///
        /// Needs macOS 15, iOS 18, tvOS 18, watchOS 11 or visionOS 2, where `AsyncIteratorProtocol` has this
        /// requirement; on older systems `for await` uses ``next()``.
        ///
        /// ```swift
        /// struct CounterDidChange: Notifiable { let count: Int }
        /// @MainActor func firstChange(in center: NotificationCenter) async -> CounterDidChange? {
        ///     var iterator = CounterDidChange.notifications(in: center).makeAsyncIterator()
        ///     return await iterator.next(isolation: MainActor.shared)
        /// }
        /// ```
        @available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
        public mutating func next(isolation actor: isolated (any Actor)?) async -> Element? {
            end.lifetime.beginWaiting()
            defer { end.lifetime.endWaiting() }
            return await end.lifetime.next(isolation: actor)
        }
    }

    /// Starts the single iteration of this sequence.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let iterator = CounterDidChange.notifications().makeAsyncIterator()
    /// ```
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(end: AsyncIterator.IterationEnd(lifetime))
    }
}

extension Notifiable {
    /// The payloads of this type's posts, as an asynchronous sequence: for `for await` loops.
    ///
    /// - **Where payloads go:** they are buffered on the posting thread (unbounded unless `bufferingPolicy` says
    ///   otherwise) and handed to the task that iterates the sequence.
    /// - **When observation begins and ends:** it begins before this method returns, and ends when the iterating task
    ///   is cancelled, when the loop exits, when the sequence is released without being iterated, or when the center
    ///   is deallocated (the loop then ends). See ``NotificationSequence``.
    /// - Make the sequence first, then start the task that iterates it, as below: a sequence made inside the task
    ///   starts observing only when the task runs, and misses the posts made before.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// let changes = CounterDidChange.notifications()   // observing from here on
    /// Task {
    ///     for await change in changes { print(change.count) }
    /// }
    /// CounterDidChange(count: 1).post()   // reaches the loop, even if the task has not started yet
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - bufferingPolicy: How many payloads to keep while the consumer is busy; unbounded unless given.
    ///   - file: Where the observation is made, for ``Foundation/NotificationCenter/typedObservations``; leave the
    ///     default.
    ///   - line: Where the observation is made; leave the default.
    /// - Returns: A single-pass, `Sendable` sequence of payloads.
    public static func notifications(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        bufferingPolicy: NotificationSequence<Payload>.BufferingPolicy = .unbounded,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> NotificationSequence<Payload> {
        center.notifications(
            of: Self.self, from: sender, bufferingPolicy: bufferingPolicy, reportsDrops: true,
            site: ObservationSite(fileID: file, line: line))
    }

    /// Starts observing, runs `work`, then waits for the first post of this type since observation began whose
    /// payload satisfies `condition`, for at most `timeout` seconds, and returns its payload: the wait for a post that
    /// some work causes, in one expression that cannot miss it.
    ///
    /// ```swift
    /// struct LoginCompleted: Notifiable { let userID: String }
    ///
    /// func logIn(_ userID: String, in center: NotificationCenter) async throws -> LoginCompleted {
    ///     try await LoginCompleted.next(in: center, where: .matching { $0.userID == userID }, timeout: 5) {
    ///         Task { LoginCompleted(userID: userID).post(in: center) }   // stands for starting the login
    ///     }
    /// }
    /// ```
    ///
    /// Observation begins before `work` runs, so a post `work` makes, or causes on another thread or task, is never
    /// missed, however soon it comes. `work` runs to its end in the caller's isolation (on the main actor for a
    /// `@MainActor` caller); the time limit counts from its end, and the posts made meanwhile are kept and examined
    /// first. To wait without starting anything, pass `{}`; for a `for await` loop, or waits for several posts, make
    /// a sequence with ``notifications(from:in:bufferingPolicy:file:line:)`` and await its
    /// ``NotificationSequence/next(where:timeout:)``.
    ///
    /// A ``LatestValueNotifiable`` type's latest payload, posted before the call, counts as the first: the call returns
    /// it once `work` has run, if `condition` accepts it.
    ///
    /// - **Where the condition runs:** in the waiting task, once per post, in post order; posts it rejects are
    ///   skipped, counted and the last one named in the error.
    /// - **When observation ends:** when a payload is returned, when `work` throws, when the time limit passes
    ///   (``NextNotificationError/Reason-swift.enum/timedOut(seconds:)``), when the task is cancelled
    ///   (`CancellationError`), or when the center is deallocated
    ///   (``NextNotificationError/Reason-swift.enum/observationEnded``).
    ///
    /// - Parameters:
    ///   - sender: Only a post from this object counts; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given.
    ///   - condition: Only a payload it accepts is returned; `nil` for the first post.
    ///   - timeout: The most seconds to wait once `work` has returned (`timeout: 5`, a `TimeInterval`, as the testing
    ///     kit's waits also take; a timer, not a sleeping thread); `nil` waits without a limit. Zero, a negative limit
    ///     or NaN does not wait: the posts made during `work` are examined, and if none is accepted the call throws
    ///     at once (`.timedOut(seconds: 0)` for a negative or NaN limit). A limit longer than about 146 years,
    ///     `.infinity` included, is no limit in practice.
    ///   - isolation: The actor `work` runs on; inferred from the caller.
    ///   - file: Where the observation is made; leave the default.
    ///   - line: Where the observation is made; leave the default.
    ///   - work: What causes the post: called once, after observation has begun.
    /// - Returns: The payload of the first matching post made since observation began.
    /// - Throws: Whatever `work` throws; else ``NextNotificationError`` at the time limit, or if the center is
    ///   deallocated first; `CancellationError` if the task is cancelled first.
    public static func next(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        timeout: TimeInterval? = nil,
        isolation: isolated (any Actor)? = #isolation,
        file: StaticString = #fileID,
        line: UInt = #line,
        after work: () async throws -> Void
    ) async throws -> Payload {
        // Without a condition only the first payload counts, and those the one-element buffer drops after it are not
        // worth a report. With one, every payload is kept until the condition has seen it.
        let upcoming = center.notifications(
            of: Self.self,
            from: sender,
            bufferingPolicy: condition == nil ? .bufferingOldest(1) : .unbounded,
            reportsDrops: false,
            site: ObservationSite(fileID: file, line: line)
        )
        try await work()
        return try await upcoming.next(where: condition, timeout: timeout)
    }

    /// The wait without the work that causes its post: not offered, because it observes only once it runs.
    ///
    /// Work started before such a call (a task, a queue, a request) could post before it observes, and the call then
    /// waited for a post that had already happened, until its time limit. Pass the work as the trailing closure of
    /// ``next(from:in:where:timeout:isolation:file:line:after:)``, which observes before it runs the work:
    ///
    /// ```swift
    /// struct LoginCompleted: Notifiable { let userID: String }
    /// func startLogin() {}
    ///
    /// let login = try await LoginCompleted.next(where: .matching { $0.userID == "u42" }, timeout: 5) { startLogin() }
    /// ```
    @available(
        *, unavailable,
        message: """
            observes only once it runs, so it can miss a post made by work started before it; pass that work as a \
            trailing closure, T.next(where:timeout:) { startWork() }, which observes first
            """
    )
    public static func next(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        where condition: NotificationCondition<Payload>? = nil,
        timeout: TimeInterval? = nil
    ) async throws -> Payload {
        fatalError("unavailable")
    }
}

extension NotificationSequence {
    /// Waits for the next payload that satisfies `condition`, for at most `timeout` seconds, and returns it: the
    /// second step of a race-free wait, whose first step (making the sequence) starts observing.
    ///
    /// Payloads that `condition` rejects are consumed and skipped (the error counts them and names the last). Like a
    /// `for await` loop, it takes part in the sequence's single iteration: wait from one task at a time. Waiting ends
    /// the sequence when it throws: at the time limit (``NextNotificationError/Reason-swift.enum/timedOut(seconds:)``),
    /// when the task is cancelled (`CancellationError`), or when the observation has ended
    /// (``NextNotificationError/Reason-swift.enum/observationEnded``; its center was deallocated, or an earlier wait or
    /// loop ended it). A task cancelled before the call throws at once, whatever is buffered. If the time limit passes
    /// while `condition` still examines payloads that arrived before it, the first one it accepts is returned, never
    /// lost, and the sequence has ended as at a time limit.
    ///
    /// ```swift
    /// struct UploadDidFinish: Notifiable { let id: Int }
    ///
    /// let center = NotificationCenter()
    /// let finished = UploadDidFinish.notifications(in: center)   // observing from here on
    /// UploadDidFinish(id: 7).post(in: center)                     // before anyone awaits: kept
    /// let upload = try await finished.next(where: .matching { $0.id == 7 }, timeout: 5)
    /// print(upload.id)                                            // prints "7"
    /// ```
    ///
    /// - Parameters:
    ///   - condition: Only a payload it accepts is returned; it runs in the waiting task. `nil` for the next payload.
    ///   - timeout: The most seconds to wait, counted from this call (`timeout: 5`, a `TimeInterval`, as the testing
    ///     kit's waits also take; a timer on the uptime clock, not a sleeping thread); `nil` waits
    ///     without a limit. Zero, a negative limit or NaN has passed when the call begins: the payloads already
    ///     buffered are examined, the first one `condition` accepts is returned, and if there is none the call throws
    ///     ``NextNotificationError`` (`.timedOut(seconds:)`, with `seconds` 0 for a negative or NaN limit) without
    ///     waiting; either way the sequence has ended, as at any time limit. A limit longer than about 146 years,
    ///     `.infinity` included, is no limit in practice.
    /// - Returns: The first payload, buffered or posted later, that `condition` accepts.
    public func next(
        where condition: NotificationCondition<Element>? = nil,
        timeout: TimeInterval? = nil
    ) async throws -> Element {
        lifetime.beginWaiting()
        defer { lifetime.endWaiting() }
        // As `Task.sleep` does: a cancelled task does not start waiting (the queue would still hand it a buffered
        // payload).
        if Task.isCancelled {
            lifetime.end()
            throw CancellationError()
        }
        // Whoever sets it first decides: the time limit (it then ends the sequence, so that the wait below returns
        // once the buffer is empty) or the wait, which found a payload (the timer then does nothing).
        let decided = AtomicWord.make()
        let limit = timeout.map(TimeLimit.init(seconds:))
        var timer: DispatchWorkItem?
        if let limit, limit.hasPassed {
            // Zero, negative or NaN: the limit has passed before the wait begins. Ending the sequence now, rather
            // than from a timer, makes the outcome certain: what is buffered is examined, nothing is waited for.
            _ = decided.set()
            lifetime.end()
        } else if let limit {
            // Weak: a timer that has not fired must not keep the observation alive after the wait returned.
            let work = DispatchWorkItem { [weak lifetime] in
                if decided.set() { lifetime?.end() }
            }
            TimeLimit.timers.asyncAfter(deadline: limit.dispatchDeadline, execute: work)
            timer = work
        }
        defer { timer?.cancel() }
        // What the condition turned down, for the error's message; described only if the wait fails.
        var rejectedCount = 0
        var lastRejected: Element?
        while let payload = await lifetime.next() {
            if condition?.accepts(payload) ?? true {
                _ = decided.set()
                return payload
            }
            rejectedCount += 1
            lastRejected = payload
        }
        try Task.checkCancellation()
        let reason: NextNotificationError.Reason =
            if let limit, decided.isSet { .timedOut(seconds: limit.seconds) } else { .observationEnded }
        throw NextNotificationError(
            reason: reason,
            waitedFor: lifetime.waitedFor,
            hasCondition: condition != nil,
            rejectedCount: rejectedCount,
            lastRejected: lastRejected.map(NextNotificationError.describe)
        )
    }
}

extension NotificationCenter {
    /// The one path behind ``Notifiable/notifications(from:in:bufferingPolicy:file:line:)`` and
    /// ``Notifiable/next(from:in:where:timeout:isolation:file:line:after:)``.
    ///
    /// - Parameter reportsDrops: Whether a payload a bounded buffer drops is reported (not for `next`).
    func notifications<Event: Notifiable>(
        of subject: Event.Type,
        from sender: Event.Sender?,
        bufferingPolicy: NotificationSequence<Event.Payload>.BufferingPolicy,
        reportsDrops: Bool,
        site: ObservationSite
    ) -> NotificationSequence<Event.Payload> {
        // The queue finishes when the observation ends, however it ends (its center going, say): the loop then ends.
        let queue = bufferingPolicy.makeQueue(reportsDrops: reportsDrops)
        let observation = register(
            subject, sender: sender, on: nil, handler: .queued(queue), site: site, kind: .sequence)
        let waitedFor = String(describing: Event.self) + (sender == nil ? "" : " from the given sender")
        return NotificationSequence(queue: queue, observation: observation, waitedFor: waitedFor)
    }
}
