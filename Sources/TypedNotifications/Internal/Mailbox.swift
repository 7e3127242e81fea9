public import Foundation

/// Where an asynchronous observation's handler runs.
///
/// An actor is held weakly: an observation never keeps the actor it is isolated to alive, so an actor that keeps the
/// observation's token makes no cycle, and an actor that owns its observation can be deallocated.
@usableFromInline
enum Executor: Sendable {
    case dispatch(DispatchQueue)
    case operation(OperationQueue)
    /// Isolated to an actor: synchronously during a post made on it, otherwise as a job on it.
    case actor(WeakActor)
    /// A task per burst of deliveries, for `async` handlers.
    case task

    static var mainActor: Executor { .actor(WeakActor(MainActor.shared)) }

    /// Schedules `job`; a job for an actor that is gone is dropped.
    func run(_ job: @escaping @Sendable () -> Void) {
        switch self {
        case .dispatch(let queue): queue.async(execute: job)
        case .operation(let queue): queue.addOperation(job)
        case .actor(let target):
            guard let actor = target.actor else { return }
            if actor === MainActor.shared {
                Task { @MainActor in job() }
            } else {
                Task { await Self.run(job, isolatedTo: actor) }
            }
        case .task: Task { job() }
        }
    }

    private static func run(_ job: @Sendable () -> Void, isolatedTo actor: isolated any Actor) {
        job()
    }

    /// Whether a post made with `isolation` runs on this executor's actor, so that its handler may run synchronously
    /// during the post (see ``PlatformIsolation/isMainActor(_:)`` for the main actor).
    @inlinable
    func isCurrent(_ isolation: (any Actor)?) -> Bool {
        guard case .actor(let target) = self, let actor = target.actor else { return false }
        if actor === MainActor.shared { return PlatformIsolation.isMainActor(isolation) }
        return isolation === actor
    }
}

/// A weak reference to an actor, in a box of its own: an ``Executor`` then holds only strong class references, which
/// the runtime copies and destroys without a weak reference's slower entry points.
///
/// `@unchecked Sendable` only because the stored property is `var` (as every weak reference must be); it is set once,
/// in `init`, and the Swift runtime reads and clears weak references atomically. Actors are `Sendable`.
@usableFromInline
final class WeakActor: @unchecked Sendable {
    @usableFromInline
    weak var actor: (any Actor)?

    init(_ actor: any Actor) {
        self.actor = actor
    }
}

/// The FIFO between posting threads and one asynchronous observer.
///
/// A post only appends and, if no drain is scheduled, schedules one on the executor; it never waits for the handler.
/// At most one drain per mailbox is in flight, and it delivers in append order, so each observer sees the payloads
/// posted from one thread in post order, even on a concurrent queue, and its handler never runs concurrently with
/// itself. `pending`, `head` and `isScheduled` are guarded by the lock.
///
/// A drain is fair to everything else on its queue or actor: it delivers at most ``batchLimit`` items, then, if more
/// are pending, schedules itself again behind whatever was submitted meanwhile, instead of looping until a producer
/// that outpaces the handler stops.
///
/// An observer isolated to an actor also takes items synchronously, during a post made on that actor: it first
/// delivers what is still queued (``takeQueued()``), then the post's own item, so the order holds. That never races
/// with a drain: both run isolated to the same actor.
///
/// Items are user values, which must not be released under the lock: a taken item is moved out of its slot, and
/// dropped items are released after the lock.
@usableFromInline
final class Mailbox<Item: Sendable>: Sendable {
    private struct State {
        /// Queued items from `head` on; the slots before `head` were emptied when taken.
        var pending: [Item?] = []
        var head = 0
        var isScheduled = false

        mutating func takeFirst() -> Item? {
            guard head < pending.count else { return nil }
            var item: Item?
            swap(&item, &pending[head])
            head += 1
            if head == pending.count {
                // Only empty slots are left, so nothing of the user's is released here.
                pending.removeAll(keepingCapacity: true)
                head = 0
            }
            return item
        }
    }

    /// The most items one drain delivers before it yields its queue, executor or actor.
    static var batchLimit: Int { 64 }

    @usableFromInline
    let executor: Executor
    private let state = Locked(State())

    @usableFromInline
    init(_ executor: Executor) {
        self.executor = executor
    }

    /// Queues `item` and, if no drain is in flight, schedules one that hands items to `deliver` on the executor.
    @usableFromInline
    func enqueue(_ item: Item, deliver: @escaping @Sendable (Item) -> Void) {
        guard append(item) else { return }
        executor.run { self.drain(deliver) }
    }

    /// As ``enqueue(_:deliver:)``, for an `async` handler: one task delivers a burst of items, one at a time.
    @usableFromInline
    func enqueue(_ item: Item, deliverAsync: @escaping @Sendable (Item) async -> Void) {
        guard append(item) else { return }
        Task {
            while let item = self.takeForDrain() { await deliverAsync(item) }
        }
    }

    /// Whether the caller must schedule a drain.
    private func append(_ item: Item) -> Bool {
        state.withLock { state in
            state.pending.append(item)
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
    }

    /// The oldest queued item, for a synchronous delivery on the observer's actor; a drain that is scheduled stays so.
    @usableFromInline
    func takeQueued() -> Item? {
        state.withLock { state in state.takeFirst() }
    }

    /// The oldest queued item, for the drain in flight; when there is none, the drain ends and the next item
    /// appended schedules a new one.
    private func takeForDrain() -> Item? {
        state.withLock { state in
            let item = state.takeFirst()
            if item == nil { state.isScheduled = false }
            return item
        }
    }

    /// Drops what is still queued, for a cancelled observation; the items are released after the lock.
    func discardPending() {
        var dropped: [Item?] = []
        state.withLock { state in
            swap(&dropped, &state.pending)
            state.head = 0
        }
        withExtendedLifetime(dropped) {}
    }

    /// Delivers one batch, then either ends (nothing left) or schedules the next batch behind other work.
    private func drain(_ deliver: @escaping @Sendable (Item) -> Void) {
        for _ in 0..<Self.batchLimit {
            guard let item = takeForDrain() else { return }
            deliver(item)
        }
        let more = state.withLock { state in
            if state.head == state.pending.count { state.isScheduled = false }
            return state.isScheduled
        }
        if more {
            executor.run { self.drain(deliver) }
        }
    }
}
