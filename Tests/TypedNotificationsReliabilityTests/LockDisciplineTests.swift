import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The package's lock behaves as `os_unfair_lock` does on Apple platforms, and debug builds check that nothing calls
/// Foundation or user code under it (see `Internal/Foundation/Platform.swift`).
///
/// The whole suite runs in debug builds, where every Foundation call the package makes asserts that the calling
/// thread holds none of its locks: any test that made the package call Foundation under its lock would trap. These
/// tests show that the checks are live.
@Suite struct LockDisciplineTests {
    @Test func locksHeldAreCountedPerThreadInDebugBuilds() async {
        let locked = Locked(0)
        let inside = locked.withLock { _ in LockDiscipline.locksHeld }
        #if DEBUG
        #expect(inside == 1)
        #else
        #expect(inside == 0)
        #endif
        #expect(LockDiscipline.locksHeld == 0)
        let onAnotherThread = await withCheckedContinuation { continuation in
            locked.withLock { _ in
                Thread { continuation.resume(returning: LockDiscipline.locksHeld) }.start()
            }
        }
        #expect(onAnotherThread == 0)
    }

    @Test func nothingIsHeldWhileHandlersAndFoundationRun() {
        let center = NotificationCenter()
        let heldInHandler = Counter()
        let heldInPlainObserver = Counter()
        let token = Tick.observe(in: center) { _ in heldInHandler.increment(by: LockDiscipline.locksHeld) }
        let plain = center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { _ in
            heldInPlainObserver.increment(by: LockDiscipline.locksHeld)
        }
        Tick(id: 1).post(in: center)
        center.post(name: Tick.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: Tick(id: 2)])
        #expect(heldInHandler.value == 0)
        #expect(heldInPlainObserver.value == 0)
        center.removeObserver(plain)
        token.cancel()
    }

    #if DEBUG && !(os(iOS) || os(tvOS) || os(watchOS) || os(visionOS))
    @Test func lockingALockThisThreadHoldsTraps() async {
        await #expect(processExitsWith: .failure) {
            let locked = Locked(0)
            locked.withLock { _ in locked.withLock { _ in } }
        }
    }

    @Test func aFoundationCallUnderTheLockTrapsInDebugBuilds() async {
        await #expect(processExitsWith: .failure) {
            Locked(0).withLock { _ in LockDiscipline.assertNoLockHeld("posts (test)") }
        }
    }
    #endif
}
