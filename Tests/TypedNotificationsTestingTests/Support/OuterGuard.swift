import Dispatch
import TypedNotifications
import TypedNotificationsTestSupport

/// Runs `body` in a task of its own and returns whether it finished within `seconds`.
///
/// For tests whose failure mode is a hang. The bound is a Dispatch timer, not Swift concurrency and not the recorder
/// under test, so it fires however busy the cooperative pool is and whatever the code under test does. When it fires
/// first, the task is cancelled and left to end on its own, and the caller records the failure.
func finishes(within seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
    let task = Task { await body() }
    let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let outcome = FirstOutcome(continuation)
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds) { outcome.resume(returning: false) }
        Task {
            await task.value
            outcome.resume(returning: true)
        }
    }
    if !finished { task.cancel() }
    return finished
}

/// Resumes a continuation with whichever outcome comes first, and ignores the others.
///
/// The continuation is `Locked` because the timer's thread and the task race to take it; whoever takes it first
/// resumes it, after the lock is released.
private final class FirstOutcome: Sendable {
    private let continuation: Locked<CheckedContinuation<Bool, Never>?>

    init(_ continuation: CheckedContinuation<Bool, Never>) {
        self.continuation = Locked(continuation)
    }

    func resume(returning finished: Bool) {
        // Taken under the lock, resumed after it: the continuation runs no code of ours while it is held.
        let first = continuation.withLock { continuation in
            defer { continuation = nil }
            return continuation
        }
        first?.resume(returning: finished)
    }
}

/// Keeps `count` tasks yielding in a loop on the cooperative pool until `body` returns, so that the tasks `body` starts
/// are scheduled late and in varied orders, as on a busy machine.
func withBusyCooperativePool<Result>(
    tasks count: Int,
    _ body: () async throws -> Result
) async rethrows -> Result {
    // Locked: read by the busy tasks while `body`'s task sets it; held only to read or write the flag.
    let stop = Locked(false)
    let busy = (0..<count).map { _ in
        Task {
            while !stop.withLock({ $0 }) { await Task.yield() }
        }
    }
    defer {
        stop.withLock { $0 = true }
        for task in busy { task.cancel() }
    }
    return try await body()
}
