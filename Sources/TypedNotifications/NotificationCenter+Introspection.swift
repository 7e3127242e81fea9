public import Foundation

/// One live typed observation, as ``Foundation/NotificationCenter/typedObservations`` lists it: what it observes, how
/// it delivers, and where in the code it was made.
///
/// For debugging: print it, `po` it in the debugger, or put it in a test's failure message.
///
/// ```swift
/// struct CounterDidChange: Notifiable { let count: Int }
/// let center = NotificationCenter()
/// let token = CounterDidChange.observe(in: center) { _ in }
/// for observation in center.typedObservations {
///     print(observation)   // e.g. "MyApp.CounterDidChange, immediate, any sender, MyApp/Counter.swift:3"
/// }
/// ```
public struct TypedObservation: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// Where an observation's handler runs.
    public enum Delivery: String, Sendable, Hashable {
        /// On the posting thread, during the post.
        case immediate
        /// On a `DispatchQueue` or `OperationQueue`.
        case queue
        /// On the main actor.
        case mainActor
        /// On another actor.
        case actor
        /// An `async` handler, run by a task.
        case async
        /// A ``NotificationSequence``.
        case sequence
        /// A Combine publisher's subscription.
        case publisher

        /// How an observation on `executor` delivers.
        @inlinable
        init(_ executor: DeliveryTarget.Executor?) {
            switch executor {
            case nil: self = .immediate
            case .dispatch, .operation: self = .queue
            case .mainActor: self = .mainActor
            case .actor: self = .actor
            }
        }
    }

    /// The observed `Notifiable` type, module-qualified, as `String(reflecting:)` spells it.
    public let typeName: String
    /// The notification name it observes.
    public let name: Notification.Name
    /// Where its handler runs.
    public let delivery: Delivery
    /// Whether it only receives posts from one sender.
    public let filtersBySender: Bool
    /// Whether it ends when an object or actor it is bound to is deallocated: the `for:` forms (an actor is held
    /// weakly, like any owner).
    public let isOwnerBound: Bool
    /// The `#fileID` of the call that made the observation.
    public let fileID: String
    /// The line of the call that made the observation.
    public let line: Int

    /// One line: type, delivery, sender filter, owner binding and source location.
    public var description: String {
        let sender = filtersBySender ? "one sender" : "any sender"
        let owner = isOwnerBound ? ", owner-bound" : ""
        return "\(typeName), \(delivery.rawValue), \(sender)\(owner), \(fileID):\(line)"
    }

    /// As ``description``, with the notification name.
    public var debugDescription: String {
        "TypedObservation(\(description), name: \(name.rawValue))"
    }
}

extension NotificationCenter {
    /// The typed observations live on this center: every observation, sequence and owner-bound observation that has
    /// not ended, grouped by type (sorted by type name), each type's in registration order.
    ///
    /// A snapshot for debugging and tests; it costs nothing until asked for. Each entry records where its
    /// observation was made (the observing call's `#fileID` and `#line`).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = CounterDidChange.observe(in: center) { _ in }
    /// print(center.typedObservations.map(\.delivery))   // [TypedNotifications.TypedObservation.Delivery.immediate]
    /// ```
    public var typedObservations: [TypedObservation] {
        return ObserverRegistry.shared.observations(in: self)
    }

    /// As ``Notifiable/observe(from:in:delivery:where:coalescing:file:line:_:)-(_,_,_,_,_,_,_,(Payload)->Void)`` (on
    /// the posting thread), listed in ``typedObservations`` as a publisher's; for the Combine publisher, which is built
    /// on public API so that the same source also compiles outside the library. Behind `@_spi(Publisher)`: not part of
    /// the supported API.
    ///
    /// ```swift
    /// @_spi(Publisher) import TypedNotifications
    ///
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = center.subscribeForPublisher(CounterDidChange.self, from: nil) { change in print(change.count) }
    /// ```
    @_spi(Publisher)
    public func subscribeForPublisher<Event: Notifiable>(
        _ subject: Event.Type,
        from sender: Event.Sender?,
        file: StaticString = #fileID,
        line: UInt = #line,
        _ handler: @escaping @Sendable (Event.Payload) -> Void
    ) -> NotificationToken {
        NotificationToken(
            register(
                subject,
                sender: sender,
                on: nil,
                handler: .payload(handler),
                site: ObservationSite(fileID: file, line: line),
                kind: .publisher
            )
        )
    }

    /// How many typed observers, and how many Foundation observers for them, the package holds for this center; for
    /// tests that check that ended observations leave nothing behind.
    ///
    /// Observations whose owner is gone are dropped first, as the next post would drop them. Behind
    /// `@_spi(Testing)`: it is a test hook, not part of the supported API; ``typedObservations`` is.
    ///
    /// ```swift
    /// @_spi(Testing) import TypedNotifications
    ///
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = CounterDidChange.observe(in: center) { _ in }
    /// token.cancel()
    /// assert(center.typedRegistrationCounts() == (0, 0))
    /// ```
    @_spi(Testing)
    public func typedRegistrationCounts() -> (observers: Int, foundationObservers: Int) {
        ObserverRegistry.shared.registrationCounts(in: self)
    }
}
