import TypedNotifications

/// The state behind a ``NotificationRecorder``: what was recorded, and the waits for more.
///
/// Everything mutable lives in one `Locked`, so recording (on posting threads), reading and waiting (in tasks) are
/// thread-safe.
///
/// ## Waits
///
/// A wait is registered under the lock before anything can end it, so everything that ends one finds it by its id:
///
/// 1. `register` serves the wait at once if it can (a payload already recorded), or fails it at once if it cannot
///    begin (the recorder stopped, the task is cancelled, the timeout is zero); otherwise it appends it to
///    `State.waits`, in arrival order, as ``Phase/registered``.
/// 2. Only then does the timer start, and the task suspend, which moves the wait to ``Phase/suspended(_:)``.
/// 3. Whichever comes first of the post it needs, its timer, its task's cancellation and the recorder's cancellation
///    ends it, under the lock: a suspended wait is removed and its continuation resumed after the lock is released; a
///    wait that has not suspended yet keeps its ending (``Phase/ended(_:)``), and its suspension resumes at once.
///
/// So a timer that fires before the task suspends still ends the wait, in every interleaving. Failure messages, which
/// describe payloads and errors (user code), are worded after the lock is released, from a copy of the state.
final class Recording<Event: Notifiable>: Sendable {
    typealias Payload = Event.Payload

    /// What a wait returns: the payload of `next()`, as a one-element array, or every payload, for `waitForCount`.
    private typealias Continuation = CheckedContinuation<[Payload], any Error>

    private enum Request {
        /// `next()`: the oldest payload it has not returned yet.
        case next
        /// `waitForCount(_:)`: every payload, once there are at least `count`.
        case count(Int)
    }

    /// How a wait ends.
    private enum Ending {
        case served([Payload])
        case failed(WaitFailure)
    }

    private enum Phase {
        /// Registered, its task not suspended yet.
        case registered
        /// Its task is suspended on `continuation`.
        case suspended(Continuation)
        /// Ended before its task suspended; the suspension resumes at once with this.
        case ended(Ending)

        var isWaiting: Bool {
            if case .ended = self { false } else { true }
        }
    }

    private struct Wait {
        let id: Int
        let request: Request
        var phase: Phase

        var isWaitingNext: Bool {
            if case .next = request { phase.isWaiting } else { false }
        }
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
        /// Registered waits, in arrival order: those waiting, and those ended whose task has not suspended yet.
        var waits: [Wait] = []
        var lastWaitID = 0

        var payloads: [Payload] { report.matched }

        /// The payloads `request` returns if it can be served now; a served `next()` consumes its payload.
        mutating func serve(_ request: Request) -> [Payload]? {
            switch request {
            case .next where consumed < payloads.count:
                defer { consumed += 1 }
                return [payloads[consumed]]
            case .count(let count) where payloads.count >= count:
                return payloads
            default:
                return nil
            }
        }

        /// Serves the waits that the current payloads satisfy, in arrival order, and returns the resumptions of those
        /// that were suspended.
        mutating func serveWaits() -> [() -> Void] {
            var resumptions: [() -> Void] = []
            var index = waits.startIndex
            while index < waits.endIndex {
                guard waits[index].phase.isWaiting, let served = serve(waits[index].request) else {
                    index += 1
                    continue
                }
                if case .suspended(let continuation) = waits[index].phase {
                    waits.remove(at: index)
                    resumptions.append { continuation.resume(returning: served) }
                } else {
                    waits[index].phase = .ended(.served(served))
                    index += 1
                }
            }
            return resumptions
        }

        /// Ends wait `id` with `failure`, if it is still waiting, and returns the resumption if it was suspended.
        mutating func fail(_ id: Int, _ failure: (State, Wait) -> WaitFailure) -> (() -> Void)? {
            guard let index = waits.firstIndex(where: { $0.id == id }), waits[index].phase.isWaiting else { return nil }
            let ending = Ending.failed(failure(self, waits[index]))
            guard case .suspended(let continuation) = waits[index].phase else {
                waits[index].phase = .ended(ending)
                return nil
            }
            waits.remove(at: index)
            return { Recording.resume(continuation, with: ending) }
        }

        /// The failure for a wait that ends without its post, copied from the current state, to be worded later.
        func failure(for request: Request, id: Int?, reason: NotificationWaitError.Reason) -> WaitFailure {
            let expected: Int
            let waitedFor: WaitFailure.WaitedFor
            switch request {
            case .next:
                // Waiting `next()` calls are served in order, so this one is owed the post after those ahead of it.
                let ahead = waits.prefix { $0.id != id }.count(where: \.isWaitingNext)
                expected = consumed + ahead + 1
                waitedFor = .next
            case .count(let count):
                expected = count
                waitedFor = .count
            }
            return .unserved(
                reason: reason,
                waitedFor: waitedFor,
                expected: expected,
                filtersBySender: filtersBySender,
                report: report
            )
        }
    }

    /// Why a wait failed, with what its error message needs, copied under the lock and worded outside it.
    private enum WaitFailure {
        enum WaitedFor {
            case next, count
        }

        case cancelled
        case unserved(
            reason: NotificationWaitError.Reason,
            waitedFor: WaitedFor,
            expected: Int,
            filtersBySender: Bool,
            report: PostReport<Event>
        )

