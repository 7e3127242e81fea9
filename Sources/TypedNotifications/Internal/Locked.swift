/// A value guarded by the package's lock (``PlatformLock``).
///
/// `package` so that `TypedNotificationsTesting` shares it.
///
/// `@unchecked Sendable` because `state` is only ever read or written inside `withLock`, which holds the lock; the
/// lock itself lives at a stable heap address for the object's whole life.
package final class Locked<State>: @unchecked Sendable {
    private let lock = PlatformLock.make()
    /// Only touched inside `withLock`, so the runtime's exclusivity checks, which cannot see the lock and cost about
    /// as much as the lock itself, are switched off.
    @exclusivity(unchecked) private var state: State

    package init(_ state: State) {
        self.state = state
    }

    deinit {
        lock.destroy()
    }

    /// Runs `body` with exclusive access to the state.
    ///
    /// Never call back into the package, into Foundation or into user code from `body`: the lock is not recursive
    /// (re-entry traps in debug builds, as `os_unfair_lock` always does on Apple platforms), and Foundation may take a
    /// lock of its own.
    package func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
