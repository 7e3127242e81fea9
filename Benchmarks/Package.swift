// swift-tools-version: 6.1
// package-benchmark needs tools 6.1+ and the "MallocInterposer" trait (its malloc metrics on Swift 6.3; no jemalloc).
import PackageDescription

let package = Package(
    name: "TypedNotificationsBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18)],
    dependencies: [
        // The library under test; it keeps zero dependencies of its own.
        .package(name: "TypedNotifications", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // The scenarios, shared by every runner: each typed fixture and its plain and MainActorMessage twins.
        .target(
            name: "BenchmarkScenarios",
            dependencies: [.product(name: "TypedNotifications", package: "TypedNotifications")]
        ),
        // Bytes in use on the heap (glibc `mallinfo2`), for memory per observation in the ratio table.
        .target(name: "CHeapStats"),
        // `swift run -c release TypedNotificationsRatios`: paired typed/twin rounds in one process, ratio table.
        .executableTarget(
            name: "TypedNotificationsRatios",
            dependencies: ["BenchmarkScenarios", "CHeapStats"]
        ),
        // `./instructions.sh`: instructions per operation, counted by callgrind, into the Performance article's table.
        .executableTarget(
            name: "TypedNotificationsInstructions",
            dependencies: ["BenchmarkScenarios"]
        ),
        // `swift package benchmark`: the same scenarios with package-benchmark's malloc metrics.
        .executableTarget(
            name: "TypedNotificationsBenchmarks",
            dependencies: [
                "BenchmarkScenarios",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/TypedNotificationsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
