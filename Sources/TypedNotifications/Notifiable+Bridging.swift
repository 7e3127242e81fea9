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
/// Thrown by the default ``Notifiable/payload(from:)`` and by ``Foundation/Notification/userInfoValue(forKey:as:)``,
/// with which a custom decoder reads its keys, and available to custom decoders. Decoding errors never crash: the
/// notification is skipped for that type's observers and reported through ``NotificationDiagnostics``.
///
/// ```swift
/// struct Payment: Sendable { let id: String }
/// enum PaymentAccepted: Notifiable {
///     typealias Payload = Payment
///     static func payload(from notification: Notification) throws -> Payment {
///         // Throws .missingUserInfo, .missingValue(key: "paymentID") or .typeMismatch(key: "paymentID", …).
///         Payment(id: try notification.userInfoValue(forKey: "paymentID"))
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
    /// Reads `userInfo[Notification.typedPayloadKey]` as `Payload`; a payload-less type accepts any notification.
    ///
    /// A payload-less type is one whose `Payload` is `Void` or a struct without stored properties (the empty struct
    /// that is its own payload): it has one value, which every notification of its name carries, whatever its
    /// `userInfo`, or none. So a payload-less type given an existing name, such as a system notification's, receives
    /// every plain post of that name:
    ///
    /// ```swift
    /// struct SystemTimeZoneDidChange: Notifiable {
    ///     static var notificationName: Notification.Name { .NSSystemTimeZoneDidChange }
    /// }
    /// let posted = Notification(name: .NSSystemTimeZoneDidChange)   // as the system posts it: no userInfo
    /// let change = try SystemTimeZoneDidChange.payload(from: posted)   // SystemTimeZoneDidChange()
    /// ```
    ///
    /// It reads the value as Objective-C writes it too, which is how a plain observer on Apple platforms reads a
    /// typed post once `userInfo` has crossed into Objective-C: `NSNull` decodes as `nil` wherever `Payload` has an
    /// optional, at the top level and inside arrays and dictionaries (`[Int?]` from an `NSArray` holding `NSNull`,
    /// `[String: Int?]` from such an `NSDictionary`, at any depth); `NSNumber` as any number or `Bool`, `NSArray` as
    /// an array and `NSDictionary` as a dictionary whose elements decode. A value that casts with `as?` as it is
    /// is taken as it is; only one that does not is read element by element.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let plain = Notification(
    ///     name: CounterDidChange.notificationName,
    ///     userInfo: [Notification.typedPayloadKey: CounterDidChange(count: 2)]
    /// )
    /// let change = try CounterDidChange.payload(from: plain)   // count == 2
    ///
    /// enum ScoresDidChange: Notifiable { typealias Payload = [Int?] }
    /// let fromObjectiveC = Notification(
    ///     name: ScoresDidChange.notificationName,
    ///     userInfo: [Notification.typedPayloadKey: NSArray(array: [3, NSNull()])]
    /// )
    /// let scores = try ScoresDidChange.payload(from: fromObjectiveC)   // [3, nil]
    /// ```
    ///
    /// - Throws: ``NotificationDecodingError`` when the value is missing or of another type.
    @inlinable
    public static func payload(from notification: Notification) throws -> Payload {
        if Payload.self == Void.self {
            // Safe: the branch only runs when Payload is Void.
            return () as! Payload
        }
        // Folded away for every payload that has a size, as the size is known where the call is specialised.
        if MemoryLayout<Payload>.size == 0, let only = PayloadlessValue.only(of: Payload.self) { return only }
        guard let userInfo = notification.userInfo else { throw NotificationDecodingError.missingUserInfo }
        guard let value = userInfo[Notification.typedPayloadKey] else {
            throw NotificationDecodingError.missingValue(key: Notification.typedPayloadKey)
        }
        if let payload = value as? Payload { return payload }
        // Only when the plain cast fails, so that what Swift code posts pays nothing more.
        if let payload = ObjectiveCValues.decode(value, as: Payload.self) { return payload }
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
        // A literal, which the compiler specialises and sizes for one entry: `Dictionary(minimumCapacity:)` is not
        // specialised for these types and looks up the storage's generic metadata on every call, and `[:]` then an
        // insertion grows the storage. Every post that goes through Foundation builds it: see the post-0 row of the
        // Performance article's instruction table (`Benchmarks/instructions.sh`).
        return [Notification.typedPayloadKey: payload]
    }
}

