public import Foundation

/// One serial place where handlers run (the main actor, one actor, one `DispatchQueue` or one `OperationQueue`) for
/// the observers of one center, with the one FIFO that they all share; or the task of one observer with an `async`
/// handler, with its own FIFO.
///
/// Per center, so that one center's backlog never holds up another's observers, and so that centers (one per test,
/// say) stay independent; the observers of one center on one target see one order.
///
/// **One order per target.** A post queues its payload for all of a target's observers in one step (one lock round
/// trip, when it reaches the first of them in registration order), and the target runs its FIFO in order, one entry at
/// a time, so every observer on a target sees the posts in one global order, whatever threads they come from, and no
/// two of its handlers ever run at once. A post made on the target's own actor then runs the FIFO up to its own
/// entries before it returns (see ``dispatch(_:to:from:isolation:)``), unless more than ``batchLimit`` entries wait or
/// a handler of the target is running: then it stays queued. Whether a `DispatchQueue` is serial cannot be asked, so
/// each queue object is one target and its observers are served one at a time. The main actor and
/// `DispatchQueue.main` are two targets.
///
/// At most one drain is scheduled at a time; it runs at most ``batchLimit`` entries, then schedules itself again
/// behind whatever else its executor has, instead of looping for as long as producers outpace it.
///
/// The registry makes one target per center and queue or actor, and counts the observations that use it (see
/// ``ObserverRegistry``), so targets are found by identity under its lock, without loading a weak reference.
@usableFromInline
final class DeliveryTarget: Sendable {
    @usableFromInline
    enum Executor: Sendable {
        case mainActor
        /// Weak: an observation never keeps the actor it is isolated to alive.
        case actor(WeakActor)
        case dispatch(DispatchQueue)
        case operation(OperationQueue)
        /// A task of the observer's own, for one `async` handler: never shared (the registry makes one per such
        /// observer and keeps none), so each delivery waits for the handler to return from the one before.
        case task
    }

    /// One delivery waiting for its observer's turn.
    ///
    /// `@unchecked Sendable` because the payload is held as `Any` (it is the observer's `Sendable` payload type) and the
    /// sender need not be `Sendable`: it is kept only for a handler that takes it (otherwise `nil`), and handed to
    /// that handler on its target, as Foundation hands `object` to an observer registered with a queue.
    struct Entry: @unchecked Sendable {
        let subscription: AnySubscription
        let payload: Any
        let sender: AnyObject?
        /// For the latest post queued for a new observer that takes the sender: its sender is loaded on the target
        /// (never under a lock), as a live post's is held.
        var replayed: LatestPost? = nil

        /// On the target; the subscription checks that it is still active.
        func run() {
            subscription.runQueued(payload, sender: replayed?.sender ?? sender)
        }

        /// On a ``Executor/task`` target: awaits the `async` handler.
        func runAsync() async {
            await subscription.runQueuedAsync(payload)
        }
    }

    /// What a post still has to do after queueing its entries: run them now, on the target's own actor, or schedule a
    /// drain.
    struct Queued {
        /// The number of the last entry to run now, for a post made on the target's actor.
        let runsThrough: UInt64?
        let schedules: Bool
    }

    private struct State {
        /// Each entry with its number: entries are numbered in queue order, so that a post made on the target's
        /// actor can run the queue up to its own last entry and no further.
        var queue = FIFO<(number: UInt64, entry: Entry)>()
        var lastNumber: UInt64 = 0
        /// Whether a drain is scheduled (or running).
        var isScheduled = false
        /// Whether a handler of this target is running, on its executor.
        var isRunning = false

        mutating func append(_ entry: Entry) {
            lastNumber &+= 1
            queue.append((lastNumber, entry))
        }
    }

    /// The most items a drain runs before it yields its executor, and the longest backlog a post made on the target's
    /// actor runs before delivering itself.
    static var batchLimit: Int { 64 }

    let executor: Executor
    /// Whether observers share the target: all but an `async` handler's task, which a post queues for directly (see
    /// ``queue(_:for:)``), never through ``dispatch(_:to:from:isolation:cancellationsSeen:)``.
    @usableFromInline
    let isShared: Bool
    /// The identity the registry finds a shared target by: its center's and its executor's.
    let key: Key
    /// Guards the FIFO and whether a drain is scheduled; only the package's bookkeeping runs under it.
    private let state = Locked(State())

