import Foundation

/// One observation's own queue of payloads, emptied in post order by one task at a time: the task that calls an
/// `async` handler, or the task that iterates a ``NotificationSequence``. The one mechanism behind both: a post appends
/// on the posting thread and never waits; they differ only in who takes.
///
/// - **An `async` handler** (``handler`` set): the post that finds the queue idle starts a task (``drain(admitting:)``)
///   that takes one entry at a time and awaits the handler with it; the task ends once the queue is empty, and the
///   next post starts another, so an idle observation keeps no task. Each entry holds its post's diagnostics scope and
///   what `awaitDelivery` waits for, until the call returns.
/// - **A sequence** (no ``handler``): the iterating task takes (``next(isolation:onCancel:)``), and waits while the
///   queue is empty. A payload is delivered once the task has it, so an entry holds nothing else. The buffer may be
///   bounded (``limit``); what it drops is the caller's to report.
///
/// **When the observation ends** (``finish()``), nothing more is appended; an `async` handler's queue drops what waits
/// (no call starts after `cancel()` returned), a sequence's keeps it for the loop, which ends once it is taken.
///
/// Only the package's bookkeeping runs under the lock; entries are released, and the waiting task resumed, after it.
/// The queue is generic over its payload, but what it stores is not (``ConsumerQueueEntry``, ``ConsumerQueueState``):
/// operations on a generic FIFO of generic entries would look type metadata up in the runtime at each call, making a
/// delivery to an `async` handler over half as costly again (the async-1 row of the Performance article's instruction
/// table).
@usableFromInline
final class ConsumerQueue<Element: Sendable>: Sendable {
    private typealias Entry = ConsumerQueueEntry
    private let state = Locked(ConsumerQueueState())
    /// The `async` handler; `nil` for a sequence, whose iterating task takes the payloads.
    let handler: (@Sendable (Element, _ owner: AnyObject?) async -> Void)?
    /// The most payloads a sequence keeps while nobody waits (`Int.max` for no bound), and which go beyond it.
    private let limit: Int
    private let keepsNewest: Bool
    /// Whether a payload the bound drops is reported (not for `next`, which keeps one).
    let reportsDrops: Bool

    /// An `async` handler's queue.
    init(handler: @escaping @Sendable (Element, _ owner: AnyObject?) async -> Void) {
        self.handler = handler
        limit = .max
        keepsNewest = false
        reportsDrops = false
    }

    /// A sequence's queue, keeping at most `limit` payloads while nobody waits: the newest or the oldest.
    init(limit: Int, keepsNewest: Bool, reportsDrops: Bool) {
        handler = nil
        self.limit = max(0, limit)
        self.keepsNewest = keepsNewest
        self.reportsDrops = reportsDrops
    }

    /// Appends a post's payload, on the posting thread; or a new observer's latest post (`isPost` false, not waited
    /// for by `awaitDelivery`), under the registry's lock: only this queue's lock is taken, and no task waits yet.
    func append(_ payload: Element, context: PostContext, isPost: Bool) -> ConsumerQueueAppend {
        let (appended, waiter, entry, released) = insert(payload, context: context, isPost: isPost)
        withExtendedLifetime(released) {}
        waiter?.resume(returning: entry)
        return appended
    }

    /// Appends a latest-value type's post under the registry's lock, in the step that makes it the latest, so that
    /// the queue takes the type's posts in the order the center keeps them; only this queue's lock is taken. What
    /// must come after every lock (releasing a dropped payload, resuming the waiting task) is returned, for the caller
    /// to run then.
    func appendInCenterOrder(_ payload: Element, context: PostContext) -> (ConsumerQueueAppend, after: () -> Void) {
        let (appended, waiter, entry, released) = insert(payload, context: context, isPost: true)
        return (appended, { withExtendedLifetime(released) { waiter?.resume(returning: entry) } })
    }

    private func insert(
        _ payload: Element, context: PostContext, isPost: Bool
    ) -> (ConsumerQueueAppend, ConsumerQueueState.Waiter?, Entry, released: Entry?) {
        var entry = Entry(payload: payload)
        if handler != nil {
            entry.context.scope = context.scope
            // Inside this observation's own handler, what it posts to itself runs after it returns: not waited for.
            if isPost { entry.context.pending = context.pending?.attached(excludingDrainOf: self) }
        }
        var waiter: ConsumerQueueState.Waiter?
        var released: Entry?
        let appended: ConsumerQueueAppend = state.withLock { state in
            if state.isFinished {
                released = entry
                return .ended
            }
            if let waiting = state.waiter {
                state.waiter = nil
                waiter = waiting
                return .queued
            }
            var appended = ConsumerQueueAppend.queued
            if state.entries.count >= limit {
                guard keepsNewest, limit > 0 else {
                    released = entry
                    return .dropped
                }
                released = state.entries.take()
                appended = .dropped
            }
            state.entries.append(entry)
            if handler != nil, !state.isDraining {
                state.isDraining = true
                return .startsDrain
            }
            return appended
        }
        return (appended, waiter, entry, released)
    }

