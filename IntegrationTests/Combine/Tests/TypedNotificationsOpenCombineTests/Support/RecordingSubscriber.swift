import Foundation
import OpenCombine

/// A subscriber that records what it receives, asks for the demand a test gives it, and checks that its calls never
/// overlap.
///
/// `@unchecked Sendable`: every mutable property is only touched while `lock` is held, and the lock is never held
/// while the subscription is called, so a subscriber calling back into its subscription cannot deadlock.
final class RecordingSubscriber<Input: Sendable>: Subscriber, @unchecked Sendable {
    typealias Failure = Never

    /// What a value is received with: the value, and the subscription, for requesting more or cancelling.
    typealias ValueHandler = @Sendable (Input, any Subscription) -> Subscribers.Demand

    private let lock = NSLock()
    private let initialDemand: Subscribers.Demand
    private let onValue: ValueHandler
    private var strongSubscription: (any Subscription)?
    private weak var weakSubscription: AnyObject?
    private var recorded: [Input] = []
    private var receivingThreads: [ObjectIdentifier] = []
    private var completionCount = 0
    private var callsInProgress = 0
    private var overlapped = false

    /// - Parameters:
    ///   - initialDemand: Requested as soon as the subscription arrives; `.none` requests nothing.
    ///   - onValue: Called with each value, outside the lock; returns the demand to add.
    init(
        initialDemand: Subscribers.Demand = .unlimited,
        onValue: @escaping ValueHandler = { _, _ in .none }
    ) {
        self.initialDemand = initialDemand
        self.onValue = onValue
    }

    let combineIdentifier = CombineIdentifier()

    func receive(subscription: any Subscription) {
        lock.withLock {
            strongSubscription = subscription
            weakSubscription = subscription as AnyObject
        }
        if initialDemand > 0 { subscription.request(initialDemand) }
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        let subscription: (any Subscription)? = lock.withLock {
            callsInProgress += 1
            if callsInProgress > 1 { overlapped = true }
            recorded.append(input)
            receivingThreads.append(currentThread())
            return strongSubscription
        }
        defer { lock.withLock { callsInProgress -= 1 } }
        guard let subscription else { return .none }
        return onValue(input, subscription)
    }

    func receive(completion: Subscribers.Completion<Never>) {
        lock.withLock { completionCount += 1 }
    }

    /// Asks the subscription for more, from the calling thread.
    func request(_ demand: Subscribers.Demand) {
        lock.withLock { strongSubscription }?.request(demand)
    }

    func cancel() {
        lock.withLock { strongSubscription }?.cancel()
    }

    /// Lets go of the subscription without cancelling it, keeping only a weak reference to watch it.
    func releaseSubscription() {
        let released = lock.withLock {
            defer { strongSubscription = nil }
            return strongSubscription
        }
        withExtendedLifetime(released) {}  // released here, outside the lock
    }

    var values: [Input] { lock.withLock { recorded } }
    var threads: [ObjectIdentifier] { lock.withLock { receivingThreads } }
    var completions: Int { lock.withLock { completionCount } }
    var hasSubscription: Bool { lock.withLock { strongSubscription != nil } }
    var subscriptionIsAlive: Bool { lock.withLock { weakSubscription != nil } }
    /// Whether two calls of `receive(_:)` ever ran at the same time.
    var callsOverlapped: Bool { lock.withLock { overlapped } }
}
