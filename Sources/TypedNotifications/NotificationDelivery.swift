public import Foundation

/// Where and when a typed observer's handler runs.
///
/// - ``immediate`` (the default): synchronously on the posting thread, before `post` returns, in registration order.
/// - ``async(on:)-(DispatchQueue)`` and ``async(on:)-(OperationQueue)``: on the queue, asynchronously; `post` never
///   waits for the handler. The observers of one center on one queue object share one FIFO: they see the center's
///   posts in one order, each thread's in post order, and never run at the same time, even on a concurrent queue.
///   Cancelling the observation drops what is still queued for it.
///
/// For handlers isolated to the main actor, use ``Notifiable/observeOnMainActor(from:in:file:line:_:)`` instead.
///
/// ```swift
/// struct CounterDidChange: Notifiable { let count: Int }
/// let queue = DispatchQueue(label: "counter.observer")
/// let token = CounterDidChange.observe(delivery: .async(on: queue)) { change in
///     print("on the queue:", change.count)
/// }
/// ```
public struct NotificationDelivery: Sendable {
    @usableFromInline
    let executor: DeliveryTarget.Executor?

    /// Synchronously on the posting thread, before `post` returns.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observe(delivery: .immediate) { change in print(change.count) }
    /// ```
    public static let immediate = NotificationDelivery(executor: nil)

    /// Asynchronously on `queue`, in one order with the center's other observers on `queue`.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observe(delivery: .async(on: .global())) { change in print(change.count) }
    /// ```
    ///
    /// - Parameter queue: The queue the handler runs on. Serial or concurrent: one observer's handler never runs
    ///   concurrently with itself.
    public static func async(on queue: DispatchQueue) -> NotificationDelivery {
        NotificationDelivery(executor: .dispatch(queue))
    }

    /// Asynchronously on `queue`, as an operation, in one order with the center's other observers on `queue`.
    ///
    /// Unlike `addObserver(forName:object:queue:using:)` on Linux, `post` does not wait for the operation to finish.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let queue = OperationQueue()
    /// let token = CounterDidChange.observe(delivery: .async(on: queue)) { change in print(change.count) }
    /// ```
    ///
    /// - Parameter queue: The queue the handler runs on.
    public static func async(on queue: OperationQueue) -> NotificationDelivery {
        NotificationDelivery(executor: .operation(queue))
    }
}
