public import Foundation

/// A type that names a notification and the typed payload its observers receive.
///
/// Conform a struct, an enum or a class to `Notifiable` and it can be posted and observed through any
/// `NotificationCenter` with typed values instead of `userInfo` dictionaries. By default the payload is the
/// conforming value itself and the notification name is the module-qualified type name, so two types called `Ping`
/// in different modules, or `Box<Int>` and `Box<String>`, never collide.
///
/// ```swift
/// struct CounterDidChange: Notifiable {
///     let count: Int
/// }
///
/// let token = CounterDidChange.observe { change in print(change.count) }
/// CounterDidChange(count: 3).post()   // prints 3
/// ```
///
/// A separate payload type, a payload-less event, and a typed sender:
///
/// ```swift
/// struct User: Sendable { let name: String }
/// enum UserDidLogIn: Notifiable { typealias Payload = User }
/// enum AppDidBecomeActive: Notifiable { typealias Payload = Void }
///
/// final class Thermometer: Sendable {}
/// struct Reading: Notifiable {
///     typealias Sender = Thermometer
///     let celsius: Double
/// }
/// ```
///
/// ## Customisation points
///
/// - ``notificationName``: adopt an existing string name instead of the derived one.
/// - ``payload(from:)`` and ``userInfo(for:)``: read and write a legacy `userInfo` layout, so existing string
///   notifications and their observers keep working (see <doc:MigratingStringNotifications>).
///
/// A conformer that customises them must pass this round-trip test, which the package's own test suite runs for its
/// examples:
///
/// ```swift
/// import Foundation
/// import Testing
/// import TypedNotifications
///
/// func checkRoundTrip<T: Notifiable>(_ type: T.Type, _ payload: T.Payload) throws -> T.Payload {
///     let name = T.notificationName
///     #expect(name == T.notificationName)   // stable: the same name every time
///     let plain = Notification(name: name, object: nil, userInfo: T.userInfo(for: payload))
///     return try T.payload(from: plain)    // decodes what it encoded
/// }
/// ```
///
/// - Important: `notificationName` must return the same name every time it is called: the package reads it once per
///   type and caches it.
///
/// ## Sendable
///
/// `Notifiable` refines `Sendable`, because a type's values (its payload, by default) cross threads to reach its
/// observers. So conforming is all a struct or an enum of `Sendable` values needs, a `public` one included (Swift
/// infers `Sendable` only for non-public types): `public struct SearchTextDidChange: Notifiable { public let text:
/// String }` compiles as written, since the conformance to `Notifiable` declares the one to `Sendable`, and the
/// compiler checks it. A stored property of a type that is not `Sendable` is an error at that property:
/// "stored property 'x' of 'Sendable'-conforming struct 'T' has non-Sendable type 'U'". A class conforms when it is
/// `final` with only `let` properties of `Sendable` types, or when it is `@MainActor`.
///
/// Declare the conformance in the file that declares the type, as Swift requires of `Sendable`; an extension in
/// another file (`extension User: Notifiable {}`) compiles when the type declares `Sendable` itself.
public protocol Notifiable: Sendable {
    /// What observers receive. Defaults to the conforming type itself; use `Void` for a payload-less event.
    associatedtype Payload: Sendable = Self

    /// The type of object that may post this notification, checked at compile time by `post(from:)` and
    /// `observe(from:)`. Defaults to any object.
    associatedtype Sender: AnyObject = AnyObject

    /// The `Notification.Name` under which the notification travels through `NotificationCenter`.
    ///
    /// The default is the module-qualified type name, for example `MyApp.CounterDidChange`, computed once per type.
    /// It is the same on every launch: for a private, file-private or function-local type it leaves out the
    /// anonymous context that the runtime prints with a memory address, so `private struct Hidden` in `MyApp` is
    /// named `MyApp.Hidden`.
    ///
    /// - Important: Distinct types whose names differ only in those contexts therefore derive one name: private or
    ///   file-private types of one name in two files of a module (or one of them and a top-level type of that name); a
    ///   type local to a function or a closure and a top-level type of its name, or local types of one name in two
    ///   functions; a type local to a method of `Foo` (or to its initializer, a property's accessor, or a closure in
    ///   one) and a nested `Foo.Local`, or local types of one name in two of them; and generic types whose arguments
    ///   are such types (`Box<Saved>`). Plain observers, logs and plain posts cannot tell them apart: each one's typed
    ///   posts reach the other's plain observers, and each one's plain posts reach the other's typed observers, which
    ///   cannot decode them. Debug builds report the second type of such a pair the first time it is used (posted,
    ///   observed, or asked for its name), as ``NotificationDiagnostics/Event/Kind/derivedNameCollision(with:)``. Give
    ///   one of them an explicit `notificationName`. Nothing else shares a derived name: types in different modules or
    ///   namespaces, generic types with different arguments, and types nested in extensions of one type by different
    ///   modules are all named apart.
    ///
    /// Override it to adopt an existing string name:
    ///
    /// ```swift
    /// enum PaymentAccepted: Notifiable {
    ///     typealias Payload = Void
    ///     static var notificationName: Notification.Name { .init("PaymentViewControllerNotificationAccepted") }
    /// }
    /// ```
    static var notificationName: Notification.Name { get }

