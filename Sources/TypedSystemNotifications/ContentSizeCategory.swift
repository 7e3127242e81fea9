public import Foundation
public import TypedNotifications

/// The user chose another text size (Dynamic Type): `UIContentSizeCategory.didChangeNotification`.
///
/// UIKit posts it on the main thread, from the `UIApplication`, with the new category's raw value in `userInfo`
/// (`UIContentSizeCategoryNewValueKey`, an `NSString`), which ``payload(from:)`` decodes into ``newCategory``. It is
/// required: a notification without it, or with a value that is not a string, is not decoded, and its typed observers
/// skip it (debug builds report it through `NotificationDiagnostics`). A latest-value notification: each center keeps
/// the latest category posted, so an observer that starts late receives it first, and ``latest(in:)`` reads it.
///
/// Platforms: iOS, iPadOS, Mac Catalyst, tvOS and visionOS. Name: `"UIContentSizeCategoryDidChangeNotification"`; key:
/// `"UIContentSizeCategoryNewValueKey"`; confirmed by `UIKit/UIContentSizeCategory.h`
/// (`UIContentSizeCategoryDidChangeNotification`, `UIContentSizeCategoryNewValueKey`), UIKit's own code, which posts
/// the key's string value, and public code that reads it.
///
/// ```swift
/// @MainActor final class ArticleModel {
///     private(set) var category = ""
///     init() {
///         ContentSizeCategoryDidChange.observeOnMainActor(for: self) { model, change in
///             model.category = change.newCategory  // UIKit: `UIContentSizeCategory(rawValue:)`
///         }
///     }
/// }
/// ```
public struct ContentSizeCategoryDidChange: LatestValueNotifiable, Hashable, Sendable {
    /// The raw value of the new `UIContentSizeCategory`, such as `"UICTContentSizeCategoryL"`;
    /// `UIContentSizeCategory(rawValue:)` makes the category from it.
    public var newCategory: String

    /// A change to `newCategory`, to post in a test as UIKit would.
    ///
    /// ```swift
    /// let center = NotificationCenter()
    /// ContentSizeCategoryDidChange(newCategory: "UICTContentSizeCategoryXL").post(in: center)
    /// ```
    public init(newCategory: String) {
        self.newCategory = newCategory
    }

    /// `"UIContentSizeCategoryNewValueKey"`, the `userInfo` key of the new category.
    public static let newValueKey = "UIContentSizeCategoryNewValueKey"

    /// `"UIContentSizeCategoryDidChangeNotification"`.
    public static let notificationName = Notification.Name("UIContentSizeCategoryDidChangeNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` when the new category is missing or not a string.
    public static func payload(from notification: Notification) throws -> Self {
        Self(newCategory: try SystemUserInfo(notification).required(newValueKey, as: "String", SystemValue.string))
    }

    /// UIKit's `userInfo`: the new category under ``newValueKey``.
    public static func userInfo(for change: Self) -> [AnyHashable: Any]? {
        [newValueKey: change.newCategory]
    }
}
