public import Foundation
public import TypedNotifications

// The accessibility settings that apps restyle for, without UIKit. They carry nothing: the new state is read from
// `UIAccessibility`.

/// VoiceOver started or stopped: `UIAccessibility.voiceOverStatusDidChangeNotification`.
///
/// UIKit posts it on the main thread; read the new state from `UIAccessibility.isVoiceOverRunning`. The system posts it
/// without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name:
/// `"UIAccessibilityVoiceOverStatusDidChangeNotification"`; confirmed by `UIKit/UIAccessibility.h`
/// (`UIAccessibilityVoiceOverStatusDidChangeNotification`, iOS 11) and public code that observes the string value.
///
/// ```swift
/// let token = VoiceOverStatusDidChange.observeOnMainActor { _ in print("restyle") }
/// ```
public struct VoiceOverStatusDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIAccessibilityVoiceOverStatusDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIAccessibilityVoiceOverStatusDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Reduce Motion setting changed: `UIAccessibility.reduceMotionStatusDidChangeNotification`.
///
/// UIKit posts it on the main thread; read the new state from `UIAccessibility.isReduceMotionEnabled`. The system posts
/// it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name:
/// `"UIAccessibilityReduceMotionStatusDidChangeNotification"`; confirmed by `UIKit/UIAccessibility.h`
/// (`UIAccessibilityReduceMotionStatusDidChangeNotification`, iOS 8) and UIKit's own code, which observes the string
/// value.
///
/// ```swift
/// let token = ReduceMotionStatusDidChange.observeOnMainActor { _ in print("restyle") }
/// ```
public struct ReduceMotionStatusDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIAccessibilityReduceMotionStatusDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIAccessibilityReduceMotionStatusDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Reduce Transparency setting changed: `UIAccessibility.reduceTransparencyStatusDidChangeNotification`.
///
/// UIKit posts it on the main thread; read the new state from `UIAccessibility.isReduceTransparencyEnabled`. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name:
/// `"UIAccessibilityReduceTransparencyStatusDidChangeNotification"`; confirmed by `UIKit/UIAccessibility.h`
/// (`UIAccessibilityReduceTransparencyStatusDidChangeNotification`, iOS 8) and public code that declares the string
/// value.
///
/// ```swift
/// let token = ReduceTransparencyStatusDidChange.observeOnMainActor { _ in print("restyle") }
/// ```
public struct ReduceTransparencyStatusDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIAccessibilityReduceTransparencyStatusDidChangeNotification"`.
    public static let notificationName = Notification.Name(
        "UIAccessibilityReduceTransparencyStatusDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Increase Contrast setting changed: `UIAccessibility.darkerSystemColorsStatusDidChangeNotification`.
///
/// UIKit posts it on the main thread; read the new state from `UIAccessibility.isDarkerSystemColorsEnabled`. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name:
/// `"UIAccessibilityDarkerSystemColorsStatusDidChangeNotification"`; confirmed by `UIKit/UIAccessibility.h`
/// (`UIAccessibilityDarkerSystemColorsStatusDidChangeNotification`, iOS 8) and UIKit's own code, which observes the
/// string value.
///
/// ```swift
/// let token = DarkerSystemColorsStatusDidChange.observeOnMainActor { _ in print("restyle") }
/// ```
public struct DarkerSystemColorsStatusDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIAccessibilityDarkerSystemColorsStatusDidChangeNotification"`.
    public static let notificationName = Notification.Name(
        "UIAccessibilityDarkerSystemColorsStatusDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// The Bold Text setting changed: `UIAccessibility.boldTextStatusDidChangeNotification`.
///
/// UIKit posts it on the main thread; read the new state from `UIAccessibility.isBoldTextEnabled`. The system posts it
/// without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name:
/// `"UIAccessibilityBoldTextStatusDidChangeNotification"`; confirmed by `UIKit/UIAccessibility.h`
/// (`UIAccessibilityBoldTextStatusDidChangeNotification`, iOS 8) and public code that observes the string value.
///
/// ```swift
/// let token = BoldTextStatusDidChange.observeOnMainActor { _ in print("restyle") }
/// ```
public struct BoldTextStatusDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIAccessibilityBoldTextStatusDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIAccessibilityBoldTextStatusDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// Classic Invert Colors was turned on or off: `UIAccessibility.invertColorsStatusDidChangeNotification`.
///
/// UIKit posts it on the main thread; read the new state from `UIAccessibility.isInvertColorsEnabled`. The system posts
/// it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name:
/// `"UIAccessibilityInvertColorsStatusDidChangeNotification"`; confirmed by `UIKit/UIAccessibility.h`
/// (`UIAccessibilityInvertColorsStatusDidChangeNotification`, iOS 6) and public code that observes the string value.
///
/// ```swift
/// let token = InvertColorsStatusDidChange.observeOnMainActor { _ in print("restyle") }
/// ```
public struct InvertColorsStatusDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UIAccessibilityInvertColorsStatusDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIAccessibilityInvertColorsStatusDidChangeNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
