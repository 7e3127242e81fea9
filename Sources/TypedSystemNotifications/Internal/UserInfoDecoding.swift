import Foundation
import TypedNotifications

/// Reads the `userInfo` of a notification the system posts, whose values arrive as Objective-C writes them on Apple
/// platforms (`NSNumber`, `NSString`, `NSArray`, `NSSet`, an `NSValue` holding a `CGRect`) and as Swift values when
/// Swift code posts them (a test, or this package's typed post on Linux). Every reader accepts both.
///
/// The rules every decoder of this module follows, which each type's documentation repeats: a required key that is
/// missing throws ``NotificationDecodingError/missingValue(key:)`` (no `userInfo` at all,
/// ``NotificationDecodingError/missingUserInfo``); an optional key that is missing is `nil`; a key present with a value
/// of another type throws ``NotificationDecodingError/typeMismatch(key:expected:found:)``, required or optional, as it
/// means that something other than the system posted under the system's name.
struct SystemUserInfo {
    private let userInfo: [AnyHashable: Any]?

    init(_ notification: Notification) {
        userInfo = notification.userInfo
    }

    /// The value under `key`, read by `read`, which returns `nil` for a value of another type.
    func required<Value>(_ key: String, as expected: String, _ read: (Any) -> Value?) throws -> Value {
        guard let userInfo else { throw NotificationDecodingError.missingUserInfo }
        guard let value = userInfo[key] else { throw NotificationDecodingError.missingValue(key: key) }
        return try decoded(value, key: key, expected: expected, read)
    }

    /// The value under `key`, or `nil` if there is none.
    func optional<Value>(_ key: String, as expected: String, _ read: (Any) -> Value?) throws -> Value? {
        guard let value = userInfo?[key] else { return nil }
        return try decoded(value, key: key, expected: expected, read)
    }

    private func decoded<Value>(_ value: Any, key: String, expected: String, _ read: (Any) -> Value?) throws -> Value {
        guard let decoded = read(value) else {
            throw NotificationDecodingError.typeMismatch(
                key: key,
                expected: expected,
                found: String(describing: type(of: value))
            )
        }
        return decoded
    }
}

/// How each kind of value is read, whichever shape it arrives in.
enum SystemValue {
    /// A `Double`, or any `NSNumber` (`UIKeyboardAnimationDurationUserInfoKey` is one holding a double), or an `Int`.
    static func double(_ value: Any) -> Double? {
        if let number = value as? NSNumber { return number.doubleValue }
        if let double = value as? Double { return double }
        return (value as? Int).map(Double.init)
    }

    /// An `Int`, or an `NSNumber` holding an integer (`UIKeyboardAnimationCurveUserInfoKey` holds an `NSInteger`).
    static func integer(_ value: Any) -> Int? {
        if let int = value as? Int { return int }
        guard let number = value as? NSNumber else { return nil }
        return Int(exactly: number.doubleValue)
    }

    /// A `Bool`, or an `NSNumber` read as Objective-C reads a `BOOL` (UIKit writes `UIKeyboardIsLocalUserInfoKey` with
    /// `numberWithInt:`): zero is `false`, anything else `true`.
    static func bool(_ value: Any) -> Bool? {
        if let bool = value as? Bool { return bool }
        return (value as? NSNumber).map { $0.doubleValue != 0 }
    }

    /// A `String` or an `NSString`.
    static func string(_ value: Any) -> String? {
        value as? String
    }

    /// Strings from an array (`[String]`, an `NSArray` of `NSString`), in its order, or from a set (`Set<String>`, an
    /// `NSSet`), sorted, so that a set decodes the same way every time.
    static func strings(_ value: Any) -> [String]? {
        if let array = value as? [String] { return array }
        if let set = value as? Set<String> { return set.sorted() }
        return nil
    }

    /// A `CGRect`, or an `NSValue` holding one: see ``SystemGeometry/rect(_:)``.
    static func rect(_ value: Any) -> CGRect? {
        SystemGeometry.rect(value)
    }

    /// An object: a class instance, which Objective-C hands over as it is; not a Foundation value (a number, a string,
    /// a collection, an `NSValue`, `NSNull`), which on Apple platforms is a class instance too once it has crossed into
    /// Objective-C.
    static func object(_ value: Any) -> AnyObject? {
        guard type(of: value) is AnyClass else { return nil }
        let isFoundationValue =
            value is NSNumber || value is NSString || value is NSValue || value is NSArray || value is NSDictionary
            || value is NSSet || value is NSNull
        return isFoundationValue ? nil : value as AnyObject
    }
}
