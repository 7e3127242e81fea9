import CTypedNotificationsRuntime

// The registered waits of `awaitDelivery`: a center's, by its identity, and a task's, in a task-local; a post enters
// them (puts the waits that cover it in its thread's slot) for as long as it runs.

/// The waits of ``awaitDelivery(in:isolation:_:)``: while one's closure runs, every post on its center, from any
/// thread, or every post its task makes, on any center, reports its queued deliveries to it. A post finds them with
/// ``enter(_:)``, which costs one relaxed atomic load while no wait runs anywhere in the process.
///
/// A center's waits are registered by its identity: the waiting call holds the center for as long as it is
/// registered, so no other center can have that address meanwhile. A task's wait is a task-local value of the
/// awaiting task (``taskWait``), found without a lock; child tasks inherit task-locals, so a post counts only if the
/// task that makes it is the awaiting task itself.
extension PendingDeliveries {
    /// How many waits run: the posts' fast path. Centers' waits count one, tasks' waits `1 << 32`, so that a post
    /// takes the lock only while a center's wait runs.
    private static let count = AtomicWord.make()
    private static var oneTaskWait: UInt64 { 1 << 32 }
    /// The registered waits of centers, by the center's identity; those of one center in the order they began.
    private static let waits = Locked<[ObjectIdentifier: [PendingDeliveries]]>([:])
    /// The wait of the task that runs `awaitDelivery` without a center (its innermost, if nested).
    @TaskLocal static var taskWait: PendingDeliveries?

    /// Runs `body` with `pending` registered for the posts made on `center`, or by the calling task without one.
    static func registered<Result>(
        _ pending: PendingDeliveries,
        for center: ObjectIdentifier?,
        isolation: isolated (any Actor)? = #isolation,
        _ body: nonisolated(nonsending) () async throws -> Result
    ) async throws -> Result {
        guard let center else {
            _ = count.add(oneTaskWait)
            defer { _ = count.add(0 &- oneTaskWait) }
            return try await $taskWait.withValue(pending) { try await body() }
        }
        waits.withLock { $0[center, default: []].append(pending) }
        _ = count.add(1)
        defer { unregister(pending, from: center) }
        return try await body()
    }

    /// Ends a center's wait. The waits are released outside the lock: the last release of one tells its waiter, which
    /// resumes a task.
    private static func unregister(_ pending: PendingDeliveries, from center: ObjectIdentifier) {
        let released: PendingDeliveries? = waits.withLock { waits in
            guard var list = waits[center], let index = list.firstIndex(where: { $0 === pending }) else { return nil }
            let removed = list.remove(at: index)
            waits[center] = list.isEmpty ? nil : list
            return removed
        }
        if released != nil { _ = count.add(UInt64.max) }  // minus one, wrapping
        withExtendedLifetime(released) {}
    }

    /// For a post about to be made on the center `center`: puts the waits that cover it (its center's, its task's) in
    /// this thread's slot, for the post to report to, unless the slot already holds them (a post made by a handler
    /// during another covered post, or by a burst's delivery that joined them). Returns what ``leave(_:)`` needs to
    /// restore the slot: the pending deliveries now in it, which the caller holds so that the slot may hold them
    /// unretained, and what the slot held before; or `nil` when there was nothing to do: then the post costs one
    /// relaxed atomic load more.
    @usableFromInline
    static func enter(_ center: ObjectIdentifier) -> Entered? {
        let running = count.loadRelaxed()
        guard running != 0 else { return nil }
        return enterSlowly(center, running: running)
    }

    @usableFromInline
    typealias Entered = (pending: AnyObject, previous: UnsafeRawPointer?)

    private static func enterSlowly(_ center: ObjectIdentifier, running: UInt64) -> Entered? {
        var registered: [PendingDeliveries] = []
        if running & (oneTaskWait - 1) != 0, let centerWaits = waits.withLock({ $0[center] }) {
            registered = centerWaits
        }
        if running >= oneTaskWait, let taskWait, let awaiting = taskWait.awaitingTask,
            TaskIdentity.current == awaiting
        {
            registered.append(taskWait)
        }
        if registered.isEmpty { return nil }
        let previous = current
        var held = registered.filter { wait in !(previous?.includes(wait) ?? false) }
        if held.isEmpty { return nil }
        if let previous { held.insert(previous, at: 0) }
        // The posts of the waiting task keep its isolation (``PendingDeliveries/isolationHere``): the first wait leads,
        // as it is the only one when one wait is registered and nothing else collects.
        let pending = held.count == 1 ? held[0] : PendingDeliveries(joining: held, isolationFrom: held[0])
        let entered = (pending: pending, previous: tn_pending_deliveries())
        PendingDeliveries.install(pending)
        return entered
    }

    /// Restores the slot ``enter(_:)`` set, once the post has returned.
    @usableFromInline
    static func leave(_ entered: Entered) {
        PendingDeliveries.restore(entered.previous)
        withExtendedLifetime(entered.pending) {}
    }
}
