import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// What owner-bound observations return.
@Suite struct OwnerBoundObservationTests {
    @Test func releasingTheResultDoesNotEndTheObservationButCancelDoes() {
        let center = NotificationCenter()
        let owner = Sender()
        let counts = Recorded<Int>()
        do {
            _ = CounterDidChange.observe(for: owner, in: center) { _, change in counts.append(change.count) }
        }
        CounterDidChange(count: 1).post(in: center)
        let observation = CounterDidChange.observe(for: owner, in: center) { _, change in counts.append(-change.count) }
        observation.cancel()
        CounterDidChange(count: 2).post(in: center)
        #expect(counts.values == [1, 2])
        withExtendedLifetime(owner) {}
    }
}

extension OwnerBoundObservationTests {
    // MARK: - The owner-bound `async` form

    /// The owner is released on another thread while its handler is suspended: the call finishes holding it, the
    /// owner dies when it returns, and neither the condition nor the handler runs again, for queued payloads either.
    @Test(.timeLimit(.minutes(1))) func anOwnerReleasedMidHandlerOnAnotherThreadDiesAfterTheCallAndNothingRunsAfter()
        async
    {
        let center = NotificationCenter()
        let started = Signal()
        let gate = Signal()
        let died = Signal()
        let conditionCalls = Recorded<Int>()
        let finished = Recorded<Int>()
        let finishedWhenDied = Recorded<[Int]>()
        let held = Slot<CallbackOwner>()
        held.set(
            CallbackOwner {
                finishedWhenDied.append(finished.values)
                died.fire()
            })
        CounterDidChange.observe(
            for: held.value!, in: center,
            where: .matching { change in
                #expect(LockDiscipline.locksHeld == 0)
                conditionCalls.append(change.count)
                return true
            }
        ) { _, change async in
            if change.count == 1 {
                started.fire()
                await gate.wait()
            }
            finished.append(change.count)
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }
        await started.wait()
        #expect(runOnAnotherThreadAndWait { held.set(nil) })
        #expect(finishedWhenDied.values.isEmpty, "the owner died while its handler was suspended")
        gate.fire()
        await died.wait()
        #expect(finishedWhenDied.values == [[1]])
        #expect(center.typedObservations.isEmpty)
        CounterDidChange(count: 4).post(in: center)
        #expect(conditionCalls.values == [1])
        #expect(finished.values == [1])
    }

    /// `cancel()` while a call is suspended: that call finishes, what was queued is dropped, and nothing more runs.
    @Test(.timeLimit(.minutes(1))) func cancellingTheOwnerBoundAsyncFormDuringASuspendedCallDropsTheRest() async {
        let center = NotificationCenter()
        let owner = CallbackOwner {}
        let started = Signal()
        let gate = Signal()
        let firstDone = Signal()
        let calls = Recorded<Int>()
        let observation = CounterDidChange.observe(for: owner, in: center) { _, change async in
            calls.append(change.count)
            if change.count == 1 {
                started.fire()
                await gate.wait()
                firstDone.fire()
            }
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }
        await started.wait()
        observation.cancel()
        gate.fire()
        await firstDone.wait()
        CounterDidChange(count: 4).post(in: center)
        #expect(calls.values == [1])
        #expect(center.typedObservations.isEmpty)
        withExtendedLifetime(owner) {}
    }

    /// The center goes while a call is suspended and payloads are queued: the call finishes, the rest are dropped.
    @Test(.timeLimit(.minutes(1))) func aCenterDeallocatedWhileTheOwnerBoundAsyncFormIsSuspendedDropsTheRest() async {
        var center: NotificationCenter? = NotificationCenter()
        let owner = CallbackOwner {}
        let started = Signal()
        let gate = Signal()
        let firstDone = Signal()
        let calls = Recorded<Int>()
        CounterDidChange.observe(for: owner, in: center!) { _, change async in
            calls.append(change.count)
            if change.count == 1 {
                started.fire()
                await gate.wait()
                firstDone.fire()
            }
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center!) }
        await started.wait()
        center = nil
        gate.fire()
        await firstDone.wait()
        // A marker on a new center: an async observer's queue is drained in order, so once it has run, any call that
        // the dead center's queue could still make would be racing a finished drain.
        let probe = NotificationCenter()
        let markerRan = Signal()
        let marker = CounterDidChange.observe(in: probe) { _ async in markerRan.fire() }
        CounterDidChange(count: 0).post(in: probe)
        await markerRan.wait()
        #expect(calls.values == [1])
        withExtendedLifetime((owner, marker)) {}
    }

    @MainActor final class ViewModel: Sendable {
        nonisolated let onDeinit: @Sendable () -> Void
        var seen: [Int] = []
        init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
        func show(_ count: Int) { seen.append(count) }
        deinit { onDeinit() }
    }
}
