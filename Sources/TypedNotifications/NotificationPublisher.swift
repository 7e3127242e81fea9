// A typed Combine publisher, where Combine exists.
//
// Built only on the library's public API and one SPI, `subscribeForPublisher(_:from:file:line:_:)` (an observation
// that `typedObservations` lists as a publisher's), so that this same file compiles outside the library:
// `IntegrationTests/Combine` compiles it, through a symbolic link, against OpenCombine with
// `TYPED_NOTIFICATIONS_OPENCOMBINE` defined, and tests it on Linux. Inside the library the module's internal names
// are in scope too (it has an internal `Subscription` class, for one): this file names Combine's `Subscription`
// protocol only through `CombineSubscription` below, and uses nothing internal but the package's `FIFO`, which
// `IntegrationTests/Combine` links in beside it.
#if TYPED_NOTIFICATIONS_OPENCOMBINE
public import OpenCombine
@_spi(Publisher) public import TypedNotifications
public import Foundation

private typealias CombineSubscription = OpenCombine.Subscription
#elseif canImport(Combine)
public import Combine
public import Foundation

private typealias CombineSubscription = Combine.Subscription
#endif

#if TYPED_NOTIFICATIONS_OPENCOMBINE || canImport(Combine)

/// A Combine publisher of the payloads posted for one `Notifiable` type on one center.
///
/// Made by ``Notifiable/publisher(from:in:file:line:)``; the typed counterpart of Foundation's
/// `NotificationCenter.Publisher`, and the Combine counterpart of ``NotificationSequence``. It never fails and never
/// completes.
///
/// - Observation begins when a subscriber subscribes (`sink`, `assign` and SwiftUI's `onReceive` subscribe for
///   you), before the subscriber receives its subscription; making the publisher observes nothing. Each subscriber
///   has an observation of its own, so the publisher can be kept and subscribed to again. For a
///   ``LatestValueNotifiable`` type, each subscription receives the center's latest post first, once it has demand.
/// - Observation ends when the subscription is cancelled (an `AnyCancellable` cancels when it is released), or when
///   nothing holds the subscription any more. A payload that another thread had already taken for delivery when
///   `cancel()` was called may still arrive; no other does. Completion is never sent: not on cancellation,
///   and not when the center is deallocated, which ends the observation silently.
/// - Demand is honoured: payloads the subscriber has not asked for yet are buffered without bound, in post order,
///   so nothing is dropped, as ``NotificationSequence`` does by default. To keep only some, compose with Combine's
///   `buffer(size:prefetch:whenFull:)`, which asks for everything and keeps at most `size`.
/// - The subscriber is called synchronously on the posting thread, before `post` returns, when it has outstanding
///   demand and no delivery to it is in progress. Otherwise the payload waits in the buffer and is delivered later:
///   on the thread that requests more demand, inside its `request(_:)` call, or on the thread already delivering to
///   this subscriber, right after the subscriber's current `receive(_:)` returns. Calls to one subscriber never
///   overlap, and come in the order the observation received the payloads, so posts made on one thread arrive in
///   that thread's order.
/// - From inside `receive(_:)` the subscriber may request more demand, cancel, or post: a payload posted there is
///   delivered after that `receive(_:)` returns.
/// - The publisher is `Sendable`; the subscriber need not be, but it is called on whichever thread posts. For
///   main-thread work such as UI updates, post on the main actor or add `.receive(on: DispatchQueue.main)`.
///
/// A sender filter holds its sender weakly: a subscription made after the sender was deallocated never delivers,
/// since that sender can no longer post. ``Foundation/NotificationCenter/typedObservations`` lists each
/// subscription's observation with ``TypedObservation/Delivery/publisher`` delivery and the file and line where the
/// publisher was made.
///
/// ```swift
/// struct CartDidChange: Notifiable { let itemCount: Int }
///
/// let center = NotificationCenter()
/// let cancellable = CartDidChange.publisher(in: center)
///     .map(\.itemCount)
///     .sink { count in print(count) }
/// CartDidChange(itemCount: 2).post(in: center)   // prints 2, before `post` returns
/// cancellable.cancel()                           // ends the observation
/// ```
public struct NotificationPublisher<Output: Sendable>: Publisher, Sendable {
    /// `Never`: the publisher never fails, and it never completes either.
    ///
    /// ```swift
    /// struct CartDidChange: Notifiable { let itemCount: Int }
    /// let publisher: AnyPublisher<CartDidChange, Never> = CartDidChange.publisher().eraseToAnyPublisher()
    /// ```
    public typealias Failure = Never

