public import Foundation

extension Notification {
    /// The `userInfo` key under which this package carries a typed payload by default: `"tn.payload"`.
    ///
    /// Plain `NotificationCenter` code reads typed posts from it, and a plain post that stores a payload under it
    /// reaches typed observers:
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    ///
    /// // Legacy code posting to typed observers:
    /// NotificationCenter.default.post(
    ///     name: CounterDidChange.notificationName,
    ///     object: nil,
    ///     userInfo: [Notification.typedPayloadKey: CounterDidChange(count: 1)]
    /// )
    /// ```
    public static let typedPayloadKey = "tn.payload"

    /// The `userInfo` key of the number that marks a typed post where Foundation copies `userInfo`:
    /// `"tn.post"`. Not public API: the Guarantees article documents the key for plain observers that
    /// copy a typed post's `userInfo` to re-post it (they should remove it); tests read it here.
    package static let typedPostKey = "tn.post"
}

/// Why a plain `Notification` could not be decoded into a typed payload.
///
/// Thrown by the default ``Notifiable/payload(from:)``, and available to custom decoders. Decoding errors never
/// crash: the notification is skipped for that type's observers and reported through ``NotificationDiagnostics``.
///
/// ```swift
/// struct Payment: Sendable { let id: String }
/// enum PaymentAccepted: Notifiable {
///     typealias Payload = Payment
///     static func payload(from notification: Notification) throws -> Payment {
///         guard let userInfo = notification.userInfo else { throw NotificationDecodingError.missingUserInfo }
///         guard let id = userInfo["paymentID"] else {
///             throw NotificationDecodingError.missingValue(key: "paymentID")
///         }
///         guard let text = id as? String else {
///             let found = "\(type(of: id))"
///             throw NotificationDecodingError.typeMismatch(key: "paymentID", expected: "String", found: found)
///         }
///         return Payment(id: text)
///     }
/// }
/// ```
public enum NotificationDecodingError: LocalizedError, Hashable, Sendable, CustomStringConvertible {
    /// The notification had no `userInfo` at all.
    case missingUserInfo
    /// `userInfo` had no value under `key`.
    case missingValue(key: String)
    /// `userInfo[key]` held a value of another type.
    case typeMismatch(key: String, expected: String, found: String)

    /// A sentence saying what was missing or mismatched, for logs and test failures.
    public var description: String {
        switch self {
        case .missingUserInfo: "the notification has no userInfo"
        case .missingValue(let key): "userInfo has no value for \"\(key)\""
        case .typeMismatch(let key, let expected, let found): "userInfo[\"\(key)\"] is \(found), not \(expected)"
        }
    }

    /// The same sentence as ``description``, so that `localizedDescription` says what is wrong.
    ///
    /// ```swift
    /// let error: any Error = NotificationDecodingError.missingValue(key: "paymentID")
    /// print(error.localizedDescription)   // userInfo has no value for "paymentID"
    /// ```
    public var errorDescription: String? { description }
}

extension Notifiable {
    /// Reads `userInfo[Notification.typedPayloadKey]` as `Payload`; a `Void` payload accepts any notification.
    ///
    /// When `Payload` is optional, `NSNull` decodes as `nil`: on Apple platforms that is what a `nil` value becomes
    /// once `userInfo` has crossed into Objective-C.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let plain = Notification(
    ///     name: CounterDidChange.notificationName,
    ///     userInfo: [Notification.typedPayloadKey: CounterDidChange(count: 2)]
    /// )
    /// let change = try CounterDidChange.payload(from: plain)   // count == 2
    /// ```
    ///
    /// - Throws: ``NotificationDecodingError`` when the value is missing or of another type.
    @inlinable
    public static func payload(from notification: Notification) throws -> Payload {
        if Payload.self == Void.self {
            // Safe: the branch only runs when Payload is Void.
            return () as! Payload
        }
        guard let userInfo = notification.userInfo else { throw NotificationDecodingError.missingUserInfo }
        guard let value = userInfo[Notification.typedPayloadKey] else {
            throw NotificationDecodingError.missingValue(key: Notification.typedPayloadKey)
        }
        if let payload = value as? Payload { return payload }
        if value is NSNull, let none = (Payload.self as? any ExpressibleByNilLiteral.Type)?.init(nilLiteral: ()) {
            // Safe: `none` was made by `Payload`'s own `init(nilLiteral:)`.
            return none as! Payload
        }
        throw NotificationDecodingError.typeMismatch(
            key: Notification.typedPayloadKey,
            expected: String(reflecting: Payload.self),
            found: String(reflecting: type(of: value))
        )
    }

    /// `[Notification.typedPayloadKey: payload]`, or `nil` when `Payload` is `Void`.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let userInfo = CounterDidChange.userInfo(for: CounterDidChange(count: 2))
    /// // userInfo?[Notification.typedPayloadKey] as? CounterDidChange == CounterDidChange(count: 2)
    /// ```
    @inlinable
    public static func userInfo(for payload: Payload) -> [AnyHashable: Any]? {
        if Payload.self == Void.self { return nil }
        // A literal: `Dictionary(minimumCapacity:)` is not specialised for these types and looks up the storage's
        // generic metadata on every call (about 340 instructions), and `[:]` then an insertion grows the storage.
        // A post with no observers: 3,939 instructions that way, 4,176 the other, 3,883 with the literal (callgrind,
        // `Benchmarks/instructions.sh`); the literal allocates the same 336 bytes as before (`Benchmarks/allocations.sh`).
        return [Notification.typedPayloadKey: payload]
    }
}
