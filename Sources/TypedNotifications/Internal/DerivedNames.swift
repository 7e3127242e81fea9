import Foundation

/// How the default ``Notifiable/notificationName`` is derived from a type's name (the registry caches it in the type's
/// record: see ``ObserverRegistry/derivedName(of:)``).
enum DerivedNames {
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
