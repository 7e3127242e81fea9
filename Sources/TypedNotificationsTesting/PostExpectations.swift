#if canImport(Testing)
public import Foundation
public import Testing
public import TypedNotifications

/// Runs `body` and records a Swift Testing issue unless it posted `subject` exactly `count` times.
///
/// Recording begins just before `body` runs and ends when it returns, and only the posts `body` makes count (see
/// "What counts" below). The check reads like `confirmation(expectedCount:)`, but needs no confirmation plumbing in
/// the code under test, and its failure names the type and lists what was posted instead:
///
/// ```
/// Expected 3 posts of Saved, but 2 were posted: Saved(id: 1), Saved(id: 2)
/// ```
///
/// ```swift
/// struct Saved: Notifiable { let id: Int }
///
/// @Test func savingPostsOneNotificationPerItem() async throws {
///     let center = NotificationCenter()
///     let store = Store(center: center)
///     let saved = await expectPosts(Saved.self, count: 3, in: center) {
///         store.save([1, 2, 3])
///     }
///     #expect(saved.map(\.id) == [1, 2, 3])
/// }
/// ```
///
/// `body` runs in the caller's isolation (on the main actor for a `@MainActor` test).
///
/// ## What counts
///
/// The posts of `subject` on `center` made while `body` runs, in `body`'s task or in a task created in it: child tasks,
/// `async let`, task groups and `Task {}` (which inherit the task's context), and code `body` awaits on other actors.
/// A handler that runs on the posting thread posts in the poster's task, so its posts count too.
///
/// - Posts made meanwhile in other tasks never count: another test's running in parallel, a `Task.detached`, a task
///   created before the block. The failure message lists them as posts "from tasks outside the block".
/// - A post made on a thread that runs no task (a `DispatchQueue`'s, a `Thread`, a Foundation or Objective-C
///   callback) cannot be traced to a task, so it counts if it is made while `body` runs, whoever made it; the failure
///   message says which counted posts came from such a thread. A test whose code posts from a queue while `body`
///   awaits it passes; give each test a `NotificationCenter()` of its own, so that no other code posts there.
/// - Posts made after `body` returns never count: for code that posts later, without `body` awaiting it, wait with
///   ``NotificationRecorder/waitForCount(_:timeout:)-(_,Duration?)`` instead.
///
/// - Parameters:
///   - subject: The notification type to count.
///   - count: How many posts `body` must make; 1 unless given.
///   - sender: Only posts from this object, compared by identity, count; `nil` for every sender. Posts from other
///     senders are listed in the failure message.
///   - center: The center to watch; `.default` unless given. Prefer a center of the test's own.
///   - isolation: The actor `body` runs on; inferred from the caller.
///   - sourceLocation: Where the issue is reported; the caller's location unless given.
///   - file: Where the observation is made, as `NotificationCenter.typedObservations` lists it while `body` runs;
///     the caller's `#fileID`. Leave the default, or pass your caller's from a helper that forwards `sourceLocation`.
///   - line: The line, likewise.
///   - body: The code that should post.
/// - Returns: The payloads that counted (from `sender`, if given), in post order, whether or not the count matched.
/// - Throws: Whatever `body` throws; the count is then not checked.
@discardableResult
public func expectPosts<Event: Notifiable>(
    _ subject: Event.Type,
    count: Int = 1,
    from sender: Event.Sender? = nil,
    in center: NotificationCenter = .default,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    file: StaticString = #fileID,
    line: UInt = #line,
    _ body: () async throws -> Void
) async rethrows -> [Event.Payload] {
    precondition(count >= 0, "expectPosts(_:count:) needs a count of at least 0, not \(count)")
    let scope = PostScope()
    let recorder = NotificationRecorder(subject, from: sender, in: center, scope: scope, file: file, line: line)
    try await scope.run(isolation: isolation, body)
    recorder.cancel()
    let report = recorder.report
    if report.matched.count != count {
        let expected = PostReport<Event>.expectation(count, filtersBySender: recorder.isFilteredBySender)
        Issue.record(Comment(rawValue: "Expected \(expected), but \(report.summary)"), sourceLocation: sourceLocation)
    }
    return report.matched
}

/// Runs `body` and records a Swift Testing issue if it posted `subject` at all.
///
/// The same as ``expectPosts(_:count:from:in:isolation:sourceLocation:file:line:_:)`` with a count of 0: the same posts
/// count (those `body` makes, as that function's "What counts" says), and the failure names the type and lists what
/// was posted:
///
/// ```
/// Expected no posts of Saved, but 1 was posted: Saved(id: 4)
/// ```
///
/// ```swift
/// struct Saved: Notifiable { let id: Int }
///
/// @Test func savingNothingPostsNothing() async throws {
///     let center = NotificationCenter()
///     let store = Store(center: center)
///     await expectNoPosts(Saved.self, in: center) {
///         store.save([])
///     }
/// }
/// ```
///
/// - Parameters:
///   - subject: The notification type that must not be posted.
///   - sender: Only posts from this object, compared by identity, count; `nil` for every sender.
///   - center: The center to watch; `.default` unless given. Prefer a center of the test's own.
///   - isolation: The actor `body` runs on; inferred from the caller.
///   - sourceLocation: Where the issue is reported; the caller's location unless given.
///   - file: Where the observation is made, as `NotificationCenter.typedObservations` lists it while `body` runs;
///     the caller's `#fileID`. Leave the default, or pass your caller's from a helper that forwards `sourceLocation`.
///   - line: The line, likewise.
///   - body: The code that should not post.
/// - Throws: Whatever `body` throws; the posts are then not checked.
public func expectNoPosts<Event: Notifiable>(
    _ subject: Event.Type,
    from sender: Event.Sender? = nil,
    in center: NotificationCenter = .default,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    file: StaticString = #fileID,
    line: UInt = #line,
    _ body: () async throws -> Void
) async rethrows {
    try await expectPosts(
        subject,
        count: 0,
        from: sender,
        in: center,
        isolation: isolation,
        sourceLocation: sourceLocation,
        file: file,
        line: line,
        body
    )
}
#endif