    /// Decodes the payload of a plain `Notification` posted under ``notificationName`` by code that does not use this
    /// package.
    ///
    /// The default reads `userInfo[Notification.typedPayloadKey]` as `Payload` (and accepts any notification when
    /// `Payload` is `Void` or an empty struct). Override it to read a legacy `userInfo` layout, and override
    /// ``userInfo(for:)`` to write it: debug builds report a type with a name of its own whose first typed post writes
    /// what this method cannot read (``NotificationDiagnostics/Event/Kind/halfBridged(missing:error:)``). Throwing
    /// skips the notification for this type's observers and reports the error through ``NotificationDiagnostics``; it
    /// never crashes.
    ///
    /// Typed posts made with this package reach their typed observers without decoding, on every platform; this
    /// method serves plain posts only. It should still decode what ``userInfo(for:)`` encodes (the round-trip test
    /// above), so that plain code re-posting a typed post's `userInfo` reaches typed observers too.
    ///
    /// ```swift
    /// struct Payment: Sendable {
    ///     let id: String
    ///     let amount: Int
    /// }
    ///
    /// enum PaymentAccepted: Notifiable {
    ///     typealias Payload = Payment
    ///     static var notificationName: Notification.Name { .init("PaymentViewControllerNotificationAccepted") }
    ///     static func payload(from notification: Notification) throws -> Payment {
    ///         guard let id = notification.userInfo?["paymentID"] as? String,
    ///             let amount = notification.userInfo?["amount"] as? Int
    ///         else { throw NotificationDecodingError.missingValue(key: "paymentID") }
    ///         return Payment(id: id, amount: amount)
    ///     }
    ///     static func userInfo(for payment: Payment) -> [AnyHashable: Any]? {
    ///         ["paymentID": payment.id, "amount": payment.amount]
    ///     }
    /// }
    /// ```
    ///
    /// - Parameter notification: A notification posted under ``notificationName`` without this package.
    /// - Returns: The payload typed observers receive.
    static func payload(from notification: Notification) throws -> Payload

    /// The `userInfo` that plain `NotificationCenter` observers see when this package posts `payload`.
    ///
    /// The default is `[Notification.typedPayloadKey: payload]`, or `nil` when `Payload` is `Void`. Override it with
    /// plain values (strings, numbers, arrays, dictionaries) to keep legacy observers working; see
    /// ``payload(from:)`` for an example.
    ///
    /// - Parameter payload: The payload being posted.
    /// - Returns: The dictionary handed to `NotificationCenter.post(name:object:userInfo:)`.
    static func userInfo(for payload: Payload) -> [AnyHashable: Any]?

    /// Whether typed posts of this type also go through `NotificationCenter`, for plain observers; `true` unless a
    /// type opts out.
    ///
    /// A type that no plain observer reads (a per-frame or per-tick event on a hot path) can return `false` to be
    /// *typed-only*: its posts reach its typed observers and never touch Foundation, which makes them several times
    /// cheaper (no `userInfo`, no Foundation post). The price: plain `NotificationCenter` observers of its name never
    /// see its typed posts, and its typed observers never see plain posts under its name. Debug builds report such a
    /// plain post through ``NotificationDiagnostics`` as ``NotificationDiagnostics/Event/Kind/plainPostIgnored``.
    ///
    /// ```swift
    /// struct FrameDidRender: Notifiable {
    ///     static var postsThroughFoundation: Bool { false }
    ///     let frame: Int
    /// }
    /// ```
    static var postsThroughFoundation: Bool { get }
}

extension Notifiable {
    /// The module-qualified type name, such as `MyApp.CounterDidChange`, computed once per type and cached.
    ///
    /// The same on every launch. A private, file-private or function-local type is named without its anonymous
    /// context, which the runtime prints with an address that changes from launch to launch: `private struct Hidden`
    /// is `MyApp.Hidden`, and `struct Local` in a method of `Foo` is `MyApp.Foo.Local`. So distinct types can derive
    /// one name (two private `Saved` types, a local `Saved` and a top-level one, a local `Local` in a method of `Foo`
    /// and a nested `Foo.Local`; the requirement lists every case); debug builds report the second one to be used, as
    /// ``NotificationDiagnostics/Event/Kind/derivedNameCollision(with:)``. Give one of them an explicit
    /// ``Notifiable/notificationName``.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// print(CounterDidChange.notificationName.rawValue)   // "MyApp.CounterDidChange"
    ///
    /// func refresh() {
    ///     struct Refreshed: Notifiable { let items: Int }
    ///     print(Refreshed.notificationName.rawValue)   // "MyApp.Refreshed", on every launch
    /// }
    ///
    /// func saveDraft() {
    ///     // Another local `Saved` elsewhere in MyApp would share "MyApp.Saved": this one names itself.
    ///     struct Saved: Notifiable {
    ///         static var notificationName: Notification.Name { .init("MyApp.Drafts.Saved") }
    ///         let id: Int
    ///     }
    ///     Saved(id: 1).post()
    /// }
    /// ```
    public static var notificationName: Notification.Name {
        ObserverRegistry.shared.derivedName(of: Self.self)
    }

    /// `true`: typed posts also reach plain `NotificationCenter` observers, and plain posts reach typed observers.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// print(CounterDidChange.postsThroughFoundation)   // true
    /// ```
    @inlinable
    public static var postsThroughFoundation: Bool { true }
}
