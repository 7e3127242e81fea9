import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// What the seam suites share (`CoalescingSeamTests`, `EndingObservationsSeamTests`, and the suites that attack where
// features meet): one payload that tells when the package lets go of it, the targets a handler runs on, one way to
// observe on each, a gate that holds a handler busy, and a count-down to await.

/// A payload that tells when the package has let go of it (its ``Box``), with an optional stamp taken by the poster.
struct SeamPing: Notifiable {
    final class Box: Sendable {
        let onRelease: @Sendable () -> Void
        init(onRelease: @escaping @Sendable () -> Void) { self.onRelease = onRelease }
        deinit { onRelease() }
    }

    let index: Int
    let stamp: Int
    let box: Box?

    init(_ index: Int, stamp: Int = 0, onRelease: (@Sendable () -> Void)? = nil) {
        self.index = index
        self.stamp = stamp
        box = onRelease.map(Box.init)
    }
}

/// An actor for the actor target, whose deinitialisation signals.
actor SeamHost {
    let gone: @Sendable () -> Void
    init(gone: @escaping @Sendable () -> Void = {}) { self.gone = gone }
    deinit { gone() }
    /// A turn on the actor: once it returns, what the actor was given before has run.
    func touch() {}
}

/// Marks the main queue, where the main actor runs, for a test that sets it there (`DispatchQueue.main.setSpecific`):
/// `Thread.isMainThread` does not tell, as under `dispatch_main()` the main queue may drain on another thread.
let seamMainQueue = DispatchSpecificKey<Void>()

/// Where a handler runs.
enum SeamTarget: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case postingThread, dispatchQueue, operationQueue, mainActor, actor, asyncHandler
    var testDescription: String { rawValue }
    static var queued: [SeamTarget] { allCases.filter { $0 != .postingThread } }
}

/// Where a handler runs, with what its observations share (one queue, operation queue or actor per place, so every
/// observation made through one place shares its target). The actor is held in a slot, so that a test can release it
/// (or replace it, before observing) to see what its observations do when it goes.
struct SeamPlace: Sendable {
    let target: SeamTarget
    let queue: DispatchQueue
    let operationQueue: OperationQueue
    let hostSlot = Slot<SeamHost>()

    init(_ target: SeamTarget) {
        self.target = target
        queue = DispatchQueue(label: "SeamPlace")
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        self.operationQueue = operationQueue
        hostSlot.set(SeamHost())
    }

    /// The place's actor, while the slot holds it.
    var host: SeamHost { hostSlot.value! }

    /// Returns once what the place was given before has run (an `async` handler's task has no drain: yields; a released
    /// actor has nothing left to run).
    func drain() async {
        switch target {
        case .postingThread: break
        case .dispatchQueue:
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in queue.async { done.resume() } }
        case .operationQueue:
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                operationQueue.addOperation { done.resume() }
            }
        case .mainActor: await MainActor.run {}
        case .actor: await hostSlot.value?.touch()
        case .asyncHandler: for _ in 0..<100 { await Task.yield() }
        }
    }

    /// Observes ``SeamPing`` here with `coalescing`; returns what ends the observation (and keeps a token alive until
    /// called). With a `gate`, the delivery of post 0 returns only once the gate is open.
    func observe(
        in center: NotificationCenter, coalescing: NotificationCoalescing<SeamPing>? = nil,
        holdingFirstAt gate: SeamGate? = nil,
        _ handler: @escaping @Sendable (SeamPing) -> Void
    ) -> @Sendable () -> Void {
        let body = handler
        let handler: @Sendable (SeamPing) -> Void = { ping in
            body(ping)
            if ping.index == 0, let gate { gate.block() }
        }
        switch target {
        case .postingThread:
            let token = SeamPing.observe(in: center, coalescing: coalescing, handler)
            return { token.cancel() }
        case .dispatchQueue:
            let token = SeamPing.observe(in: center, delivery: .async(on: queue), coalescing: coalescing, handler)
            return { token.cancel() }
        case .operationQueue:
            let token = SeamPing.observe(
                in: center, delivery: .async(on: operationQueue), coalescing: coalescing, handler)
            return { token.cancel() }
        case .mainActor:
            let token = SeamPing.observeOnMainActor(in: center, coalescing: coalescing) { handler($0) }
            return { token.cancel() }
        case .actor:
            let observation = SeamPing.observe(for: host, in: center, coalescing: coalescing) { _, ping in
                handler(ping)
            }
            return { observation.cancel() }
        case .asyncHandler:
            let token = SeamPing.observe(in: center, coalescing: coalescing) { (ping: SeamPing) async in
                body(ping)
                if ping.index == 0, let gate { await gate.wait() }
            }
            return { token.cancel() }
        }
    }
}

/// One observation, with what its handler runs on kept alive.
struct SeamObservation: Sendable {
    let cancel: @Sendable () -> Void
    let host: (any Sendable)?
}

/// Observes ``SeamPing`` on `target`, at a place of its own, with `coalescing`.
func observePing(
    on target: SeamTarget,
    in center: NotificationCenter,
    coalescing: NotificationCoalescing<SeamPing>?,
    _ handler: @escaping @Sendable (SeamPing) -> Void
) -> SeamObservation {
    let place = SeamPlace(target)
    return SeamObservation(cancel: place.observe(in: center, coalescing: coalescing, handler), host: place)
}

/// Waits for `semaphore` on a thread of its own, never blocking a thread of the cooperative pool, which has as many as
/// there are cores and runs the package's timers and drains.
func waitAside(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            done.resume()
        }
    }
}

/// Holds a handler in its first delivery until opened: an `async` handler suspends (it must not block a thread of the
/// cooperative pool, which the test's own tasks need); any other blocks its thread, as a busy handler does.
final class SeamGate: Sendable {
    private let signal = Signal()
    private let semaphore = DispatchSemaphore(value: 0)

    func open() {
        signal.fire()
        semaphore.signal()
    }

    func block() {
        semaphore.wait()
        semaphore.signal()
    }

    func wait() async { await signal.wait() }
}

/// A signal that fires once `count` events have been counted.
final class SeamCountDown: Sendable {
    private let counted = Counter()
    private let count: Int
    private let signal = Signal()

    init(_ count: Int) {
        self.count = count
        if count <= 0 { signal.fire() }
    }

    func tick() {
        if counted.increment() == count { signal.fire() }
    }

    var ticks: Int { counted.value }

    func wait() async { await signal.wait() }
}