    /// Registers one observation that hands each payload to `deliver`; `nil` when the sender filter's sender is
    /// already gone, so that there is nothing to observe.
    private let observe: @Sendable (_ deliver: @escaping @Sendable (Output) -> Void) -> NotificationToken?

    init<Event: Notifiable>(
        center: NotificationCenter,
        subject: Event.Type,
        sender: Event.Sender?,
        file: StaticString,
        line: UInt
    ) where Event.Payload == Output {
        let filter = SenderFilter(sender)
        observe = { deliver in
            switch filter.sender {
            case .everySender: center.subscribeForPublisher(subject, from: nil, file: file, line: line, deliver)
            case .only(let sender): center.subscribeForPublisher(subject, from: sender, file: file, line: line, deliver)
            case .gone: nil
            }
        }
    }

    /// Starts an observation for `subscriber` and hands it its subscription.
    ///
    /// You rarely call this yourself: `subscribe(_:)`, `sink`, `assign` and SwiftUI's `onReceive` call it. The
    /// observation begins before `subscriber` receives the subscription, so a post that `subscriber` makes from
    /// `receive(subscription:)` after requesting demand reaches it. See ``NotificationPublisher`` for where and
    /// when `subscriber` is called, and when the observation ends.
    ///
    /// ```swift
    /// struct CartDidChange: Notifiable { let itemCount: Int }
    ///
    /// let center = NotificationCenter()
    /// let subscriber = Subscribers.Sink<CartDidChange, Never>(
    ///     receiveCompletion: { _ in },
    ///     receiveValue: { change in print(change.itemCount) }
    /// )
    /// CartDidChange.publisher(in: center).receive(subscriber: subscriber)
    /// CartDidChange(itemCount: 1).post(in: center)   // prints 1
    /// subscriber.cancel()
    /// ```
    ///
    /// - Parameter subscriber: Receives the payloads it asks for; never a completion.
    public func receive<Downstream: Subscriber>(subscriber: Downstream)
    where Downstream.Input == Output, Downstream.Failure == Never {
        let conduit = NotificationConduit(downstream: AnySubscriber(subscriber))
        // The observation must not keep the conduit alive: releasing the subscription ends it.
        let token = observe { [weak conduit] payload in conduit?.receive(payload) }
        conduit.start(token)
        subscriber.receive(subscription: conduit)
    }
}

// MARK: - Making publishers

extension Notifiable {
    /// A Combine publisher of the payloads of this type's posts: the typed counterpart of Foundation's
    /// `publisher(for:object:)`.
    ///
    /// - **Where the subscriber is called:** on the posting thread, when it has demand; payloads it has not asked for
    ///   yet are buffered without bound. In SwiftUI, `onReceive` calls its closure there too: post on the main actor,
    ///   or add `.receive(on: DispatchQueue.main)`.
    /// - **When observation ends:** each subscription observes from when it subscribes until it is cancelled or
    ///   released. See ``NotificationPublisher``.
    ///
    /// ```swift
    /// final class Cart: Sendable {}
    /// struct CartDidChange: Notifiable {
    ///     typealias Sender = Cart
    ///     let itemCount: Int
    /// }
    ///
    /// let center = NotificationCenter()
    /// let cart = Cart()
    /// let cancellable = CartDidChange.publisher(from: cart, in: center)
    ///     .sink { change in print(change.itemCount) }
    /// CartDidChange(itemCount: 3).post(from: cart, in: center)   // prints 3
    /// CartDidChange(itemCount: 4).post(in: center)               // another sender: prints nothing
    /// ```
    ///
    /// - Parameters:
    ///   - sender: Only posts from this object (compared by identity) are delivered; `nil` for every sender. The
    ///     publisher holds it weakly.
    ///   - center: The center to observe; `.default` unless given.
    ///   - file: Where the publisher is made, for `NotificationCenter.typedObservations`, which lists each
    ///     subscription's observation with this file and line and `.publisher` delivery; leave the default.
    ///   - line: Where the publisher is made; leave the default.
    /// - Returns: A publisher of payloads that never fails and never completes.
    public static func publisher(
        from sender: Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line
    ) -> NotificationPublisher<Payload> {
        NotificationPublisher(center: center, subject: Self.self, sender: sender, file: file, line: line)
    }
}

// MARK: - Internal machinery

