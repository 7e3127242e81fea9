import Dispatch
import Foundation
import Synchronization
import TypedNotifications

// Fixtures for delivery off the posting thread: one observer on the main actor, on a queue, or behind an async
// sequence, each with the plain-`NotificationCenter` code that does the same by hand.

/// A fixture whose typed side and plain twin each deliver one payload per operation, counted by their sinks: what the
/// ratio tool, the instruction counter and the package-benchmark suite run alike.
package protocol TwinFixture: AnyObject {
    var typedSink: Sink { get }
    var plainSink: Sink { get }
    /// `count` operations of the typed side.
    func postTyped(_ count: Int)
    /// `count` operations of the plain twin.
    func postPlain(_ count: Int)
}

/// One typed main-actor observer (`observeOnMainActor`) of ``Tick``.
package final class TypedMainActorFixture: @unchecked Sendable {
    package let center = NotificationCenter()
    package let sink = Sink()
    private var token: NotificationToken?

    package init() {
        let sink = sink
        token = Tick.observeOnMainActor(in: center) { tick in sink.add(tick.sequence) }
    }

    /// `count` posts made on the main actor: the observer runs during each post.
    @MainActor
    @inline(never)
    package func postOnMainActor(_ count: Int) {
        let center = center
        for _ in 0..<count {
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
    }

    /// `count` posts made off the main actor: each queues its payload for the main actor and returns. The deliveries
    /// run once the main actor is free, after the benchmark.
    @inline(never)
    package nonisolated func postOffMainActor(_ count: Int) {
        let center = center
        for _ in 0..<count {
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
    }
}

/// The plain twins of ``TypedMainActorFixture``: an observer that runs on the posting thread (what Foundation does for
/// a `queue: .main` observer when the post is made on the main thread), and one that hops to the main queue by hand
/// (`queue: .main` itself would make an off-main `post` wait for the main thread).
package final class PlainMainThreadFixture: @unchecked Sendable {
    package let center = NotificationCenter()
    package let sink = Sink()
    /// Counts nothing: the hopping observer's deliveries run after the benchmark.
    package let laterSink = Sink()
    private var registrations: [any NSObjectProtocol] = []
    private static let hopping = Notification.Name("PlainTick.mainQueue")

    package init() {
        let sink = sink
        let laterSink = laterSink
        registrations.append(
            center.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
                if let tick = notification.userInfo?["tick"] as? Tick { sink.add(tick.sequence) }
            }
        )
        registrations.append(
            center.addObserver(forName: Self.hopping, object: nil, queue: nil) { notification in
                if let tick = notification.userInfo?["tick"] as? Tick {
                    DispatchQueue.main.async { laterSink.add(tick.sequence) }
                }
            }
        )
    }

    deinit {
        for registration in registrations { center.removeObserver(registration) }
    }

    @MainActor
    @inline(never)
    package func postOnMainThread(_ count: Int) {
        let center = center
        for _ in 0..<count {
            center.post(
                name: PlainTick.name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
        }
    }

    @inline(never)
    package nonisolated func postHoppingToMain(_ count: Int) {
        let center = center
        for _ in 0..<count {
            center.post(
                name: Self.hopping, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
        }
    }
}

/// One typed observer delivered on a serial `DispatchQueue`, and its plain twin that re-dispatches by hand. Each run
/// posts `count` times, then waits until the queue has delivered them all.
package final class QueueFixture: TwinFixture, @unchecked Sendable {
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private let typedQueue = DispatchQueue(label: "bench.typed")
    private let plainQueue = DispatchQueue(label: "bench.plain")
    private var token: NotificationToken?
    private var registration: (any NSObjectProtocol)?

    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        let plainQueue = plainQueue
        token = Tick.observe(in: typedCenter, delivery: .async(on: typedQueue)) { tick in typedSink.add(tick.sequence)
        }
        registration = plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
            if let tick = notification.userInfo?["tick"] as? Tick {
                plainQueue.async { plainSink.add(tick.sequence) }
            }
        }
    }

    deinit {
        if let registration { plainCenter.removeObserver(registration) }
    }

    @inline(never)
    package func postTyped(_ count: Int) {
        let center = typedCenter
        for _ in 0..<count {
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
        typedQueue.sync {}
    }

    @inline(never)
    package func postPlain(_ count: Int) {
        let center = plainCenter
        for _ in 0..<count {
            center.post(
                name: PlainTick.name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
        }
        plainQueue.sync {}
    }
}

/// A post awaited until its queue observer has run (`awaitDelivery`), and its plain twin: a queue observer that
/// signals a semaphore the posting thread waits on after each post.
package final class AwaitedQueueFixture: TwinFixture, @unchecked Sendable {
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private let typedQueue = DispatchQueue(label: "bench.awaited.typed")
    private let plainQueue = DispatchQueue(label: "bench.awaited.plain")
    private let plainHandled = DispatchSemaphore(value: 0)
    private var token: NotificationToken?
    private var registration: (any NSObjectProtocol)?

    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        let plainQueue = plainQueue
        let plainHandled = plainHandled
        token = Tick.observe(in: typedCenter, delivery: .async(on: typedQueue)) { tick in typedSink.add(tick.sequence) }
        registration = plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
            if let tick = notification.userInfo?["tick"] as? Tick {
                plainQueue.async {
                    plainSink.add(tick.sequence)
                    plainHandled.signal()
                }
            }
        }
    }

    deinit {
        if let registration { plainCenter.removeObserver(registration) }
    }

    /// `count` times: a post, awaited until its queue observer has run. One task makes them all; the calling thread
    /// waits for it once.
    @inline(never)
    package func postTyped(_ count: Int) {
        let center = typedCenter
        let finished = DispatchSemaphore(value: 0)
        Task.detached {
            for _ in 0..<count {
                try? await awaitDelivery { Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center) }
            }
            finished.signal()
        }
        finished.wait()
    }

    /// `count` times: a plain post, then a wait until its queue observer has signalled.
    @inline(never)
    package func postPlain(_ count: Int) {
        let center = plainCenter
        for _ in 0..<count {
            center.post(
                name: PlainTick.name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
            plainHandled.wait()
        }
    }
}

/// A typed `NotificationSequence` consumed by a task, and its plain twin: an observer that yields into an
/// `AsyncStream`. Each run posts `count` times, then waits until the consumer has taken them all.
package final class SequenceFixture: TwinFixture, @unchecked Sendable {
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private let typedTaken = DispatchSemaphore(value: 0)
    private let plainTaken = DispatchSemaphore(value: 0)
    private let typedTarget = DeliveryCountTarget()
    private let plainTarget = DeliveryCountTarget()
    private var registration: (any NSObjectProtocol)?
    private var consumers: [Task<Void, Never>] = []

    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        let typedTaken = typedTaken
        let plainTaken = plainTaken
        let typedTarget = typedTarget
        let plainTarget = plainTarget
        let typed = Tick.notifications(in: typedCenter)
        let (plain, continuation) = AsyncStream.makeStream(of: Tick.self)
        registration = plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
            if let tick = notification.userInfo?["tick"] as? Tick { continuation.yield(tick) }
        }
        consumers.append(
            Task.detached {
                for await tick in typed {
                    typedSink.add(tick.sequence)
                    if typedSink.value == typedTarget.value { typedTaken.signal() }
                }
            }
        )
        consumers.append(
            Task.detached {
                for await tick in plain {
                    plainSink.add(tick.sequence)
                    if plainSink.value == plainTarget.value { plainTaken.signal() }
                }
            }
        )
    }

    deinit {
        if let registration { plainCenter.removeObserver(registration) }
        for consumer in consumers { consumer.cancel() }
    }

    @inline(never)
    package func postTyped(_ count: Int) {
        typedTarget.value = typedSink.value + count
        let center = typedCenter
        for _ in 0..<count {
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
        typedTaken.wait()
    }

    @inline(never)
    package func postPlain(_ count: Int) {
        plainTarget.value = plainSink.value + count
        let center = plainCenter
        for _ in 0..<count {
            center.post(
                name: PlainTick.name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
        }
        plainTaken.wait()
    }
}

/// One typed observer with an `async` handler, and its plain twin. Each operation posts once, then waits until the
/// handler has run for that post, so every operation is a complete delivery, never a post whose handler is still
/// pending.
///
/// The typed side is `Tick.observe(in:) { (tick: Tick) async in … }`: the post queues the payload and returns, and the
/// observation's own task calls the handler, one call at a time, in post order. The plain twin is the closest thing
/// plain `NotificationCenter` code writes for the same: an observer that decodes `userInfo["tick"] as? Tick` and
/// yields it into an `AsyncStream`, and one task that awaits the same kind of handler for each element. Not a
/// `Task { await handler(tick) }` per post: that neither keeps post order nor waits for one call before the next,
/// which the typed handler guarantees.
package final class AsyncHandlerFixture: TwinFixture, @unchecked Sendable {
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private let typedHandled = DispatchSemaphore(value: 0)
    private let plainHandled = DispatchSemaphore(value: 0)
    private let typedTarget = DeliveryCountTarget()
    private let plainTarget = DeliveryCountTarget()
    private var token: NotificationToken?
    private var registration: (any NSObjectProtocol)?
    private var consumer: Task<Void, Never>?

    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        let typedHandled = typedHandled
        let plainHandled = plainHandled
        let typedTarget = typedTarget
        let plainTarget = plainTarget
        token = Tick.observe(in: typedCenter) { (tick: Tick) async in
            typedSink.add(tick.sequence)
            if typedSink.value == typedTarget.value { typedHandled.signal() }
        }
        let handler: @Sendable (Tick) async -> Void = { tick in
            plainSink.add(tick.sequence)
            if plainSink.value == plainTarget.value { plainHandled.signal() }
        }
        let (stream, continuation) = AsyncStream.makeStream(of: Tick.self)
        registration = plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
            if let tick = notification.userInfo?["tick"] as? Tick { continuation.yield(tick) }
        }
        consumer = Task.detached {
            for await tick in stream { await handler(tick) }
        }
    }

    deinit {
        if let registration { plainCenter.removeObserver(registration) }
        consumer?.cancel()
    }

    /// `count` times: a post, then a wait until the `async` handler has run for it.
    @inline(never)
    package func postTyped(_ count: Int) {
        let center = typedCenter
        for _ in 0..<count {
            typedTarget.value = typedSink.value + 1
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
            typedHandled.wait()
        }
    }

    /// `count` times: a plain post, then a wait until the consuming task's handler has run for it.
    @inline(never)
    package func postPlain(_ count: Int) {
        let center = plainCenter
        for _ in 0..<count {
            plainTarget.value = plainSink.value + 1
            center.post(
                name: PlainTick.name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
            plainHandled.wait()
        }
    }
}

