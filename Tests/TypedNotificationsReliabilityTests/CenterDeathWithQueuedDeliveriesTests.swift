import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// A center deallocated while deliveries for it still wait on a target (the main actor, a `DispatchQueue`, an actor, an
// `OperationQueue`, an `async` handler's own queue) or in an observer's coalescing burst, and new centers made at once,
// which the allocator may place at the dead one's address: the new centers' observers, on the very same target, never
// receive the dead center's posts, each new center lists only its own observations, every payload of the dead center
// is released, and nothing hangs (each wait is bounded by `finishes(within:)`, a hang detector).

/// How the dead center's observer coalesces what it receives.
enum DyingCenterBurst: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case none, nextTurn, afterPause, throttle, trailingThrottle
    var testDescription: String { rawValue }

    var coalescing: NotificationCoalescing<SeamPing>? {
        switch self {
        case .none: nil
        case .nextTurn: .nextTurn
        case .afterPause: .afterPause(0.01)
        case .throttle: .within(0.01)
        case .trailingThrottle: .within(0.01).trailingOnly
        }
    }
}

// Serialized: a handler held busy on the main actor or an actor blocks its thread; one at a time leaves the
// cooperative pool to the tests' own tasks.
@Suite(.serialized) struct CenterDeathWithQueuedDeliveriesTests {
    static let rounds = TestEnvironment.scaled(normal: 12, long: 100, sanitized: 4)

