import Dispatch
import Foundation
import TypedNotifications

// Fixtures whose deliveries cross threads and are waited for: a background post to a main-actor observer (the
// `main-actor-1` row of the instruction table), and four threads posting at once to observers on queues of their own
// (a row of the ratio table). Each has the plain-`NotificationCenter` code that does the same by hand.

/// A post from a background thread to one main-actor observer, then a wait until its handler has run, and its plain
/// twin: an observer that hops to the main queue with `DispatchQueue.main.async`.
///
/// The twin is the hop, not an observer registered with `queue: .main`: with that, Foundation makes a post from
/// another thread wait until the main queue has run the block (Swift's Foundation waits for every operation on the
/// main queue), where the typed post returns at once and the handler runs later, as after the hop. Both sides then
/// wait on a semaphore that the handler signals, so each operation is one complete delivery.
///
/// Call ``postTyped(_:)`` and ``postPlain(_:)`` off the main thread, with the main thread serving the main queue
/// (`dispatchMain()`, or a run loop): the main actor's jobs run there.
package final class MainActorHandOffFixture: TwinFixture, @unchecked Sendable {
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    private let typedHandled = DispatchSemaphore(value: 0)
    private let plainHandled = DispatchSemaphore(value: 0)
    private var token: NotificationToken?
    private var registration: (any NSObjectProtocol)?

    package init() {
        let typedSink = typedSink
        let plainSink = plainSink
        let typedHandled = typedHandled
        let plainHandled = plainHandled
        token = Tick.observeOnMainActor(in: typedCenter) { tick in
            typedSink.add(tick.sequence)
            typedHandled.signal()
        }
        registration = plainCenter.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
            if let tick = notification.userInfo?["tick"] as? Tick {
                DispatchQueue.main.async {
                    plainSink.add(tick.sequence)
                    plainHandled.signal()
                }
            }
        }
    }

    deinit {
        if let registration { plainCenter.removeObserver(registration) }
    }

    /// `count` times: a post from this (background) thread, then a wait until the main-actor handler has run for it.
    @inline(never)
    package func postTyped(_ count: Int) {
        let center = typedCenter
        for _ in 0..<count {
            Tick(sequence: 1, price: 187.25, symbol: "AAPL").post(in: center)
            typedHandled.wait()
        }
    }

    /// `count` times: a plain post from this thread, then a wait until the block it dispatched to the main queue has run.
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

