public import Foundation

extension Notification {
    /// The value under `key` in `userInfo`, as a `Value`, or a ``NotificationDecodingError`` that names the key and
    /// says what was wrong: the reading half of a custom ``Notifiable/payload(from:)``.
    ///
    /// ```swift
    /// struct DownloadProgress: Notifiable {   // the legacy "DownloadProgress" notification, with userInfo["bytes"]
    ///     static var notificationName: Notification.Name { .init("DownloadProgress") }
    ///     let bytes: Int
    ///     static func payload(from plain: Notification) throws -> Self {
    ///         Self(bytes: try plain.userInfoValue(forKey: "bytes"))
    ///     }
    ///     static func userInfo(for progress: Self) -> [AnyHashable: Any]? { ["bytes": progress.bytes] }
    /// }
    ///
    /// let wrong = Notification(name: .init("DownloadProgress"), userInfo: ["bytes": "three"])
    /// do {
    ///     _ = try DownloadProgress.payload(from: wrong)
    /// } catch NotificationDecodingError.typeMismatch(let key, let expected, let found) {
    ///     print(key, expected, found)   // prints "bytes Swift.Int Swift.String"
    /// }
    /// ```
    ///
    /// It reads values as Apple's Foundation hands them to observers, whose `userInfo` has crossed into Objective-C,
    /// as well as they were posted from Swift: an `NSNumber` reads as any number type that holds it exactly, and as
    /// `Bool`; an `NSString` as `String`; an `NSArray`, `NSDictionary` or `NSSet` as a Swift collection whose elements
    /// read so (with `NSNull` as `nil` where the element is optional). A Swift number reads as another number type
    /// as it would once bridged (an `Int64` as `Int`, when it fits), so a decoder behaves the same on every platform.
    ///
    /// An optional `Value` reads a missing key, a missing `userInfo` and `NSNull` as `nil`: for keys that a post may
    /// leave out.
    ///
    /// ```swift
    /// let note = Notification(name: .init("Sync"), userInfo: ["count": NSNumber(value: 3)])
    /// let count: Int = try note.userInfoValue(forKey: "count")   // 3
    /// let label = try note.userInfoValue(forKey: "label", as: String?.self)   // nil: the key is optional
    /// ```
    ///
    /// - Parameters:
    ///   - key: The `userInfo` key.
    ///   - type: The type to read; inferred from the context unless given.
    /// - Returns: The value, as a `Value`.
    /// - Throws: ``NotificationDecodingError/missingUserInfo`` when there is no `userInfo`,
    ///   ``NotificationDecodingError/missingValue(key:)`` when it has nothing under `key`, and
    ///   ``NotificationDecodingError/typeMismatch(key:expected:found:)`` when the value there is not a `Value`;
    ///   never for an optional `Value`'s missing key or `userInfo`.
    public func userInfoValue<Value>(forKey key: String, as type: Value.Type = Value.self) throws -> Value {
        guard let value = userInfo?[key] else {
            if let absent = (Value.self as? any AbsentValue.Type)?.absent as? Value { return absent }
            if userInfo == nil { throw NotificationDecodingError.missingUserInfo }
            throw NotificationDecodingError.missingValue(key: key)
        }
        if let typed = value as? Value { return typed }
        // As Objective-C writes it: `NSNull` for `nil` inside optionals and collections.
        if let typed = ObjectiveCValues.decode(value, as: Value.self) { return typed }
        // As Apple's bridge would hand it over: a Swift value bridged (a number to `NSNumber`), then read back. A class
        // instance stays itself, so it is left out.
        if !(Swift.type(of: value) is AnyClass), let typed = (value as AnyObject) as? Value { return typed }
        throw NotificationDecodingError.typeMismatch(
            key: key,
            expected: String(reflecting: Value.self),
            found: String(reflecting: Swift.type(of: value))
        )
    }
}

/// A type with a value that stands for "absent": `nil`, which an optional `userInfo` value reads a missing key as.
protocol AbsentValue {
    static var absent: Self { get }
}

extension Optional: AbsentValue {
    static var absent: Self { nil }
}
