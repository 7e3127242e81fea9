import Foundation

// How a target runs its FIFO: a drain scheduled on its executor, batch by batch (see "What a drain keeps" in
// `DeliveryTarget`).

extension DeliveryTarget {
    /// No drain carries the task-locals or priority of the post that happened to start it: a block, or a detached
    /// task. The main actor's drain is a block on the main queue, which is the main actor's executor on every platform
    /// (its jobs and these blocks share one FIFO), and costs about 2,400 instructions less than a task per delivery
    /// (the main-actor-1 row of the Performance article's instruction table); its handlers were made for the main
    /// actor by `Platform.onMainActor`.
    func schedule() {
        switch executor {
        case .mainActor:
            Self.mainQueue.async { self.drain() }
        case .actor(let target):
            // Batch after batch in one task, each loading the actor anew: see "What a drain keeps" above.
            Task.detached {
                while await self.drainBatch(on: target) {}
            }
        case .dispatch(let queue):
            queue.async { self.drain() }
        case .operation(let queue):
            queue.addOperation(DrainOperation(self))
        }
    }

    /// The main queue, got once: on Linux, `DispatchQueue.main` makes a new object at each call (the main-actor-1 row
    /// of the Performance article's instruction table).
    private static let mainQueue = DispatchQueue.main

    /// Runs one batch on the actor, if it lives; whether another batch is due. The strong reference lives only in
    /// this call; a dead actor's queue is dropped (its observations ended with it), outside the lock.
    fileprivate func drainBatch(on target: WeakActor) async -> Bool {
        guard let actor = target.actor else {
            let dropped = state.withLock { state in
                state.isScheduled = false
                state.isRunning = false
                return state.removeAll()
            }
            withExtendedLifetime(dropped) {}
            return false
        }
        return await Self.run(isolatedTo: actor) { self.runBatch() }
    }

    fileprivate static func run(isolatedTo actor: isolated any Actor, _ batch: () -> Bool) -> Bool {
        batch()
    }

    /// A drain that `cancelAllOperations()` cancelled before it started never runs, so the next one is scheduled now,
    /// or nothing queued would run again. Its deliveries are kept (they were posts, not the caller's operations).
    fileprivate func drainWasCancelled() {
        let more = state.withLock { state in
            if state.queue.isEmpty { state.isScheduled = false }
            return state.isScheduled
        }
        if more { schedule() }
    }

    /// Runs one batch, then either ends (nothing left) or schedules the next batch behind other work.
    fileprivate func drain() {
        if runBatch() { schedule() }
    }

    /// Runs up to ``batchLimit`` entries; whether more wait, with the drain still scheduled for them.
    fileprivate func runBatch() -> Bool {
        for _ in 0..<Self.batchLimit {
            guard let entry = take(through: .max) else { return false }
            entry.run()
        }
        return state.withLock { state in
            state.isRunning = false
            if state.queue.isEmpty { state.isScheduled = false }
            return state.isScheduled
        }
    }

    /// The oldest entry, if numbered at most `last`, for the caller to run: a handler is running until the next call.
    /// With none, nothing runs, and an empty queue ends the drain in flight (the next post schedules one).
    func take(through last: UInt64) -> Entry? {
        state.withLock { state in
            guard let number = state.queue.first?.number, number <= last, let entry = state.take() else {
                state.isRunning = false
                if state.queue.isEmpty { state.isScheduled = false }
                return nil
            }
            state.isRunning = true
            return entry
        }
    }
}

/// A drain as an `Operation` that notices a cancellation before it starts (``DeliveryTarget/drainWasCancelled()``).
/// `@unchecked Sendable`, as `Operation` subclasses must be: its state is under a lock; `target` never changes.
private final class DrainOperation: Operation, @unchecked Sendable {
    private let target: DeliveryTarget
    /// Whether the drain has started, and whether a cancellation came first (then it never will).
    private let state = Locked((hasStarted: false, isDead: false))

    init(_ target: DeliveryTarget) {
        self.target = target
    }

    override func main() {
        let runs = state.withLock { state in
            state.hasStarted = !state.isDead
            return state.hasStarted
        }
        if runs { target.drain() }
    }

    override func cancel() {
        super.cancel()
        // A drain that has started finishes its batch whatever `isCancelled` says; one that has not never will.
        let replaced = state.withLock { state in
            defer { if !state.hasStarted { state.isDead = true } }
            return !state.hasStarted && !state.isDead
        }
        if replaced { target.drainWasCancelled() }
    }
}
