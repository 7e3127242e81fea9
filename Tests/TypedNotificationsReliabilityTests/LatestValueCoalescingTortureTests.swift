import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Observers that coalesce what they receive (their own `coalescing:`) of a latest-value type, racing posters: once
/// the deliveries have run, each ends on the post the center kept last, whichever thread's post reached it last.
@Suite(.seeded) struct LatestValueCoalescingTortureTests {
    typealias Stamp = LatestValueTortureTests.Stamp

    /// How the observer coalesces: a throttle with its leading delivery, one that delivers only at the ends of its
    /// windows, or a debounce.
    enum Mode: Int, CaseIterable, Sendable, CustomTestStringConvertible {
        case throttle, trailingThrottle, debounce

        var coalescing: NotificationCoalescing<Stamp> {
            switch self {
            case .throttle: .within(0.002)
            case .trailingThrottle: NotificationCoalescing.within(0.002).trailingOnly
            case .debounce: .afterPause(0.002)
            }
        }

        var testDescription: String { "\(self)" }
    }

    /// Where the observer's handler runs. (A sequence has no `coalescing:` of its own.)
    enum Place: CaseIterable {
        case postingThread, queue, mainActor, actor, operationQueue, asyncHandler
    }

    actor Host {}

    /// Two threads post at the same moment, each round on a fresh center with a fresh observer: the observer's burst
    /// keeps the post that the center keeps last, not the last to reach the burst, and a post older than one it has
    /// delivered (a throttle's leading delivery) is never delivered after it, so once the deliveries have run the
    /// observer's last payload is `latest(in:)`, every round, at every place a handler runs.
    @Test(arguments: Mode.allCases)
    func coalescingObserverEndsOnTheLatestWhenTwoThreadsPostAtOnce(mode: Mode) async throws {
        let rounds = TestEnvironment.scaled(normal: 840, long: 4_200, sanitized: 120)
        var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: mode.rawValue))
        var mismatches: [String] = []
        for round in 0..<rounds {
            let place = Place.allCases[round % Place.allCases.count]
            let center = NotificationCenter()
            let last = Protected<Stamp?>(nil)
            let end = Self.observe(at: place, in: center, coalescing: mode.coalescing) { last.set($0) }
            // One poster starts a little later now and then, so that either may reach the observer first.
            let delayed = random.below(2)
            let spins = random.below(400)
            try await awaitDelivery(in: center) {
                await onThreads(2) { poster in
                    if poster == delayed {
                        var spun = 0
                        for index in 0..<spins { spun &+= index }
                        withExtendedLifetime(spun) {}
                    }
                    Stamp(poster: poster, number: round).post(in: center)
                }
            }
            let latest = Stamp.latest(in: center)
            if last.value != latest {
                mismatches.append(
                    "round \(round) (\(place)): latest \(String(describing: latest)), observer's last \(String(describing: last.value))"
                )
            }
            end()
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(rounds) rounds: \(mismatches.prefix(3))")
    }

    /// A coalescing observer on the posting thread gets its type's latest value after the registry's lock, on the
    /// observing thread; a post that another thread makes just then (a test hook makes it there) gathers behind it, as
    /// the latest value is its key's first delivery: the observer starts with the latest value, then gets the post, and
    /// ends on `latest(in:)`.
    @Test(arguments: Mode.allCases)
    func aPostRacingANewObserversLatestValueComesAfterIt(mode: Mode) async throws {
        let center = NotificationCenter()
        Stamp(poster: 0, number: 0).post(in: center)
        let received = Recorded<Stamp>()
        TestHooks.on(.latestValueReplay, in: center) {
            onNewThread { Stamp(poster: 1, number: 1).post(in: center) }.wait()
        }
        defer { TestHooks.removeHook(at: .latestValueReplay, for: ObjectIdentifier(center)) }
        var token: NotificationToken?
        try await awaitDelivery(in: center) {
            token = Stamp.observe(in: center, coalescing: mode.coalescing) { received.append($0) }
        }
        #expect(Stamp.latest(in: center) == Stamp(poster: 1, number: 1))
        #expect(received.values.last == Stamp.latest(in: center), "\(received.values)")
        #expect(received.values == [Stamp(poster: 0, number: 0), Stamp(poster: 1, number: 1)], "\(received.values)")
        token?.cancel()
    }

    /// Starts an observation at `place` that coalesces with `coalescing` and hands each payload to `receive`; returns
    /// what ends it.
    static func observe(
        at place: Place,
        in center: NotificationCenter,
        coalescing: NotificationCoalescing<Stamp>,
        _ receive: @escaping @Sendable (Stamp) -> Void
    ) -> @Sendable () -> Void {
        switch place {
        case .postingThread:
            let token = Stamp.observe(in: center, coalescing: coalescing, receive)
            return { token.cancel() }
        case .queue:
            let queue = DispatchQueue(label: "LatestValueCoalescingTortureTests")
            let token = Stamp.observe(in: center, delivery: .async(on: queue), coalescing: coalescing, receive)
            return { token.cancel() }
        case .mainActor:
            let token = Stamp.observeOnMainActor(in: center, coalescing: coalescing) { receive($0) }
            return { token.cancel() }
        case .actor:
            let host = Host()  // held weakly by the observation: the returned closure keeps it alive
            let observation = Stamp.observe(for: host, in: center, coalescing: coalescing) { _, stamp in
                receive(stamp)
            }
            return {
                observation.cancel()
                withExtendedLifetime(host) {}
            }
        case .operationQueue:
            let queue = OperationQueue()
            queue.maxConcurrentOperationCount = 1
            let token = Stamp.observe(in: center, delivery: .async(on: queue), coalescing: coalescing, receive)
            return { token.cancel() }
        case .asyncHandler:
            let token = Stamp.observe(in: center, coalescing: coalescing) { (stamp: Stamp) async in receive(stamp) }
            return { token.cancel() }
        }
    }
}
