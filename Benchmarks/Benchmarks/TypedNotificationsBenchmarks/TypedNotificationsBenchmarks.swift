import Benchmark
let benchmarks: @Sendable () -> Void = {
 Benchmark("noop") { b in for _ in b.scaledIterations { blackHole(1) } }
}
