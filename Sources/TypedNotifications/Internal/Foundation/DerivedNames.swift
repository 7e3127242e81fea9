import Foundation

/// How the default ``Notifiable/notificationName`` is derived from a type's name (the registry caches it in the type's
/// record: see ``ObserverRegistry/derivedName(of:)``).
///
/// Leaving out the anonymous contexts keeps a name the same on every launch, at a price: distinct types can derive
/// the same name. Those are exactly the types whose printed names differ only inside such contexts: private or
/// file-private types of one name in two files of a module, or one of them and a type of that name at the top level;
/// a type local to a function (or a closure) and a type of that name at the top level, or local to another function;
/// a type local to a method of `Foo` and a type nested in `Foo` (`Foo.Local`), or local to another of its methods;
/// and generic types whose arguments are such types (`Box<Saved>`). Debug builds report the second type of such a
/// pair to use its name (``NotificationDiagnostics/checkDerivedName(_:of:)``). Types in extensions of another
/// module's types keep the extending module in their printed name (`(extension in MyApp):Foundation.Date.Changed`),
/// so they never meet.
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

#if DEBUG
extension DerivedNames {
    /// Per derived name, the types that derived it, in the order they did. Locked because types derive their names on
    /// any thread. Held only to look up and insert (metatypes, whose release runs no code), never while reporting. It
    /// grows by one entry per type that uses a derived name, in debug builds only.
    private static let derivers = Locked<[Notification.Name: [any Notifiable.Type]]>([:])

    /// The type that derived `name` before `subject` did, if another one did.
    ///
    /// `nil` for every call after the first for `subject`, so that a collision is reported once, however many threads
    /// derive the name at once.
    static func earlierType(deriving name: Notification.Name, than subject: any Notifiable.Type)
        -> (any Notifiable.Type)?
    {
        derivers.withLock { derivers in
            let earlier = derivers[name, default: []]
            guard !earlier.contains(where: { ObjectIdentifier($0) == ObjectIdentifier(subject) }) else { return nil }
            derivers[name, default: []].append(subject)
            return earlier.first
        }
    }
}
#endif
