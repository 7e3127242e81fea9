public import Foundation
public import TypedNotifications

// Foundation's notifications about the process's conditions. They carry nothing: the new state is read from
// `ProcessInfo.processInfo`. Their sender is the `ProcessInfo`, an `AnyObject` here.

/// The device's thermal state changed: `ProcessInfo.thermalStateDidChangeNotification`.
///
/// Foundation posts it from the `ProcessInfo`, on any thread; read the new state from
/// `ProcessInfo.processInfo.thermalState` (`nominal`, `fair`, `serious`, `critical`), and do less work when it rises.
/// The system posts it without `userInfo`, and this type has no payload: it decodes every notification of its name,
/// whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS. Name:
/// `"NSProcessInfoThermalStateDidChangeNotification"`; confirmed by `Foundation/NSProcessInfo.h`
/// (`NSProcessInfoThermalStateDidChangeNotification`) and public code that observes the string value.
///
/// ```swift
/// let token = ThermalStateDidChange.observe { _ in print("check ProcessInfo.processInfo.thermalState") }
/// ```
public struct ThermalStateDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSProcessInfoThermalStateDidChangeNotification"`.
    public static let notificationName = Notification.Name("NSProcessInfoThermalStateDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// Low Power Mode was turned on or off: `Notification.Name.NSProcessInfoPowerStateDidChange`.
///
/// Foundation posts it from the `ProcessInfo`, on any thread; read the new state from
/// `ProcessInfo.processInfo.isLowPowerModeEnabled`. The system posts it without `userInfo`, and this type has no
/// payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as
/// the system does.
///
/// Platforms: iOS, iPadOS, macOS 12 and later, Mac Catalyst and visionOS. Name:
/// `"NSProcessInfoPowerStateDidChangeNotification"`; confirmed by `Foundation/NSProcessInfo.h`
/// (`NSProcessInfoPowerStateDidChangeNotification`), Foundation's own code, which posts the string value, and public
/// code that observes it.
///
/// ```swift
/// let token = PowerStateDidChange.observeOnMainActor { _ in print("check isLowPowerModeEnabled") }
/// ```
public struct PowerStateDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSProcessInfoPowerStateDidChangeNotification"`.
    public static let notificationName = Notification.Name("NSProcessInfoPowerStateDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
