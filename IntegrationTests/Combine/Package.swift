// swift-tools-version: 6.2
// Compiles the library's Combine publisher against OpenCombine and tests it on Linux, where Combine does not exist.
// A separate package, so that the library itself keeps zero dependencies. From the repository root:
//
//     swift test --package-path IntegrationTests/Combine
import PackageDescription

let package = Package(
    name: "TypedNotificationsCombineIntegration",
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    dependencies: [
        // The library under test, by path, whatever the clone's folder is called.
        .package(name: "TypedNotifications", path: "../.."),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", exact: "0.14.0"),
    ],
    targets: [
        // Its source files are symbolic links to Sources/TypedNotifications/NotificationPublisher.swift, the very
        // file the library compiles where Combine exists, here compiled against OpenCombine, and to the package's
        // internal FIFO, which the publisher buffers with.
        .target(
            name: "TypedNotificationsOpenCombine",
            dependencies: [
                .product(name: "TypedNotifications", package: "TypedNotifications"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ],
            swiftSettings: [.define("TYPED_NOTIFICATIONS_OPENCOMBINE")]
        ),
        .testTarget(
            name: "TypedNotificationsOpenCombineTests",
            dependencies: [
                "TypedNotificationsOpenCombine",
                .product(name: "TypedNotifications", package: "TypedNotifications"),
                .product(name: "OpenCombine", package: "OpenCombine"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// The library's upcoming features, so that the publisher's file compiles here as it does in the library.
for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
