#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

/// A value guarded by a lock: the platform's own (`pthread_mutex_t` on Linux, `os_unfair_lock` on Apple platforms).
///
/// Not `Synchronization.Mutex`: on Linux it locks with raw futex calls that ThreadSanitizer cannot see, so every
/// access it guards would be reported as a race. The platform locks are understood by the sanitizers.
///
/// `package` so that `TypedNotificationsTesting` shares it.
///
/// `@unchecked Sendable` because `state` is only ever read or written inside `withLock`, which holds the lock; the
/// lock itself lives at a stable heap address for the object's whole life.
package final class Locked<State>: @unchecked Sendable {
    #if canImport(Darwin)
    private let lock: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    #endif
    private var state: State

    package init(_ state: State) {
        self.state = state
        lock = .allocate(capacity: 1)
        #if canImport(Darwin)
        lock.initialize(to: os_unfair_lock())
        #else
        lock.initialize(to: pthread_mutex_t())
        let status = pthread_mutex_init(lock, nil)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(lock)
        #endif
        lock.deinitialize(count: 1)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the state. Never call back into the package from `body`: the lock is
    /// not recursive.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(lock)
        defer { os_unfair_lock_unlock(lock) }
        #else
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        #endif
        return try body(&state)
    }
}
