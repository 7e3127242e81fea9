import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// An actor whose code always runs on one thread: a stand-in for a `@MainActor` view model on Apple platforms.
actor OneThreadModel {
    let executor = OneThreadExecutor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Keeps a token across an `await` during which another task posts to it, then lets it go.
    func observeAcrossAwait(in center: NotificationCenter) async -> [Int] {
        let received = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { received.append($0.count) }
        await Task.detached { CounterDidChange(count: 1).post(in: center) }.value
        withExtendedLifetime(token) {}
        return received.values
    }

    /// Records, in `onActor`, whether each call of a condition runs on this actor's thread.
    func observe(in center: NotificationCenter, onActor: Recorded<Bool>, done: Signal) -> OwnerBoundObservation {
        let executor = self.executor
        return CounterDidChange.observe(
            for: self, in: center,
            where: .matching { change in
                onActor.append(executor.isCurrent && LockDiscipline.locksHeld == 0)
                return change.count.isMultiple(of: 2)
            }
        ) { model, change in
            onActor.append(model.executor.isCurrent)
            if change.count == 4 { done.fire() }
        }
    }
}
