public import Foundation

/// One serial place where handlers run (the main actor, one actor, one `DispatchQueue` or one `OperationQueue`) for
/// the observers of one center, with the one FIFO that they all share.
///
/// Per center, so that one center's backlog never holds up another's observers, and so that centers (one per test,
/// say) stay independent; the observers of one center on one target see one order.
///
/// **One order per target.** A post queues its payload for all of a target's observers in one step (one lock round
/// trip, when it reaches the first of them in registration order), and the target runs its FIFO in order, so every observer on a target sees the posts in one global order,
/// whatever threads they come from. A post made on the target's own actor runs what is queued first, then delivers
/// itself during the post (``takeBacklog()``), unless more than ``batchLimit`` items are queued: then it is queued
/// behind them, so a post never runs an unbounded backlog. Whether a `DispatchQueue` is serial cannot be asked, so
/// each queue object is one target and its observers are served one at a time. The main actor and
/// `DispatchQueue.main` are two targets.
///
/// At most one drain is scheduled at a time; it runs at most ``batchLimit`` items, then schedules itself again behind
/// whatever else its executor has, instead of looping for as long as producers outpace it. It takes one item at a
/// time, so a post made from inside a handler (on the target's actor) runs what is still queued before it, and the
/// drain then goes on with what is left: nobody sees the order change.
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
    }

    private struct State {
        var queue = FIFO<Entry>()
        var isScheduled = false
    }

    /// The most items a drain runs before it yields its executor, and the longest backlog a post made on the target's
    /// actor runs before delivering itself.
    static var batchLimit: Int { 64 }

    let executor: Executor
    /// The identity the registry finds the target by: its center's and its executor's.
    let key: Key
    /// Guards the FIFO and whether a drain is scheduled; only the package's bookkeeping runs under it.
    private let state = Locked(State())

    /// A target's identity in the registry.
    struct Key: Hashable {
        let center: ObjectIdentifier
        /// The queue's or actor's identity; `nil` for the main actor.
        let executor: ObjectIdentifier?
    }

    init(_ executor: Executor, center: ObjectIdentifier) {
        self.executor = executor
        let id: ObjectIdentifier? =
            switch executor {
            case .mainActor: nil
            case .actor(let actor): actor.id
            case .dispatch(let queue): ObjectIdentifier(queue)
            case .operation(let queue): ObjectIdentifier(queue)
            }
        key = Key(center: center, executor: id)
    }

    var isMainActor: Bool {
        if case .mainActor = executor { true } else { false }
    }

    /// Whether this is the target of `executor`: for an actor, the same actor and not a dead one at its address.
    /// Loads the weak reference only when the identities match, when it is the caller's own actor or `nil`.
    func serves(_ other: Executor) -> Bool {
        switch (executor, other) {
        case (.mainActor, .mainActor): true
        case (.actor(let mine), .actor(let theirs)): mine.id == theirs.id && mine.actor === theirs.actor
        case (.dispatch(let mine), .dispatch(let theirs)): mine === theirs
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
        case .dispatch, .operation: false
        }
    }

    // MARK: - Posting

    /// Hands one post to this target's observers among `subscriptions`, in one step; returns whether they run during
    /// the post instead (it is made on the target's actor, whose backlog has then just run).
    ///
    /// A post calls it when it reaches the target's first observer in registration order.
    @usableFromInline
    func dispatch<Payload: Sendable>(
        _ payload: Payload,
        to subscriptions: [AnySubscription],
        from sender: AnyObject?,
        isolation: (any Actor)?
    ) -> Bool {
        if isCurrent(isolation), let backlog = takeBacklog() {
            for entry in backlog { entry.subscription.runQueued(entry.payload, sender: entry.sender) }
            return true
        }
        let boxed: Any = payload
        var entries: [Entry] = []
        for observer in subscriptions where observer.target === self && observer.accepts(sender) {
            entries.append(Entry(subscription: observer, payload: boxed, sender: observer.takesSender ? sender : nil))
        }
        enqueue(entries)
        return false
    }

    /// Queues `entries` as one step and schedules a drain if none is.
    private func enqueue(_ entries: [Entry]) {
        guard !entries.isEmpty else { return }
        let schedules = state.withLock { state in
            for entry in entries { state.queue.append(entry) }
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        if schedules { schedule() }
    }

    /// Everything queued, for a post made on the target's actor; `nil` when more than ``batchLimit`` items wait, and
    /// the post is then queued behind them. A scheduled drain stays scheduled and finds less to do.
    private func takeBacklog() -> [Entry]? {
        state.withLock { state in
            state.queue.count <= Self.batchLimit ? state.queue.takeAll() : nil
        }
    }

    /// Drops what is queued for `subscription`, which ended; the entries are released after the lock.
    func discardPending(for subscription: AnySubscription) {
        let dropped = state.withLock { state in
            state.queue.removeAll { $0.subscription === subscription }
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
            queue.addOperation { self.drain() }
        }
    }

    private static func run(isolatedTo actor: isolated any Actor, _ job: () -> Void) {
        job()
    }

    /// Runs one batch, then either ends (nothing left) or schedules the next batch behind other work.
    private func drain() {
        for _ in 0..<Self.batchLimit {
            guard let entry = take() else { return }
            entry.subscription.runQueued(entry.payload, sender: entry.sender)
        }
        let more = state.withLock { state in
            if state.queue.isEmpty { state.isScheduled = false }
            return state.isScheduled
        }
        if more { schedule() }
    }

    /// The oldest entry; when there is none, the drain ends and the next post schedules a new one.
    private func take() -> Entry? {
        state.withLock { state in
            let entry = state.queue.take()
            if entry == nil { state.isScheduled = false }
            return entry
        }
    }

    /// The slots the FIFO holds, taken or not, for tests of its memory bound.
    var slotsInUse: Int {
        state.withLock { $0.queue.capacityUsed }
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
