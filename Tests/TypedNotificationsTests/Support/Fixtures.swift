import Foundation
import TypedNotifications

// MARK: - Notification types used across the suite

/// The seed 004 counter: the payload is the value itself.
struct CounterDidChange: Notifiable, Equatable {
    let count: Int
}

/// Seed 001's login: a separate payload type.
struct User: Sendable, Equatable {
    let name: String
}

enum UserDidLogIn: Notifiable {
    typealias Payload = User
}

/// A payload-less event.
enum AppDidBecomeActive: Notifiable {
    typealias Payload = Void
}

/// Seed 002: enum cases as notification names.
enum PaymentNotifications: Notifiable, Equatable {
    case accepted
    case rejected
}

/// A typed sender.
final class Thermometer: Sendable {}

struct Reading: Notifiable, Equatable {
    typealias Sender = Thermometer
    let celsius: Double
}

/// Same simple name in two namespaces, and one generic type with two arguments: names must not collide.
enum ModuleA {
    struct Ping: Notifiable {}
}

enum ModuleB {
    struct Ping: Notifiable {}
}

struct Box<Value: Sendable>: Notifiable {
    let value: Value
}

/// Adopts an existing string name.
struct LegacyNamed: Notifiable {
    static var notificationName: Notification.Name { .init("LegacyNamedNotification") }
    let text: String
}

// MARK: - Recording

/// A thread-safe list that handlers append to.
///
/// Guarded by `NSLock` rather than `Synchronization.Mutex`, whose futex-based locking ThreadSanitizer cannot see on
/// Linux. `@unchecked Sendable`: `elements` is only touched while `lock` is held.
final class Recorded<Element: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var elements: [Element] = []

    func append(_ element: Element) {
        lock.withLock { elements.append(element) }
    }

    var values: [Element] {
        lock.withLock { elements }
    }

    var count: Int {
        lock.withLock { elements.count }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = AtomicWord.make()

    func increment() {
        value.add(1)
    }

    var count: Int {
        Int(value.load())
    }
}

/// A slot that a handler can fill in later, e.g. with a token to cancel.
///
/// `@unchecked Sendable`: `stored` is only touched while `lock` is held (see ``Recorded`` for why not `Mutex`).
final class Slot<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value?) {
        let old = lock.withLock {
            defer { stored = value }
            return stored
        }
        // Released outside the lock: releasing a token runs its cancellation.
        withExtendedLifetime(old) {}
    }

    var value: Value? {
        lock.withLock { stored }
    }
}

/// An object with nothing in it, to post from or to own observations.
final class Sender: Sendable {}

/// A one-shot signal for awaiting something that happens on another thread or actor, without sleeping.
final class Signal: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    func fire() {
        continuation.finish()
    }

    /// Returns once `fire()` has been called (at once if it already was).
    func wait() async {
        for await _ in stream {}
    }
}

/// A serial queue kept busy by a block that has started and waits: deliveries queued on it stay queued until the
/// returned semaphore is signalled.
func busyQueue() -> (queue: DispatchQueue, release: DispatchSemaphore) {
    let queue = DispatchQueue(label: "busy")
    let running = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)
    queue.async {
        running.signal()
        release.wait()
    }
    running.wait()
    return (queue, release)
}
