public import Foundation

/// Where an asynchronous observation's handler runs.
@usableFromInline
enum Executor: Sendable {
    case dispatch(DispatchQueue)
    case operation(OperationQueue)
    case mainActor

    func run(_ job: @escaping @Sendable () -> Void) {
        switch self {
        case .dispatch(let queue): queue.async(execute: job)
        case .operation(let queue): queue.addOperation(job)
        case .mainActor: Task { @MainActor in job() }
        }
    }
}

/// The FIFO between a posting thread and an asynchronous observer.
///
/// A post only appends and, if no drain is scheduled, schedules one on the executor; it never waits for the handler.
/// At most one drain per mailbox is in flight, and it delivers in append order, so each observer sees the payloads
/// posted from one thread in post order even on a concurrent queue. `pending` and `isScheduled` are guarded by the
/// lock.
///
/// A drain is fair to everything else on its queue, executor or actor: it delivers at most ``batchLimit`` payloads,
/// then, if more are pending, schedules itself again behind whatever was submitted meanwhile, instead of looping
/// until a producer that outpaces the handler stops.
@usableFromInline
final class Mailbox<Payload: Sendable>: Sendable {
    private struct State {
        /// Queued payloads from `head` on; those before `head` were already delivered.
        var pending: [Payload] = []
        var head = 0
        var isScheduled = false

        /// Takes up to `limit` payloads from the front, in order.
        ///
        /// Payloads are user values, which must not be released under the lock: the storage the state lets go of
        /// (all of it once everything is taken, or the delivered front half when it is compacted) is handed back as
        /// `retired`, for the caller to release after the lock.
        mutating func take(upTo limit: Int) -> (batch: [Payload], retired: [Payload]) {
            let end = min(pending.count, head + limit)
            let batch = Array(pending[head..<end])
            head = end
            var retired: [Payload] = []
            if head == pending.count {
                swap(&retired, &pending)
                head = 0
            } else if head > pending.count / 2 {
                retired = pending
                pending = Array(pending[head...])
                head = 0
            }
            return (batch, retired)
        }
    }

    /// The most payloads one drain delivers before it yields its queue, executor or actor.
    static var batchLimit: Int { 64 }

    private let executor: Executor
    private let state = Locked(State())

    init(_ executor: Executor) {
        self.executor = executor
    }

    func enqueue(_ payload: Payload, deliver: @escaping @Sendable (Payload) -> Void) {
        let schedule = state.withLock { state in
            state.pending.append(payload)
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        if schedule {
            executor.run { self.drain(deliver) }
        }
    }

    /// Drops what is still queued, for a cancelled observation; the payloads are released after the lock.
    func discardPending() {
        var dropped: [Payload] = []
        state.withLock { state in
            swap(&dropped, &state.pending)
            state.head = 0
        }
        withExtendedLifetime(dropped) {}
    }

    /// Delivers one batch, then either ends (nothing left) or schedules the next batch behind other work.
    private func drain(_ deliver: @escaping @Sendable (Payload) -> Void) {
        let (batch, retired) = state.withLock { state in state.take(upTo: Self.batchLimit) }
        withExtendedLifetime(retired) {}
        for payload in batch { deliver(payload) }
        let more = state.withLock { state in
            if state.head == state.pending.count { state.isScheduled = false }
            return state.isScheduled
        }
        if more {
            executor.run { self.drain(deliver) }
        }
    }
}
