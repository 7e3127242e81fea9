// package-benchmark suite: the scenarios of `TypedNotificationsRatios`, as paired benchmarks named
// "<scenario> · typed", "<scenario> · plain" and "<scenario> · MainActorMessage", measured with the malloc
// interposer's metrics (allocations and bytes per post and per observation) besides time.
//
// Run from Benchmarks/: `swift package benchmark` (all) or `swift package benchmark --filter "post 0.*"` (`--filter`
// must match the whole name). Each iteration runs 1,000 operations (scaling factor `.kilo`); the default output divides
// by it (columns marked `*`), so counts and times read per post / per observation.
// `TYPED_NOTIFICATIONS_BENCHMARK_SMOKE=1` cuts every benchmark to 1 warm-up and at most 3 iterations (CI smoke).
import Benchmark
import BenchmarkScenarios
import Foundation

/// Metrics for every benchmark: time, plus the interposer's allocation counts and bytes.
let metrics: [BenchmarkMetric] = [
    .wallClock,
    .mallocCountTotal,
    .mallocBytesCount,
    .mallocFreeDelta,
    .memoryLeakedBytes,
]

/// A fixture made in the benchmark's setup and released in its teardown.
final class Holder<Value>: @unchecked Sendable {
    var value: Value?
}

let benchmarks: @Sendable () -> Void = {
    let smoke = ProcessInfo.processInfo.environment["TYPED_NOTIFICATIONS_BENCHMARK_SMOKE"] != nil
    func configuration(_ scaling: BenchmarkScalingFactor) -> Benchmark.Configuration {
        .init(
            metrics: metrics,
            warmupIterations: smoke ? 1 : 3,
            scalingFactor: scaling,
            maxDuration: smoke ? .milliseconds(100) : .seconds(1),
            maxIterations: smoke ? 3 : 1_000
        )
    }

    // MARK: Posting with 0, 1, 10, 100, 1,000 observers on the name

    for observers in [0, 1, 10, 100, 1_000] {
        let scenario = observers == 1 ? "post 1 observer" : "post \(observers) observers"
        let scaling: BenchmarkScalingFactor = .kilo

        let typed = Holder<TypedFixture>()
        Benchmark(
            "\(scenario) · typed",
            configuration: configuration(scaling),
            closure: { benchmark in
                let fixture = typed.value!
                benchmark.startMeasurement()
                fixture.post(benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
            },
            setup: { typed.value = TypedFixture(observers: observers) },
            teardown: { typed.value = nil }
        )

        let plain = Holder<PlainFixture>()
        Benchmark(
            "\(scenario) · plain",
            configuration: configuration(scaling),
            closure: { benchmark in
                let fixture = plain.value!
                benchmark.startMeasurement()
                fixture.post(benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
            },
            setup: { plain.value = PlainFixture(observers: observers) },
            teardown: { plain.value = nil }
        )

        // Foundation's MainActorMessage has no observers-on-other-names or 1,000-observer target; 0 is kept for
        // the per-post allocation baseline.
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *), observers <= 100 {
            let message = Holder<MessageFixture>()
            Benchmark(
                "\(scenario) · MainActorMessage",
                configuration: configuration(scaling),
                closure: { @MainActor benchmark async in
                    let fixture = message.value!
                    benchmark.startMeasurement()
                    fixture.post(benchmark.scaledIterations.count)
                    benchmark.stopMeasurement()
                },
                setup: { @MainActor in message.value = MessageFixture(observers: observers) },
                teardown: { @MainActor in message.value = nil }
            )
        }
    }

    // MARK: 1 observer plus 1,000 observers on other names

    let typedOthers = Holder<TypedFixture>()
    Benchmark(
        "post 1 observer + 1000 on other names · typed",
        configuration: configuration(.kilo),
        closure: { benchmark in
            let fixture = typedOthers.value!
            benchmark.startMeasurement()
            fixture.post(benchmark.scaledIterations.count)
            benchmark.stopMeasurement()
        },
        setup: { typedOthers.value = TypedFixture(observers: 1, observersOnOtherNames: 1_000) },
        teardown: { typedOthers.value = nil }
    )
    let plainOthers = Holder<PlainFixture>()
    Benchmark(
        "post 1 observer + 1000 on other names · plain",
        configuration: configuration(.kilo),
        closure: { benchmark in
            let fixture = plainOthers.value!
            benchmark.startMeasurement()
            fixture.post(benchmark.scaledIterations.count)
            benchmark.stopMeasurement()
        },
        setup: { plainOthers.value = PlainFixture(observers: 1, observersOnOtherNames: 1_000) },
        teardown: { plainOthers.value = nil }
    )

    // MARK: Observe then cancel, with 1 (target) or 1,000 (scaling) long-lived observers present

    for longLived in [1, 1_000] {
        let scenario = "observe then cancel, \(longLived) long-lived"
        let typedCancel = Holder<TypedFixture>()
        Benchmark(
            "\(scenario) · typed",
            configuration: configuration(.kilo),
            closure: { benchmark in
                let fixture = typedCancel.value!
                benchmark.startMeasurement()
                fixture.observeThenCancel(benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
            },
            setup: { typedCancel.value = TypedFixture(observers: longLived) },
            teardown: { typedCancel.value = nil }
        )
        let plainCancel = Holder<PlainFixture>()
        Benchmark(
            "\(scenario) · plain",
            configuration: configuration(.kilo),
            closure: { benchmark in
                let fixture = plainCancel.value!
                benchmark.startMeasurement()
                fixture.observeThenRemove(benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
            },
            setup: { plainCancel.value = PlainFixture(observers: longLived) },
            teardown: { plainCancel.value = nil }
        )
    }

    // MARK: Memory per observation: observations kept alive (memoryLeakedBytes = bytes each one keeps)

    // Each iteration makes a fixture with one observer, then adds 1,000 more, which stay alive until the measurement
    // has stopped. The fixture reserves its token array first, so only what the observations themselves keep is
    // counted: "Malloc / free Δ (bytes)" is the bytes one observation keeps, "Malloc / free Δ" its allocations, and
    // "Malloc (total)" every allocation made while registering it (including transient ones).
    do {
        let scenario = "observe 1000 more, kept"
        let scaling: BenchmarkScalingFactor = .kilo
        Benchmark(
            "\(scenario) · typed",
            configuration: configuration(scaling),
            closure: { benchmark in
                let fixture = TypedFixture(observers: 1)
                fixture.reserve(benchmark.scaledIterations.count)
                benchmark.startMeasurement()
                fixture.addObservers(benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
                withExtendedLifetime(fixture) {}
            }
        )
        Benchmark(
            "\(scenario) · plain",
            configuration: configuration(scaling),
            closure: { benchmark in
                let fixture = PlainFixture(observers: 1)
                fixture.reserve(benchmark.scaledIterations.count)
                benchmark.startMeasurement()
                fixture.addObservers(benchmark.scaledIterations.count)
                benchmark.stopMeasurement()
                withExtendedLifetime(fixture) {}
            }
        )
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            Benchmark(
                "\(scenario) · MainActorMessage",
                configuration: configuration(scaling),
                closure: { @MainActor benchmark async in
                    let fixture = MessageFixture(observers: 1)
                    fixture.reserve(benchmark.scaledIterations.count)
                    benchmark.startMeasurement()
                    fixture.addObservers(benchmark.scaledIterations.count)
                    benchmark.stopMeasurement()
                    withExtendedLifetime(fixture) {}
                }
            )
        }
    }

    /// A typed and a plain benchmark of a ``TwinFixture``, named "<scenario> · typed" and "<scenario> · plain".
    func twinBenchmarks(_ scenario: String, make: @escaping @Sendable () -> some TwinFixture) {
        for typed in [true, false] {
            let holder = Holder<any TwinFixture>()
            Benchmark(
                "\(scenario) · \(typed ? "typed" : "plain")",
                configuration: configuration(.kilo),
                closure: { benchmark in
                    let fixture = holder.value!
                    benchmark.startMeasurement()
                    if typed {
                        fixture.postTyped(benchmark.scaledIterations.count)
                    } else {
                        fixture.postPlain(benchmark.scaledIterations.count)
                    }
                    benchmark.stopMeasurement()
                },
                setup: { holder.value = make() },
                teardown: { holder.value = nil }
            )
        }
    }

    // MARK: An `async` handler: each operation is one post, then a wait until the handler has run for it

    // The plain twin yields into an `AsyncStream` whose consuming task awaits the same handler (see
    // `AsyncHandlerFixture`).
    twinBenchmarks("async handler 1 observer") { AsyncHandlerFixture() }

    // MARK: An awaited post: each operation is one post, awaited until its queue observer has run

    // The plain twin's queue observer signals a semaphore the poster waits on (see `AwaitedQueueFixture`).
    twinBenchmarks("awaited post 1 queue observer") { AwaitedQueueFixture() }

    // MARK: Two threads posting at once (1 observer); time is the wall time of both threads' posts

    let typedThreads = Holder<TypedFixture>()
    Benchmark(
        "post from 2 threads, 1 observer · typed",
        configuration: configuration(.kilo),
        closure: { benchmark in
            let fixture = typedThreads.value!
            let count = benchmark.scaledIterations.count
            benchmark.startMeasurement()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in fixture.post(count) }
            benchmark.stopMeasurement()
        },
        setup: { typedThreads.value = TypedFixture(observers: 1) },
        teardown: { typedThreads.value = nil }
    )
    let plainThreads = Holder<PlainFixture>()
    Benchmark(
        "post from 2 threads, 1 observer · plain",
        configuration: configuration(.kilo),
        closure: { benchmark in
            let fixture = plainThreads.value!
            let count = benchmark.scaledIterations.count
            benchmark.startMeasurement()
            DispatchQueue.concurrentPerform(iterations: 2) { _ in fixture.post(count) }
            benchmark.stopMeasurement()
        },
        setup: { plainThreads.value = PlainFixture(observers: 1) },
        teardown: { plainThreads.value = nil }
    )
}
