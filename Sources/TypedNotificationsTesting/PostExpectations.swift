#if canImport(Testing)
public import Foundation
public import Testing
public import TypedNotifications

/// Runs `body` and records a Swift Testing issue unless it posted `subject` exactly `count` times.
///
/// Recording begins just before `body` runs and ends when it returns, so only the posts `body` makes count,
/// including those from code it awaits. The check reads like `confirmation(expectedCount:)`, but needs no
/// confirmation plumbing in the code under test, and its failure names the type and lists what was posted instead:
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
/// `body` runs in the caller's isolation (on the main actor for a `@MainActor` test). Posts made on other threads
/// count if they happen before `body` returns; for code that posts later, without `body` awaiting it, wait with
/// ``NotificationRecorder/waitForCount(_:timeout:)`` instead.
///
/// - Parameters:
///   - subject: The notification type to count.
///   - count: How many posts `body` must make; 1 unless given.
///   - sender: Only posts from this object, compared by identity, count; `nil` for every sender. Posts from other
///     senders are listed in the failure message.
///   - center: The center to watch; `.default` unless given. Prefer a center of the test's own.
///   - isolation: The actor `body` runs on; inferred from the caller.
///   - sourceLocation: Where the issue is reported; the caller's location unless given.
///   - body: The code that should post.
/// - Returns: The payloads `body` posted (from `sender`, if given), in post order, whether or not the count matched.
/// - Throws: Whatever `body` throws; the count is then not checked.
@discardableResult
public func expectPosts<Event: Notifiable>(
    _ subject: Event.Type,
    count: Int = 1,
    from sender: Event.Sender? = nil,
    in center: NotificationCenter = .default,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async rethrows -> [Event.Payload] {
    precondition(count >= 0, "expectPosts(_:count:) needs a count of at least 0, not \(count)")
    let recorder = NotificationRecorder(subject, from: sender, in: center)
    try await body()
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
/// The same as ``expectPosts(_:count:from:in:isolation:sourceLocation:_:)`` with a count of 0. The failure names the
/// type and lists what was posted:
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
///   - body: The code that should not post.
/// - Throws: Whatever `body` throws; the posts are then not checked.
public func expectNoPosts<Event: Notifiable>(
    _ subject: Event.Type,
    from sender: Event.Sender? = nil,
    in center: NotificationCenter = .default,
    isolation: isolated (any Actor)? = #isolation,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Void
) async rethrows {
    try await expectPosts(
        subject,
        count: 0,
        from: sender,
        in: center,
        isolation: isolation,
        sourceLocation: sourceLocation,
        body
    )
}
#endif
