public import Foundation
public import TypedNotifications

// Foundation's notifications about time, the clock and the locale. They carry nothing: the new state is read from
// `Date`, `TimeZone.current` or `Locale.current`. Where both Apple's and Swift's Foundation declare the name, the type
// takes Foundation's symbol, whose value is each platform's own; elsewhere, the value Apple's headers name.

/// The system clock was changed: `Notification.Name.NSSystemClockDidChange`.
///
/// Foundation posts it, with no sender, when the clock is set (by the user or the network), not as time passes. The
/// system posts it without `userInfo`, and this type has no payload: it decodes every notification of its name,
/// whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS. Name:
/// `"NSSystemClockDidChangeNotification"`; confirmed by `Foundation/NSDate.h` (`NSSystemClockDidChangeNotification`)
/// and public code that observes the string value.
///
/// ```swift
/// let token = SystemClockDidChange.observe { _ in print("re-arm the timers") }
/// ```
public struct SystemClockDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"NSSystemClockDidChangeNotification"`.
    public static let notificationName = Notification.Name("NSSystemClockDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The system's time zone changed: `Notification.Name.NSSystemTimeZoneDidChange`.
///
/// Foundation posts it, with no sender, once the system time zone has changed (read the new one from
/// `TimeZone.current`). The system posts it without `userInfo`, and this type has no payload: it decodes every
/// notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS; Linux, under Swift's Foundation's name.
/// Name: `Notification.Name.NSSystemTimeZoneDidChange`; confirmed by `Foundation/NSTimeZone.h`
/// (`NSSystemTimeZoneDidChangeNotification`, whose value is `"NSSystemTimeZoneDidChangeNotification"` by public code
/// that observes it) and Foundation's symbol, used here so that the name is each platform's.
///
/// ```swift
/// let token = SystemTimeZoneDidChange.observeOnMainActor { _ in print(TimeZone.current.identifier) }
/// ```
public struct SystemTimeZoneDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `Notification.Name.NSSystemTimeZoneDidChange`: `"NSSystemTimeZoneDidChangeNotification"` on Apple platforms, and Swift's Foundation's own name elsewhere, under which it posts.
    public static let notificationName = Notification.Name.NSSystemTimeZoneDidChange

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The user's locale changed: `NSLocale.currentLocaleDidChangeNotification`.
///
/// Foundation posts it, with no sender, when the user changes the region or language settings (read the new one from
/// `Locale.current`, or `Locale.autoupdatingCurrent`). The system posts it without `userInfo`, and this type has no
/// payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as
/// the system does.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS; Linux, under Swift's Foundation's name.
/// Name: `NSLocale.currentLocaleDidChangeNotification`; confirmed by `Foundation/NSLocale.h`
/// (`NSCurrentLocaleDidChangeNotification`, whose value is `"NSCurrentLocaleDidChangeNotification"` by public code that
/// observes it) and Foundation's symbol.
///
/// ```swift
/// let token = CurrentLocaleDidChange.observeOnMainActor { _ in print("reformat dates") }
/// ```
public struct CurrentLocaleDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `NSLocale.currentLocaleDidChangeNotification`: `"NSCurrentLocaleDidChangeNotification"` on Apple platforms, and Swift's Foundation's own name elsewhere.
    public static let notificationName = NSLocale.currentLocaleDidChangeNotification

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The calendar day changed: midnight passed: `Notification.Name.NSCalendarDayChanged`.
///
/// Foundation posts it, with no sender, at midnight in the current time zone; not exactly at it if the device was
/// asleep, and only while the app runs. The system posts it without `userInfo`, and this type has no payload: it
/// decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system
/// does.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS; Linux. Name:
/// `Notification.Name.NSCalendarDayChanged`; confirmed by `Foundation/NSCalendar.h`
/// (`NSCalendarDayChangedNotification`) and Foundation's symbol, whose value is that on every platform.
///
/// ```swift
/// let token = CalendarDayChanged.observeOnMainActor { _ in print("a new day") }
/// ```
public struct CalendarDayChanged: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `Notification.Name.NSCalendarDayChanged`: `"NSCalendarDayChangedNotification"`.
    public static let notificationName = Notification.Name.NSCalendarDayChanged

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
