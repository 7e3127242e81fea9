public import Foundation
public import TypedNotifications

// `NSApplication`'s notifications, without AppKit. Named with `AppKit` first, as UIKit's application notifications, which
// an iOS app observes, have the short names. Their sender is the `NSApplication`, an `AnyObject` here.

/// The Mac app became active: `NSApplication.didBecomeActiveNotification`.
///
/// AppKit posts it on the main thread, from the `NSApplication`. The system posts it without `userInfo`, and this type
/// has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes
/// none, as the system does.
///
/// Platforms: macOS. Name: `"NSApplicationDidBecomeActiveNotification"`; confirmed by `AppKit/NSApplication.h`
/// (`NSApplicationDidBecomeActiveNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitApplicationDidBecomeActive.observeOnMainActor { _ in print("active") }
/// ```
public struct AppKitApplicationDidBecomeActive: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSApplicationDidBecomeActiveNotification"`.
    public static let notificationName = Notification.Name("NSApplicationDidBecomeActiveNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Mac app stopped being active: `NSApplication.didResignActiveNotification`.
///
/// AppKit posts it on the main thread, from the `NSApplication`. The system posts it without `userInfo`, and this type
/// has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes
/// none, as the system does.
///
/// Platforms: macOS. Name: `"NSApplicationDidResignActiveNotification"`; confirmed by `AppKit/NSApplication.h`
/// (`NSApplicationDidResignActiveNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitApplicationDidResignActive.observeOnMainActor { _ in print("inactive") }
/// ```
public struct AppKitApplicationDidResignActive: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSApplicationDidResignActiveNotification"`.
    public static let notificationName = Notification.Name("NSApplicationDidResignActiveNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Mac app is about to terminate: `NSApplication.willTerminateNotification`.
///
/// AppKit posts it on the main thread, from the `NSApplication`, before the app quits (not when it is killed, nor at a
/// sudden termination). The system posts it without `userInfo`, and this type has no payload: it decodes every
/// notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSApplicationWillTerminateNotification"`; confirmed by `AppKit/NSApplication.h`
/// (`NSApplicationWillTerminateNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitApplicationWillTerminate.observeOnMainActor { _ in print("terminating") }
/// ```
public struct AppKitApplicationWillTerminate: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSApplicationWillTerminateNotification"`.
    public static let notificationName = Notification.Name("NSApplicationWillTerminateNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
