public import Foundation

/// Where and when the handler of
/// ``Notifiable/observe(from:in:delivery:where:coalescing:file:line:_:)-(_,_,_,_,_,_,_,(Payload)->Void)`` runs.
///
/// - ``immediate`` (the default): synchronously on the posting thread, before `post` returns, in registration order.
/// - ``async(on:)``: on a `DispatchQueue` or an `OperationQueue`, asynchronously; `post` never waits for the handler.
///   The observers of one center on one queue object share one FIFO: they see the center's posts in one order, each
///   thread's in post order, and never run at the same time, even on a concurrent queue. Cancelling the observation
///   drops what is still queued for it.
///
/// For a handler isolated to the main actor, use
/// ``Notifiable/observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)``: `.async(on: .main)` does not
/// compile, and says so.
///
/// ```swift
/// struct CounterDidChange: Notifiable { let count: Int }
/// let queue = DispatchQueue(label: "counter.observer")
/// let token = CounterDidChange.observe(delivery: .async(on: queue)) { change in
///     print("on the queue:", change.count)
/// }
/// ```
public struct NotificationDelivery: Sendable {
    /// A queue that can run handlers: `DispatchQueue` or `OperationQueue`, the only types that conform. A conformance
    /// of your own compiles, but ``NotificationDelivery/async(on:)`` traps when given one.
    ///
    /// ```swift
    /// let queues: [any NotificationDelivery.Queue] = [DispatchQueue(label: "a"), OperationQueue()]
    /// ```
    public protocol Queue: AnyObject, Sendable {}

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
    /// An `OperationQueue` runs each delivery as an operation; unlike `addObserver(forName:object:queue:using:)` on
    /// Linux, `post` does not wait for it to finish.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let onQueue = CounterDidChange.observe(delivery: .async(on: .global())) { change in print(change.count) }
    /// let onOperations = CounterDidChange.observe(delivery: .async(on: OperationQueue())) { change in
    ///     print(change.count)
    /// }
    /// ```
    ///
    /// - Parameter queue: The `DispatchQueue` or `OperationQueue` the handler runs on. Serial or concurrent: one
    ///   observer's handler never runs concurrently with itself.
    public static func async(on queue: some Queue) -> NotificationDelivery {
        switch queue {
        case let queue as DispatchQueue: NotificationDelivery(executor: .dispatch(queue))
        case let queue as OperationQueue: NotificationDelivery(executor: .operation(queue))
        default: preconditionFailure("\(type(of: queue)) is not a DispatchQueue or an OperationQueue")
        }
    }
}

extension DispatchQueue: NotificationDelivery.Queue {}
extension OperationQueue: NotificationDelivery.Queue {}

extension NotificationDelivery.Queue where Self == DispatchQueue {
    /// Not available: a handler on the main queue is not isolated to the main actor, so it could not touch your
    /// `@MainActor` state. Use ``Notifiable/observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)``, or
    /// write `DispatchQueue.main` for a plain handler on the main queue.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observeOnMainActor { change in print(change.count) }
    /// ```
    @available(
        *, unavailable,
        message:
            "for a handler on the main actor, use observeOnMainActor(...); for a plain one, write DispatchQueue.main"
    )
    public static var main: DispatchQueue { DispatchQueue.main }

    /// The global concurrent queue of the given quality of service, as `DispatchQueue.global(qos:)`.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let token = CounterDidChange.observe(delivery: .async(on: .global(qos: .utility))) { change in
    ///     print(change.count)
    /// }
    /// ```
    ///
    /// - Parameter qos: The quality of service; `.default` unless given.
    public static func global(qos: DispatchQoS.QoSClass = .default) -> DispatchQueue {
        DispatchQueue.global(qos: qos)
    }
}
