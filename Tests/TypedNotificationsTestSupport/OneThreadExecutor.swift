import Foundation

/// An executor that runs every job on one thread of its own, in the order they were enqueued: as a serial executor,
/// an actor's (a stand-in for the main actor on Apple platforms), or as a task executor, so that the package's lock
/// count on that thread is the count of the tasks that prefer it and nothing else.
///
/// One `enqueue` serves both protocols, so the executor cannot tell from a job which kind it was enqueued as: the kind
/// is chosen when it is made. Its queue is under an `NSCondition`, never the package's lock, which would count.
/// `@unchecked Sendable` because its mutable state is only touched with that condition locked.
package final class OneThreadExecutor: SerialExecutor, @unchecked Sendable {
    /// How the executor runs its jobs.
    package enum Kind: Sendable {
        /// As an actor's executor: jobs run isolated to it.
        case serialExecutor
        /// As a task executor: jobs of the tasks that prefer it run on its thread, isolated to nothing.
        case taskExecutor
    }

    // `jobs`, `stopped` and `threadID` are guarded by `condition`; `kind` is immutable.
    private let condition = NSCondition()
    private var jobs: [UnownedJob] = []
    private var stopped = false
    private var threadID: ObjectIdentifier?
    private let kind: Kind

    package init(runsJobsAs kind: Kind = .serialExecutor) {
        self.kind = kind
        let thread = Thread { [self] in run() }
        thread.start()
    }

    package func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    /// Whether the calling thread is the executor's.
    package var isCurrent: Bool {
        condition.lock()
        defer { condition.unlock() }
        return threadID == ObjectIdentifier(Thread.current)
    }

    /// Ends the thread once the queued jobs have run.
    package func stop() {
        condition.lock()
        stopped = true
        condition.signal()
        condition.unlock()
    }

    private func run() {
        condition.lock()
        threadID = ObjectIdentifier(Thread.current)
        condition.unlock()
        while true {
            condition.lock()
            while jobs.isEmpty && !stopped { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            switch kind {
            case .serialExecutor:
                job.runSynchronously(on: asUnownedSerialExecutor())
            case .taskExecutor:
                guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else {
                    preconditionFailure("a task executor needs macOS 15, iOS 18, tvOS 18, watchOS 11 or visionOS 2")
                }
                job.runSynchronously(on: asUnownedTaskExecutor())
            }
        }
    }
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
extension OneThreadExecutor: TaskExecutor {}
