/// Where a post was made, as an `expectPosts` block sees it.
enum PostOrigin: Sendable {
    /// In the block's task or a task created in it; or, for a recorder that is not a block's, anywhere.
    case inScope
    /// On a thread that runs no task (a dispatch queue, a `Thread`, a Foundation or Objective-C callback). Nothing
    /// marks such a thread, so a post made there while the block runs counts, whoever made it.
    case outsideTasks
    /// In a task the block did not create: another test's, a detached task, or one created before the block.
    case otherTask
}

/// An `expectPosts` block, which marks its task, and the tasks created in it, so that its recording handler can tell
/// the block's posts from posts made meanwhile by code that is not the block's, such as a test running in parallel.
///
/// The mark is a task-local, as `NotificationDiagnostics.withHandler` scopes its events: child tasks and `Task {}`
/// inherit it, `Task.detached` and threads outside Swift concurrency do not. The recording handler runs synchronously
/// on the posting thread, in the posting task if there is one, so it reads the poster's mark.
final class PostScope: Sendable {
    /// The innermost block the current task runs in.
    @TaskLocal private static var current: PostScope?

    /// The block the task was running in when this one began: blocks nest, and a post in the inner one is in both.
    private let enclosing: PostScope?

    init() {
        enclosing = Self.current
    }

    /// Runs `body` in this block's scope, in the caller's isolation.
    func run(isolation: isolated (any Actor)?, _ body: () async throws -> Void) async rethrows {
        try await Self.$current.withValue(self, operation: body, isolation: isolation)
    }

    /// Where the post being delivered on this thread was made: call it on the posting thread.
    func originOfCurrentPost() -> PostOrigin {
        var scope = Self.current
        while let open = scope {
            if open === self { return .inScope }
            scope = open.enclosing
        }
        return withUnsafeCurrentTask { $0 == nil } ? .outsideTasks : .otherTask
    }
}