    /// Ends the queue as the observation ends: see ``ConsumerQueue``. Outside every lock.
    func finish() {
        let (waiter, dropped) = state.withLock { state in
            state.isFinished = true
            defer { state.waiter = nil }
            return (state.waiter, handler == nil ? [] : state.entries.removeAll())
        }
        withExtendedLifetime(dropped) {}
        waiter?.resume(returning: nil)
    }

    // MARK: - An `async` handler's task

    /// Starts the task that calls the handler with each entry, one call at a time, once `admission` (the checks made
    /// before a queued handler starts) returns the owner to hand it; see ``ConsumerQueueAppend/startsDrain``. A
    /// detached task, so that it carries none of the posters' task-locals or priority.
    func drain(admitting admission: @escaping @Sendable (Element) -> AnyObject??) {
        guard let handler else { return }
        Task.detached {
            let task = TaskIdentity.current
            while let entry = self.take(drainedBy: task) {
                // Safe: only `insert` makes entries, from an `Element`.
                let payload = entry.payload as! Element
                await NotificationDiagnostics.reporting(to: entry.context.scope) {
                    guard let owner = admission(payload) else { return }
                    await handler(payload, owner)
                }
            }
        }
    }

    /// The oldest entry, for `task` to run; with none, the task ends (the next post starts one).
    private func take(drainedBy task: TaskIdentity?) -> Entry? {
        state.withLock { state in
            let entry = state.entries.take()
            state.isDraining = entry != nil
            state.drainingTask = entry == nil ? nil : task
            return entry
        }
    }

    /// Whether `task` is this handler's task, running one of its entries: what it awaits from this observation runs
    /// only after the handler returns. Asked only for posts made inside `awaitDelivery`.
    func isDrained(by task: TaskIdentity) -> Bool {
        state.withLock { $0.drainingTask == task }
    }

    // MARK: - A sequence's iterating task

    /// The next payload, waiting while there is none; `nil` once the observation has ended and its payloads are taken.
    /// If the task is cancelled, `onCancel` runs (it ends the observation) and what is buffered is still handed out.
    func next(
        isolation: isolated (any Actor)? = #isolation,
        onCancel: @escaping @Sendable () -> Void
    ) async -> Element? {
        if Task.isCancelled { onCancel() }
        // Without a suspension when a payload waits.
        var entry = state.withLock { $0.entries.take() }
        if entry == nil {
            entry = await withTaskCancellationHandler {
                await withCheckedContinuation(isolation: isolation) { (continuation: ConsumerQueueState.Waiter) in
                    let taken: Entry?? = state.withLock { state in
                        if let entry = state.entries.take() { return .some(entry) }
                        if state.isFinished { return .some(nil) }
                        state.waiter = continuation
                        return nil
                    }
                    if let taken { continuation.resume(returning: taken) }
                }
            } onCancel: {
                onCancel()
            }
        }
        // Safe: only `insert` makes entries, from an `Element`.
        return entry.map { $0.payload as! Element }
    }
}

/// A payload in a ``ConsumerQueue``, and what its delivery holds.
struct ConsumerQueueEntry: Sendable {
    let payload: any Sendable
    /// What an `async` handler's delivery carries from its post (``PostContext``): its reports go to the post's scope,
    /// and it holds the post's waits until the handler has returned or the entry was dropped. Empty for a sequence.
    var context = PostContext()
}

/// A ``ConsumerQueue``'s state, under its lock.
struct ConsumerQueueState {
    typealias Waiter = CheckedContinuation<ConsumerQueueEntry?, Never>

    var entries = FIFO<ConsumerQueueEntry>()
    /// A sequence's iterating task, waiting for the next payload.
    var waiter: Waiter?
    var isFinished = false
    /// Whether an `async` handler's task is taking entries (started, and not yet found the queue empty).
    var isDraining = false
    /// That task, while it runs an entry: what the handler awaits from this observation runs only after the handler
    /// returns (``PendingDeliveries/attached(excludingDrainOf:)``). Only compared for identity.
    var drainingTask: TaskIdentity?
}

/// What ``ConsumerQueue/append(_:isPost:)`` did with a payload.
enum ConsumerQueueAppend {
    case queued
    /// The observation had ended; the payload was dropped.
    case ended
    /// A bounded buffer dropped a payload (the oldest, or this one); for the caller to report.
    case dropped
    /// The queue was idle: the caller starts the handler's task (``ConsumerQueue/drain(admitting:)``), outside its
    /// locks.
    case startsDrain
}
