// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "TypedNotifications",
    // `Synchronization.Atomic` sets the Apple floor; `SendableMetatype` needs a Swift 6.2 compiler.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "TypedNotifications", targets: ["TypedNotifications"]),
        .library(name: "TypedNotificationsTesting", targets: ["TypedNotificationsTesting"]),
        .executable(name: "TypedNotificationsDemo", targets: ["TypedNotificationsDemo"]),
    ],
    targets: [
        .target(name: "TypedNotifications"),
        .target(
            name: "TypedNotificationsTesting",
            dependencies: ["TypedNotifications"]
        ),
        .executableTarget(
            name: "TypedNotificationsDemo",
            dependencies: ["TypedNotifications"]
        ),
        .testTarget(
            name: "TypedNotificationsTests",
            dependencies: ["TypedNotifications", "TypedNotificationsTesting"]
        ),
        .testTarget(
            name: "TypedNotificationsReliabilityTests",
            dependencies: ["TypedNotifications"]
        ),
        .testTarget(
            name: "TypedNotificationsTestingTests",
            dependencies: ["TypedNotificationsTesting"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
