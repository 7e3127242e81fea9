// Public only so that the inlinable post path can read an atomic (see `AnySubscription.hasEnded`); the module declares
// only C functions: these atomics and the thread-local slots.
public import CTypedNotificationsRuntime

/// A 64-bit word read and written atomically, in an allocation of its own so that its address is stable; copies share
/// it. C11 atomics (`CTypedNotificationsRuntime/include/Atomics.h`), which ThreadSanitizer understands, rather than
/// `Synchronization.Atomic` (macOS 15 / iOS 18): the same code on the whole deployment range and every platform.
/// `@unchecked Sendable` because the word is only accessed through these atomics, and the buffer holds nothing else.
@usableFromInline
package struct AtomicWord: @unchecked Sendable {
    @usableFromInline
    let buffer: ManagedBuffer<Void, UInt64>

    package static func make(_ value: UInt64 = 0) -> AtomicWord {
        let buffer = ManagedBuffer<Void, UInt64>.create(minimumCapacity: 1) { _ in }
        buffer.withUnsafeMutablePointerToElements { $0.initialize(to: value) }
        return AtomicWord(buffer: buffer)
    }

    /// The current value, with acquire ordering (see ``store(_:)``); inlinable: every post checks it per observer.
    @inlinable
    package func load() -> UInt64 {
        buffer.withUnsafeMutablePointerToElements { tn_atomic_load_acquire($0) }
    }

    /// The current value, with no ordering of other memory: for counters read on their own.
    package func loadRelaxed() -> UInt64 {
        buffer.withUnsafeMutablePointerToElements { tn_atomic_load_relaxed($0) }
    }

    /// Stores `value`, publishing everything written before it to threads that then load it.
    package func store(_ value: UInt64) {
        buffer.withUnsafeMutablePointerToElements { tn_atomic_store_release($0, value) }
    }

    /// Adds `delta` and returns the new value.
    @discardableResult
    package func add(_ delta: UInt64) -> UInt64 {
        buffer.withUnsafeMutablePointerToElements { tn_atomic_fetch_add($0, delta) } &+ delta
    }

    package func exchange(_ value: UInt64) -> UInt64 {
        buffer.withUnsafeMutablePointerToElements { tn_atomic_exchange($0, value) }
    }
}

extension AtomicWord {
    /// The word as a flag: `true` when not zero.
    package var isSet: Bool { load() != 0 }

    /// Sets the flag and returns whether this call set it (it was clear before).
    package func set() -> Bool { exchange(1) == 0 }
}
