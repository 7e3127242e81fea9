public import TypedNotifications

// Public conformers in a module of their own, written as a package's user would write them: nothing but the
// conformance to `Notifiable`, no `Sendable`. That this target compiles is the test that conforming is enough for a
// public type (Swift infers `Sendable` only for non-public ones); `PublicConformerTests` posts and observes them from
// another module.

/// A public struct of `Sendable` stored properties.
public struct SearchTextDidChange: Notifiable {
    /// The search field's text.
    public let text: String
    /// Whether the user submitted it.
    public let isFinal: Bool

    /// A change of the search field's text.
    public init(text: String, isFinal: Bool = false) {
        self.text = text
        self.isFinal = isFinal
    }
}

/// A public enum with associated values.
public enum UploadState: Notifiable, Equatable {
    case started
    case progressed(fraction: Double)
    case finished(bytes: Int)
}

/// A public payload-less event.
public enum SessionDidExpire: Notifiable {
    /// No payload.
    public typealias Payload = Void
}
