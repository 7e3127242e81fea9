import BenchmarkScenarios

// Scenarios whose deliveries cross threads and are waited for, kept apart from the rest of the table so that each
// scenario stays one block of its own.

/// Four threads posting at once, each to a type of its own with one observer on a serial queue of its own, until
/// delivered, against plain observers whose blocks dispatch to the same queues (see ``FourQueuesFixture``). The
/// package's ideal here is four independent lanes: a queued delivery that takes a lock every lane shares makes the
/// threads wait for one another, which the plain twin never does.
func fourQueuesScenario() -> TimedScenario {
    // The title fits the table's column: "4 threads at once, each its own type and queue, until delivered".
    TimedScenario(title: "4 threads, own type and queue each, delivered", twin: "plain", target: 0.70, stretch: nil) {
        let fixture = FourQueuesFixture()
        return Pair(
            typed: Side(run: fixture.postTyped, sink: fixture.typedSink),
            twin: Side(run: fixture.postPlain, sink: fixture.plainSink),
            deliveriesPerOperation: FourQueuesFixture.lanes
        )
    }
}

/// The floor of ``fourQueuesScenario()``'s typed side: the same four threads' Foundation posts, which a typed post makes
/// too, to plain observers that only count (no hop to a queue), against the same plain twin. What a typed post costs
/// above it is its own routing, queueing and drain.
func fourQueuesFloorScenario() -> TimedScenario {
    TimedScenario(title: "4 threads, Foundation posts alone (floor)", twin: "plain", target: nil, stretch: nil) {
        let fixture = FourQueuesFixture()
        return Pair(
            typed: Side(run: fixture.postFloor, sink: fixture.floorSink),
            twin: Side(run: fixture.postPlain, sink: fixture.plainSink),
            deliveriesPerOperation: FourQueuesFixture.lanes
        )
    }
}