/// The one value of a payload-less struct, which the default ``Notifiable/payload(from:)`` gives for any notification.
@usableFromInline
enum PayloadlessValue {
    /// The value of `Value` if it is a struct without stored properties; `nil` for any other type.
    ///
    /// Such a struct has size zero and exactly one value, made from no bytes. Other types of size zero are left out,
    /// as a value made from no bytes is not always one of theirs: an enum without cases, or a struct with a `Never`
    /// property, has no value at all; a metatype of size zero is not a struct. The kind is read from the type's
    /// metadata, whose first word is its kind for every type that is not a class (the Swift ABI's `MetadataKind`:
    /// `0x200` for a struct, on every platform), so no value is made before the type is known to be a struct; the
    /// struct's mirror then counts its stored properties without reading any.
    @usableFromInline
    static func only<Value>(of type: Value.Type) -> Value? {
        guard MemoryLayout<Value>.size == 0 else { return nil }
        // Safe: an `Any.Type` is a pointer to the type's metadata record, which is never freed, and whose first word
        // is its kind for every type of size zero (none is a class).
        let kind = unsafeBitCast(type as Any.Type, to: UnsafePointer<UInt>.self).pointee
        guard kind == structKind else { return nil }
        // Safe because a struct of size zero has no bytes to initialise: a value is no more than its type. A struct
        // holding an uninhabited (`Never`) property is made too, but only for its mirror to show that property, and
        // never returned.
        let value = unsafeBitCast((), to: Value.self)
        return Mirror(reflecting: value).children.isEmpty ? value : nil
    }

    /// `MetadataKind::Struct` in the Swift ABI (`0 | MetadataKindIsNonHeap`).
    private static let structKind: UInt = 0x200
}

/// Values as Objective-C writes them, read as the Swift types they stand for: the part of the default
/// ``Notifiable/payload(from:)`` that a plain `as?` cast does not do.
///
/// On Apple platforms `nil` crosses into Objective-C as `NSNull`, also inside an array or a dictionary (SE-0140), and
/// nothing documents that `as?` turns it back into `nil` there (a cast of `NSNull` to `Int?` fails in Swift's own
/// Foundation). So a type whose values can hold `nil` (an optional, an array or a dictionary) decodes itself here,
/// element by element, reading `NSNull` as `nil` wherever it expects an optional; every other value is cast with
/// `as?`, which reads `NSNumber` as a number and `NSArray` and `NSDictionary` as Swift collections.
@usableFromInline
enum ObjectiveCValues {
    /// `value` as a `Target`, or `nil` if it is not one.
    @usableFromInline
    static func decode<Target>(_ value: Any, as target: Target.Type) -> Target? {
        // Unwrapped before the cast: a failure is `nil`, which `as?` would turn into a `nil` of an optional `Target`.
        guard let decoded = (Target.self as? any ObjectiveCDecodable.Type)?.decodeObjectiveC(value) else { return nil }
        return decoded as? Target
    }

    /// `value` as a `Target`: cast as it is, else decoded as Objective-C writes it.
    static func cast<Target>(_ value: Any, to target: Target.Type) -> Target? {
        if let cast = value as? Target { return cast }
        return decode(value, as: target)
    }
}

/// A type whose values Objective-C may write with `NSNull` for `nil` inside them.
protocol ObjectiveCDecodable {
    /// `value` read as this type, with `NSNull` as `nil` where this type has an optional; `nil` if it is not one.
    static func decodeObjectiveC(_ value: Any) -> Self?
}

extension Optional: ObjectiveCDecodable {
    /// `NSNull` is `nil`, at any depth of optionals, as the bridge writes `.some(nil)` as `NSNull` too.
    static func decodeObjectiveC(_ value: Any) -> Self? {
        if value is NSNull { return .some(.none) }
        return ObjectiveCValues.cast(value, to: Wrapped.self).map { .some($0) }
    }
}

extension Array: ObjectiveCDecodable {
    static func decodeObjectiveC(_ value: Any) -> Self? {
        guard let elements = value as? [Any] else { return nil }
        var decoded: [Element] = []
        decoded.reserveCapacity(elements.count)
        for element in elements {
            guard let element = ObjectiveCValues.cast(element, to: Element.self) else { return nil }
            decoded.append(element)
        }
        return decoded
    }
}

extension Dictionary: ObjectiveCDecodable {
    static func decodeObjectiveC(_ value: Any) -> Self? {
        guard let entries = value as? [AnyHashable: Any] else { return nil }
        var decoded: [Key: Value] = [:]
        decoded.reserveCapacity(entries.count)
        for (key, value) in entries {
            // A bridged key (`NSString`, `NSNumber`) casts through its base.
            guard let key = key as? Key ?? key.base as? Key, let value = ObjectiveCValues.cast(value, to: Value.self)
            else { return nil }
            decoded[key] = value
        }
        return decoded
    }
}
