public import Foundation
public import TypedNotifications

// `UIApplication`'s lifecycle notifications, without UIKit: each type carries the name UIKit posts, whose string value is
// the name of its constant in `UIKit/UIApplication.h`. Their sender is the `UIApplication`, an `AnyObject` here.

/// The app became active: `UIApplication.didBecomeActiveNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`, after the app has become active; in an app with scenes,
/// after its first scene has. The system posts it without `userInfo`, and this type has no payload: it decodes every
/// notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationDidBecomeActiveNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationDidBecomeActiveNotification`) and public code that observes the
/// string value.
///
/// ```swift
/// @MainActor final class SessionModel {
///     private(set) var refreshes = 0
///     init() {
///         ApplicationDidBecomeActive.observeOnMainActor(for: self) { model, _ in model.refreshes += 1 }
///     }
/// }
/// ```
public struct ApplicationDidBecomeActive: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationDidBecomeActiveNotification"`.
    public static let notificationName = Notification.Name("UIApplicationDidBecomeActiveNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The app is about to become inactive: `UIApplication.willResignActiveNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`, when the app is about to leave the foreground or is
/// interrupted (a call, the app switcher). The system posts it without `userInfo`, and this type has no payload: it
/// decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system
/// does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationWillResignActiveNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationWillResignActiveNotification`) and public code that observes the
/// string value.
///
/// ```swift
/// let token = ApplicationWillResignActive.observeOnMainActor { _ in print("pause the game") }
/// ```
public struct ApplicationWillResignActive: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationWillResignActiveNotification"`.
    public static let notificationName = Notification.Name("UIApplicationWillResignActiveNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The app entered the background: `UIApplication.didEnterBackgroundNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`. The system posts it without `userInfo`, and this type
/// has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes
/// none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationDidEnterBackgroundNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationDidEnterBackgroundNotification`) and public code that observes
/// the string value.
///
/// ```swift
/// let token = ApplicationDidEnterBackground.observeOnMainActor { _ in print("save the draft") }
/// ```
public struct ApplicationDidEnterBackground: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationDidEnterBackgroundNotification"`.
    public static let notificationName = Notification.Name("UIApplicationDidEnterBackgroundNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The app is about to enter the foreground: `UIApplication.willEnterForegroundNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`, on the way from the background to active. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationWillEnterForegroundNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationWillEnterForegroundNotification`) and public code that observes
/// the string value.
///
/// ```swift
/// let token = ApplicationWillEnterForeground.observeOnMainActor { _ in print("refresh the feed") }
/// ```
public struct ApplicationWillEnterForeground: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationWillEnterForegroundNotification"`.
    public static let notificationName = Notification.Name("UIApplicationWillEnterForegroundNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The app is about to terminate: `UIApplication.willTerminateNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`; not when a suspended app is terminated. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationWillTerminateNotification"`; confirmed
/// by `UIKit/UIApplication.h` (`UIApplicationWillTerminateNotification`) and public code that observes the string
/// value.
///
/// ```swift
/// let token = ApplicationWillTerminate.observe { _ in print("flush the log") }
/// ```
public struct ApplicationWillTerminate: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationWillTerminateNotification"`.
    public static let notificationName = Notification.Name("UIApplicationWillTerminateNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The system asked the app to free memory: `UIApplication.didReceiveMemoryWarningNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`. The system posts it without `userInfo`, and this type
/// has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes
/// none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationDidReceiveMemoryWarningNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationDidReceiveMemoryWarningNotification`) and public code that uses
/// the string value.
///
/// ```swift
/// final class ImageCache: Sendable {
///     func removeAll() {}
/// }
/// let cache = ImageCache()
/// ApplicationDidReceiveMemoryWarning.observe(for: cache) { cache, _ in cache.removeAll() }
/// ```
public struct ApplicationDidReceiveMemoryWarning: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationDidReceiveMemoryWarningNotification"`.
    public static let notificationName = Notification.Name("UIApplicationDidReceiveMemoryWarningNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A significant change in time happened: a new day, a change of time zone or carrier time, daylight saving time:
/// `UIApplication.significantTimeChangeNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`. The system posts it without `userInfo`, and this type
/// has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes
/// none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIApplicationSignificantTimeChangeNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationSignificantTimeChangeNotification`) and UIKit's own code, which
/// observes the string value.
///
/// ```swift
/// let token = ApplicationSignificantTimeChange.observeOnMainActor { _ in print("redraw today's agenda") }
/// ```
public struct ApplicationSignificantTimeChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationSignificantTimeChangeNotification"`.
    public static let notificationName = Notification.Name("UIApplicationSignificantTimeChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The user took a screenshot: `UIApplication.userDidTakeScreenshotNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`, after the screenshot is taken. The system posts it
/// without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIApplicationUserDidTakeScreenshotNotification"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationUserDidTakeScreenshotNotification`, iOS 7) and UIKit's own code,
/// which posts the string value.
///
/// ```swift
/// let token = ApplicationUserDidTakeScreenshot.observeOnMainActor { _ in print("offer to share") }
/// ```
public struct ApplicationUserDidTakeScreenshot: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationUserDidTakeScreenshotNotification"`.
    public static let notificationName = Notification.Name("UIApplicationUserDidTakeScreenshotNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// Protected files are about to become unreadable: the device is locking:
/// `UIApplication.protectedDataWillBecomeUnavailableNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`. Its name has no `Notification` suffix. The system posts
/// it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIApplicationProtectedDataWillBecomeUnavailable"`;
/// confirmed by `UIKit/UIApplication.h` (`UIApplicationProtectedDataWillBecomeUnavailable`) and public code that
/// observes the string value.
///
/// ```swift
/// let token = ApplicationProtectedDataWillBecomeUnavailable.observe { _ in print("close the database") }
/// ```
public struct ApplicationProtectedDataWillBecomeUnavailable: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationProtectedDataWillBecomeUnavailable"`.
    public static let notificationName = Notification.Name("UIApplicationProtectedDataWillBecomeUnavailable")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// Protected files became readable: the device was unlocked:
/// `UIApplication.protectedDataDidBecomeAvailableNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`. Its name has no `Notification` suffix. The system posts
/// it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIApplicationProtectedDataDidBecomeAvailable"`; confirmed
/// by `UIKit/UIApplication.h` (`UIApplicationProtectedDataDidBecomeAvailable`) and public code that observes the string
/// value.
///
/// ```swift
/// let token = ApplicationProtectedDataDidBecomeAvailable.observe { _ in print("open the database") }
/// ```
public struct ApplicationProtectedDataDidBecomeAvailable: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIApplicationProtectedDataDidBecomeAvailable"`.
    public static let notificationName = Notification.Name("UIApplicationProtectedDataDidBecomeAvailable")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