        /// The error the wait throws; describes payloads and errors, so never call it under the lock.
        var error: any Error {
            switch self {
            case .cancelled:
                return CancellationError()
            case .unserved(let reason, let waitedFor, let expected, let filtersBySender, let report):
                let waited =
                    switch waitedFor {
                    case .next:
                        "post \(expected) of \(PostReport<Event>.subjectName)"
                            + (filtersBySender ? " from the given sender" : "") + " in next()"
                    case .count:
                        PostReport<Event>.expectation(expected, filtersBySender: filtersBySender)
                    }
                let cause =
                    switch reason {
                    case .timedOut(let seconds): "Timed out after \(seconds) seconds waiting for \(waited)"
                    case .recorderCancelled: "The recorder was cancelled while waiting for \(waited)"
                    }
                return NotificationWaitError(
                    reason: reason,
                    expectedCount: expected,
                    postedCount: report.matched.count,
                    description: cause + "; " + report.summary
                )
            }
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
        let resumptions: [() -> Void] = state.withLock { state in
            guard state.isRecording else { return [] }
            if case .otherTask = post.origin {
                // Made in a task outside the `expectPosts` block: never counted, from whichever sender, only listed in
                // failure messages. A plain post that failed to decode there is no concern of the block's.
                if case .success(let payload) = post.payload { state.report.fromOtherTasks.append(payload) }
                return []
            }
            switch (post.payload, post.isFromObservedSender) {
            case (.success(let payload), true):
                state.report.matched.append(payload)
                if case .outsideTasks = post.origin { state.report.matchedOutsideTasks.append(payload) }
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
        let resumptions: [() -> Void] = state.withLock { state in
            guard state.isRecording else { return [] }
            state.isRecording = false
            // Every failure is worded before any wait leaves the queue, so each `next()` keeps its place in line.
            let failures = state.waits.map {
                state.failure(for: $0.request, id: $0.id, reason: .recorderCancelled)
            }
            var resumptions: [() -> Void] = []
            for (wait, failure) in zip(state.waits, failures) {
                if let resume = state.fail(wait.id, { _, _ in failure }) { resumptions.append(resume) }
            }
            return resumptions
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

    /// How many waits are registered, waiting or ended but not yet resumed, for tests that must know a wait has begun
    /// before they post, or that every wait has left.
    var waitCount: Int {
        state.withLock { $0.waits.count }
    }

    // MARK: - Waiting

    func next(timeout: TimeLimit?) async throws -> Payload {
        try await wait(for: .next, timeout: timeout)[0]
    }

    func waitForCount(_ count: Int, timeout: TimeLimit?) async throws -> [Payload] {
        try await wait(for: .count(count), timeout: timeout)
    }

    /// Registers a wait for `request`, then starts its timer and suspends until something ends it.
    private func wait(for request: Request, timeout: TimeLimit?) async throws -> [Payload] {
        let registration = register(request, timeout: timeout, isCancelled: Task.isCancelled)
        let id: Int
        switch registration {
        case .ended(.served(let payloads)): return payloads
        case .ended(.failed(let failure)): throw failure.error
        case .registered(let registered): id = registered
        }
        guard let timeout else { return try await suspend(id) }
        return try await withThrowingTaskGroup(of: Void.self, returning: [Payload].self) { group in
            group.addTask {
                // The timeout is a safety net, not synchronisation: it only ends a wait that would otherwise hang. The
                // wait is registered already, so this ends it whether or not its task has suspended yet.
                guard (try? await timeout.sleep()) != nil else { return }
                self.fail(id) { state, wait in
                    state.failure(for: wait.request, id: wait.id, reason: .timedOut(seconds: timeout.seconds))
                }
            }
            defer { group.cancelAll() }
            return try await suspend(id)
        }
    }

    private enum Registration {
        case ended(Ending)
        case registered(id: Int)
    }

    /// Ends a wait for `request` at once if it can be served, or if it cannot begin; otherwise registers it.
    private func register(_ request: Request, timeout: TimeLimit?, isCancelled: Bool) -> Registration {
        state.withLock { state in
            if let served = state.serve(request) { return .ended(.served(served)) }
            if !state.isRecording {
                return .ended(.failed(state.failure(for: request, id: nil, reason: .recorderCancelled)))
            }
            if isCancelled { return .ended(.failed(.cancelled)) }
            if let timeout, timeout.hasPassed {
                // Zero or less: the limit has passed before the wait begins, so it fails without waiting. A payload
                // already recorded was served above: what is there is returned, whatever the limit.
                let reason = NotificationWaitError.Reason.timedOut(seconds: timeout.seconds)
                return .ended(.failed(state.failure(for: request, id: nil, reason: reason)))
            }
            state.lastWaitID += 1
            state.waits.append(Wait(id: state.lastWaitID, request: request, phase: .registered))
            return .registered(id: state.lastWaitID)
        }
    }

    /// Suspends the task on registered wait `id` until it ends; resumes at once if it ended already.
    private func suspend(_ id: Int) async throws -> [Payload] {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: Continuation) in
                let ending: Ending? = state.withLock { state in
                    guard let index = state.waits.firstIndex(where: { $0.id == id }) else {
                        preconditionFailure("a registered wait left before its task suspended")
                    }
                    switch state.waits[index].phase {
                    case .registered:
                        state.waits[index].phase = .suspended(continuation)
                        return nil
                    case .ended(let ending):
                        state.waits.remove(at: index)
                        return ending
                    case .suspended:
                        preconditionFailure("a wait suspended twice")
                    }
                }
                if let ending { Self.resume(continuation, with: ending) }
            }
        } onCancel: {
            fail(id) { _, _ in .cancelled }
        }
    }

    /// Ends wait `id` with a failure, if it is still waiting.
    private func fail(_ id: Int, failure: @Sendable (State, Wait) -> WaitFailure) {
        let resume = state.withLock { state in state.fail(id, failure) }
        resume?()
    }

    private static func resume(_ continuation: Continuation, with ending: Ending) {
        switch ending {
        case .served(let payloads): continuation.resume(returning: payloads)
        case .failed(let failure): continuation.resume(throwing: failure.error)
        }
    }
}
