import Foundation
import Synchronization
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

/// A thread-safe list that handlers append to; the mutex makes it `Sendable`.
final class Recorded<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    var values: [Element] {
        storage.withLock { $0 }
    }

    var count: Int {
        storage.withLock { $0.count }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    func increment() {
        value.add(1, ordering: .relaxed)
    }

    var count: Int {
        value.load(ordering: .relaxed)
    }
}

/// A slot that a handler can fill in later, e.g. with a token to cancel; the mutex makes it `Sendable`.
final class Slot<Value: Sendable>: Sendable {
    private let storage = Mutex<Value?>(nil)

    func set(_ value: Value?) {
        storage.withLock { $0 = value }
    }

    var value: Value? {
        storage.withLock { $0 }
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
