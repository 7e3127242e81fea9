import Foundation
import TypedNotifications
import TypedNotificationsTestSupport

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

// MARK: - Objects and queues

/// An object with nothing in it, to post from or to own observations.
final class Sender: Sendable {}

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

/// Lets a queue held by ``busyQueue()`` go on, and returns once everything queued on it before has run.
func releaseAndDrain(_ queue: DispatchQueue, _ release: DispatchSemaphore) async {
    release.signal()
    await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
}

/// An async gate: `wait()` suspends until `open()`.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}
