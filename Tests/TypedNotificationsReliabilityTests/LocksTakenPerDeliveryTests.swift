import Dispatch
import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// How many times one delivery takes the package's locks, from the post until its handler has run, on the two paths
/// whose every round trip a user pays on each post: a background post to a main-actor observer, and a post awaited
/// with `awaitDelivery` until its queue observer has run. Each bound is the count of today's code: a change that adds
/// a round trip fails here, and one that removes some lowers the bound.
///
/// Debug builds count, per thread, the locks each thread takes (``LockDiscipline/roundTripsOnThisThread``). Tests run in parallel, so a count
/// is read only on a thread where nothing but the measured work ran between the two reads: the posting thread around
/// its synchronous post; the main thread between two main-actor jobs queued around the delivery's; a queue's worker
/// thread between two blocks queued around the delivery's; the awaiting task's own executor thread. Another test's job
/// can still slip onto the main queue between the two marks, and while other tests run, a post takes the debug builds'
/// process-wide test hooks' lock or the lock of `awaitDelivery(in:)`'s waits, which only add: each test keeps trying
/// until one trial is within the bound, for at most ``patience``, so that only a count above the bound in every trial
/// fails.
@Suite(.enabled(if: LockDiscipline.roundTripsAreCounted, "debug builds count lock round trips"))
struct LocksTakenPerDeliveryTests {
    /// How long a test keeps trying: longer than the other tests' hooks and waits stay installed, which in the whole
    /// parallel suite on two cores is until most other suites are done (over a minute): a bound for a count that never
    /// comes down, not a pace.
    static let patience = Duration.seconds(300)

    /// Runs `trial` until it counts at most `bound` (`nil`: the trial could not count), or `patience` has passed;
    /// returns every count. Between trials over the bound it pauses, so that other tests' hooks and waits can end: a
    /// retry's backoff, not an order of events.
    static func counts(untilAtMost bound: Int, _ trial: (Int) async throws -> Int?) async throws -> [Int] {
        let deadline = ContinuousClock.now + patience
        var counts: [Int] = []
        var number = 0
        while ContinuousClock.now < deadline {
            number += 1
            guard let count = try await trial(number) else { continue }
            counts.append(count)
            if count <= bound { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return counts
    }

    // MARK: - A main-actor observer

    @Test func aBackgroundPostToAMainActorObserverTakesAtMostFourLockRoundTripsUntilItsHandlerHasRun() async throws {
        let center = NotificationCenter()
        let marks = MainActorMarks()
        let (handled, handler) = AsyncStream.makeStream(of: Int.self)
        let token = Tick.observeOnMainActor(in: center) { _ in handler.yield(marks.mark().order) }
        var calls = handled.makeAsyncIterator()
        // The first post of a type on a center makes its records; the later ones are what every post costs.
        Tick(id: 0).post(in: center)
        _ = await calls.next()

        var outside: [Int?] = []
        let counts = try await Self.counts(untilAtMost: 4) { trial in
            // One synchronous stretch on this (non-main) thread: nothing else runs here between the two reads.
            let opening = Task.detached { @MainActor in marks.mark() }
            let posterBefore = LockDiscipline.roundTripsOnThisThread
            Tick(id: trial).post(in: center)
            let onPoster = LockDiscipline.roundTripsOnThisThread - posterBefore
            let closing = Task.detached { @MainActor in marks.mark() }
            let handlerOrder = await calls.next()
            let (first, last) = (await opening.value, await closing.value)
            // The main actor runs its jobs in the order they were queued: the delivery's between the two marks.
            guard let handlerOrder, first.order < handlerOrder, handlerOrder < last.order else {
                outside.append(handlerOrder)
                return nil
            }
            return onPoster + last.count - first.count
        }
        token.cancel()
        #expect(outside.isEmpty, "deliveries that ran outside the marks: \(outside)")
        let least = counts.min() ?? .max
        #expect(least <= 4, "lock round trips per delivery, least of \(counts)")
    }

    // MARK: - An awaited post

    @Test func anAwaitedPostToAQueueObserverTakesAtMostSixLockRoundTripsUntilItsWaitEnds() async throws {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "LocksTakenPerDeliveryTests.awaited")
        let marks = ThreadMarks()
        let token = Tick.observe(in: center, delivery: .async(on: queue)) { _ in marks.mark() }
        let executor = OneThreadExecutor(runsJobsAs: .taskExecutor)
        defer { executor.stop() }
        try await awaitDelivery { Tick(id: 0).post(in: center) }

        let counts = try await Self.counts(untilAtMost: 6) { trial in
            marks.clear()
            // The queue's thread, held in a block until the post has queued its delivery and the closing mark: the
            // worker thread then runs the three blocks in a row, which each mark with their thread.
            let release = DispatchSemaphore(value: 0)
            queue.async {
                release.wait()
                marks.mark()
            }
            let onAwaiter = try await Task(executorPreference: executor) {
                let before = LockDiscipline.roundTripsOnThisThread
                let thread = pthread_self()
                try await awaitDelivery {
                    Tick(id: trial).post(in: center)
                    queue.async { marks.mark() }
                    release.signal()
                }
                // The executor's one thread ran every step of this task, and nothing else.
                #expect(pthread_equal(thread, pthread_self()) != 0)
                return LockDiscipline.roundTripsOnThisThread - before
            }.value
            queue.sync {}
            // Opening mark, handler, closing mark: counted only if one thread ran all three.
            return marks.countOnOneThread().map { onAwaiter + $0 }
        }
        token.cancel()
        try #require(!counts.isEmpty, "no trial ran the queue's three blocks on one thread")
        let least = counts.min() ?? .max
        #expect(least <= 6, "lock round trips per awaited delivery, least of \(counts)")
    }
}

// MARK: - Marks

/// The main thread's lock count at two main-actor jobs, and the order they ran in.
@MainActor
private final class MainActorMarks: Sendable {
    private var jobs = 0

    nonisolated init() {}

    func mark() -> (order: Int, count: Int) {
        jobs += 1
        return (jobs, LockDiscipline.roundTripsOnThisThread)
    }
}

/// The worker threads of a queue's blocks, and their lock counts, in the order the blocks ran. An `NSLock`, never the
/// package's lock, which would count.
private final class ThreadMarks: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var marks: [(thread: pthread_t, count: Int)] = []

    func mark() {
        let now = (thread: pthread_self(), count: LockDiscipline.roundTripsOnThisThread)
        lock.lock()
        defer { lock.unlock() }
        marks.append(now)
    }

    func clear() {
        lock.lock()
        defer { lock.unlock() }
        marks = []
    }

    /// The locks taken from the first mark to the last, if there were three, all on one thread.
    func countOnOneThread() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard marks.count == 3, let first = marks.first, let last = marks.last,
            marks.allSatisfy({ pthread_equal($0.thread, first.thread) != 0 })
        else { return nil }
        return last.count - first.count
    }
}
