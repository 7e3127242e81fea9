import Foundation

/// The cache behind the default ``Notifiable/notificationName``.
///
/// Deriving a name with `String(reflecting:)` costs about 580 ns, so it happens once per type; every later read is a
/// lock and a dictionary lookup keyed by the type's `ObjectIdentifier`, with no allocation.
enum DerivedNames {
    private static let cache = Locked<[ObjectIdentifier: Notification.Name]>([:])

    static func name(for type: Any.Type) -> Notification.Name {
        let key = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[key] }) { return cached }
        // Derived outside the lock; two threads racing here compute the same string, and the first one stored wins.
        let derived = Notification.Name(String(reflecting: type))
        return cache.withLock { names in
            if let existing = names[key] { return existing }
            names[key] = derived
            return derived
        }
    }
}
