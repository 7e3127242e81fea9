import CTypedNotificationsRuntime

/// What the posts made inside ``awaitDelivery(in:isolation:_:)`` leave to wait for. Every delivery they queue holds it
/// (a target's FIFO entry, a coalesced burst still gathering); when the last lets go of it, because its handler
/// returned or because it was dropped when its observation ended, it tells the waiter. Release is the signal, so each
/// way a queued delivery can end counts without code of its own on that path, and posts that queue nothing cost
/// nothing more. Handlers on the posting thread, sequences, publishers and recorders have their payload when the post
/// returns, so they hold nothing.
///
/// Posts find it in a thread-local slot (``current``), which the capture sites read. For the posts of one thread,
/// `awaitDelivery { … }` sets the slot while its closure runs. For the posts of every thread on one center,
/// `awaitDelivery(in:) { … }` registers it with that center (``registered(_:for:isolation:_:)``) while its closure runs, and each post on
/// the center puts it in the posting thread's slot for the duration of the post (``enter(_:)``): the capture
/// sites need not know which kind of wait they serve.
///
/// Entries are released outside the package's locks (they hold user payloads), so the waiter is told outside them too.
///
/// Immutable; its parts are `Sendable`.
@usableFromInline
final class PendingDeliveries: Sendable {
    private let waiter: DeliveryWaiter?
    /// Those of the posts a coalesced burst joined, held until the burst's own deliveries let go.
    private let joined: [PendingDeliveries]
    /// What else the deliveries hold until they are done: for an observer's coalesced delivery, the
    /// ``Coalescer/DeliveryDone`` whose release lets the observer's next burst be scheduled.
    private let held: (any AnyObject & Sendable)?
    /// The task awaiting the posts. Inside an `async` handler it is that handler's task, whose queue runs only after
    /// the handler returns: deliveries queued there are not waited for (``attached(excludingDrainOf:)``). If the task
    /// has ended (its wait was cancelled), a new task at its address can only drop deliveries from a wait already over.
    let awaitingTask: TaskIdentity?
    /// The actor `awaitDelivery` was called on, whose executor runs its closure: a post that its task makes there is
    /// made on that actor, though the compiler passes it no isolation (a closure that does not capture the actor is
    /// not isolated to it); see ``isolationHere``. Weak: a queued delivery holding these pending deliveries must not
    /// keep the actor alive. A ``WeakActor`` box rather than a `weak let`, which needs Swift 6.3 (SE-0481).
    private let isolation: WeakActor?

    init(waiter: DeliveryWaiter, isolation: (any Actor)?) {
        self.waiter = waiter
        joined = []
        held = nil
        awaitingTask = .current
        self.isolation = isolation.map(WeakActor.init)
    }

    /// Deliveries that hold the waits `joined` and, until they are done, `held`: a coalesced burst's, with the waits
    /// of the posts it joined; or a post's that reports to several waits (``enter(_:)``), with `lead`'s task and
    /// isolation.
    init(
        joining joined: [PendingDeliveries],
        holding held: (any AnyObject & Sendable)? = nil,
        isolationFrom lead: PendingDeliveries? = nil
    ) {
        waiter = nil
        self.joined = joined
        self.held = held
        awaitingTask = lead?.awaitingTask
        isolation = lead?.isolation
    }

    /// These waits without what a delivery holds until it is done (``held``): what a burst keeps of the posts that
    /// join it. A post made during an observer's coalesced delivery may join that observer's next burst, which is
    /// scheduled only once the delivery is done: holding the delivery's ``Coalescer/DeliveryDone`` there would wait
    /// for itself.
    var waitsOnly: PendingDeliveries {
        guard holdsDeliveries else { return self }
        return PendingDeliveries(joining: joined.map(\.waitsOnly))
    }

    /// Whether these waits, or those they joined, hold what a delivery holds until it is done.
    private var holdsDeliveries: Bool {
        held != nil || joined.contains { $0.holdsDeliveries }
    }

    /// The actor a post made now on this thread runs on, for a post inside ``awaitDelivery(in:isolation:_:)`` that the
    /// compiler passed no isolation: `awaitDelivery`'s, if the post is made by the awaiting task itself. Not for
    /// another task that its closure runs synchronously on this thread (`Task.immediate`): that task has an executor
    /// of its own, on which the actor's observers must not run.
    var isolationHere: (any Actor)? {
        guard let awaitingTask, TaskIdentity.current == awaitingTask else { return nil }
        return isolation?.actor
    }

