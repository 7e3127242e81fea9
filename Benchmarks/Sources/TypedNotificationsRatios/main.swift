// Paired typed/twin rounds in one process; prints each scenario's ratio (typed / twin) and its target.
// Run from Benchmarks/: `swift run -c release TypedNotificationsRatios` (full) or `... --smoke` (CI).
import BenchmarkScenarios
import Foundation

let options = Options.parse(CommandLine.arguments.dropFirst())

func plainPair(typed: TypedFixture, plain: PlainFixture, deliveries: Int) -> Pair {
    Pair(
        typed: Side(run: typed.post, sink: typed.sink),
        twin: Side(run: plain.post, sink: plain.sink),
        deliveriesPerOperation: deliveries
    )
}

func postScenario(_ observers: Int, target: Double?, stretch: Double? = nil) -> TimedScenario {
    let title = observers == 1 ? "post, 1 observer" : "post, \(observers.formatted()) observers"
    return TimedScenario(title: title, twin: "plain", target: target, stretch: stretch) {
        plainPair(
            typed: TypedFixture(observers: observers), plain: PlainFixture(observers: observers), deliveries: observers)
    }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
func messageScenario(_ observers: Int, target: Double?) -> TimedScenario {
    let title = observers == 1 ? "post, 1 observer" : "post, \(observers.formatted()) observers"
    return TimedScenario(title: title, twin: "MainActorMessage", target: target, stretch: nil) {
        let typed = TypedFixture(observers: observers)
        let message = MessageFixture(observers: observers)
        return Pair(
            typed: Side(run: typed.post, sink: typed.sink),
            twin: Side(run: { message.post($0) }, sink: message.sink),
            deliveriesPerOperation: observers
        )
    }
}

/// One payload per operation on each side of a ``TwinFixture``, against plain `NotificationCenter` code.
func twinScenario(_ title: String, make: @escaping @MainActor () -> some TwinFixture) -> TimedScenario {
    TimedScenario(title: title, twin: "plain", target: nil, stretch: nil) {
        let fixture = make()
        return Pair(
            typed: Side(run: fixture.postTyped, sink: fixture.typedSink),
            twin: Side(run: fixture.postPlain, sink: fixture.plainSink),
            deliveriesPerOperation: 1
        )
    }
}

func observeThenCancelScenario(longLived: Int, target: Double?) -> TimedScenario {
    let title =
        longLived == 1
        ? "observe then cancel, 1 long-lived observer" : "observe then cancel, \(longLived.formatted()) long-lived"
    return TimedScenario(title: title, twin: "plain", target: target, stretch: nil) {
        let typed = TypedFixture(observers: longLived)
        let plain = PlainFixture(observers: longLived)
        return Pair(
            typed: Side(run: typed.observeThenCancel, sink: typed.sink),
            twin: Side(run: plain.observeThenRemove, sink: plain.sink),
            deliveriesPerOperation: 0
        )
    }
}

var timedScenarios: [TimedScenario] = [
    postScenario(0, target: 1.05),
    postScenario(1, target: 1.00, stretch: 0.60),
    postScenario(10, target: 0.35),
    postScenario(100, target: 0.05),
    postScenario(1_000, target: nil),
    TimedScenario(title: "post, 1 observer + 1,000 on other names", twin: "plain", target: 1.00, stretch: nil) {
        plainPair(
            typed: TypedFixture(observers: 1, observersOnOtherNames: 1_000),
            plain: PlainFixture(observers: 1, observersOnOtherNames: 1_000),
            deliveries: 1
        )
    },
    otherCentersScenario(),
    observeThenCancelScenario(longLived: 1, target: 0.30),
    // No target: shows how registration scales with the observers already on the name.
    observeThenCancelScenario(longLived: 1_000, target: nil),
    TimedScenario(title: "post from 2 threads at once, 1 observer", twin: "plain", target: nil, stretch: nil) {
        let typed = TypedFixture(observers: 1)
        let plain = PlainFixture(observers: 1)
        // Each operation is one post on each of two threads; the time is the wall time of both.
        return Pair(
            typed: Side(
                run: { count in DispatchQueue.concurrentPerform(iterations: 2) { _ in typed.post(count) } },
                sink: typed.sink),
            twin: Side(
                run: { count in DispatchQueue.concurrentPerform(iterations: 2) { _ in plain.post(count) } },
                sink: plain.sink),
            deliveriesPerOperation: 2
        )
    },
    TimedScenario(title: "post from 4 threads at once, 1 observer", twin: "plain", target: nil, stretch: nil) {
        let typed = TypedFixture(observers: 1)
        let plain = PlainFixture(observers: 1)
        return Pair(
            typed: Side(
                run: { count in DispatchQueue.concurrentPerform(iterations: 4) { _ in typed.post(count) } },
                sink: typed.sink),
            twin: Side(
                run: { count in DispatchQueue.concurrentPerform(iterations: 4) { _ in plain.post(count) } },
                sink: plain.sink),
            deliveriesPerOperation: 4
        )
    },
    // Typed-only types (`postsThroughFoundation == false`) against plain observers doing the same work.
    TimedScenario(title: "typed-only post, 1 observer", twin: "plain", target: 0.15, stretch: nil) {
        let typed = TypedOnlyFixture(observers: 1)
        let plain = PlainFixture(observers: 1)
        return Pair(
            typed: Side(run: typed.post, sink: typed.sink), twin: Side(run: plain.post, sink: plain.sink),
            deliveriesPerOperation: 1)
    },
    TimedScenario(title: "typed-only post, 10 observers", twin: "plain", target: 0.10, stretch: nil) {
        let typed = TypedOnlyFixture(observers: 10)
        let plain = PlainFixture(observers: 10)
        return Pair(
            typed: Side(run: typed.post, sink: typed.sink), twin: Side(run: plain.post, sink: plain.sink),
            deliveriesPerOperation: 10)
    },
    // A main-actor observer: during a post made on the main actor, against a plain observer on the posting thread.
    TimedScenario(title: "post on the main actor, 1 main-actor observer", twin: "plain", target: nil, stretch: nil) {
        let typed = TypedMainActorFixture()
        let plain = PlainMainThreadFixture()
        return Pair(
            typed: Side(run: { typed.postOnMainActor($0) }, sink: typed.sink),
            twin: Side(run: { plain.postOnMainThread($0) }, sink: plain.sink),
            deliveriesPerOperation: 1
        )
    },
    // Posted off the main actor: what the poster pays to queue the payload (typed), against an observer that hops
    // with `DispatchQueue.main.async`; the deliveries run after the benchmark, so nothing is counted.
    TimedScenario(title: "post off the main actor, 1 main-actor observer", twin: "plain", target: nil, stretch: nil) {
        let typed = TypedMainActorFixture()
        let plain = PlainMainThreadFixture()
        return Pair(
            typed: Side(run: { typed.postOffMainActor($0) }, sink: Sink()),
            twin: Side(run: { plain.postHoppingToMain($0) }, sink: Sink()),
            deliveriesPerOperation: 0
        )
    },
    twinScenario("queue delivery, 1 observer, until delivered", make: QueueFixture.init),
    // A post awaited until its queue observer has run (`awaitDelivery`), against a plain queue observer that signals a
    // semaphore the poster waits on (see `AwaitedQueueFixture`).
    twinScenario("awaited post, 1 queue observer", make: AwaitedQueueFixture.init),
    // A `LatestValueNotifiable` type against a stored property (behind a lock) assigned before each plain post.
    twinScenario("post, latest-value type, 1 observer", make: LatestValueFixture.init),
    // One operation is a burst of 200 posts in one main-actor job, reaching 10 observers once: coalesced typed posts
    // against `NotificationQueue` (`.onName`, `.asap`), each run on the main run loop until delivered.
    TimedScenario(title: "coalesced burst: 200 posts, 10 obs.", twin: "NotificationQueue", target: nil, stretch: nil) {
        let fixture = CoalescedBurstFixture()
        return Pair(
            typed: Side(run: { fixture.burstTyped($0) }, sink: fixture.typedSink),
            twin: Side(run: { fixture.burstPlain($0) }, sink: fixture.plainSink),
            deliveriesPerOperation: CoalescedBurstFixture.observers
        )
    },
    twinScenario("async sequence, until consumed", make: SequenceFixture.init),
    // One post to an `async` handler, then a wait until it has run, against a plain observer that yields into an
    // `AsyncStream` whose consuming task awaits the same handler (see `AsyncHandlerFixture`).
    twinScenario("async handler, 1 observer, until handled", make: AsyncHandlerFixture.init),
]
timedScenarios.append(fourQueuesScenario())
timedScenarios.append(fourQueuesFloorScenario())
if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
    timedScenarios += [
        messageScenario(1, target: 1.00),
        messageScenario(10, target: 0.80),
        messageScenario(100, target: 0.35),
    ]
}