/// A publisher's sender filter, holding the sender weakly.
///
/// `@unchecked Sendable` because the sender's type need not be `Sendable`: the sender is never used here, only handed
/// to `subscribeForPublisher(_:from:file:line:_:)`, which compares it by identity. The weak reference is written
/// once, in `init`, and a weak reference is safe to read from any thread.
private final class SenderFilter<Sender: AnyObject>: @unchecked Sendable {
    enum Filter {
        case everySender
        case only(Sender)
        /// The sender was deallocated: no post can match any more.
        case gone
    }

    private let filters: Bool
    private weak var object: Sender?

    init(_ sender: Sender?) {
        filters = sender != nil
        object = sender
    }

    var sender: Filter {
        guard filters else { return .everySender }
        if let object { return .only(object) }
        return .gone
    }
}

/// One subscriber's subscription: the buffer between the observation and the subscriber, and the demand.
///
/// Generic over the payload only, with the subscriber type-erased, so that the observation's `@Sendable` handler,
/// which refers to the conduit, captures nothing of the subscriber's type, which need not be `Sendable`.
///
/// `@unchecked Sendable` because the subscriber need not be `Sendable`. All mutable state is in `state`, which is
/// only read and written while `lock` is held. The subscriber is only called outside the lock, and only by the one
/// thread that set `state.isDelivering`; the next thread to deliver can only start after taking the lock that this
/// one released when it cleared the flag, so calls to the subscriber never overlap and each sees the previous one's
/// effects. Payloads are `Sendable`.
private final class NotificationConduit<Payload: Sendable>: CombineSubscription, @unchecked Sendable {
    typealias Downstream = AnySubscriber<Payload, Never>

    private struct State {
        /// `nil` once the subscription is cancelled.
        var downstream: Downstream?
        var token: NotificationToken?
        var demand = Subscribers.Demand.none
        var buffer = FIFO<Payload>()
        /// Whether a thread is delivering to the subscriber; others then only buffer or add demand, and that thread
        /// delivers what they leave.
        var isDelivering = false

        /// Takes the next payload to deliver, with the subscriber; when there is none, the delivering thread stops.
        mutating func next() -> (Payload, Downstream)? {
            guard let downstream, demand > 0, let payload = buffer.take() else {
                isDelivering = false
                return nil
            }
            demand -= 1
            return (payload, downstream)
        }
    }

    private let lock = NSLock()
    private var state: State

    init(downstream: Downstream) {
        state = State(downstream: downstream)
    }

    /// Keeps the observation's token, or ends the observation at once if the subscription was already cancelled.
    func start(_ token: NotificationToken?) {
        let cancelled = lock.withLock {
            guard state.downstream != nil else { return true }
            state.token = token
            return false
        }
        if cancelled { token?.cancel() }
    }

    /// A payload from the observation, on the posting thread.
    func receive(_ payload: Payload) {
        let first: (Payload, Downstream)? = lock.withLock {
            guard let downstream = state.downstream else { return nil }
            guard !state.isDelivering, state.demand > 0 else {
                state.buffer.append(payload)
                return nil
            }
            // Not delivering and demand left: the buffer is empty, so this payload is next.
            state.isDelivering = true
            state.demand -= 1
            return (payload, downstream)
        }
        if let first { deliver(first) }
    }

    func request(_ demand: Subscribers.Demand) {
        let first: (Payload, Downstream)? = lock.withLock {
            guard state.downstream != nil else { return nil }
            state.demand += demand
            guard !state.isDelivering else { return nil }  // the delivering thread will see the new demand
            state.isDelivering = true
            return state.next()
        }
        if let first { deliver(first) }
    }

    func cancel() {
        let (token, downstream, buffer) = lock.withLock {
            defer {
                state.token = nil
                state.downstream = nil
                state.buffer = FIFO()
            }
            return (state.token, state.downstream, state.buffer)
        }
        token?.cancel()
        // Released here, outside the lock, since releasing them can run their deinitialisers.
        withExtendedLifetime((downstream, buffer)) {}
    }

    /// Calls the subscriber with `first`, then with buffered payloads for as long as it has demand; called by the
    /// thread that set `state.isDelivering`, without the lock.
    private func deliver(_ first: (Payload, Downstream)) {
        var next: (Payload, Downstream)? = first
        while let (payload, downstream) = next {
            let more = downstream.receive(payload)
            next = lock.withLock {
                state.demand += more
                return state.next()
            }
        }
    }
}

#endif
