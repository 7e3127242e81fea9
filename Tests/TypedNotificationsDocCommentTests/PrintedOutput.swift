import Foundation
import TypedNotifications

/// The lines an example printed, for the generated test that checks its `// prints` comments; thread-safe, since an
/// example's handlers may print on the posting thread, a queue or an actor, and awaitable, for the lines they print
/// after the example returns.
///
/// `@unchecked Sendable`: `state` is only touched while `lock` is held.
final class PrintedOutput: @unchecked Sendable {
    private struct Waiter {
        var count: Int
        var continuation: CheckedContinuation<Void, Never>
    }

    private let lock = NSLock()
    private var recorded: [String] = []
    private var waiters: [Int: Waiter] = [:]
    private var nextWaiter = 0
    private var expired: Set<Int> = []

    /// How long `lines(waitingFor:)` waits for lines that do not come: long enough for any example's queued
    /// deliveries on a loaded machine, short enough for a failing test to end.
    static let timeLimitNanoseconds: UInt64 = 30_000_000_000

    func append(_ line: String) {
        let ready = lock.withLock {
            recorded.append(line)
            let ready = waiters.filter { $0.value.count <= recorded.count }
            for key in ready.keys { waiters[key] = nil }
            return ready.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume() }
    }

    var lines: [String] {
        lock.withLock { recorded }
    }

    /// The lines printed once there are at least `count`, or those printed within the time limit if fewer come.
    func lines(waitingFor count: Int) async -> [String] {
        let id = lock.withLock {
            nextWaiter += 1
            return nextWaiter
        }
        let timer = Task {
            // A time limit, not a synchronisation: a line may never come. Nanoseconds: `Duration` needs macOS 13.
            try? await Task.sleep(nanoseconds: Self.timeLimitNanoseconds)
            resume(id)
        }
        await withCheckedContinuation { continuation in
            let isReady = lock.withLock {
                if recorded.count >= count || expired.contains(id) { return true }
                waiters[id] = Waiter(count: count, continuation: continuation)
                return false
            }
            if isReady { continuation.resume() }
        }
        timer.cancel()
        return lines
    }

    private func resume(_ id: Int) {
        let waiter = lock.withLock {
            expired.insert(id)
            return waiters.removeValue(forKey: id)
        }
        waiter?.continuation.resume()
    }
}

extension PrintedOutput {
    /// Runs an example in a diagnostics scope that receives what it reports, so that debug builds do not write it to
    /// standard error among the test results: an example shows a use, and may end it the way the report catches
    /// (a token ended the moment it is made). What it prints is what its test checks.
    static func runCapturingReports(
        isolation: isolated (any Actor)? = #isolation,
        _ example: () async throws -> Void
    ) async throws {
        try await NotificationDiagnostics.withHandler({ _ in }, isolation: isolation, operation: example)
    }
}
