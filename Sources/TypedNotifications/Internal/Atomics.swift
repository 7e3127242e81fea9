// Public only so that the inlinable post path can read an atomic (see `AnySubscription.hasEnded`); the module
// declares nothing but C functions: these atomics and the thread-local slots.
public import CTypedNotificationsRuntime

/// A 64-bit word read and written atomically, in one allocation of its own, so that its address is stable.
///
/// Not `Synchronization.Atomic`, which needs macOS 15 / iOS 18: this runs on the package's whole deployment range and
/// is the same code on every platform. The operations are C11 atomics (`CTypedNotificationsRuntime/include/Atomics.h`), which
/// ThreadSanitizer understands.
///
/// A value type over a reference: copies share the word. `@unchecked Sendable` because the word is only ever
/// accessed through those atomic operations, and the buffer holds nothing else.
@usableFromInline
package struct AtomicWord: @unchecked Sendable {
    @usableFromInline
    let buffer: ManagedBuffer<Void, UInt64>

    /// A new word holding `value`.
    package static func make(_ value: UInt64 = 0) -> AtomicWord {
        let buffer = ManagedBuffer<Void, UInt64>.create(minimumCapacity: 1) { _ in }
        buffer.withUnsafeMutablePointerToElements { $0.initialize(to: value) }
        return AtomicWord(buffer: buffer)
    }

    @inlinable
    func withUnsafeMutablePointerToElements<R>(_ body: (UnsafeMutablePointer<UInt64>) -> R) -> R {
        buffer.withUnsafeMutablePointerToElements(body)
    }

    /// The current value; later reads see everything written before the store or update that produced it.
    ///
    /// Inlinable, for the check every post makes per observer.
    @inlinable
    package func load() -> UInt64 {
        withUnsafeMutablePointerToElements { tn_atomic_load_acquire($0) }
    }

    /// The current value, with no ordering of other memory: for counters read on their own.
    package func loadRelaxed() -> UInt64 {
        withUnsafeMutablePointerToElements { tn_atomic_load_relaxed($0) }
    }

    /// Stores `value`, publishing everything written before it to threads that then load it.
    package func store(_ value: UInt64) {
        withUnsafeMutablePointerToElements { tn_atomic_store_release($0, value) }
    }

    /// Adds `delta` and returns the new value.
    @discardableResult
    package func add(_ delta: UInt64) -> UInt64 {
        withUnsafeMutablePointerToElements { tn_atomic_fetch_add($0, delta) } &+ delta
    }

    /// Stores `value` and returns the value it replaced.
    package func exchange(_ value: UInt64) -> UInt64 {
        withUnsafeMutablePointerToElements { tn_atomic_exchange($0, value) }
    }
}

extension AtomicWord {
    /// The word as a flag: `true` when not zero.
    package var isSet: Bool { load() != 0 }

    /// Sets the flag and returns whether this call set it (it was clear before).
    package func set() -> Bool { exchange(1) == 0 }
}

/// Makes an object's fields visibly published to threads that Foundation hands it to.
///
/// An object whose Foundation observer reads its fields (a channel's bridge) is handed to posting threads by
/// `NotificationCenter`, through a lock of its own. That is safe, but on Linux the lock is invisible to
/// ThreadSanitizer, which would report the first reads as races. So the package calls ``publish()`` once a bridge
/// and its channel are made, just before registering the bridge, and the bridge calls ``acquire()`` before reading
/// them: one release and one acquire on one word, which the sanitizer understands. Bridges are made rarely; the
/// acquire is a plain load on x86 and ARM.
///
/// For ThreadSanitizer, not for speed: about 18 instructions per plain post that reaches a bridge (callgrind,
/// `Benchmarks/instructions.sh`). Without them ThreadSanitizer reports 20 races in the suite, all such first reads
/// (in `FoundationBridge.addBridgeObserver` and `isOwnPost`, `AnyChannel.recordActivity`,
/// `ObserverRegistry.snapshot`); suppressing those functions would hide real races in them too.
package enum FoundationPublication {
    private static let word = AtomicWord.make()

    /// Publishes everything the calling thread wrote so far; call at the end of the object's initialiser.
    package static func publish() {
        word.add(1)
    }

    /// Sees everything published so far; call before reading the fields of an object Foundation handed over.
    package static func acquire() {
        _ = word.load()
    }
}
