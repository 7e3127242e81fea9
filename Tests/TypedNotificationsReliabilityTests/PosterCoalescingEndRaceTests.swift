import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Poster-side coalescing (`post(in:coalescing:)`) racing `cancel()` of an observer, made on the observer's own target
/// so that it is ordered with the target's deliveries, and the center's deallocation while bursts are open: no call
/// of the handler starts on its target after the cancel there, every coalesced payload is released (the bursts open
/// when the center went included), and nothing hangs.
@Suite(.seeded, .serialized) struct PosterCoalescingEndRaceTests {
    enum PosterBurst: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case nextTurn, afterPause, throttle, trailingThrottle
        var testDescription: String { rawValue }

        var coalescing: NotificationCoalescing<SeamPing> {
            switch self {
            case .nextTurn: .nextTurn
            case .afterPause: .afterPause(0.002)
            case .throttle: .within(0.002)
            case .trailingThrottle: .within(0.002).trailingOnly
            }
        }
    }

    @Test(arguments: [SeamTarget.dispatchQueue, .operationQueue, .mainActor, .actor], PosterBurst.allCases)
    func noCallStartsAfterCancelAndBurstsOpenAtTheCentersEndAreReleased(
        target: SeamTarget, burst: PosterBurst
    ) async {
        let rounds = TestEnvironment.scaled(normal: 8, long: 80, sanitized: 3)
        let perPoster = 40
        var random = SplitMix64(seed: TestSeed.run)
        for round in 0..<rounds {
            let place = SeamPlace(target)
            let slot = Protected<NotificationCenter?>(NotificationCenter())
            let cancelled = Protected(false)
            let late = Counter()
            let released = Counter()
            let posted = Counter()
            let end = place.observe(in: slot.value!) { _ in if cancelled.value { late.increment() } }
            let cancelDelay = random.below(3_000)
            let releaseDelay = random.below(6_000)
            await onThreads(4) { thread in
                switch thread {
                case 0, 1:
                    for index in 0..<perPoster {
                        guard let center = slot.value else { return }
                        posted.increment()
                        SeamPing(thread * 1_000 + index, onRelease: { released.increment() })
                            .post(in: center, coalescing: burst.coalescing)
                    }
                case 2:
                    for _ in 0..<cancelDelay { sched_yield() }
                    onTarget(place) {
                        end()
                        cancelled.set(true)
                    }
                default:
                    for _ in 0..<releaseDelay { sched_yield() }
                    slot.set(nil)
                }
            }
            slot.set(nil)
            let allReleased = await finishes(within: 60) {
                while released.value < posted.value, !Task.isCancelled { await Task.yield() }
            }
            #expect(allReleased, "\(target) \(burst) round \(round): \(posted.value - released.value) payloads kept")
            // Whatever the target still had queued has run or been dropped by now: one more turn of it.
            let drained = await finishes(within: 60) {
                await withCheckedContinuation { done in onTarget(place, async: true) { done.resume() } }
            }
            #expect(drained, "\(target) \(burst) round \(round): the target never ran again")
            #expect(late.value == 0, "\(target) \(burst) round \(round): \(late.value) calls started after cancel()")
        }
    }
}

/// Runs `body` on `place`'s target, ordered with its deliveries; waits for it unless `async`.
private func onTarget(_ place: SeamPlace, async: Bool = false, _ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    let run: @Sendable () -> Void = {
        body()
        done.signal()
    }
    switch place.target {
    case .dispatchQueue: place.queue.async(execute: run)
    case .operationQueue: place.operationQueue.addOperation(run)
    case .mainActor: Task { @MainActor in run() }
    case .actor: Task { await place.host.run(run) }
    case .postingThread, .asyncHandler: run()
    }
    if !async { done.wait() }
}

extension SeamHost {
    fileprivate func run(_ body: @Sendable () -> Void) { body() }
}