    /// A target's identity in the registry.
    struct Key: Hashable {
        let center: ObjectIdentifier
        /// The queue's or actor's identity; `nil` for the main actor (and for an `async` handler's task, which the
        /// registry never keeps: see `ObserverRegistry.State.useTarget`).
        let executor: ObjectIdentifier?
    }

    init(_ executor: Executor, center: ObjectIdentifier) {
        self.executor = executor
        if case .task = executor { isShared = false } else { isShared = true }
        let id: ObjectIdentifier? =
            switch executor {
            case .mainActor, .task: nil
            case .actor(let actor): actor.id
            case .dispatch(let queue):
                PlatformQueues.isMain(queue) ? PlatformQueues.mainQueueIdentity : ObjectIdentifier(queue)
            case .operation(let queue): ObjectIdentifier(queue)
            }
        key = Key(center: center, executor: id)
    }

    /// Whether handlers run on the main thread: the main actor, `DispatchQueue.main` or `OperationQueue.main`. An
    /// owner of such an observation (a view model, a view controller) is loaded only there.
    var isMain: Bool {
        switch executor {
        case .mainActor: true
        case .actor, .task: false
        case .dispatch(let queue): PlatformQueues.isMain(queue)
        case .operation(let queue): queue === OperationQueue.main
        }
    }

    /// Whether this is the target of `executor`: for an actor, the same actor and not a dead one at its address.
    /// Loads the weak reference only when the identities match, when it is the caller's own actor or `nil`.
    func serves(_ other: Executor) -> Bool {
        switch (executor, other) {
        case (.mainActor, .mainActor): true
        case (.actor(let mine), .actor(let theirs)): mine.id == theirs.id && mine.actor === theirs.actor
        case (.dispatch(let mine), .dispatch(let theirs)):
            mine === theirs || (PlatformQueues.isMain(mine) && PlatformQueues.isMain(theirs))
        case (.operation(let mine), .operation(let theirs)): mine === theirs
        default: false
        }
    }

    /// Whether a post made with `isolation` runs on this target, so that its observers may run during the post.
    @usableFromInline
    func isCurrent(_ isolation: (any Actor)?) -> Bool {
        switch executor {
        case .mainActor: PlatformIsolation.isMainActor(isolation)
        case .actor(let target):
            // The weak reference is loaded only when the identity is the caller's actor, which the caller holds.
            isolation.map { ObjectIdentifier($0) == target.id && target.actor === $0 } ?? false
        case .dispatch, .operation, .task: false
        }
    }

    // MARK: - Posting

    /// Hands one post to this target's observers among `subscriptions`, in one step (a post calls it when it reaches
    /// the target's first observer in registration order).
    ///
    /// A post made on the target's actor then runs the queue up to and including its own deliveries, one at a time,
    /// before it returns: so code that posts on the main actor and then reads main-actor state sees it updated, and
    /// what was queued before runs first. It does not when more than ``batchLimit`` deliveries wait (a post never runs
    /// an unbounded backlog), nor when a handler of this target is running (the post was made from inside it): the
    /// post is then only queued, behind what waits, and runs when the handler has returned. So all of a target's
    /// observers see one order, and no handler is re-entered.
    @usableFromInline
    func dispatch<Payload: Sendable>(
        _ payload: Payload,
        to subscriptions: [AnySubscription],
        from sender: AnyObject?,
        isolation: (any Actor)?,
        cancellationsSeen count: UInt64
    ) {
        let boxed: Any = payload
        var entries: [Entry] = []
        // Observers that ended earlier in the post get nothing queued, so nothing of the post is kept for them.
        for observer in subscriptions
        where observer.target === self && !observer.hasEnded(cancellationsSeen: count) && observer.accepts(sender) {
            entries.append(Entry(subscription: observer, payload: boxed, sender: observer.takesSender ? sender : nil))
        }
        guard !entries.isEmpty else { return }
        finish(enqueue(entries, isCurrent: isCurrent(isolation)))
    }

    /// Queues one post for the `async` handler whose task this is, and starts the task if none is running; called by
    /// ``Subscription/deliverOther(_:from:)`` once the owner and the sender are checked.
    func queue(_ payload: Any, for subscription: AnySubscription) {
        let entry = Entry(subscription: subscription, payload: payload, sender: nil)
        finish(enqueue(CollectionOfOne(entry), isCurrent: false))
    }