/// ``Tick``'s fields in a typed-only type: its posts never touch Foundation.
package struct FastTick: Notifiable, Sendable {
    package static var postsThroughFoundation: Bool { false }
    package let sequence: Int
    package let price: Double
    package let symbol: String
}

/// Typed observers of the typed-only ``FastTick``; its twin is ``PlainFixture`` with as many plain observers.
package final class TypedOnlyFixture: @unchecked Sendable {
    package let center = NotificationCenter()
    package let sink = Sink()
    private var tokens: [NotificationToken] = []

    package init(observers: Int) {
        let sink = sink
        for _ in 0..<observers {
            tokens.append(FastTick.observe(in: center) { tick in sink.add(tick.sequence) })
        }
    }

    @inline(never)
    package func post(_ count: Int) {
        let center = center
        for _ in 0..<count {
            FastTick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
    }
}

// MARK: - Latest values and coalescing

/// A `Tick` whose center keeps the latest post (`LatestValueNotifiable`).
package struct LatestTick: LatestValueNotifiable, Sendable {
    package let sequence: Int
    package let price: Double
    package let symbol: String
}

/// Posting the current state, with 1 observer: a `LatestValueNotifiable` type, against what an app writes without it,
/// a stored property (behind a lock, since any thread may post or read) assigned before each plain post.
package final class LatestValueFixture: TwinFixture, @unchecked Sendable {
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private var token: NotificationToken?
    private var registration: (any NSObjectProtocol)?
    /// The plain twin's latest value, for screens that appear later.
    private let latest = Mutex<Tick?>(nil)

    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        token = LatestTick.observe(in: typedCenter) { tick in typedSink.add(tick.sequence) }
        registration = plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
            if let tick = notification.userInfo?["tick"] as? Tick { plainSink.add(tick.sequence) }
        }
    }

    deinit {
        if let registration { plainCenter.removeObserver(registration) }
    }

    @inline(never)
    package func postTyped(_ count: Int) {
        let center = typedCenter
        for _ in 0..<count {
            LatestTick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
        }
    }

    @inline(never)
    package func postPlain(_ count: Int) {
        let center = plainCenter
        for _ in 0..<count {
            let tick = Tick(sequence: 1, price: 187.25, symbol: "AAPL")
            latest.withLock { $0 = tick }
            center.post(name: PlainTick.name, object: nil, userInfo: ["tick": tick])
        }
    }
}

