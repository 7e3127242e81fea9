import Foundation
import TypedNotifications

/// A value guarded by a lock, shareable between handlers and threads.
///
/// An `NSLock` (a `pthread_mutex_t`), not `Synchronization.Mutex`, whose raw futex calls ThreadSanitizer cannot see on
/// Linux. `@unchecked Sendable` because `storage` is only touched with the lock held.
package final class Protected<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: Value

    package init(_ value: Value) {
        storage = value
    }

    package func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body(&storage)
    }

    package var value: Value { withLock { $0 } }

    /// Replaces the value; the old one is released after the lock (releasing a token runs its cancellation).
    package func set(_ newValue: Value) {
        let old = withLock { value in
            defer { value = newValue }
            return value
        }
        withExtendedLifetime(old) {}
    }
}

/// A thread-safe list that handlers append to.
package typealias Recorded<Element: Sendable> = Protected<[Element]>

extension Protected {
    /// An empty list.
    package convenience init<Element>() where Value == [Element] {
        self.init([])
    }

    package func append<Element>(_ element: Element) where Value == [Element] {
        withLock { $0.append(element) }
    }

    /// The elements appended so far, in order.
    package var values: Value { value }
}

extension Protected where Value: Collection {
    package var count: Int { value.count }
}

/// A slot that a handler can fill in later, e.g. with a token to cancel.
package typealias Slot<Value: Sendable> = Protected<Value?>

extension Protected {
    /// An empty slot.
    package convenience init<Wrapped>() where Value == Wrapped? {
        self.init(nil)
    }
}

/// An atomic counter.
package final class Counter: Sendable {
    private let atomic = AtomicWord.make()

    package init() {}

    package var value: Int { Int(truncatingIfNeeded: atomic.load()) }

    /// The same as ``value``.
    package var count: Int { value }

    @discardableResult
    package func increment(by delta: Int = 1) -> Int {
        Int(truncatingIfNeeded: atomic.add(UInt64(truncatingIfNeeded: delta)))
    }

    package func reset() {
        atomic.store(0)
    }
}