    /// Whether these pending deliveries are `other` or hold it, as a coalesced burst's hold the waits it joined.
    func includes(_ other: PendingDeliveries) -> Bool {
        self === other || joined.contains { $0.includes(other) }
    }

    /// The isolation of a post made now on this thread: `isolation` if the compiler passed one, else ``isolationHere``
    /// of the `awaitDelivery` whose closure is running here, if any.
    static func isolation(of isolation: (any Actor)?) -> (any Actor)? {
        isolation ?? current?.isolationHere
    }

    deinit {
        waiter?.finish(cancelled: false)
    }

    /// The pending deliveries a post made now on this thread reports to, if any: one thread-local load.
    static var current: PendingDeliveries? {
        guard let pointer = tn_pending_deliveries() else { return nil }
        // Safe: the slot is set only by `collecting` and by `enter` (until `leave`), on this thread, for as long as
        // their caller keeps the object alive, and restored before that returns; taken unretained, the result is
        // retained as it is returned.
        return Unmanaged<PendingDeliveries>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// What a delivery queued for an `async` handler holds: these pending deliveries without the waits of that
    /// handler itself (awaited from its task), which would never end.
    func attached<Element>(excludingDrainOf queue: ConsumerQueue<Element>) -> PendingDeliveries? {
        if joined.isEmpty {
            guard let awaitingTask, queue.isDrained(by: awaitingTask) else { return self }
            return nil
        }
        let kept = joined.filter { $0.attached(excludingDrainOf: queue) != nil }
        if kept.count == joined.count { return self }
        return kept.isEmpty && held == nil ? nil : PendingDeliveries(joining: kept, holding: held)
    }

    /// Runs `body` with the posts it makes on this thread reporting to `pending`, which the caller keeps alive.
    static func collecting<Result>(into pending: PendingDeliveries, _ body: () throws -> Result) rethrows -> Result {
        let previous = tn_pending_deliveries()
        install(pending)
        defer { restore(previous) }
        return try body()
    }

    /// Puts `pending` in this thread's slot, unretained: the caller keeps it alive until it restores the slot.
    static func install(_ pending: PendingDeliveries) {
        // Safe unretained: every caller keeps `pending` alive until it restores the slot (`collecting`, `leave`).
        tn_set_pending_deliveries(Unmanaged.passUnretained(pending).toOpaque())
    }

    /// Puts back what the slot held before ``install(_:)``.
    static func restore(_ previous: UnsafeRawPointer?) {
        tn_set_pending_deliveries(previous)
    }
}

/// The one task awaiting a ``PendingDeliveries``: told once, by the last release or by the task's cancellation.
final class DeliveryWaiter: Sendable {
    /// The waiting task's continuation, once it waits; and, once the wait has ended, whether the task's cancellation
    /// ended it.
    private let state = Locked<(continuation: CheckedContinuation<Bool, Never>?, cancelled: Bool?)>((nil, nil))

    /// Ends the wait, unless it has ended; the continuation is resumed outside the lock.
    func finish(cancelled: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard state.cancelled == nil else { return nil }
            state.cancelled = cancelled
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(returning: cancelled)
    }

    /// Waits until ``finish(cancelled:)``; throws `CancellationError` if the task's cancellation ended the wait.
    func wait() async throws {
        let cancelled = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                let finished = state.withLock { state -> Bool? in
                    if state.cancelled == nil { state.continuation = continuation }
                    return state.cancelled
                }
                if let finished { continuation.resume(returning: finished) }
            }
        } onCancel: {
            finish(cancelled: true)
        }
        if cancelled { throw CancellationError() }
    }
}

/// A task's identity, without a reference to it: its address, compared and never dereferenced, so that recording it
/// (as a drain task does for every entry it runs) costs no retain and release.
struct TaskIdentity: Hashable, Sendable {
    private let address: UInt

    /// The current task's, if code runs in a task.
    static var current: TaskIdentity? {
        // Safe: an optional `UnsafeCurrentTask` is one reference to the task, or zero for none; its bytes are read as
        // an address, in place: copying it out (as `Optional.map` does) retains and releases the task.
        let address = withUnsafeCurrentTask { task in withUnsafeBytes(of: task) { $0.load(as: UInt.self) } }
        return address == 0 ? nil : TaskIdentity(address: address)
    }
}
