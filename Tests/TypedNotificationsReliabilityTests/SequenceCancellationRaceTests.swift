import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// A sequence (`notifications(in:bufferingPolicy:)`) whose iterating task is cancelled at a random moment while other
/// threads post: the loop ends, what it received came in each poster's order, once each (and, unbounded, with no
/// gap), the observation is gone once the loop has ended, and every payload is released.
@Suite(.seeded, .capturesReports) struct SequenceCancellationRaceTests {
    enum Policy: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case unbounded, bufferingNewest, bufferingOldest
        var testDescription: String { rawValue }

        var policy: NotificationSequence<SeamPing>.BufferingPolicy {
            switch self {
            case .unbounded: .unbounded
            case .bufferingNewest: .bufferingNewest(4)
            case .bufferingOldest: .bufferingOldest(4)
            }
        }
    }

    @Test(arguments: Policy.allCases)
    func cancellingTheIteratingTaskWhilePostsRaceEndsTheLoopAndReleasesEverything(policy: Policy) async {
        let rounds = TestEnvironment.scaled(normal: 40, long: 400, sanitized: 10)
        let perPoster = 200
        var random = SplitMix64(seed: TestSeed.run)
        for round in 0..<rounds {
            let center = NotificationCenter()
            let released = Counter()
            let received = Recorded<Int>()
            let delay = random.below(2_000)
            let slowConsumer = random.chance(50)
            var iterating: Task<Void, Never>?
            do {
                let sequence = SeamPing.notifications(in: center, bufferingPolicy: policy.policy)
                iterating = Task {
                    for await ping in sequence {
                        received.append(ping.index)
                        if slowConsumer { await Task.yield() }
                    }
                }
            }
            let task = iterating!
            await onThreads(3) { thread in
                if thread < 2 {
                    for index in 0..<perPoster {
                        SeamPing(thread * 100_000 + index, onRelease: { released.increment() }).post(in: center)
                    }
                } else {
                    for _ in 0..<delay { sched_yield() }
                    task.cancel()
                }
            }
            let ended = await finishes(within: 60) { await task.value }
            #expect(ended, "\(policy) round \(round): the loop did not end after its task was cancelled")
            #expect(
                center.typedObservations.isEmpty, "\(policy) round \(round): the ended loop's observation is listed")
            iterating = nil
            let allReleased = await finishes(within: 60) {
                while released.value < 2 * perPoster, !Task.isCancelled { await Task.yield() }
            }
            #expect(allReleased, "\(policy) round \(round): \(2 * perPoster - released.value) payloads never released")
            let values = received.values
            #expect(Set(values).count == values.count, "\(policy) round \(round): a payload came twice")
            for poster in 0..<2 {
                let mine = values.filter { $0 / 100_000 == poster }.map { $0 % 100_000 }
                #expect(mine == mine.sorted(), "\(policy) round \(round): poster \(poster) out of order")
                if policy == .unbounded {
                    #expect(mine == Array(0..<mine.count), "\(policy) round \(round): poster \(poster) has a gap")
                }
            }
        }
    }
}
