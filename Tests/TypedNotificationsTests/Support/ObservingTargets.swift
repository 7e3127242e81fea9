import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// A payload that tells when the package has let go of it: its box is released once every delivery of the post has
/// run or been dropped, and the post has returned.
struct Tracked: Notifiable {
    final class Box: Sendable {
        let onRelease: @Sendable () -> Void
        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    let index: Int
    let box: Box

    init(_ index: Int, onRelease: @escaping @Sendable () -> Void = {}) {
        self.index = index
        box = Box(onRelease: onRelease)
    }
}

/// Counts releases of ``Tracked`` payloads and signals once `expected` of them have been released.
final class Releases: Sendable {
    private let released = Counter()
    private let expected: Int
    private let signal = Signal()

    init(expecting expected: Int) {
        self.expected = expected
    }

    func payload(_ index: Int) -> Tracked {
        Tracked(index) { [self] in
            if released.increment() == expected { signal.fire() }
        }
    }

    /// Returns once every payload has been released: every delivery of every post has run or been dropped.
    func wait() async {
        await signal.wait()
    }
}

/// An actor for observations isolated to it.
actor Host {}

/// Where an observer's handler runs: on the posting thread, or on one of the serial targets a post queues for.
enum ObservingTarget: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case postingThread, dispatchQueue, operationQueue, mainActor, actor, asyncHandler

    var testDescription: String { rawValue }

    static var queued: [ObservingTarget] { allCases.filter { $0 != .postingThread } }
}

/// One observation of ``Tracked`` on an ``ObservingTarget``, with what it runs on kept alive.
struct TargetObservation: Sendable {
    let cancel: @Sendable () -> Void
    /// The actor or queue the handler runs on, kept for as long as the observation is.
    let host: (any Sendable)?
}

/// Observes ``Tracked`` on `target`, with `condition` as its `where:` condition and `coalescing` as its own
/// coalescing.
func observeTracked(
    on target: ObservingTarget,
    in center: NotificationCenter,
    where condition: @escaping @Sendable (Tracked) -> Bool = { _ in true },
    coalescing: NotificationCoalescing<Tracked>? = nil,
    _ handler: @escaping @Sendable (Tracked) -> Void
) -> TargetObservation {
    let accepts = NotificationCondition<Tracked>.matching(condition)
    switch target {
    case .postingThread:
        let token = Tracked.observe(in: center, where: accepts, coalescing: coalescing, handler)
        return TargetObservation(cancel: { token.cancel() }, host: nil)
    case .dispatchQueue:
        let queue = DispatchQueue(label: "observer")
        let token = Tracked.observe(
            in: center, delivery: .async(on: queue), where: accepts, coalescing: coalescing, handler)
        return TargetObservation(cancel: { token.cancel() }, host: queue)
    case .operationQueue:
        let queue = OperationQueue()
        let token = Tracked.observe(
            in: center, delivery: .async(on: queue), where: accepts, coalescing: coalescing, handler)
        return TargetObservation(cancel: { token.cancel() }, host: queue)
    case .mainActor:
        let token = Tracked.observeOnMainActor(in: center, where: accepts, coalescing: coalescing) { handler($0) }
        return TargetObservation(cancel: { token.cancel() }, host: nil)
    case .actor:
        let host = Host()
        let observation = Tracked.observe(for: host, in: center, where: accepts, coalescing: coalescing) {
            _, payload in handler(payload)
        }
        return TargetObservation(cancel: { observation.cancel() }, host: host)
    case .asyncHandler:
        let token = Tracked.observe(in: center, where: accepts, coalescing: coalescing) { (payload: Tracked) async in
            handler(payload)
        }
        return TargetObservation(cancel: { token.cancel() }, host: nil)
    }
}

/// Runs `body` on a thread of its own and returns once it has, without blocking a thread of the cooperative pool.
func onThread(_ body: @escaping @Sendable () -> Void) async {
    let done = Signal()
    Thread {
        body()
        done.fire()
    }
    .start()
    await done.wait()
}
