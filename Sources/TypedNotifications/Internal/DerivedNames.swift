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
        let derived = Notification.Name(stableName(String(reflecting: type)))
        return cache.withLock { names in
            if let existing = names[key] { return existing }
            names[key] = derived
            return derived
        }
    }

    /// `reflected` without the anonymous contexts that the runtime prints with an address, which changes on every
    /// launch: `MyApp.(unknown context at $55e5c9f61868).Hidden` becomes `MyApp.Hidden`.
    ///
    /// The runtime prints such a context for every private, file-private and function-local type, and for each
    /// function or closure around a local one, always followed by a dot; generic arguments may contain them too.
    static func stableName(_ reflected: String) -> String {
        let marker = "(unknown context at $"
        guard reflected.contains(marker) else { return reflected }
        var stable = ""
        var rest = Substring(reflected)
        while let start = rest.range(of: marker) {
            stable += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: ")") else {
                // Not the runtime's form after all: keep the rest as it is.
                rest = rest[start.lowerBound...]
                break
            }
            rest = rest[rest.index(after: end)...]
            if rest.first == "." { rest = rest.dropFirst() }
        }
        return stable + rest
    }
}
