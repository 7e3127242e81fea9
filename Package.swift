// swift-tools-version: 6.2
import PackageDescription

let package = Package(
    name: "TypedNotifications",
    // The floor of Swift's concurrency runtime without back-deployment shims. `Notifiable` refines `Sendable`, which
    // makes its metatypes `Sendable` from Swift 6.2 (SE-0470, Xcode 26) on, with no newer OS; nothing needs a newer
    // compiler (no `weak let`, SE-0481, Swift 6.3). APIs that need a newer OS say so with `@available`.
    platforms: [.macOS(.v12), .iOS(.v15), .tvOS(.v15), .watchOS(.v8), .visionOS(.v1)],
    products: [
        .library(name: "TypedNotifications", targets: ["TypedNotifications"]),
        .library(name: "TypedNotificationsTesting", targets: ["TypedNotificationsTesting"]),
        // The system's notifications (UIKit, AppKit, Foundation) as `Notifiable` types: a product of its own, so that an
        // app that posts only its own notifications links none of it.
        .library(name: "TypedSystemNotifications", targets: ["TypedSystemNotifications"]),
    ],
    targets: [
        .target(name: "TypedNotifications", dependencies: ["CTypedNotificationsRuntime"]),
        // C11 atomics, on every platform: `Synchronization.Atomic` needs macOS 15 / iOS 18.
        .target(name: "CTypedNotificationsRuntime"),
        .target(
            name: "TypedNotificationsTesting",
            dependencies: ["TypedNotifications"]
        ),
        .target(
            name: "TypedSystemNotifications",
            dependencies: ["TypedNotifications"]
        ),
        // An executable target only, not a product: `swift run TypedNotificationsDemo` runs it here, and packages
        // that depend on this one are not offered it.
        .executableTarget(
            name: "TypedNotificationsDemo",
            dependencies: ["TypedNotifications"]
        ),
        // What the test targets share: the seeded generator and the run's seed, locked state, and waiting helpers.
        // Not a product.
        .target(
            name: "TypedNotificationsTestSupport",
            dependencies: ["TypedNotifications"],
            path: "Tests/TypedNotificationsTestSupport"
        ),
        // Public conformers written with nothing but `: Notifiable`, in a module of their own: that it compiles proves
        // a public type needs no more. Not a product.
        .target(
            name: "TypedNotificationsPublicConformers",
            dependencies: ["TypedNotifications"],
            path: "Tests/TypedNotificationsPublicConformers"
        ),
        .testTarget(
            name: "TypedNotificationsTests",
            dependencies: [
                "TypedNotifications", "TypedNotificationsTesting", "TypedNotificationsTestSupport",
                "TypedNotificationsPublicConformers",
            ]
        ),
        .testTarget(
            name: "TypedNotificationsReliabilityTests",
            dependencies: ["TypedNotifications", "TypedNotificationsTestSupport"]
        ),
        .testTarget(
            name: "TypedNotificationsTestingTests",
            dependencies: ["TypedNotifications", "TypedNotificationsTesting", "TypedNotificationsTestSupport"]
        ),
        .testTarget(
            name: "TypedSystemNotificationsTests",
            dependencies: ["TypedNotifications", "TypedSystemNotifications", "TypedNotificationsTestSupport"]
        ),
        // Compiles every ```swift block of the doc comments in Sources/, copied into a generated file, and checks that the
        // file is up to date: see Tests/TypedNotificationsDocCommentTests/DocCommentExamplesTests.swift.
        .testTarget(
            name: "TypedNotificationsDocCommentTests",
            dependencies: ["TypedNotifications", "TypedNotificationsTesting", "TypedSystemNotifications"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

for target in package.targets where target.name != "CTypedNotificationsRuntime" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
