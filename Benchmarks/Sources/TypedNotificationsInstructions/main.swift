// Runs one scenario a given number of times, for counting instructions with `valgrind --tool=callgrind`.
// `instructions.sh` beside Package.swift runs it and writes the table; run that script, not this tool.
//
//     TypedNotificationsInstructions <scenario> <typed|twin> <operations>
//
// Scenarios, each named as its row in the Performance article's instruction table:
// - post-0, post-1, post-10, post-100: a post with that many observers on the posting thread;
// - observe-cancel: observe, then cancel, with one long-lived observer present;
// - async-1: a post to one observer with an `async` handler, then a wait until the handler has run for it;
// - sequence-1: a post to one `for await` loop over a sequence, then a wait until the loop has the payload;
// - awaited-1: a post awaited (`awaitDelivery`) until its one queue observer has run;
// - main-actor-1: a post from a background thread to one main-actor observer, then a wait until its handler has run;
// - four-queues: four threads posting at once, each to its own type with one observer on its own serial queue, until
//   delivered (the ratio table's row; not in the instruction table, as its count depends on how the threads
//   interleave: for profiling, with callgrind or perf); `floor` as the side runs the Foundation posts alone.
// The twin is plain NotificationCenter code doing the same work (see Fixtures.swift and DeliveryFixtures.swift).
import BenchmarkScenarios
import Foundation

let usage =
    "usage: TypedNotificationsInstructions"
    + " <post-0|post-1|post-10|post-100|observe-cancel|async-1|sequence-1|awaited-1|main-actor-1|four-queues>"
    + " <typed|twin|floor (four-queues only)>"
    + " <operations>"
let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 3, let operations = Int(arguments[arguments.startIndex + 2]) else {
    print(usage)
    exit(2)
}
let scenario = arguments[arguments.startIndex]
let typed = arguments[arguments.startIndex + 1] == "typed"

/// Runs one side of `fixture`, which delivers one payload per operation.
func run(_ fixture: some TwinFixture) {
    if typed {
        fixture.postTyped(operations)
        precondition(fixture.typedSink.value == operations, "a delivery was lost")
    } else {
        fixture.postPlain(operations)
        precondition(fixture.plainSink.value == operations, "a delivery was lost")
    }
}

/// Runs one side of `fixture` on a background thread while the main thread serves the main queue, and with it the main
/// actor, whose jobs the fixture waits for; exits when done. The main thread runs its run loop, which sleeps until the
/// main queue has work (a distant timer keeps it from returning at once), rather than `dispatchMain()`, under which
/// valgrind 3.19 crashes.
func runOffTheMainThread(_ fixture: some TwinFixture & Sendable, typed: Bool, operations: Int) -> Never {
    Thread.detachNewThread {
        if typed {
            fixture.postTyped(operations)
            precondition(fixture.typedSink.value == operations, "a delivery was lost")
        } else {
            fixture.postPlain(operations)
            precondition(fixture.plainSink.value == operations, "a delivery was lost")
        }
        exit(0)
    }
    RunLoop.main.add(Timer(timeInterval: 1e9, repeats: false) { _ in }, forMode: .default)
    while true {
        _ = RunLoop.main.run(mode: .default, before: .distantFuture)
    }
}

switch scenario {
case "post-0", "post-1", "post-10", "post-100":
    let observers = Int(scenario.dropFirst("post-".count))!
    if typed {
        let fixture = TypedFixture(observers: observers)
        fixture.post(operations)
        precondition(fixture.sink.value == observers * operations, "a delivery was lost")
    } else {
        let fixture = PlainFixture(observers: observers)
        fixture.post(operations)
        precondition(fixture.sink.value == observers * operations, "a delivery was lost")
    }
case "observe-cancel":
    if typed {
        TypedFixture(observers: 1).observeThenCancel(operations)
    } else {
        PlainFixture(observers: 1).observeThenRemove(operations)
    }
case "async-1":
    run(AsyncHandlerFixture())
case "sequence-1":
    run(SequenceFixture())
case "awaited-1":
    run(AwaitedQueueFixture())
case "main-actor-1":
    runOffTheMainThread(MainActorHandOffFixture(), typed: typed, operations: operations)
case "four-queues":
    let fixture = FourQueuesFixture()
    let (run, sink) =
        switch arguments[arguments.startIndex + 1] {
        case "typed": (fixture.postTyped, fixture.typedSink)
        case "floor": (fixture.postFloor, fixture.floorSink)
        default: (fixture.postPlain, fixture.plainSink)
        }
    run(operations)
    precondition(sink.value == FourQueuesFixture.lanes * operations, "a delivery was lost")
default:
    print("unknown scenario \(scenario)\n\(usage)")
    exit(2)
}
