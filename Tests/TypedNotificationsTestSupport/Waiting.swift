package import Foundation

/// A one-shot signal for awaiting something that happens on another thread or actor, without sleeping.
package final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    package init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    package func fire() {
        continuation.finish()
    }

    /// Returns once `fire()` has been called (at once if it already was).
    package func wait() async {
        for await _ in stream {}
    }
}

/// Runs `body(index)` on `count` dedicated threads that all start together, and returns when all have finished.
///
/// Real threads rather than `DispatchQueue.concurrentPerform`, whose width is the number of cores (two on CI): with
/// more threads than cores the scheduler preempts them at arbitrary points, which is what the torture tests want.
/// The threads wait at a start line until every one of them exists, so they really overlap. In a test with the
/// `.capturesReports` trait, their reports go to the test's scope, as its tasks' do.
package func onThreads(_ count: Int, _ body: @escaping @Sendable (_ index: Int) -> Void) async {
    let startLine = DispatchSemaphore(value: 0)
    let finished = DispatchGroup()
    for index in 0..<count {
        finished.enter()
        let run = CapturesReports.carried { body(index) }
        let thread = Thread {
            startLine.wait()
            run()
            finished.leave()
        }
        thread.stackSize = 4 << 20  // nested posts recurse; leave room under the sanitizers
        thread.start()
    }
    for _ in 0..<count { startLine.signal() }
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        finished.notify(queue: .global()) { done.resume() }
    }
}

/// Runs `body` on a new thread and returns at once; `done` is signalled when it has finished. In a test with the
/// `.capturesReports` trait, its reports go to the test's scope.
package func onNewThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    let run = CapturesReports.carried(body)
    Thread {
        run()
        done.signal()
    }
    .start()
    return done
}

/// Whether `body` finished within `seconds`: a bound that fails a test rather than hanging it, never a timing
/// target. `body` must end when its task is cancelled (``Signal/wait()`` does).
package func finishes(within seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await body()
            return true
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}
