public import Foundation
public import TypedNotifications

// `UIDevice`'s notifications, without UIKit. They carry nothing: the state they announce is read from `UIDevice.current`.
// Their sender is the `UIDevice`, an `AnyObject` here.

/// The device's physical orientation changed: `UIDevice.orientationDidChangeNotification`.
///
/// UIKit posts it on the main thread, from the `UIDevice`, once an app has called
/// `beginGeneratingDeviceOrientationNotifications()`; read the orientation from `UIDevice.current.orientation`. The
/// system posts it without `userInfo`, and this type has no payload: it decodes every notification of its name,
/// whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS and Mac Catalyst. Name: `"UIDeviceOrientationDidChangeNotification"`; confirmed by
/// `UIKit/UIDevice.h` (`UIDeviceOrientationDidChangeNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = DeviceOrientationDidChange.observeOnMainActor { _ in print("re-layout") }
/// ```
public struct DeviceOrientationDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIDeviceOrientationDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIDeviceOrientationDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The battery started or stopped charging, or became full: `UIDevice.batteryStateDidChangeNotification`.
///
/// UIKit posts it on the main thread, from the `UIDevice`, while `UIDevice.current.isBatteryMonitoringEnabled` is
/// `true`; read the state from `UIDevice.current.batteryState`. The system posts it without `userInfo`, and this type
/// has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes
/// none, as the system does.
///
/// Platforms: iOS, iPadOS and Mac Catalyst. Name: `"UIDeviceBatteryStateDidChangeNotification"`; confirmed by
/// `UIKit/UIDevice.h` (`UIDeviceBatteryStateDidChangeNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = DeviceBatteryStateDidChange.observeOnMainActor { _ in print("charging changed") }
/// ```
public struct DeviceBatteryStateDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIDeviceBatteryStateDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIDeviceBatteryStateDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The battery level changed: `UIDevice.batteryLevelDidChangeNotification`.
///
/// UIKit posts it on the main thread, from the `UIDevice`, while battery monitoring is enabled, at most once a minute;
/// read the level from `UIDevice.current.batteryLevel`. The system posts it without `userInfo`, and this type has no
/// payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as
/// the system does.
///
/// Platforms: iOS, iPadOS and Mac Catalyst. Name: `"UIDeviceBatteryLevelDidChangeNotification"`; confirmed by
/// `UIKit/UIDevice.h` (`UIDeviceBatteryLevelDidChangeNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = DeviceBatteryLevelDidChange.observeOnMainActor { _ in print("battery level changed") }
/// ```
public struct DeviceBatteryLevelDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIDeviceBatteryLevelDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIDeviceBatteryLevelDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
