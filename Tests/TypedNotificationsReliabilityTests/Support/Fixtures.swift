import Foundation
import TypedNotificationsTestSupport

@testable import TypedNotifications

// MARK: - Notification types

/// The notification of most reliability tests; `id` names one post, so that deliveries can be told apart.
struct Tick: Notifiable, Equatable {
    let id: Int
}

/// A notification carrying the moment its post started (see ``LogicalClock``) and how deeply it is nested.
struct Stamped: Notifiable {
    let stamp: Int
    let depth: Int
}

/// A second notification type, to check that types never see each other's posts or registrations.
enum Unrelated: Notifiable {
    typealias Payload = Void
}

// MARK: - Objects

/// An object that posts; `generation` tells the objects that may share one address apart.
final class Sender: Sendable {
    let generation: Int

    init(generation: Int = 0) {
        self.generation = generation
    }
}

/// The owner of an owner-bound observation; runs `onDeinit` when deallocated.
final class Owner: Sendable {
    private let onDeinit: (@Sendable () -> Void)?

    init(onDeinit: (@Sendable () -> Void)? = nil) {
        self.onDeinit = onDeinit
    }

    deinit { onDeinit?() }
}

/// Counts the instances of ``Probe`` made with it that are still alive.
final class LiveCount: Sendable {
    private let count = AtomicWord.make()

    var value: Int { Int(truncatingIfNeeded: count.load()) }

    fileprivate func add(_ delta: Int) {
        count.add(UInt64(truncatingIfNeeded: delta))
    }
}

/// An object captured by a handler: while any probe is alive, some handler (so some registration) is still alive.
final class Probe: Sendable {
    private let live: LiveCount

    init(_ live: LiveCount) {
        self.live = live
        live.add(1)
    }

    deinit { live.add(-1) }
}

// MARK: - Thread-safe state

/// A global order of events across threads: a post takes a stamp before it starts, a `cancel()` takes one after it
/// returns, so `post stamp > cancel stamp` proves the post started after `cancel()` had returned.
typealias LogicalClock = Counter

/// Plain Foundation observer tokens, for blocks that remove observers.
///
/// `addObserver(forName:object:queue:using:)` returns a non-`Sendable` `NSObjectProtocol`; the tokens are only
/// passed back to `removeObserver(_:)` of their own center, which is thread-safe, and only touched under the lock.
final class PlainObservers: @unchecked Sendable {
    private let lock = NSLock()
    private var observers: [any NSObjectProtocol] = []

    func add(_ observer: any NSObjectProtocol) {
        lock.lock()
        defer { lock.unlock() }
        observers.append(observer)
    }

    func removeAll(from center: NotificationCenter) {
        lock.lock()
        let removed = observers
        observers.removeAll()
        lock.unlock()
        for observer in removed { center.removeObserver(observer) }
    }
}

/// A notification numbered per posting thread, to check per-thread order.
struct Numbered: Notifiable {
    let thread: Int
    let index: Int
}

/// What an observation returned, token or owner-bound, for tests that keep both kinds side by side.
///
/// Releasing a `.token` ends its observation; releasing an `.ownerBound` does not (its owner's lifetime does).
enum HeldObservation {
    case token(NotificationToken)
    case ownerBound(OwnerBoundObservation)

    func cancel() {
        switch self {
        case .token(let token): token.cancel()
        case .ownerBound(let observation): observation.cancel()
        }
    }
}