    /// Queues `entries`, in one step; then the caller calls ``finish(_:)``, outside every lock. Takes only the target's
    /// own lock, so the registry may call it under its lock, to queue the latest post for a new observer before any
    /// post can queue anything for it.
    func enqueue(_ entries: some Sequence<Entry>, isCurrent: Bool) -> Queued {
        state.withLock { state in
            let runsNow = isCurrent && !state.isRunning && state.queue.count <= Self.batchLimit
            for entry in entries { state.append(entry) }
            if runsNow { return Queued(runsThrough: state.lastNumber, schedules: false) }
            defer { state.isScheduled = true }
            return Queued(runsThrough: nil, schedules: !state.isScheduled)
        }
    }

    /// Runs what ``enqueue(_:isCurrent:)`` queued, now or by scheduling a drain; outside every lock.
    func finish(_ queued: Queued) {
        if queued.schedules { schedule() }
        if let last = queued.runsThrough {
            while let entry = take(through: last) { entry.run() }
        }
    }

    /// Drops what is queued for `subscription`, which ended; the entries are released after the lock.
    func discardPending(for subscription: AnySubscription) {
        let dropped = state.withLock { state in
            state.queue.removeAll { $0.entry.subscription === subscription }
        }
        withExtendedLifetime(dropped) {}
    }

    // MARK: - Draining

    private func schedule() {
        switch executor {
        case .mainActor:
            Task { @MainActor in self.drain() }
        case .actor(let target):
            guard let actor = target.actor else {
                // The actor is gone, and so are its observations: drop what waits, outside the lock.
                let dropped = state.withLock { state in
                    state.isScheduled = false
                    return state.queue.removeAll()
                }
                withExtendedLifetime(dropped) {}
                return
            }
            Task { await Self.run(isolatedTo: actor) { self.drain() } }
        case .dispatch(let queue):
            queue.async { self.drain() }
        case .operation(let queue):
            queue.addOperation(DrainOperation(self))
        case .task:
            // One entry at a time, each awaited; the task ends when the FIFO is empty, and the next post starts one.
            Task {
                while let entry = self.take(through: .max) { await entry.runAsync() }
            }
        }
    }

    private static func run(isolatedTo actor: isolated any Actor, _ job: () -> Void) {
        job()
    }

    /// A drain on an `OperationQueue` that `cancelAllOperations()` cancelled before it started: it will never run, so
    /// the next one is scheduled now, or nothing queued would ever run again. The deliveries it would have made are
    /// kept (they were posts, not operations of the caller's).
    fileprivate func drainWasCancelled() {
        let more = state.withLock { state in
            if state.queue.isEmpty { state.isScheduled = false }
            return state.isScheduled
        }
        if more { schedule() }
    }

    /// Runs one batch, then either ends (nothing left) or schedules the next batch behind other work.
    fileprivate func drain() {
        for _ in 0..<Self.batchLimit {
            guard let entry = take(through: .max) else { return }
            entry.run()
        }
        let more = state.withLock { state in
            state.isRunning = false
            if state.queue.isEmpty { state.isScheduled = false }
            return state.isScheduled
        }
        if more { schedule() }
    }

    /// The oldest entry, if its number is at most `last`; the caller runs it, and a handler of the target is then
    /// running until the next call. When there is none, nothing is running, and if the queue is empty, the drain in
    /// flight (if any) ends: the next post schedules a new one.
    private func take(through last: UInt64) -> Entry? {
        state.withLock { state in
            guard let number = state.queue.first?.number, number <= last, let entry = state.queue.take() else {
                state.isRunning = false
                if state.queue.isEmpty { state.isScheduled = false }
                return nil
            }
            state.isRunning = true
            return entry.entry
        }
    }
}

/// A weak reference to an actor, with the actor's identity: an observation never keeps its actor alive, and the
/// registry finds the actor's target by identity without loading the reference.
///
/// `@unchecked Sendable` only because the stored property is `var` (as every weak reference must be); it is set once,
/// in `init`, and the Swift runtime reads and clears weak references atomically. Actors are `Sendable`.
@usableFromInline
final class WeakActor: @unchecked Sendable {
    @usableFromInline
    weak var actor: (any Actor)?
    let id: ObjectIdentifier

    init(_ actor: any Actor) {
        self.actor = actor
        id = ObjectIdentifier(actor)
    }
}

/// A drain as an `OperationQueue` operation, which notices when it is cancelled before it starts (see
/// ``DeliveryTarget/drainWasCancelled()``).
///
/// `@unchecked Sendable` (as `Operation` subclasses must be, to cross to the queue): its own state is guarded by the
/// package's lock, and `target` never changes.
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
