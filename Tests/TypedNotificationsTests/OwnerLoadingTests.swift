import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Where the package loads an observation's owner: never under one of its locks, and a main-actor or main-queue
/// owner only on the main actor, so that the package never runs an owner's `deinit` where it must not.
@Suite struct OwnerLoadingTests {
    struct Tick: Notifiable, Equatable {
        let id: Int
    }

    /// An owner that keeps a token of its own, as a view model does: its `deinit` cancels it, which takes the
    /// registry's lock. If the package loaded the owner under that lock and became its last holder, the `deinit`
    /// would re-enter the lock (a trap with `os_unfair_lock`, and in debug builds here).
    final class TokenKeepingOwner: Sendable {
        let token = Slot<NotificationToken>()
        let locksHeldAtDeinit: Slot<Int>

        init(locksHeldAtDeinit: Slot<Int>) {
            self.locksHeldAtDeinit = locksHeldAtDeinit
        }

        deinit {
            locksHeldAtDeinit.set(LockDiscipline.locksHeld)
            token.value?.cancel()
        }
    }

    enum OwnerRelease: CaseIterable, Sendable {
        /// A new registration of the type sweeps for dead owners.
        case registration
        /// A post checks the owner before calling the handler.
        case post
        /// Introspection drops observations whose owner is gone.
        case introspection
    }

    /// The hook pins the window deterministically: when the package loads the owner, the test drops its own last
    /// reference, so the package's load is the last one and the `deinit` runs where the package loaded it.
    @Test(.capturesReports, arguments: OwnerRelease.allCases)
    func ownerWhoseLastReferenceThePackageHoldsDeinitialisesOutsideItsLocks(release: OwnerRelease) throws {
        let center = NotificationCenter()
        let locksHeld = Slot<Int>()
        let held = Slot<TokenKeepingOwner>()
        let owner = TokenKeepingOwner(locksHeldAtDeinit: locksHeld)
        let ownerID = ObjectIdentifier(owner)
        owner.token.set(Tick.observe(in: center) { _ in })
        let calls = Counter()
        Tick.observe(for: owner, in: center) { _, _ in calls.increment() }
        held.set(owner)
        TestHooks.on(.ownerLoad, in: owner) { held.set(nil) }
        defer { TestHooks.removeHook(at: .ownerLoad, for: ownerID) }
        _ = consume owner

        switch release {
        case .registration: withExtendedLifetime(Tick.observe(in: center) { _ in }) {}
        case .post: Tick(id: 1).post(in: center)
        case .introspection: _ = center.typedObservations
        }

        #expect(held.value == nil, "the package loaded the owner")
        #expect(locksHeld.value == 0, "the owner's deinit ran while the package held a lock")
        // A post loads the owner once and hands it to the handler: alive when loaded, it dies after the call.
        #expect(calls.count == (release == .post ? 1 : 0))
        #expect(center.typedObservations.isEmpty, "the owner's token and its owner-bound observation both ended")
    }

    @MainActor final class ViewModel {
        var seen: [Int] = []
    }

    /// A main-actor owner (a view model, a view controller) is only ever loaded on the main actor, so the package
    /// never becomes its last holder on a background thread.
    @Test(.capturesReports) @MainActor func mainActorOwnerIsNeverLoadedOffTheMainActor() async {
        let center = NotificationCenter()
        let model = ViewModel()
        let done = Signal()
        Tick.observeOnMainActor(for: model, in: center) { model, tick in
            model.seen.append(tick.id)
            if tick.id == 2 { done.fire() }
        }
        let loadsOffMainActor = Counter()
        let background = Slot<ObjectIdentifier>()
        TestHooks.on(.ownerLoad, in: model) {
            if background.value == ObjectIdentifier(Thread.current) { loadsOffMainActor.increment() }
        }
        defer { TestHooks.removeHook(at: .ownerLoad, for: ObjectIdentifier(model)) }
        #expect(
            runOnAnotherThreadAndWait {
                background.set(ObjectIdentifier(Thread.current))
                Tick(id: 1).post(in: center)
                // A registration of the type sweeps for dead owners: not this one, off the main actor.
                withExtendedLifetime(Tick.observe(in: center) { _ in }) {}
                _ = center.typedObservations
                Tick(id: 2).post(in: center)
                // Cleared while the thread lives, so that no later thread at its address is taken for it.
                background.set(nil)
            })
        await done.wait()
        #expect(model.seen == [1, 2])
        #expect(loadsOffMainActor.count == 0)
    }

    enum Play: Notifiable {
        typealias Payload = Int
    }

    @MainActor final class MainQueueViewModel: Sendable {
        var seen: [Int] = []
    }

    /// A view model that observes with `delivery: .async(on: .main)` (the spelling that code migrating from
    /// `queue: .main` uses) is loaded by the package on whatever thread registers another observer of the type (the
    /// registration sweeps for dead owners), so the package can become the last holder of a main-actor object on a
    /// background thread, which the Guarantees article rules out for main-actor observations.
    @Test(.capturesReports) @MainActor func mainQueueOwnerIsNeverLoadedOffTheMainThread() async {
        let center = NotificationCenter()
        let model = MainQueueViewModel()
        let done = Signal()
        Play.observe(for: model, in: center, delivery: .async(on: DispatchQueue.main)) { model, index in
            MainActor.assumeIsolated { model.seen.append(index) }
            if index == 1 { done.fire() }
        }
        // Loads on the background thread below; not `Thread.isMainThread`, since on Linux the main queue may be
        // served by another thread.
        let loadsOffMain = Counter()
        let background = Slot<ObjectIdentifier>()
        TestHooks.on(.ownerLoad, in: model) {
            if background.value == ObjectIdentifier(Thread.current) { loadsOffMain.increment() }
        }
        defer { TestHooks.removeHook(at: .ownerLoad, for: ObjectIdentifier(model)) }
        #expect(
            runOnAnotherThreadAndWait {
                background.set(ObjectIdentifier(Thread.current))
                withExtendedLifetime(Play.observe(in: center) { _ in }) {}
                _ = center.typedObservations
                Play.post(1, in: center)
                background.set(nil)
            })
        await done.wait()
        #expect(model.seen == [1])
        #expect(loadsOffMain.count == 0, "a main-queue owner was loaded off the main thread")
    }
}
