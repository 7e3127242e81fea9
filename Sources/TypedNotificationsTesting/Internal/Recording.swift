import TypedNotifications

/// The state behind a ``NotificationRecorder``: what was recorded, and the tasks waiting for more.
///
/// Everything mutable lives in one `Locked`, so recording (on posting threads), reading and waiting (in tasks) are
/// thread-safe. Waiting tasks suspend on continuations kept in `State.waits`, in arrival order; each is resumed exactly
/// once, by whichever comes first under the lock: the post it needs, its timeout, its task's cancellation, or the
/// recorder's cancellation. Continuations are resumed after the lock is released.
final class Recording<Event: Notifiable>: Sendable {
    typealias Payload = Event.Payload

    private enum Waiter {
        /// `next()`: the oldest payload it has not returned yet.
        case next(CheckedContinuation<Payload, any Error>)
        /// `waitForCount(_:)`: every payload, once there are at least `count`.
        case count(Int, CheckedContinuation<[Payload], any Error>)

        var isNext: Bool {
            if case .next = self { true } else { false }
        }

        func resumption(throwing error: any Error) -> @Sendable () -> Void {
            switch self {
            case .next(let continuation): { continuation.resume(throwing: error) }
            case .count(_, let continuation): { continuation.resume(throwing: error) }
            }
        }
    }

    private struct Wait {
        let id: Int
        let waiter: Waiter
    }

    private struct State {
        /// What was recorded (`report.matched`, in post order) and what was not.
        var report = PostReport<Event>()
        /// The sender of each payload in `report.matched`.
        var senders: [SenderReference] = []
        let filtersBySender: Bool
        /// How many payloads `next()` has returned.
        var consumed = 0
        var isRecording = true
        var waits: [Wait] = []
        var lastWaitID = 0

        var payloads: [Payload] { report.matched }

        /// Serves the waits that the current payloads satisfy, in arrival order, and returns their resumptions.
        mutating func serveWaits() -> [@Sendable () -> Void] {
            var resumptions: [@Sendable () -> Void] = []
            var pending: [Wait] = []
            for wait in waits {
                switch wait.waiter {
                case .next(let continuation) where consumed < payloads.count:
                    let payload = payloads[consumed]
                    consumed += 1
                    resumptions.append { continuation.resume(returning: payload) }
                case .count(let count, let continuation) where payloads.count >= count:
                    let payloads = payloads
                    resumptions.append { continuation.resume(returning: payloads) }
                default:
                    pending.append(wait)
                }
            }
            waits = pending
            return resumptions
        }

        /// Enqueues `wait` unless recording has stopped, in which case the wait fails at once.
        mutating func enqueue<Value>(_ wait: Wait) -> Result<Value, any Error>? {
            if isRecording {
                waits.append(wait)
                return nil
            }
            return .failure(error(for: wait, reason: .recorderCancelled))
        }

        /// Removes wait `id` and returns its error, if it is still waiting; the error is worded while it still waits.
        mutating func dequeue(_ id: Int, error: (State, Wait) -> any Error) -> (Wait, any Error)? {
            guard let index = waits.firstIndex(where: { $0.id == id }) else { return nil }
            let failure = error(self, waits[index])
            return (waits.remove(at: index), failure)
        }

        /// The error for a wait that ends without its post, worded from the current state.
        func error(for wait: Wait, reason: NotificationWaitError.Reason) -> NotificationWaitError {
            let expected: Int
            let waitedFor: String
            switch wait.waiter {
            case .next:
                // Waiting `next()` calls are served in order, so this one is owed the post after those ahead of it.
                let ahead = waits.prefix { $0.id != wait.id }.count(where: \.waiter.isNext)
                expected = consumed + ahead + 1
                let sender = filtersBySender ? " from the given sender" : ""
                waitedFor = "post \(expected) of \(PostReport<Event>.subjectName)\(sender) in next()"
            case .count(let count, _):
                expected = count
                waitedFor = PostReport<Event>.expectation(count, filtersBySender: filtersBySender)
            }
            let cause =
                switch reason {
                case .timedOut(let seconds): "Timed out after \(seconds) seconds waiting for \(waitedFor)"
                case .recorderCancelled: "The recorder was cancelled while waiting for \(waitedFor)"
                }
            return NotificationWaitError(
                reason: reason,
                expectedCount: expected,
                postedCount: payloads.count,
                description: cause + "; " + report.summary
            )
        }
    }

    private let state: Locked<State>

    /// - Parameter filtersBySender: Whether the recorder records one sender's posts only, for messages.
    init(filtersBySender: Bool) {
        state = Locked(State(filtersBySender: filtersBySender))
    }

    // MARK: - Recording