/// A burst of 200 posts made in one main-actor job, reaching 10 observers once, until delivered: coalesced typed
/// posts (`.nextTurn`), against `NotificationQueue` with `.onName` coalescing, `.asap`, on the main run loop.
///
/// Both sides run the main run loop until their observers have the burst: it serves the main queue, and with it the
/// main actor (the typed burst ends in a main-actor job), and `NotificationQueue` posts from a run-loop observer. The
/// twins differ in which payload is delivered: the latest (typed), the first (`NotificationQueue` drops later ones).
package final class CoalescedBurstFixture: @unchecked Sendable {
    package static let postsPerBurst = 200
    package static let observers = 10
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private var tokens: [NotificationToken] = []
    private var registrations: [any NSObjectProtocol] = []
    private let queue: NotificationQueue

    /// Make it on the main thread: the queue posts from the run loop of the thread that makes it.
    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        queue = NotificationQueue(notificationCenter: plainCenter)
        for _ in 0..<Self.observers {
            tokens.append(Tick.observe(in: typedCenter) { tick in typedSink.add(tick.sequence) })
            registrations.append(
                plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
                    if let tick = notification.userInfo?["tick"] as? Tick { plainSink.add(tick.sequence) }
                }
            )
        }
    }

    deinit {
        for registration in registrations { plainCenter.removeObserver(registration) }
    }

    /// `count` bursts, each run until its one delivery has reached every observer.
    @MainActor
    @inline(never)
    package func burstTyped(_ count: Int) {
        let center = typedCenter
        for _ in 0..<count {
            let delivered = typedSink.value + Self.observers
            for _ in 0..<Self.postsPerBurst {
                Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center, coalescing: .nextTurn)
            }
            Self.runMainRunLoop(until: { self.typedSink.value >= delivered })
        }
    }

    @MainActor
    @inline(never)
    package func burstPlain(_ count: Int) {
        for _ in 0..<count {
            let delivered = plainSink.value + Self.observers
            for _ in 0..<Self.postsPerBurst {
                let tick = Tick(sequence: 1, price: 187.25, symbol: "AAPL")
                queue.enqueue(
                    Notification(name: PlainTick.name, object: nil, userInfo: ["tick": tick]),
                    postingStyle: .asap,
                    coalesceMask: .onName,
                    forModes: nil
                )
            }
            Self.runMainRunLoop(until: { self.plainSink.value >= delivered })
        }
    }

    @MainActor
    private static func runMainRunLoop(until isDone: () -> Bool) {
        while !isDone() {
            _ = RunLoop.main.run(mode: .default, before: .distantPast)  // one pass, without waiting
        }
    }
}

/// How many payloads a consumer or handler must have taken before it signals the posting thread.
private final class DeliveryCountTarget: @unchecked Sendable {
    // Written by the posting thread before its posts, read by the consumer or handler after it took a payload those
    // posts made: the queue between them (a sequence's, the package's, or an `AsyncStream`'s) orders the two.
    var value = 0
}
