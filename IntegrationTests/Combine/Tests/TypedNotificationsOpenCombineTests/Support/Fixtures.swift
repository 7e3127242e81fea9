import Foundation
import TypedNotifications

final class Cart: Sendable {}

struct CartDidChange: Notifiable, Equatable {
    typealias Sender = Cart
    let itemCount: Int
}

enum AppDidBecomeActive: Notifiable {
    typealias Payload = Void
}

struct User: Sendable, Equatable {
    let name: String
}

enum UserDidLogIn: Notifiable {
    typealias Payload = User
}

/// One post of a concurrent run: which thread posted it, and its place in that thread's posts.
struct Tick: Notifiable, Hashable {
    let thread: Int
    let index: Int
}

/// A payload whose lifetime a test can watch with a `weak` reference.
final class Parcel: Sendable {
    let number: Int
    init(_ number: Int) { self.number = number }
}

enum ParcelDidArrive: Notifiable {
    typealias Payload = Parcel
}

/// Identifies the current thread, to check where a subscriber is called.
func currentThread() -> ObjectIdentifier {
    ObjectIdentifier(Thread.current)
}

/// Runs `body` on a new thread of its own and returns when it has finished.
func onNewThread(_ body: @escaping @Sendable () -> Void) {
    let finished = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        finished.signal()
    }
    thread.start()
    finished.wait()
}
