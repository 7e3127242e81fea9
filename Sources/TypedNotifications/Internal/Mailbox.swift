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
@usableFromInline
final class Mailbox<Payload: Sendable>: Sendable {
    private struct State {
        var pending: [Payload] = []
        var isScheduled = false
    }

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

    /// Drops what is still queued, for a cancelled observation.
    func discardPending() {
        state.withLock { $0.pending.removeAll() }
    }

    private func drain(_ deliver: @Sendable (Payload) -> Void) {
        while true {
            let batch: [Payload] = state.withLock { state in
                if state.pending.isEmpty { state.isScheduled = false }
                var taken: [Payload] = []
                swap(&taken, &state.pending)
                return taken
            }
            if batch.isEmpty { return }
            for payload in batch { deliver(payload) }
        }
    }
}
