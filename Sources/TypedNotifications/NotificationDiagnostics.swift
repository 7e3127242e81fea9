public import Foundation

/// A hook that reports what the package skipped: plain posts it could not decode, payloads a bounded
/// ``NotificationSequence`` dropped, and, if asked, typed posts that reached no typed observer.
///
/// Silent by default. Install a handler, for logging or in tests; it runs synchronously on the posting thread, so
/// keep it short and do not post from it.
///
/// ```swift
/// NotificationDiagnostics.setHandler { event in
///     print("\(event.name.rawValue): \(event.kind)")
/// }
/// NotificationDiagnostics.reportsUnobservedPosts = true   // also report posts nobody observes
/// ```
public enum NotificationDiagnostics {
    /// One report.
    public struct Event: Sendable, CustomStringConvertible {
        /// What happened.
        public enum Kind: Sendable {
            /// A plain post under the type's name could not be decoded; its typed observers were skipped.
            case decodingFailed(any Error)
            /// A typed post reached no typed observer (reported only when ``reportsUnobservedPosts`` is on).
            case unobserved
            /// A ``NotificationSequence`` made with a bounded ``NotificationSequence/BufferingPolicy`` dropped a
            /// payload because its buffer was full; reported once per dropped payload, on the posting thread.
            case dropped
        }

        /// What happened.
        public let kind: Kind
        /// The `Notifiable` type concerned.
        public let type: any Notifiable.Type
        /// The notification name concerned.
        public let name: Notification.Name
        /// The center the post went through.
        public let center: NotificationCenter

        /// A sentence naming the type, the notification name and what happened.
        public var description: String {
            switch kind {
            case .decodingFailed(let error):
                "\(String(reflecting: type)): could not decode a plain post of \(name.rawValue): \(error)"
            case .unobserved:
                "\(String(reflecting: type)): a post of \(name.rawValue) reached no typed observer"
            case .dropped:
                "\(String(reflecting: type)): a bounded sequence dropped a payload of \(name.rawValue)"
            }
        }
    }

    private static let handler = Locked<(@Sendable (Event) -> Void)?>(nil)
    private static let unobservedReports = AtomicWord.make()

    /// Installs `handler`, replacing any previous one; `nil` silences diagnostics again.
    ///
    /// ```swift
    /// NotificationDiagnostics.setHandler { event in print(event) }
    /// NotificationDiagnostics.setHandler(nil)
    /// ```
    ///
    /// - Parameter handler: Called synchronously on the posting thread for each event, from any thread.
    public static func setHandler(_ handler: (@Sendable (Event) -> Void)?) {
        // The replaced handler is released after the lock, since releasing it may run any deinitialiser.
        let replaced = self.handler.withLock { current in
            defer { current = handler }
            return current
        }
        withExtendedLifetime(replaced) {}
    }

    /// Whether typed posts that reach no typed observer are reported as ``Event/Kind/unobserved``. Off by default.
    ///
    /// ```swift
    /// NotificationDiagnostics.reportsUnobservedPosts = true
    /// ```
    public static var reportsUnobservedPosts: Bool {
        get { unobservedReports.loadRelaxed() != 0 }
        set { unobservedReports.store(newValue ? 1 : 0) }
    }

    @usableFromInline
    static func report<Subject: Notifiable>(
        _ kind: Event.Kind,
        for subject: Subject.Type,
        name: Notification.Name,
        in center: NotificationCenter
    ) {
        guard let handler = handler.withLock({ $0 }) else { return }
        LockDiscipline.assertNoLockHeld("calls a diagnostics handler")
        handler(Event(kind: kind, type: subject, name: name, center: center))
    }
}
