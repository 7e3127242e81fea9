public import Foundation
public import TypedNotifications

// `NSWindow`'s key and main changes, without AppKit. Named with `AppKit` first, as `UIWindow` has notifications of the
// same names. Their sender is the `NSWindow`, an `AnyObject` here.

/// A window became the key window, which receives keyboard events: `NSWindow.didBecomeKeyNotification`.
///
/// AppKit posts it on the main thread, from the `NSWindow`: observe `from:` a window to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSWindowDidBecomeKeyNotification"`; confirmed by `AppKit/NSWindow.h`
/// (`NSWindowDidBecomeKeyNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitWindowDidBecomeKey.observe { window, _ in
///     if let window { print("window:", type(of: window)) }  // the `NSWindow`
/// }
/// ```
public struct AppKitWindowDidBecomeKey: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSWindowDidBecomeKeyNotification"`.
    public static let notificationName = Notification.Name("NSWindowDidBecomeKeyNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A window stopped being the key window: `NSWindow.didResignKeyNotification`.
///
/// AppKit posts it on the main thread, from the `NSWindow`: observe `from:` a window to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSWindowDidResignKeyNotification"`; confirmed by `AppKit/NSWindow.h`
/// (`NSWindowDidResignKeyNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitWindowDidResignKey.observe { window, _ in
///     if let window { print("window:", type(of: window)) }  // the `NSWindow`
/// }
/// ```
public struct AppKitWindowDidResignKey: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSWindowDidResignKeyNotification"`.
    public static let notificationName = Notification.Name("NSWindowDidResignKeyNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A window became the main window, the one the user works in: `NSWindow.didBecomeMainNotification`.
///
/// AppKit posts it on the main thread, from the `NSWindow`: observe `from:` a window to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSWindowDidBecomeMainNotification"`; confirmed by `AppKit/NSWindow.h`
/// (`NSWindowDidBecomeMainNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitWindowDidBecomeMain.observe { window, _ in
///     if let window { print("window:", type(of: window)) }  // the `NSWindow`
/// }
/// ```
public struct AppKitWindowDidBecomeMain: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSWindowDidBecomeMainNotification"`.
    public static let notificationName = Notification.Name("NSWindowDidBecomeMainNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A window stopped being the main window: `NSWindow.didResignMainNotification`.
///
/// AppKit posts it on the main thread, from the `NSWindow`: observe `from:` a window to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSWindowDidResignMainNotification"`; confirmed by `AppKit/NSWindow.h`
/// (`NSWindowDidResignMainNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = AppKitWindowDidResignMain.observe { window, _ in
///     if let window { print("window:", type(of: window)) }  // the `NSWindow`
/// }
/// ```
public struct AppKitWindowDidResignMain: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSWindowDidResignMainNotification"`.
    public static let notificationName = Notification.Name("NSWindowDidResignMainNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