    /// Records one post seen by the recorder's ``PostObserver`` and resumes the waits it satisfies.
    func record(_ post: ObservedPost<Event>) {
        let resumptions: [@Sendable () -> Void] = state.withLock { state in
            guard state.isRecording else { return [] }
            switch (post.payload, post.isFromObservedSender) {
            case (.success(let payload), true):
                state.report.matched.append(payload)
                state.senders.append(post.sender)
                return state.serveWaits()
            case (.success(let payload), false):
                state.report.fromOtherSenders.append(payload)
            case (.failure(let error), true):
                state.report.decodingErrors.append(error)
            case (.failure, false):
                break
            }
            return []
        }
        for resume in resumptions { resume() }
    }

    /// Stops recording for good; waits that can no longer be served throw ``NotificationWaitError``.
    func stop() {
        let resumptions: [@Sendable () -> Void] = state.withLock { state in
            guard state.isRecording else { return [] }
            state.isRecording = false
            let failures = state.waits.map {
                $0.waiter.resumption(throwing: state.error(for: $0, reason: .recorderCancelled))
            }
            state.waits = []
            return failures
        }
        for resume in resumptions { resume() }
    }

    // MARK: - Reading

    var payloads: [Payload] {
        state.withLock { $0.payloads }
    }

    var count: Int {
        state.withLock { $0.payloads.count }
    }

    var report: PostReport<Event> {
        state.withLock { $0.report }
    }

    func payloads(from sender: AnyObject) -> [Payload] {
        state.withLock { state in
            zip(state.payloads, state.senders).filter { $0.1.refers(to: sender) }.map(\.0)
        }
    }

    var senders: [SenderReference] {
        state.withLock { $0.senders }
    }

    /// How many waits are suspended, for tests that must know a wait has begun before they post.
    var waitCount: Int {
        state.withLock { $0.waits.count }
    }

    // MARK: - Waiting

    func next(timeout: Timeout?) async throws -> Payload {
        try await suspend(timeout: timeout) { state, id, continuation in
            if state.consumed < state.payloads.count {
                defer { state.consumed += 1 }
                return .success(state.payloads[state.consumed])
            }
            return state.enqueue(Wait(id: id, waiter: .next(continuation)))
        }
    }

    func waitForCount(_ count: Int, timeout: Timeout?) async throws -> [Payload] {
        try await suspend(timeout: timeout) { state, id, continuation in
            if state.payloads.count >= count { return .success(state.payloads) }
            return state.enqueue(Wait(id: id, waiter: .count(count, continuation)))
        }
    }

    /// Returns the result of `attempt`, which runs under the lock: it returns a result at once, or `nil` after
    /// enqueueing a wait, which a post, the timeout, or cancellation of the task or of the recorder resumes.
    private func suspend<Value: Sendable>(
        timeout: Timeout?,
        attempt: (inout State, Int, CheckedContinuation<Value, any Error>) -> Result<Value, any Error>?
    ) async throws -> Value {
        let id = state.withLock { state in
            state.lastWaitID += 1
            return state.lastWaitID
        }
        guard let timeout else { return try await wait(id, attempt: attempt) }
        return try await withThrowingTaskGroup(of: Void.self, returning: Value.self) { group in
            group.addTask {
                // The timeout is a safety net, not synchronisation: it only ends a wait that would otherwise hang.
                guard (try? await Task.sleep(nanoseconds: timeout.nanoseconds)) != nil else { return }
                self.fail(id) { state, wait in state.error(for: wait, reason: .timedOut(seconds: timeout.seconds)) }
            }
            defer { group.cancelAll() }
            return try await wait(id, attempt: attempt)
        }
    }

    private func wait<Value: Sendable>(
        _ id: Int,
        attempt: (inout State, Int, CheckedContinuation<Value, any Error>) -> Result<Value, any Error>?
    ) async throws -> Value {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let immediate: Result<Value, any Error>? = state.withLock { state in
                    if let result = attempt(&state, id, continuation) { return result }
                    // Cancelled before the wait was enqueued: the cancellation handler found nothing to resume.
                    if Task.isCancelled, state.dequeue(id, error: { _, _ in CancellationError() }) != nil {
                        return .failure(CancellationError())
                    }
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            fail(id) { _, _ in CancellationError() }
        }
    }

    /// Resumes wait `id` with an error, if it is still waiting.
    private func fail(_ id: Int, error: @Sendable (State, Wait) -> any Error) {
        let resume: (@Sendable () -> Void)? = state.withLock { state in
            guard let (wait, failure) = state.dequeue(id, error: error) else { return nil }
            return wait.waiter.resumption(throwing: failure)
        }
        resume?()
    }
}

/// How long a wait may take, in a form every supported system can sleep for (`Duration` needs macOS 13 / iOS 16).
struct Timeout: Sendable {
    let nanoseconds: UInt64

    var seconds: Double { Double(nanoseconds) / 1e9 }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else {
            nanoseconds = 0
            return
        }
        let whole = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        nanoseconds = whole.overflow ? .max : whole.partialValue &+ UInt64(attoseconds / 1_000_000_000)
    }
}
