public import Foundation

// Awaiting a post's delivery: `awaitDelivery { … }` runs posts, then waits until their observers are done with them;
// `awaitDelivery(in: center) { … }` does so for every post made on one center, from any thread, while its closure runs.

/// Runs `posts`, then waits until every observer its posts reached has finished with them; returns what `posts`
/// returns.
///
/// A post usually returns before its queued observers run. Inside `awaitDelivery` it is the same post, delivered the
/// same way and in the same order; the wait begins once `posts` returns, and ends when each delivery the posts made is
/// done:
///
/// - a handler on the posting thread: when the post returns (as always);
/// - a handler on a queue, an operation queue, the main actor or an actor: once its call has returned, or once it was
///   dropped because its observation ended (a `cancel()`, its owner's or actor's death, its center's);
/// - an `async` handler: once its call has returned, or was dropped the same way;
/// - a ``NotificationSequence``, a Combine publisher, a testing-kit recorder: once the payload is handed over (they
///   have it when the post returns); what the code iterating them does next is not waited for;
/// - a coalesced post (``NotificationCoalescing``), or one that an observer coalesces (its `coalescing:`): once the
///   burst it joined has been delivered and that delivery is done, as above. The burst's delivery is a post made where
///   the burst ends, so what the handlers that run during it post joins the wait too, as below: a handler that posts
///   into the next burst every time keeps the wait going;
/// - plain observers: when the post returns (Foundation calls them synchronously).
///
/// Posts that the handlers make in turn are waited for when they are made during the post, on the posting thread
/// (by a handler on the posting thread, or one that runs during a post made on its actor); posts made later, by queued
/// handlers, and posts made by other threads or tasks meanwhile are not.
///
/// - Important: Only the posts made on the calling thread count, to any center. For posts that `posts` makes on other
///   threads or tasks (`DispatchQueue.concurrentPerform`, a `Thread`, `Task.detached`, a queue's `async`), use
///   ``awaitDelivery(in:isolation:_:)``, which waits for every post made on one center while its closure runs.
///
/// - **No deadlock:** the wait suspends the task, it never blocks a thread: awaited on the main actor, main-actor
///   observers run while it waits (those of a post made there run during the post, as always). Inside an `async`
///   handler, the deliveries to that handler's own observation are not waited for, coalesced or not: they run after
///   the handler returns. A task the handler starts, a child task (`async let`, a task group) included, is another
///   task and waits for them, so the handler must not await such a task's wait for its own posts: it would wait for
///   ever, as any two tasks that each await the other's handler do.
/// - **Cancellation:** if the awaiting task is cancelled, the wait ends with `CancellationError`; the deliveries go on.
/// - **Cost:** ordinary posts allocate nothing for it; a delivery queued inside `awaitDelivery` holds one reference
///   more, and an `async` handler's task records itself with each delivery it runs (the async-1 row of the
///   Performance article's instruction table).
///
/// ```swift
/// struct DocumentSaved: Notifiable { let name: String }
///
/// let center = NotificationCenter()
/// let queue = DispatchQueue(label: "indexer")
/// let indexer = DocumentSaved.observe(in: center, delivery: .async(on: queue)) { saved in
///     print("indexed", saved.name)
/// }
/// try await awaitDelivery {
///     DocumentSaved(name: "notes.txt").post(in: center)
/// }
/// // "indexed notes.txt" has been printed.
/// ```
///
/// - Parameters:
///   - isolation: The actor the caller is isolated to, which the compiler passes: `posts` runs there, so that
///     observers isolated to it run during its posts. Leave the default.
///   - posts: Makes the posts to wait for, synchronously, on the calling thread. If it throws, the error is rethrown at
///     once, without waiting.
/// - Returns: What `posts` returns.
/// - Throws: What `posts` throws, or `CancellationError` if the task is cancelled while it waits.
@discardableResult
public func awaitDelivery<Result>(
    isolation: isolated (any Actor)? = #isolation,
    _ posts: () throws -> Result
) async throws -> Result {
    let waiter = DeliveryWaiter()
    let result = try PendingDeliveries.collecting(into: PendingDeliveries(waiter: waiter, isolation: isolation), posts)
    try await waiter.wait()
    return result
}

/// Runs `posts`, then waits until every observer has finished with every post made on `center` while `posts` ran, from
/// any thread or task; returns what `posts` returns.
///
/// For a test whose posts come from threads or tasks it starts: a post made on another thread counts if it began before
/// `posts` returned, so `posts` must wait for the work it starts (a `concurrentPerform` returns when its iterations
/// have, a task group or an awaited task when its tasks have; a thread or a queue's `async` needs a signal awaited
/// before `posts` returns). Each post is waited for as ``awaitDelivery(isolation:_:)`` waits for its own: a handler on
/// the posting thread when the post returns; on a queue, an operation queue, the main actor or an actor, and an `async`
/// handler, once its call has returned or was dropped because its observation ended; a coalesced post once its
/// burst's delivery is done. Posts made on other centers, and posts made before `posts` began or after it returned, are
/// not waited for; plain `NotificationCenter` posts on `center` that reach typed observers are.
///
/// Which to use: ``awaitDelivery(isolation:_:)`` when the test posts from its own task, on any number of centers;
/// this form when something it starts posts from other threads or tasks, on the one center the test made.
///
/// - **No deadlock:** the wait suspends the task and never blocks a thread, as ``awaitDelivery(isolation:_:)``'s does;
///   inside an `async` handler, the deliveries to that handler's own observation are not waited for.
/// - **Cancellation:** if the task is cancelled while it waits, the wait ends with `CancellationError`; the deliveries
///   go on.
/// - **Cost:** while such a wait runs, each post on `center` looks it up under a lock; every other post, on any center,
///   reads one counter more.
///
/// ```swift
/// actor Tally {
///     private(set) var count = 0
///     func add() { count += 1 }
/// }
/// struct Uploaded: Notifiable { let part: Int }
///
/// let center = NotificationCenter()
/// let tally = Tally()
/// let token = Uploaded.observe(for: tally, in: center) { tally, _ in tally.add() }
/// try await awaitDelivery(in: center) {
///     DispatchQueue.concurrentPerform(iterations: 8) { part in
///         Uploaded(part: part).post(in: center)   // from several threads
///     }
/// }
/// print(await tally.count)   // 8
/// withExtendedLifetime(token) {}
/// ```
///
/// - Parameters:
///   - center: The center whose posts to wait for.
///   - isolation: The actor the caller is isolated to, which the compiler passes: `posts` runs there. Leave the
///     default.
///   - posts: Makes the posts to wait for, or starts what makes them, and returns once they have been made. If it
///     throws, the error is rethrown at once, without waiting.
/// - Returns: What `posts` returns.
/// - Throws: What `posts` throws, or `CancellationError` if the task is cancelled while it waits.
@discardableResult
public func awaitDelivery<Result>(
    in center: NotificationCenter,
    isolation: isolated (any Actor)? = #isolation,
    _ posts: () async throws -> Result
) async throws -> Result {
    let waiter = DeliveryWaiter()
    let id = ObjectIdentifier(center)
    let result: Result
    do {
        let pending = PendingDeliveries(waiter: waiter, isolation: isolation)
        CenterWaits.register(pending, for: id)
        defer { CenterWaits.unregister(pending, from: id) }
        // The caller holds `center` for the whole call: no other center takes its address while the wait is registered.
        result = try await posts()
    }
    try await waiter.wait()
    return result
}
