import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// When the registrations of owner-bound observations whose owner is gone are dropped, and that dropping them is
/// safe whatever their handlers hold.
@Suite struct OwnerCleanupTests {
    // MARK: - Dropped lazily, at the next post or observation

    /// What follows the owner's deallocation on the observation's channel.
    enum Trigger: CaseIterable, CustomTestStringConvertible {
        case postFromTheFilteredSender
        case postFromAnotherSender
        case postWithoutSender
        case plainPostWithoutSender
        case observation
        case registrationCount

        var testDescription: String { "\(self)" }
    }

    /// The documented promise: the registration "is dropped at the next post or observation on the same name and
    /// center". The handler holds a probe; only the channel holds the registration (the token is dropped, which
    /// does not end an owner-bound observation), so the probe dies exactly when the registration is dropped.
    @Test(arguments: [false, true], Trigger.allCases)
    func ownerBoundRegistrationIsDroppedAtTheNextPostOrObservation(filtersBySender: Bool, trigger: Trigger) {
        let center = NotificationCenter()
        let sender = Sender()
        let live = LiveCount()
        let calls = Counter()
        var owner: Owner? = Owner()
        do {
            let probe = Probe(live)
            _ = Tick.observe(for: owner!, from: filtersBySender ? sender : nil, in: center) { _, _ in
                withExtendedLifetime(probe) { _ = calls.increment() }
            }
        }
        Tick(id: 0).post(from: sender, in: center)
        #expect(calls.value == 1)
        owner = nil
        #expect(live.value == 1, "nothing has happened on the channel yet")

        switch trigger {
        case .postFromTheFilteredSender: Tick(id: 1).post(from: sender, in: center)
        case .postFromAnotherSender: Tick(id: 1).post(from: Sender(), in: center)
        case .postWithoutSender: Tick(id: 1).post(in: center)
        case .plainPostWithoutSender:
            center.post(name: Tick.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: Tick(id: 1)])
        case .observation: Tick.observe(in: center) { _ in }.cancel()
        case .registrationCount: _ = ObserverRegistry.shared.registrationCounts(in: center)
        }
        #expect(live.value == 0, "the registration outlived its owner after \(trigger)")
        #expect(calls.value == 1)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    // MARK: - Dropping never re-enters the registry's lock

    /// Something the handler of an owner-bound observation holds, that calls back into the package when released.
    enum Captured: String, Codable, CaseIterable, CustomTestStringConvertible {
        /// The last reference to the token of another observation (whose release cancels it).
        case token
        /// An object whose deinit posts.
        case objectThatPostsOnDeinit
        /// A `NotificationSequence`, whose release ends its observation.
        case sequence

        var testDescription: String { rawValue }
    }

    /// How the dead observation is dropped.
    enum Sweep: String, Codable, CaseIterable, CustomTestStringConvertible {
        /// A new observation on the same channel.
        case observation
        /// Cancelling another observation on the same channel.
        case cancellation
        /// A post on the channel.
        case post
        /// Counting registrations (which tests do).
        case registrationCount

        var testDescription: String { rawValue }
    }

    /// Dropping a dead owner-bound observation releases its handler and everything it captured. If that happens
    /// while the registry's lock is held, and the release calls back into the package, the non-recursive lock is
    /// taken again on the same thread: a deadlock with `pthread_mutex_t`, a trap ("Recursive call to lock Mutex")
    /// with `Synchronization.Mutex`. So the scenario runs in a child process (an exit test), on a thread of its own;
    /// if that thread has not finished after 5 seconds it is deadlocked, and the child exits with status 3. (The
    /// timeout only turns a hang into a failure; it plays no part in the scenario.)
    ///
    /// iOS, tvOS, watchOS and visionOS have no exit tests: there the scenario runs in this process, where a re-entry
    /// traps (`os_unfair_lock`) and so still fails the run, and a deadlock fails the test after the same 5 seconds.
    @Test(arguments: Captured.allCases, Sweep.allCases)
    func droppingAnEndedObservationWhoseHandlerHoldsATokenIsSafe(captured: Captured, sweep: Sweep) async {
        #if os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
        let finished = onNewThread { runDropScenario(captured: captured, sweep: sweep) }
        #expect(finished.wait(timeout: .now() + .seconds(5)) == .success, "deadlocked while dropping (\(sweep))")
        #else
        await #expect(processExitsWith: .success) { [captured, sweep] in
            let finished = onNewThread { runDropScenario(captured: captured, sweep: sweep) }
            if finished.wait(timeout: .now() + .seconds(5)) == .timedOut {
                print("deadlocked while dropping an ended observation (\(captured), \(sweep))")
                exit(3)
            }
        }
        #endif
    }
}

/// Registers an owner-bound observation whose handler holds `captured`, lets its owner go, and has `sweep` drop it.
private func runDropScenario(captured: OwnerCleanupTests.Captured, sweep: OwnerCleanupTests.Sweep) {
    let center = NotificationCenter()
    let sibling = Tick.observe(in: center) { _ in }
    do {
        let owner = Owner()
        let held: AnyObject =
            switch captured {
            case .token: Unrelated.observe(in: center) { _ in }
            case .objectThatPostsOnDeinit: Owner { Unrelated.post((), in: center) }
            case .sequence: SequenceBox(Unrelated.notifications(in: center))
            }
        let box = UncheckedBox(held)
        Tick.observe(for: owner, in: center) { _, _ in withExtendedLifetime(box) {} }
    }
    switch sweep {
    case .observation: Tick.observe(in: center) { _ in }.cancel()
    case .cancellation: sibling.cancel()
    case .post: Tick(id: 1).post(in: center)
    case .registrationCount: _ = ObserverRegistry.shared.registrationCounts(in: center)
    }
    sibling.cancel()
    #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
}

/// Holds a sequence as an object, so that the handler's capture is its only owner.
private final class SequenceBox: Sendable {
    let sequence: NotificationSequence<Void>

    init(_ sequence: NotificationSequence<Void>) {
        self.sequence = sequence
    }
}

/// Lets a `@Sendable` handler capture an `AnyObject` that is in fact `Sendable` (each case above is).
private struct UncheckedBox: @unchecked Sendable {
    let object: AnyObject

    init(_ object: AnyObject) {
        self.object = object
    }
}
