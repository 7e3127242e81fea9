public import Foundation
public import TypedNotifications

// `UIScene`'s lifecycle notifications, without UIKit. Their sender is the `UIScene`, an `AnyObject` here.

/// A scene is about to be added to the app: `UIScene.willConnectNotification`.
///
/// UIKit posts it on the main thread, from the `UIScene`, before the scene's delegate is told. Observe `from:` a scene
/// to hear only from it. The system posts it without `userInfo`, and this type has no payload: it decodes every
/// notification of its name, whatever its `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS (13 and later; visionOS 1). Name:
/// `"UISceneWillConnectNotification"`; confirmed by `UIKit/UIScene.h` (`UISceneWillConnectNotification`) and UIKit's
/// own code, which posts the string value, and public code that observes it.
///
/// ```swift
/// let token = SceneWillConnect.observe { scene, _ in
///     if let scene { print("scene:", type(of: scene)) }  // the `UIScene`
/// }
/// ```
public struct SceneWillConnect: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UISceneWillConnectNotification"`.
    public static let notificationName = Notification.Name("UISceneWillConnectNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A scene was removed from the app: `UIScene.didDisconnectNotification`.
///
/// UIKit posts it on the main thread, from the `UIScene`. Observe `from:` a scene to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS (13 and later; visionOS 1). Name:
/// `"UISceneDidDisconnectNotification"`; confirmed by `UIKit/UIScene.h` (`UISceneDidDisconnectNotification`) and
/// UIKit's own code and public code, which observe the string value.
///
/// ```swift
/// let token = SceneDidDisconnect.observe { scene, _ in
///     if let scene { print("scene:", type(of: scene)) }  // the `UIScene`
/// }
/// ```
public struct SceneDidDisconnect: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UISceneDidDisconnectNotification"`.
    public static let notificationName = Notification.Name("UISceneDidDisconnectNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A scene became active and now responds to the user: `UIScene.didActivateNotification`.
///
/// UIKit posts it on the main thread, from the `UIScene`. Observe `from:` a scene to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS (13 and later; visionOS 1). Name:
/// `"UISceneDidActivateNotification"`; confirmed by `UIKit/UIScene.h` (`UISceneDidActivateNotification`) and UIKit's
/// own code, which posts the string value, and public code that observes it.
///
/// ```swift
/// let token = SceneDidActivate.observe { scene, _ in
///     if let scene { print("scene:", type(of: scene)) }  // the `UIScene`
/// }
/// ```
public struct SceneDidActivate: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UISceneDidActivateNotification"`.
    public static let notificationName = Notification.Name("UISceneDidActivateNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A scene is about to resign the active state: `UIScene.willDeactivateNotification`.
///
/// UIKit posts it on the main thread, from the `UIScene`. Observe `from:` a scene to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS (13 and later; visionOS 1). Name:
/// `"UISceneWillDeactivateNotification"`; confirmed by `UIKit/UIScene.h` (`UISceneWillDeactivateNotification`) and
/// public code that observes the string value.
///
/// ```swift
/// let token = SceneWillDeactivate.observe { scene, _ in
///     if let scene { print("scene:", type(of: scene)) }  // the `UIScene`
/// }
/// ```
public struct SceneWillDeactivate: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UISceneWillDeactivateNotification"`.
    public static let notificationName = Notification.Name("UISceneWillDeactivateNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A scene is about to begin running in the foreground: `UIScene.willEnterForegroundNotification`.
///
/// UIKit posts it on the main thread, from the `UIScene`. Observe `from:` a scene to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS (13 and later; visionOS 1). Name:
/// `"UISceneWillEnterForegroundNotification"`; confirmed by `UIKit/UIScene.h`
/// (`UISceneWillEnterForegroundNotification`) and UIKit's own code, which observes the string value.
///
/// ```swift
/// let token = SceneWillEnterForeground.observe { scene, _ in
///     if let scene { print("scene:", type(of: scene)) }  // the `UIScene`
/// }
/// ```
public struct SceneWillEnterForeground: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UISceneWillEnterForegroundNotification"`.
    public static let notificationName = Notification.Name("UISceneWillEnterForegroundNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// A scene entered the background: `UIScene.didEnterBackgroundNotification`.
///
/// UIKit posts it on the main thread, from the `UIScene`. Observe `from:` a scene to hear only from it. The system
/// posts it without `userInfo`, and this type has no payload: it decodes every notification of its name, whatever its
/// `userInfo`, and ``userInfo(for:)`` writes none, as the system does.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS (13 and later; visionOS 1). Name:
/// `"UISceneDidEnterBackgroundNotification"`; confirmed by `UIKit/UIScene.h` (`UISceneDidEnterBackgroundNotification`)
/// and UIKit's own code and public code, which observe the string value.
///
/// ```swift
/// let token = SceneDidEnterBackground.observe { scene, _ in
///     if let scene { print("scene:", type(of: scene)) }  // the `UIScene`
/// }
/// ```
public struct SceneDidEnterBackground: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `"UISceneDidEnterBackgroundNotification"`.
    public static let notificationName = Notification.Name("UISceneDidEnterBackgroundNotification")

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}