/// Bytes per retained observation: `add` adds `count` observers to a side's fixture and returns the heap growth.
@MainActor
func bytesPerObservation(_ count: Int, reserve: (Int) -> Void, add: (Int) -> Void) -> Double {
    reserve(count)
    let before = heapBytesInUse()
    add(count)
    return Double(heapBytesInUse() - before) / Double(count)
}

var memoryScenarios: [MemoryScenario] = [
    MemoryScenario(title: "memory per observation (heap bytes)", twin: "plain", target: 1.00) { count, typedFirst in
        let typed = TypedFixture(observers: 1)
        let plain = PlainFixture(observers: 1)
        let measureTyped = { bytesPerObservation(count, reserve: typed.reserve, add: typed.addObservers) }
        let measurePlain = { bytesPerObservation(count, reserve: plain.reserve, add: plain.addObservers) }
        if typedFirst {
            let t = measureTyped()
            return (t, measurePlain())
        }
        let p = measurePlain()
        return (measureTyped(), p)
    }
]
if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
    memoryScenarios.append(
        MemoryScenario(title: "memory per observation (heap bytes)", twin: "MainActorMessage", target: nil) {
            count, typedFirst in
            let typed = TypedFixture(observers: 1)
            let message = MessageFixture(observers: 1)
            let measureTyped = { bytesPerObservation(count, reserve: typed.reserve, add: typed.addObservers) }
            let measureMessage = { bytesPerObservation(count, reserve: message.reserve, add: message.addObservers) }
            if typedFirst {
                let t = measureTyped()
                return (t, measureMessage())
            }
            let m = measureMessage()
            return (measureTyped(), m)
        }
    )
}

