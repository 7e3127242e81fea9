import Foundation
import TypedNotifications
import TypedNotificationsTestSupport

/// A weak reference to read from any thread. `@unchecked Sendable`: the runtime loads and clears weak references
/// atomically, and tests set `object` before handing the reference to another thread.
final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?
    init(_ object: Object?) { self.object = object }
}

/// A latest-value type, for replays to late observers.
struct LatestTracked: LatestValueNotifiable {
    let index: Int
}

/// An actor that posts from its own isolation.
actor ActorPoster {
    /// Queues `earlier` from another thread while this actor is busy, then posts `own` on the actor itself, inside a
    /// diagnostics scope and a task-local of its own: the synchronous run of the actor's queue runs `earlier` too.
    func postOwnBehind(
        older earlier: PostOnAnotherThread.Post,
        own: Tracked,
        in center: NotificationCenter,
        log: @escaping @Sendable (NotificationDiagnostics.Event) -> Void
    ) -> PostOnAnotherThread {
        let older = PostOnAnotherThread(earlier)
        QueuedHandlerContextTests.Context.$tag.withValue("B") {
            NotificationDiagnostics.withHandler(log) {
                own.post(in: center, isolation: self)
            }
        }
        return older
    }

    func postCoalesced(in center: NotificationCenter) {
        QueuedHandlerContextTests.Context.$tag.withValue("burst-poster") {
            Tracked(7).post(in: center, coalescing: .within(0.3).trailingOnly, isolation: self)
        }
    }
}

/// A post made on a thread of its own, in a diagnostics scope of its own that stays open until ``finish()``, so that
/// what its handlers report when they run later, wherever that is, reaches that scope.
final class PostOnAnotherThread: Sendable {
    /// The post, and the diagnostics handler of its scope.
    struct Post: Sendable {
        let log: @Sendable (NotificationDiagnostics.Event) -> Void
        let post: @Sendable () -> Void
    }

    /// Whether the post was made within ten seconds.
    let wasPosted: Bool
    private let release = DispatchSemaphore(value: 0)
    private let done: DispatchSemaphore

    /// Returns once the post has been made (or ten seconds have passed).
    init(_ post: Post) {
        let posted = DispatchSemaphore(value: 0)
        let release = release
        done = onNewThread {
            NotificationDiagnostics.withHandler(post.log) {
                post.post()
                posted.signal()
                release.wait()
            }
        }
        wasPosted = posted.wait(timeout: .now() + 10) == .success
    }

    /// Ends the post's scope; whether its thread then finished within ten seconds.
    func finish() -> Bool {
        release.signal()
        return done.wait(timeout: .now() + 10) == .success
    }
}

/// A post with a center as its sender: a mistake the package reports (debug builds) where the post is made.
func reportFromHandler(in center: NotificationCenter) {
    CounterDidChange(count: -1).post(from: center, in: center)
}

/// A diagnostics handler that counts the center-as-sender reports of posts on `center`.
func countingCenterAsSenderReports(
    of center: NotificationCenter,
    into counter: Counter
) -> @Sendable (NotificationDiagnostics.Event) -> Void {
    { [weak center] event in
        if case .centerAsPostSender = event.kind, event.center === center { counter.increment() }
    }
}

/// Keeps whatever a diagnostics handler captures alive for as long as it lives.
actor ReportCollector {
    var events = 0
    func add() { events += 1 }
}