    /// The dead center's observer is held busy in its first delivery while more of its posts wait behind it (or
    /// gather in its burst); the center goes, new centers are made and observed on the same target and posted to, and
    /// then the target is freed: each new observer receives exactly its own center's posts, in order, the dead
    /// observer nothing after the call it was in, and every payload of the dead center is released.
    // Not on an actor: its held handler would block a thread of the cooperative pool, whose two threads here the
    // suite's tasks need (see `RouteTarget.blockable`).
    @Test(arguments: SeamTarget.queued.filter { $0 != .actor }, DyingCenterBurst.allCases)
    func newCentersOnTheSameTargetNeverReceiveADeadCentersQueuedPosts(
        target: SeamTarget, burst: DyingCenterBurst
    ) async {
        let place = SeamPlace(target)
        for round in 0..<Self.rounds {
            let gate = SeamGate()
            let started = Signal()
            let deadReceived = Recorded<Int>()
            let queued = 5
            let released = SeamCountDown(queued + 1)
            var end: (@Sendable () -> Void)?
            var deadAddress: ObjectIdentifier?
            do {
                let center = NotificationCenter()
                deadAddress = ObjectIdentifier(center)
                end = place.observe(in: center, coalescing: burst.coalescing, holdingFirstAt: gate) { ping in
                    deadReceived.append(ping.index)
                    if ping.index == 0 { started.fire() }
                }
                SeamPing(0, onRelease: { released.tick() }).post(in: center)
                let entered = await finishes(within: 60) { await started.wait() }
                #expect(entered, "\(target) \(burst) round \(round): the first delivery never ran")
                for index in 1...queued { SeamPing(index, onRelease: { released.tick() }).post(in: center) }
            }
            // New centers at once, until one takes the dead one's address (or 8 were made), each observed on the same
            // target and posted to while the dead center's deliveries still wait there.
            var centers: [NotificationCenter] = []
            var ends: [@Sendable () -> Void] = []
            let newReceived = Protected<[Int: [Int]]>([:])
            repeat {
                let center = NotificationCenter()
                let number = centers.count
                centers.append(center)
                ends.append(
                    place.observe(in: center) { ping in
                        newReceived.withLock { $0[number, default: []].append(ping.index) }
                    })
            } while ObjectIdentifier(centers.last!) != deadAddress && centers.count < 8
            for center in centers {
                for post in 1...3 { SeamPing(100 + post).post(in: center) }
            }
            gate.open()
            let expected = centers.count * 3
            let drained = await finishes(within: 60) {
                await released.wait()
                // The new centers' deliveries: each new observer's list reaches 3 entries.
                while newReceived.withLock({ received in received.values.reduce(0) { $0 + $1.count } }) < expected,
                    !Task.isCancelled
                {
                    await Task.yield()
                }
            }
            #expect(drained, "\(target) \(burst) round \(round): the dead center's payloads or the new posts hung")
            guard drained else { break }  // one hang says it all; the next rounds would only wait as long again
            let received = newReceived.value
            for number in centers.indices {
                #expect(
                    received[number] == [101, 102, 103],
                    "\(target) \(burst) round \(round): new center \(number) received \(received[number] ?? [])")
                #expect(centers[number].typedObservations.count == 1, "a new center lists another's observation")
            }
            #expect(
                deadReceived.values == [0],
                "\(target) \(burst) round \(round): the dead center's observer got \(deadReceived.values)")
            end?()
            for end in ends { end() }
            for center in centers { #expect(center.typedObservations.isEmpty) }
        }
    }

    /// Many tasks make centers, observe them on every target (coalescing or not, with a sequence too), post, cancel
    /// some observations and drop the centers with deliveries still queued, all at once: no handler sees another
    /// center's post or a post twice, every payload is released, every handler is let go once its token is, and each
    /// live center lists only its own observations.
    @Test(.seeded) func centersChurningOnSharedTargetsKeepTheirPostsApart() async {
        let seed = TestSeed.run
        let cycles = TestEnvironment.scaled(normal: 400, long: 4_000, sanitized: 40)
        let places = SeamTarget.allCases.map(SeamPlace.init)
        let strays = Recorded<String>()
        let posted = Counter()
        let releasedPayloads = Counter()
        let live = LiveCount()
        let keptEnds = Protected<[@Sendable () -> Void]>([])
        let keptSequences = Protected<[NotificationSequence<SeamPing>]>([])
        await onThreads(4) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            for cycle in 0..<cycles {
                // Each center's posts carry its tag, unique in the test.
                let tag = (thread * 10_000 + cycle) * 100
                var center: NotificationCenter? = NotificationCenter()
                var mine: [@Sendable () -> Void] = []
                for _ in 0..<(1 + random.below(3)) {
                    let place = random.element(of: places)
                    let coalescing = random.element(of: churnCoalescings)
                    let probe = Probe(live)
                    let seen = Protected<Set<Int>>([])
                    mine.append(
                        place.observe(in: center!, coalescing: coalescing) { ping in
                            withExtendedLifetime(probe) {}
                            if ping.index / 100 != tag / 100 { strays.append("\(tag): got \(ping.index)") }
                            let isNew = seen.withLock { $0.insert(ping.index).inserted }
                            if !isNew { strays.append("\(tag): \(ping.index) twice") }
                        })
                }
                let observes = mine.count + (random.chance(30) ? 1 : 0)
                if observes > mine.count {
                    let sequence = SeamPing.notifications(in: center!)
                    keptSequences.withLock { $0.append(sequence) }
                }
                for post in 0..<random.below(6) {
                    posted.increment()
                    SeamPing(tag + post, onRelease: { releasedPayloads.increment() }).post(in: center!)
                }
                let listed = center!.typedObservations.count
                if listed != observes { strays.append("\(tag): \(listed) observations listed, \(observes) made") }
                if random.chance(50) { mine[random.below(mine.count)]() }
                if random.chance(50) {
                    // The center goes with its observations still held and deliveries still queued.
                    center = nil
                    keptEnds.withLock { $0.append(contentsOf: mine) }
                } else {
                    for end in mine { end() }
                    center = nil
                }
            }
        }
        keptSequences.set([])
        do {
            // Ended, then let go: a token owns its handler until it is released.
            let ends = keptEnds.value
            keptEnds.set([])
            for end in ends { end() }
        }
        let settled = await finishes(within: 60) {
            while releasedPayloads.value < posted.value || live.value > 0, !Task.isCancelled { await Task.yield() }
        }
        #expect(settled, "\(posted.value - releasedPayloads.value) payloads and \(live.value) handlers never released")
        #expect(strays.values.isEmpty, "\(strays.values.count) strays: \(strays.values.prefix(5))")
        withExtendedLifetime(places) {}
    }
}

/// How the churning observers coalesce: not at all, or with short windows, so that bursts are open when centers go.
private let churnCoalescings: [NotificationCoalescing<SeamPing>?] = [
    nil, .nextTurn, .afterPause(0.002), .within(0.002),
]