// `--chart PATH`: only the posts the Performance article's chart shows (0 to 1,000 observers, typed against plain and
// against MainActorMessage), printed as rows and drawn into the SVG at PATH.
if let chartPath = options.chartPath {
    let counts = [0, 1, 10, 100, 1_000]
    var typed: [Double?] = []
    var plain: [Double?] = []
    var message: [Double?] = []
    var errors = 0
    printHeader(options: options)
    for count in counts {
        let row = run(postScenario(count, target: nil), options: options)
        printRow(row, judged: false)
        typed.append(row.typed)
        plain.append(row.twinValue)
        errors += row.failure == nil ? 0 : 1
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            let messageRow = run(messageScenario(count, target: nil), options: options)
            printRow(messageRow, judged: false)
            message.append(messageRow.twinValue)
            errors += messageRow.failure == nil ? 0 : 1
        } else {
            message.append(nil)
        }
    }
    let date = ISO8601DateFormatter.string(from: Date(), timeZone: .gmt, formatOptions: .withFullDate)
    let chart = postCostChart(
        observerCounts: counts,
        series: [
            ChartSeries(name: "plain", color: "#b3261e", nanoseconds: plain),
            ChartSeries(name: "MainActorMessage", color: "#8e8e93", nanoseconds: message),
            ChartSeries(name: "typed", color: "#0a63c9", nanoseconds: typed),
        ],
        caption: "Median of \(options.rounds) rounds, release build, \(date); \(machineDescription())"
    )
    do {
        try chart.write(toFile: chartPath, atomically: true, encoding: .utf8)
        print("\nchart written to \(chartPath)")
    } catch {
        Options.fail("cannot write \(chartPath): \(error)")
    }
    exit(errors > 0 ? 1 : 0)
}

func selected(_ title: String, _ twin: String) -> Bool {
    guard let filter = options.filter else { return true }
    return "\(title) \(twin)".localizedCaseInsensitiveContains(filter)
}

let started = nowNanoseconds()
printHeader(options: options)
var rows: [Row] = []
for scenario in timedScenarios where selected(scenario.title, scenario.twin) {
    let row = run(scenario, options: options)
    printRow(row, judged: !options.smoke)
    rows.append(row)
}
for scenario in memoryScenarios where selected(scenario.title, scenario.twin) {
    let row = run(scenario, options: options)
    printRow(row, judged: !options.smoke)
    rows.append(row)
}

let errors = rows.filter { $0.failure != nil }.count
let judged = rows.filter { $0.meetsTarget != nil && $0.failure == nil }
let missed = judged.filter { $0.meetsTarget == false }
print("")
print(
    "\(rows.count) scenarios in \(String(format: "%.1f", Double(nowNanoseconds() - started) / 1e9)) s: "
        + "\(judged.count - missed.count) of \(judged.count) targets met"
        + (options.smoke ? " (smoke: not judged)" : "") + ", \(errors) errors"
)
if errors > 0 || (options.strict && !options.smoke && !missed.isEmpty) {
    exit(1)
}
