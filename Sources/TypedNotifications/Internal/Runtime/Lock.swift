import CTypedNotificationsRuntime

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

// The package's one kind of lock, with the only platform difference it has (the primitive), and the debug-build
// check that nothing calls out while holding one.

#if canImport(Darwin)
private typealias Primitive = os_unfair_lock
#else
private typealias Primitive = pthread_mutex_t
#endif

/// A value guarded by the platform's lock: `os_unfair_lock` on Apple platforms, `pthread_mutex_t` elsewhere, at a
/// stable heap address.
///
/// `os_unfair_lock` traps when a thread locks it again while holding it. So that such a re-entry fails as loudly
/// before it reaches an Apple device, the mutex is an error-checking one in debug builds and in the simulated-Apple
/// build, and traps when it reports one. Not `Synchronization.Mutex`: it needs macOS 15 / iOS 18, and on Linux locks
/// with raw futex calls that ThreadSanitizer cannot see. `package` so that `TypedNotificationsTesting` shares it.
///
/// `@unchecked Sendable` because `state` is only ever touched inside `withLock`, which holds the lock.
package final class Locked<State>: @unchecked Sendable {
    private let primitive = UnsafeMutablePointer<Primitive>.allocate(capacity: 1)
    /// Only touched inside `withLock`, so the runtime's exclusivity checks, which cannot see the lock, are switched
    /// off: they would add a dynamic check to every access the lock already makes exclusive, on every post,
    /// observation and cancellation (the observe-cancel row of the Performance article's instruction table is the
    /// one they weigh on most).
    @exclusivity(unchecked) private var state: State

    package init(_ state: State) {
        self.state = state
        #if canImport(Darwin)
        primitive.initialize(to: os_unfair_lock())
        #else
        primitive.initialize(to: pthread_mutex_t())
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        defer { pthread_mutexattr_destroy(&attributes) }
        if Self.trapsOnReentry {
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ERRORCHECK))
        }
        let status = pthread_mutex_init(primitive, &attributes)
        precondition(status == 0, "pthread_mutex_init failed: \(status)")
        #endif
    }

    deinit {
        #if !canImport(Darwin)
        pthread_mutex_destroy(primitive)
        #endif
        primitive.deinitialize(count: 1)
        primitive.deallocate()
    }

    /// Runs `body` with exclusive access to the state.
    ///
    /// Never call back into the package, into Foundation or into user code from `body`: the lock is not recursive
    /// (re-entry traps, as `os_unfair_lock` always does), and Foundation may take a lock of its own.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        #if canImport(Darwin)
        os_unfair_lock_lock(primitive)
        #else
        let status = pthread_mutex_lock(primitive)
        if Self.trapsOnReentry {
            precondition(status == 0, "TypedNotifications: a thread locked a lock it already holds (\(status))")
        }
        #endif
        LockDiscipline.didLock()
        defer {
            LockDiscipline.willUnlock()
            #if canImport(Darwin)
            os_unfair_lock_unlock(primitive)
            #else
            pthread_mutex_unlock(primitive)
            #endif
        }
        return try body(&state)
    }

    #if !canImport(Darwin)
    /// Whether the mutex checks for re-entry. Not in release builds, where debug builds already trap on any re-entry:
    /// an error-checking mutex records its owner on every lock and checks it on every unlock, in every lock round trip
    /// (the observe-cancel and post-0 rows of the Performance article's instruction table).
    private static var trapsOnReentry: Bool {
        #if DEBUG || TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        true
        #else
        false
        #endif
    }
    #endif
}

/// Counts, per thread, in debug builds, the package's locks held, so that debug builds can assert that the package
/// never calls Foundation or user code while holding one (Apple's `NotificationCenter` may hold a lock of its own while
/// it calls observers, and calling it under one of ours could then deadlock); and the times they are taken, so that a
/// test can bound the lock round trips of one delivery (`LocksTakenPerDeliveryTests`): a change that adds one fails it.
/// Nothing in release builds.
///
/// The round trips are counted per thread, not by one process-wide atomic: tests run in parallel, and a count on one
/// thread between two points where only the measured work ran there is exact. In a `pthread` key's slot (the count as
/// the pointer's bits), which every platform has, rather than one more C thread-local.
package enum LockDiscipline {
    @inline(__always)
    static func didLock() {
        #if DEBUG
        tn_thread_lock_depth_add(1)
        pthread_setspecific(roundTripsKey, UnsafeRawPointer(bitPattern: roundTripsOnThisThread &+ 1))
        #endif
    }

    @inline(__always)
    static func willUnlock() {
        #if DEBUG
        tn_thread_lock_depth_add(-1)
        #endif
    }

    /// Traps in debug builds when the calling thread holds one of the package's locks.
    @inline(__always)
    static func assertNoLockHeld(_ what: @autoclosure () -> String) {
        #if DEBUG
        precondition(tn_thread_lock_depth() == 0, "TypedNotifications: \(what()) while holding one of its locks")
        #endif
    }

    /// How many of the package's locks the calling thread holds (always 0 outside debug builds).
    package static var locksHeld: Int {
        #if DEBUG
        Int(tn_thread_lock_depth())
        #else
        0
        #endif
    }

    /// Whether the round trips are counted (debug builds).
    package static var roundTripsAreCounted: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }

    /// How many times the calling thread has taken one of the package's locks so far (always 0 outside debug builds).
    package static var roundTripsOnThisThread: Int {
        #if DEBUG
        Int(bitPattern: pthread_getspecific(roundTripsKey))
        #else
        0
        #endif
    }

    #if DEBUG
    private static let roundTripsKey: pthread_key_t = {
        var key = pthread_key_t()
        let status = pthread_key_create(&key, nil)
        precondition(status == 0, "pthread_key_create failed: \(status)")
        return key
    }()
    #endif
}
