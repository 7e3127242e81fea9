import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Ending, registering and sweeping observations cost the same per observation whether there are ten or tens of
/// thousands: none of them scans what every other observation holds. The time limits are bounds against a cost that
/// grows with the square of the observations (seconds at these numbers: 13 s for the first post below, 9 s for the
/// registrations, before), not measurements: alone, in a debug build, each takes a few tenths of a second; the
/// bounds leave room for a loaded 2-core machine running the rest of the suite at once, twenty times that under a
/// sanitizer. They run in the opt-in long run (`TYPED_NOTIFICATIONS_LONG=1`, which CI runs in the simulated-Apple
/// build): each holds a thread of the 2-thread cooperative pool for seconds under a sanitizer, which starves the tests
/// running beside it in the parallel suite.
@Suite(.enabled(if: TestEnvironment.isLongRun, "the scale tests run in the long run (TYPED_NOTIFICATIONS_LONG=1)"))
struct ObservationCostAtScaleTests {
    static let observations = 16_000

    /// A bound of `milliseconds`, twenty times longer under a sanitizer, which slows the process down 5-20 times.
    static func bound(_ milliseconds: Int) -> Duration {
        .milliseconds(TestEnvironment.isSanitized ? 20 * milliseconds : milliseconds)
    }

    /// Each of the post's deliveries finds its owner dead and ends its observation there, on the main actor: the
    /// ended observations' entries are not searched for in the queue, nor the observations in their channel.
    @MainActor @Test func aPostEndingManyMainActorObservationsOfDeadOwnersTakesLinearTime() {
        let center = NotificationCenter()
        let calls = Counter()
        var owners = (0..<Self.observations).map { _ in Owner() }
        for owner in owners {
            Tick.observeOnMainActor(for: owner, in: center) { _, _ in calls.increment() }
        }
        owners = []
        let elapsed = ContinuousClock().measure { Tick(id: 0).post(in: center) }
        #expect(elapsed < Self.bound(3_000), "one post on the main actor took \(elapsed)")
        #expect(calls.value == 0, "an owner was dead before the post")
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
    }

    /// One-shot observers: each handler ends its own observation during the post that reaches it.
    @MainActor @Test func aPostToManyMainActorObserversThatEndThemselvesTakesLinearTime() {
        let center = NotificationCenter()
        let calls = Counter()
        let tokens = MainActorTokens()
        for index in 0..<Self.observations {
            tokens.all.append(
                Tick.observeOnMainActor(in: center) { _ in
                    calls.increment()
                    tokens.all[index].cancel()
                })
        }
        let elapsed = ContinuousClock().measure { Tick(id: 0).post(in: center) }
        #expect(elapsed < Self.bound(3_000), "one post on the main actor took \(elapsed)")
        #expect(calls.value == Self.observations, "each observer is called once")
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == 0)
        Tick(id: 1).post(in: center)
        #expect(calls.value == Self.observations, "no observer is called after it ended")
    }

    /// Registering sweeps the channel's dead owners only as often as registrations double it, not every time.
    @Test func registeringManyOwnerBoundObservationsTakesLinearTime() {
        let center = NotificationCenter()
        let owners = (0..<Self.observations).map { _ in Owner() }
        let elapsed = ContinuousClock().measure {
            for owner in owners {
                Tick.observe(for: owner, in: center) { _, _ in }
            }
        }
        #expect(elapsed < Self.bound(4_000), "registering took \(elapsed)")
        #expect(ObserverRegistry.shared.registrationCounts(in: center).observers == Self.observations)
        withExtendedLifetime(owners) {}
    }

    /// Main-actor observations whose owners died are cleared although nothing is delivered on the main actor: a sweep
    /// made off the main actor, which may not load their owners, schedules one there. Registered off the main actor,
    /// so that only the scheduled sweeps may clear them; the test then lets the main actor run once.
    @Test func deadOwnersOfMainActorObservationsAreClearedWithoutAPost() async {
        let center = NotificationCenter()
        for _ in 0..<50_000 {
            Tick.observeOnMainActor(for: Owner(), in: center) { _, _ in }
        }
        await MainActor.run {}
        let listed = center.typedObservations.count
        #expect(listed <= 1_000, "\(listed) observations of dead owners are still listed")
    }
}

/// The tokens of one-shot observers, which their main-actor handlers end.
@MainActor private final class MainActorTokens {
    var all: [NotificationToken] = []
}