/// Four threads posting at once, each to a type of its own (the same center) whose one observer runs on a serial
/// queue of its own, each thread then waiting until its observer has received its posts; and the plain twin: plain
/// observers of four names (the typed types' name strings) whose blocks dispatch to the same four queues.
///
/// One operation is one post on each of the four threads (four deliveries). The threads are started once, with the
/// fixture, and each round starts all four together (see ``ThreadGang``): not `DispatchQueue.concurrentPerform`, which
/// on a 2-core machine runs two iterations at a time.
package final class FourQueuesFixture: @unchecked Sendable {
    package static let lanes = 4
    package let typedCenter = NotificationCenter()
    package let plainCenter = NotificationCenter()
    package let typedSink = Sink()
    package let plainSink = Sink()
    package let floorCenter = NotificationCenter()
    package let floorSink = Sink()
    private let queues = (1...FourQueuesFixture.lanes).map { DispatchQueue(label: "bench.lane.\($0)") }
    private let gang = ThreadGang(threads: FourQueuesFixture.lanes)
    private var tokens: [NotificationToken] = []
    private var registrations: [any NSObjectProtocol] = []
    private var floorRegistrations: [any NSObjectProtocol] = []
    /// Lane `i` posts `count` times and waits until its observer has had them, typed and plain.
    private var typedLanes: [@Sendable (Int) -> Void] = []
    private var plainLanes: [@Sendable (Int) -> Void] = []
    private var floorLanes: [@Sendable (Int) -> Void] = []

    package init() {
        addLane(OtherTick<OtherTickBase>.self, queue: queues[0])
        addLane(OtherTick<OtherTick<OtherTickBase>>.self, queue: queues[1])
        addLane(OtherTick<OtherTick<OtherTick<OtherTickBase>>>.self, queue: queues[2])
        addLane(OtherTick<OtherTick<OtherTick<OtherTick<OtherTickBase>>>>.self, queue: queues[3])
    }

    deinit {
        gang.stop()
        for registration in registrations { plainCenter.removeObserver(registration) }
        for registration in floorRegistrations { floorCenter.removeObserver(registration) }
    }

    private func addLane<Event: Notifiable>(_ type: Event.Type, queue: DispatchQueue) where Event.Payload == Tick {
        let typedCenter = typedCenter
        let plainCenter = plainCenter
        let typedSink = typedSink
        let plainSink = plainSink
        let name = Event.notificationName
        let typedLane = Sink()
        let plainLane = Sink()
        tokens.append(
            Event.observe(in: typedCenter, delivery: .async(on: queue)) { tick in
                typedSink.add(tick.sequence)
                typedLane.add(tick.sequence)
            }
        )
        registrations.append(
            plainCenter.addObserver(forName: name, object: nil, queue: nil) { notification in
                if let tick = notification.userInfo?["tick"] as? Tick {
                    queue.async {
                        plainSink.add(tick.sequence)
                        plainLane.add(tick.sequence)
                    }
                }
            }
        )
        let floorCenter = floorCenter
        let floorSink = floorSink
        floorRegistrations.append(
            floorCenter.addObserver(forName: name, object: nil, queue: nil) { _ in floorSink.add(1) }
        )
        floorLanes.append { count in
            for _ in 0..<count {
                floorCenter.post(
                    name: name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
            }
        }
        typedLanes.append { count in
            let delivered = typedLane.value + count
            for _ in 0..<count {
                Event.post(Tick(sequence: 1, price: 187.25, symbol: "AAPL"), in: typedCenter)
            }
            Self.wait(on: queue, until: typedLane, reaches: delivered)
        }
        plainLanes.append { count in
            let delivered = plainLane.value + count
            for _ in 0..<count {
                plainCenter.post(
                    name: name, object: nil, userInfo: ["tick": Tick(sequence: 1, price: 187.25, symbol: "AAPL")])
            }
            Self.wait(on: queue, until: plainLane, reaches: delivered)
        }
    }

    /// Waits until `lane` counts `delivered`: a block queued behind the lane's deliveries, again while some are still
    /// to come (a typed drain yields its queue after a batch and queues the rest behind the block).
    private static func wait(on queue: DispatchQueue, until lane: Sink, reaches delivered: Int) {
        repeat { queue.sync {} } while lane.value < delivered
    }

    /// `count` operations: `count` posts on each of the four threads at once, until every queue has delivered them.
    @inline(never)
    package func postTyped(_ count: Int) {
        gang.run(typedLanes, count: count)
    }

    @inline(never)
    package func postPlain(_ count: Int) {
        gang.run(plainLanes, count: count)
    }

    /// `count` plain posts on each of the four threads at once, to observers that only count: the Foundation posts
    /// that a typed post makes too, without the hop to a queue, as the floor of the typed side.
    @inline(never)
    package func postFloor(_ count: Int) {
        gang.run(floorLanes, count: count)
    }
}

/// Threads kept for the life of a fixture that each run one job when told, all released at the same moment, so that a
/// timed round pays for no thread start.
package final class ThreadGang: @unchecked Sendable {
    // `jobs` and `count` are written by the thread that calls `run` before it signals `starts`, and read by each gang
    // thread after its `wait` on `starts` returns: the semaphore orders the write before the reads, and `run` writes
    // again only after every thread has signalled `finished`.
    private var jobs: [(@Sendable (Int) -> Void)?]
    private var count = 0
    private let starts: [DispatchSemaphore]
    private let finished = DispatchSemaphore(value: 0)

    package init(threads: Int) {
        jobs = Array(repeating: nil, count: threads)
        starts = (0..<threads).map { _ in DispatchSemaphore(value: 0) }
        for index in 0..<threads {
            let thread = Thread { [self] in
                while true {
                    starts[index].wait()
                    guard let job = jobs[index] else { return }
                    job(count)
                    finished.signal()
                }
            }
            thread.start()
        }
    }

    /// Runs `jobs[i](count)` on thread `i`, all at once, and returns when every one has returned.
    package func run(_ jobs: [@Sendable (Int) -> Void], count: Int) {
        precondition(jobs.count == starts.count)
        self.jobs = jobs
        self.count = count
        for start in starts { start.signal() }
        for _ in starts { finished.wait() }
    }

    /// Ends the threads once they are idle; the gang cannot run again.
    package func stop() {
        jobs = Array(repeating: nil, count: starts.count)
        for start in starts { start.signal() }
    }
}
