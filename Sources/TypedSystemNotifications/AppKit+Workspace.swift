public import Foundation
public import TypedNotifications

// `NSWorkspace`'s sleep, wake, launch and termination notifications, without AppKit. AppKit posts them in the
// workspace's own center, `NSWorkspace.shared.notificationCenter`, which every observation of them must name.

/// The Mac is about to sleep: `NSWorkspace.willSleepNotification`.
///
/// AppKit posts it in `NSWorkspace.shared.notificationCenter`, not in `NotificationCenter.default`: observe it `in:
/// NSWorkspace.shared.notificationCenter`. Its sender is the `NSWorkspace`. The system posts it without `userInfo`, and
/// this type has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)``
/// writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSWorkspaceWillSleepNotification"`; confirmed by `AppKit/NSWorkspace.h`
/// (`NSWorkspaceWillSleepNotification`) and public code that observes the string value in the workspace's center.
///
/// ```swift
/// // In an app: `in: NSWorkspace.shared.notificationCenter`.
/// func observe(in workspaceCenter: NotificationCenter) -> NotificationToken {
///     AppKitWorkspaceWillSleep.observe(in: workspaceCenter) { _ in print("the mac is about to sleep") }
/// }
/// ```
public struct AppKitWorkspaceWillSleep: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSWorkspaceWillSleepNotification"`.
    public static let notificationName = Notification.Name("NSWorkspaceWillSleepNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Mac woke from sleep: `NSWorkspace.didWakeNotification`.
///
/// AppKit posts it in `NSWorkspace.shared.notificationCenter`, not in `NotificationCenter.default`: observe it `in:
/// NSWorkspace.shared.notificationCenter`. Its sender is the `NSWorkspace`. The system posts it without `userInfo`, and
/// this type has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)``
/// writes none, as the system does.
///
/// Platforms: macOS. Name: `"NSWorkspaceDidWakeNotification"`; confirmed by `AppKit/NSWorkspace.h`
/// (`NSWorkspaceDidWakeNotification`) and public code that observes the string value in the workspace's center.
///
/// ```swift
/// // In an app: `in: NSWorkspace.shared.notificationCenter`.
/// func observe(in workspaceCenter: NotificationCenter) -> NotificationToken {
///     AppKitWorkspaceDidWake.observe(in: workspaceCenter) { _ in print("the mac woke from sleep") }
/// }
/// ```
public struct AppKitWorkspaceDidWake: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSWorkspaceDidWakeNotification"`.
    public static let notificationName = Notification.Name("NSWorkspaceDidWakeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The app that a workspace notification is about: the `NSRunningApplication` under `NSWorkspaceApplicationKey`.
///
/// The key is required: a notification without it, or with a value that is not an object, is not decoded, and its
/// typed observers skip it (debug builds report it through `NotificationDiagnostics`).
///
/// ```swift
/// final class Dock: Sendable {}
/// let app = WorkspaceApplication(application: Dock())  // in a test; AppKit posts an `NSRunningApplication`
/// ```
public struct WorkspaceApplication: Hashable, @unchecked Sendable {
    // `@unchecked Sendable` is safe because `application` is immutable and `NSRunningApplication` is thread-safe (see
    // the property's documentation).
    /// The `NSRunningApplication`, an `AnyObject` here: cast it with `as? NSRunningApplication` where AppKit is
    /// imported.
    ///
    /// `@unchecked Sendable` is safe because it is only ever read, never replaced, and AppKit documents
    /// `NSRunningApplication` as thread-safe: "its properties are returned atomically" (`AppKit/NSRunningApplication.h`).
    /// Another object given to ``init(application:)`` in a test should be `Sendable` itself.
    public let application: AnyObject

    /// The app `application` stands for.
    ///
    /// ```swift
    /// final class Finder: Sendable {}
    /// let launched = WorkspaceApplication(application: Finder())
    /// ```
    public init(application: AnyObject) {
        self.application = application
    }

    /// `"NSWorkspaceApplicationKey"`, the `userInfo` key of the running application.
    public static let applicationKey = "NSWorkspaceApplicationKey"

    /// Equal when they hold the same object.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.application === rhs.application }

    /// Hashes the object's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(application)) }

    static func decode(_ notification: Notification) throws -> Self {
        Self(
            application: try SystemUserInfo(notification).required(
                applicationKey, as: "NSRunningApplication", SystemValue.object))
    }

    var userInfo: [AnyHashable: Any] { [Self.applicationKey: application] }
}

/// An app finished launching: `NSWorkspace.didLaunchApplicationNotification`.
///
/// AppKit posts it in `NSWorkspace.shared.notificationCenter`, not in `NotificationCenter.default`: observe it `in:
/// NSWorkspace.shared.notificationCenter`. Its sender is the `NSWorkspace`, and its `userInfo` holds the app's
/// `NSRunningApplication`, which ``payload(from:)`` decodes into a ``WorkspaceApplication`` (what is required is
/// there).
///
/// Platforms: macOS. Name: `"NSWorkspaceDidLaunchApplicationNotification"`; key: `"NSWorkspaceApplicationKey"`;
/// confirmed by `AppKit/NSWorkspace.h` (`NSWorkspaceDidLaunchApplicationNotification`, `NSWorkspaceApplicationKey`) and
/// public code that observes the name and reads the key's string value.
///
/// ```swift
/// // In an app: `in: NSWorkspace.shared.notificationCenter`.
/// func observe(in workspaceCenter: NotificationCenter) -> NotificationToken {
///     AppKitWorkspaceDidLaunchApplication.observe(in: workspaceCenter) { app in print(app.application) }
/// }
/// ```
public enum AppKitWorkspaceDidLaunchApplication: Notifiable {
    /// The app.
    public typealias Payload = WorkspaceApplication

    /// `"NSWorkspaceDidLaunchApplicationNotification"`.
    public static let notificationName = Notification.Name("NSWorkspaceDidLaunchApplicationNotification")

    /// Decodes AppKit's `userInfo`; throws a `NotificationDecodingError` as ``WorkspaceApplication`` says.
    public static func payload(from notification: Notification) throws -> WorkspaceApplication {
        try WorkspaceApplication.decode(notification)
    }

    /// AppKit's `userInfo` for `app`.
    public static func userInfo(for app: WorkspaceApplication) -> [AnyHashable: Any]? { app.userInfo }
}

/// An app terminated: `NSWorkspace.didTerminateApplicationNotification`.
///
/// AppKit posts it in `NSWorkspace.shared.notificationCenter`, not in `NotificationCenter.default`: observe it `in:
/// NSWorkspace.shared.notificationCenter`. Its sender is the `NSWorkspace`, and its `userInfo` holds the app's
/// `NSRunningApplication`, which ``payload(from:)`` decodes into a ``WorkspaceApplication`` (what is required is
/// there).
///
/// Platforms: macOS. Name: `"NSWorkspaceDidTerminateApplicationNotification"`; key: `"NSWorkspaceApplicationKey"`;
/// confirmed by `AppKit/NSWorkspace.h` (`NSWorkspaceDidTerminateApplicationNotification`, `NSWorkspaceApplicationKey`)
/// and public code that observes the name and reads the key's string value.
///
/// ```swift
/// // In an app: `in: NSWorkspace.shared.notificationCenter`.
/// func observe(in workspaceCenter: NotificationCenter) -> NotificationToken {
///     AppKitWorkspaceDidTerminateApplication.observe(in: workspaceCenter) { app in print(app.application) }
/// }
/// ```
public enum AppKitWorkspaceDidTerminateApplication: Notifiable {
    /// The app.
    public typealias Payload = WorkspaceApplication

    /// `"NSWorkspaceDidTerminateApplicationNotification"`.
    public static let notificationName = Notification.Name("NSWorkspaceDidTerminateApplicationNotification")

    /// Decodes AppKit's `userInfo`; throws a `NotificationDecodingError` as ``WorkspaceApplication`` says.
    public static func payload(from notification: Notification) throws -> WorkspaceApplication {
        try WorkspaceApplication.decode(notification)
    }

    /// AppKit's `userInfo` for `app`.
    public static func userInfo(for app: WorkspaceApplication) -> [AnyHashable: Any]? { app.userInfo }
}
