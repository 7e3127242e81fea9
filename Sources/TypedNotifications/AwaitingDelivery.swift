public import Foundation

// Awaiting a post's delivery: `awaitDelivery { … }` runs posts, then waits until their observers are done with them:
// the posts its own task makes, on any center, or with `in: center`, every post made on one center, from any thread or
// task, while its closure runs.

/// Runs `posts`, then waits until every observer the posts reached has finished with them; returns what `posts`
/// returns. Without `center`, the posts are those the calling task makes, on any center; with `center`, every post made
/// on that center while `posts` runs, from any thread or task.
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
///   burst it joined has been delivered and that delivery is done, as above (a throttle's first post of a quiet period
///   is delivered at once, as an uncoalesced post is). The burst's delivery is a post made where the burst ends, so
///   what the handlers that run during it post joins the wait too, as below: a handler that posts into the next burst
///   every time keeps the wait going;
/// - plain observers: when the post returns (Foundation calls them synchronously).
///
/// Posts that the handlers make in turn are waited for when they are made during the post, on the posting thread
/// (by a handler on the posting thread, or one that runs during a post made on its actor); posts made later, by queued
/// handlers, are not.
///
/// **Which form.** `awaitDelivery { … }` when the test posts from its own task (the code under test called
/// directly), on any number of centers; posts made by other threads or tasks meanwhile are not waited for, not even
/// those the closure starts. `awaitDelivery(in: center) { … }` when something the test starts posts from other threads
/// or tasks (`DispatchQueue.concurrentPerform`, a `Thread`, `Task.detached`, a queue's `async`), on the one center the
/// test made: a post counts if it began before `posts` returned, so `posts` waits for the work it starts (a
/// `concurrentPerform` returns when its iterations have, an awaited task or task group when its tasks have; a thread or
/// a queue's `async` needs a signal awaited before `posts` returns). Plain `NotificationCenter` posts on `center` that
/// reach typed observers count too.
///
/// - **No deadlock:** the wait suspends the task, it never blocks a thread: awaited on the main actor, main-actor
///   observers run while it waits (those of a post made there run during the post, as always). Inside an `async`
///   handler, the deliveries to that handler's own observation are not waited for, coalesced or not: they run after
///   the handler returns. A task the handler starts, a child task (`async let`, a task group) included, is another
///   task and waits for them, so the handler must not await such a task's wait for its own posts: it would wait for
///   ever, as any two tasks that each await the other's handler do.
/// - **Cancellation:** if the awaiting task is cancelled, the wait ends with `CancellationError`; the deliveries go on.
/// - **Cost:** while any wait runs, each post in the process reads one counter more and looks the waits up under a
///   lock; with none, one relaxed atomic load. A delivery queued for a wait holds one reference more, and an `async`
///   handler's task records itself with each delivery it runs (the async-1 row of the Performance article's
///   instruction table).
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
/// Posts from several threads, on one center:
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
///   - center: The center whose posts to wait for, from any thread or task; `nil` (the default) for the posts the
///     calling task makes, on any center.
///   - isolation: The actor the caller is isolated to, which the compiler passes: `posts` runs there, so that
///     observers isolated to it run during its posts. Leave the default.
///   - posts: Makes the posts to wait for, or starts what makes them and returns once they have been made; it runs on
///     the caller's actor (`nonisolated(nonsending)`), so a post it makes there runs that actor's observers during the
///     post. If it throws, the error is rethrown at once, without waiting.
/// - Returns: What `posts` returns.
/// - Throws: What `posts` throws, or `CancellationError` if the task is cancelled while it waits.
@discardableResult
public func awaitDelivery<Result>(
    in center: NotificationCenter? = nil,
    isolation: isolated (any Actor)? = #isolation,
    _ posts: nonisolated(nonsending) () async throws -> Result
) async throws -> Result {
    let waiter = DeliveryWaiter()
    // The caller holds `center` for the whole call: no other center takes its identity while the wait is registered.
    let result = try await PendingDeliveries.registered(
        PendingDeliveries(waiter: waiter, isolation: isolation), for: center.map(ObjectIdentifier.init), posts)
    try await waiter.wait()
    return result
}
