import CTypedNotificationsRuntime

/// What the posts made inside ``awaitDelivery(isolation:_:)`` leave to wait for. Every delivery they queue holds it
/// (a target's FIFO entry, a coalesced burst still gathering); when the last lets go of it, because its handler
/// returned or because it was dropped when its observation ended, it tells the waiter. Release is the signal, so each
/// way a queued delivery can end counts without code of its own on that path, and posts that queue nothing cost
/// nothing more. Handlers on the posting thread, sequences, publishers and recorders have their payload when the post
/// returns, so they hold nothing.
///
/// Entries are released outside the package's locks (they hold user payloads), so the waiter is told outside them too.
final class PendingDeliveries: Sendable {
    private let waiter: DeliveryWaiter?
    /// Those of the posts a coalesced burst joined, held until the burst's own deliveries let go.
    private let joined: [PendingDeliveries]
    /// The `async` handler's target whose handler made the posts: its FIFO runs only after that handler returns, so
    /// waiting for it would never end. Its deliveries are not waited for.
    private let excluded: DeliveryTarget?

    init(waiter: DeliveryWaiter?, joined: [PendingDeliveries] = [], excluded: DeliveryTarget? = nil) {
        self.waiter = waiter
        self.joined = joined
        self.excluded = excluded
    }

    deinit {
        waiter?.finish(cancelled: false)
    }

    /// The pending deliveries a post made now on this thread reports to, for a delivery queued on `target`.
    static func current(for target: DeliveryTarget?) -> PendingDeliveries? {
        guard let pointer = tn_pending_deliveries() else { return nil }
        let pending = Unmanaged<PendingDeliveries>.fromOpaque(pointer).takeUnretainedValue()
        return target != nil && pending.excluded === target ? nil : pending
    }

    /// Runs `body` with the posts it makes on this thread reporting to `pending`, which the caller keeps alive.
    static func collecting<Result>(into pending: PendingDeliveries, _ body: () throws -> Result) rethrows -> Result {
        let previous = tn_pending_deliveries()
        tn_set_pending_deliveries(Unmanaged.passUnretained(pending).toOpaque())
        defer { tn_set_pending_deliveries(previous) }
        return try body()
    }

    /// The `async` handler's target running the current task's handler, if any (see ``excluded``).
    @TaskLocal static var runningAsyncTarget: DeliveryTarget?
}

/// The one task awaiting a ``PendingDeliveries``: told once, by the last release or by the task's cancellation.
final class DeliveryWaiter: Sendable {
    private enum State {
        case waiting(CheckedContinuation<Bool, Never>?)
        case finished(cancelled: Bool)
    }

    private let state = Locked(State.waiting(nil))

    /// Ends the wait, unless it has ended; the continuation is resumed outside the lock.
    func finish(cancelled: Bool) {
        let continuation: CheckedContinuation<Bool, Never>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            state = .finished(cancelled: cancelled)
            return continuation
        }
        continuation?.resume(returning: cancelled)
    }

    /// Waits until ``finish(cancelled:)``; throws `CancellationError` if the task's cancellation ended the wait.
    func wait() async throws {
        let cancelled = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let finished: Bool? = state.withLock { state in
                    switch state {
                    case .waiting:
                        state = .waiting(continuation)
                        return nil
                    case .finished(let cancelled):
                        return cancelled
                    }
                }
                if let finished { continuation.resume(returning: finished) }
            }
        } onCancel: {
            finish(cancelled: true)
        }
        if cancelled { throw CancellationError() }
    }
}
