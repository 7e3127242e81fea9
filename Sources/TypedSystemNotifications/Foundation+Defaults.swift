public import Foundation
public import TypedNotifications

// Foundation's notifications about stored settings: `UserDefaults` in this process, and iCloud's key-value store.

/// A `UserDefaults` value changed in this process: `UserDefaults.didChangeNotification`.
///
/// Foundation posts it from the `UserDefaults` that changed, on the thread that changed it; not for changes made by
/// other processes (observe a key with key-value observing for those). The system posts it without `userInfo`, and this
/// type has no payload: it decodes every notification of its name, whatever its `userInfo`, and ``userInfo(for:)``
/// writes none, as the system does.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS; Linux. Name:
/// `UserDefaults.didChangeNotification`; confirmed by `Foundation/NSUserDefaults.h`
/// (`NSUserDefaultsDidChangeNotification`) and Foundation's symbol, whose value is that on every platform.
///
/// ```swift
/// let token = UserDefaultsDidChange.observe { _ in print("reload the settings") }
/// ```
public struct UserDefaultsDidChange: Notifiable, Hashable, Sendable {
    /// The notification, which carries nothing.
    public init() {}

    /// `UserDefaults.didChangeNotification`: `"NSUserDefaultsDidChangeNotification"` on every platform.
    public static let notificationName = UserDefaults.didChangeNotification

    /// `nil`: the system posts this notification without `userInfo`.
    public static func userInfo(for payload: Self) -> [AnyHashable: Any]? { nil }
}

/// iCloud changed values of the app's key-value store: `NSUbiquitousKeyValueStore.didChangeExternallyNotification`.
///
/// Foundation posts it from the `NSUbiquitousKeyValueStore`, on any thread, when values change in iCloud (another
/// device wrote them), at the first sync, when the store exceeds its quota, or when the iCloud account changes. Its
/// `userInfo` says why (`NSUbiquitousKeyValueStoreChangeReasonKey`, an `NSNumber` of an `NSInteger`) and which keys
/// changed (`NSUbiquitousKeyValueStoreChangedKeysKey`, an `NSArray` of `NSString`s), which ``payload(from:)`` decodes
/// into ``reason`` and ``changedKeys``. The reason is required: a notification without it, or with a value that is not a
/// number, is not decoded, and its typed observers skip it (debug builds report it through `NotificationDiagnostics`).
/// The changed keys are optional: `nil` when the key is absent; an array or a set of strings is read, and anything else
/// is not decoded.
///
/// Platforms: iOS, iPadOS, macOS, Mac Catalyst, tvOS, visionOS and watchOS. Name:
/// `"NSUbiquitousKeyValueStoreDidChangeExternallyNotification"`; keys: `"NSUbiquitousKeyValueStoreChangeReasonKey"`,
/// `"NSUbiquitousKeyValueStoreChangedKeysKey"`; confirmed by `Foundation/NSUbiquitousKeyValueStore.h` (the notification,
/// both keys and the four reasons) and public code that observes and reads the string values.
///
/// ```swift
/// final class SettingsSync: Sendable {
///     func pull(_ keys: [String]) {}
/// }
/// let sync = SettingsSync()
/// UbiquitousKeyValueStoreDidChangeExternally.observe(for: sync) { sync, change in
///     if change.reason != UbiquitousKeyValueStoreDidChangeExternally.quotaViolationChange {
///         sync.pull(change.changedKeys ?? [])
///     }
/// }
/// ```
public struct UbiquitousKeyValueStoreDidChangeExternally: Notifiable, Hashable, Sendable {
    /// Why the values changed, as Foundation's `NSUbiquitousKeyValueStore…Change` constants number it:
    /// ``serverChange``, ``initialSyncChange``, ``quotaViolationChange`` or ``accountChange``.
    public var reason: Int
    /// The keys whose values changed; `nil` when the notification does not say.
    public var changedKeys: [String]?

    /// A change, to post in a test as Foundation would.
    ///
    /// ```swift
    /// let center = NotificationCenter()
    /// UbiquitousKeyValueStoreDidChangeExternally(
    ///     reason: UbiquitousKeyValueStoreDidChangeExternally.serverChange,
    ///     changedKeys: ["theme"]
    /// ).post(in: center)
    /// ```
    public init(reason: Int, changedKeys: [String]? = nil) {
        self.reason = reason
        self.changedKeys = changedKeys
    }

    /// `0`, `NSUbiquitousKeyValueStoreServerChange`: another device changed values in iCloud.
    public static let serverChange = 0
    /// `1`, `NSUbiquitousKeyValueStoreInitialSyncChange`: the first sync with iCloud replaced local values.
    public static let initialSyncChange = 1
    /// `2`, `NSUbiquitousKeyValueStoreQuotaViolationChange`: the store exceeded its iCloud quota.
    public static let quotaViolationChange = 2
    /// `3`, `NSUbiquitousKeyValueStoreAccountChange`: the user changed the iCloud account.
    public static let accountChange = 3

    /// `"NSUbiquitousKeyValueStoreChangeReasonKey"`, the `userInfo` key of ``reason``.
    public static let reasonKey = "NSUbiquitousKeyValueStoreChangeReasonKey"
    /// `"NSUbiquitousKeyValueStoreChangedKeysKey"`, the `userInfo` key of ``changedKeys``.
    public static let changedKeysKey = "NSUbiquitousKeyValueStoreChangedKeysKey"

    /// `"NSUbiquitousKeyValueStoreDidChangeExternallyNotification"`.
    public static let notificationName = Notification.Name("NSUbiquitousKeyValueStoreDidChangeExternallyNotification")

    /// Decodes Foundation's `userInfo`; throws a `NotificationDecodingError` as the type's documentation says.
    public static func payload(from notification: Notification) throws -> Self {
        let userInfo = SystemUserInfo(notification)
        return Self(
            reason: try userInfo.required(reasonKey, as: "Int", SystemValue.integer),
            changedKeys: try userInfo.optional(changedKeysKey, as: "[String]", SystemValue.strings)
        )
    }

    /// Foundation's `userInfo`: the reason, and the changed keys when they are known.
    public static func userInfo(for change: Self) -> [AnyHashable: Any]? {
        var userInfo: [AnyHashable: Any] = [reasonKey: change.reason]
        if let changedKeys = change.changedKeys { userInfo[changedKeysKey] = changedKeys }
        return userInfo
    }
}
