import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Many threads posting, observing, cancelling and releasing at once on shared names and senders, with exact checks.
///
/// Every post carries a ``Trail`` that its typed handlers append to. Delivery is synchronous on the posting thread,
/// so after `post` returns the posting thread can check, for that one post, that the observers registered before
/// the storm (the *stable* ones) were each reached exactly once, in registration order, whatever the other threads
/// did meanwhile. Observers that come and go (*churn*) check, against a ``LogicalClock``, that no post that started
/// after their `cancel()` returned (or their token or owner was released) reaches them.
@Suite(.capturesReports) struct ConcurrencyTortureTests {
    static let threadCount = 8
    static let operationsPerThread = TestEnvironment.scaled(normal: 1_500, long: 10_000, sanitized: 400)

    // MARK: - Shared names and senders

    @Test func concurrentPostsReachEveryStableObserverExactlyOnceInRegistrationOrder() async {
        let center = NotificationCenter()
        // Stable observers: every sender filter, token-held and owner-bound, registered before the storm.
        let filters: [Int?] = [nil, 0, 1, nil, 2, 0, nil, 1]
        let storm = Storm(center: center, seed: TestEnvironment.runSeed, stableFilters: filters)
        var stableTokens: [HeldObservation] = []
        var stableOwners: [Owner] = []
        for (index, filter) in filters.enumerated() {
            let sender = filter.map { storm.sharedSenders[$0] }
            if index.isMultiple(of: 3) {
                let owner = Owner()
                stableOwners.append(owner)
                stableTokens.append(
                    .ownerBound(
                        Traced.observe(for: owner, from: sender, in: center) { _, payload in
                            payload.trail.visit(index)
                        }
                    )
                )
            } else {
                stableTokens.append(
                    .token(Traced.observe(from: sender, in: center) { payload in payload.trail.visit(index) })
                )
            }
        }

        await onThreads(Self.threadCount) { thread in storm.run(thread: thread, operations: Self.operationsPerThread) }

        for token in stableTokens { token.cancel() }
        stableOwners.removeAll()
        storm.releaseEverything()
        storm.report(test: "concurrentPostsReachEveryStableObserverExactlyOnceInRegistrationOrder")
        #expect(storm.posts.value > Self.threadCount * Self.operationsPerThread / 3)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    /// With no stable observer, the channel (and its Foundation bridge) is dropped and created again all the time,
    /// under posts from other threads; each thread's private observers must still get exactly their posts.
    @Test func channelComingAndGoingUnderConcurrentPostsNeverLosesOrDuplicatesADelivery() async {
        let center = NotificationCenter()
        let storm = Storm(center: center, seed: TestEnvironment.runSeed ^ 0xC4A7, stableFilters: [])
        await onThreads(Self.threadCount) { thread in
            storm.run(thread: thread, operations: Self.operationsPerThread, privateRoundsOnly: true)
        }
        storm.releaseEverything()
        storm.report(test: "channelComingAndGoingUnderConcurrentPostsNeverLosesOrDuplicatesADelivery")
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    // MARK: - Ending an observation while a post is delivering

    enum Ending: CaseIterable, CustomTestStringConvertible {
        case cancel
        case releaseToken
        case releaseOwner

        var testDescription: String { "\(self)" }
    }

    /// A post is held inside an earlier observer's handler on one thread while another thread ends a later
    /// observation: the post must skip it, and no later post may reach it.
    @Test(arguments: Ending.allCases)
    func observationEndedOnAnotherThreadDuringAPostIsSkippedLaterInThatPost(ending: Ending) {
        let center = NotificationCenter()
        let reached = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let victimCalls = Counter()
        let first = Tick.observe(in: center) { tick in
            guard tick.id == 1 else { return }
            reached.signal()
            proceed.wait()
        }
        var owner: Owner? = Owner()
        weak var weakOwner: Owner?
        weakOwner = owner
        var victim: HeldObservation? =
            ending == .releaseOwner
            ? .ownerBound(Tick.observe(for: owner!, in: center) { _, _ in victimCalls.increment() })
            : .token(Tick.observe(in: center) { _ in victimCalls.increment() })

        let posted = onNewThread { Tick(id: 1).post(in: center) }
        reached.wait()
        switch ending {
        case .cancel: victim?.cancel()
        case .releaseToken: victim = nil
        case .releaseOwner: owner = nil
        }
        proceed.signal()
        posted.wait()
        Tick(id: 2).post(in: center)

        #expect(victimCalls.value == 0)
        #expect(weakOwner == nil || ending != .releaseOwner)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (1, 1))
        first.cancel()
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
        withExtendedLifetime(victim) {}
    }

    /// The owner is released on another thread while its own handler runs: the handler keeps it alive until it
    /// returns, then it is deallocated, its handler is never called again, and the next post drops the registration.
    @Test func ownerReleasedWhileItsHandlerRunsIsDeallocatedAfterItAndNeverCalledAgain() {
        let center = NotificationCenter()
        let inHandler = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let calls = Counter()
        let deallocatedInsideHandler = Protected<Bool?>(nil)
        let handlerReturned = Counter()
        var owner: Owner? = Owner { deallocatedInsideHandler.withLock { $0 = handlerReturned.value == 0 } }
        weak var weakOwner: Owner?
        weakOwner = owner
        Tick.observe(for: owner!, in: center) { _, _ in
            calls.increment()
            inHandler.signal()
            proceed.wait()
        }
        let posted = onNewThread {
            Tick(id: 1).post(in: center)
            handlerReturned.increment()
        }
        inHandler.wait()
        owner = nil  // the last reference outside the handler, dropped on this thread
        #expect(weakOwner != nil, "the running handler keeps its owner alive")
        proceed.signal()
        posted.wait()

        #expect(weakOwner == nil)
        #expect(deallocatedInsideHandler.value == true, "deallocated as the handler released it, inside post")
        Tick(id: 2).post(in: center)
        #expect(calls.value == 1)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }
}

// MARK: - The storm

/// The payload of the torture tests: when its post started, how deeply it is nested, and the trail its handlers
/// leave.
struct Traced: Notifiable {
    let stamp: Int
    let depth: Int
    let trail: Trail
    /// Whether it is posted plain (through Foundation) rather than typed, for failure messages.
    var isPlain = false
}

/// The typed handlers a post reached, in order.
///
/// Only the posting thread touches it: handlers run synchronously on that thread (plain posts too, through the
/// package's Foundation observer), which is what `@unchecked Sendable` relies on; ThreadSanitizer checks it.
final class Trail: @unchecked Sendable {
    private(set) var visits: [Int] = []

    func visit(_ observer: Int) {
        visits.append(observer)
    }
}

/// The shared state of one torture test and the operations each thread runs.
final class Storm: Sendable {
    /// Shared by all threads, as post senders and sender filters.
    let sharedSenders = (0..<3).map { Sender(generation: $0) }
    let posts = Counter()

    private let center: NotificationCenter
    private let seed: UInt64
    private let clock = LogicalClock()
    /// For each sender (`3` for `nil`), the stable observers a post must reach, in order.
    private let expectedTrails: [[Int]]
    private let failures = Protected<[String]>([])
    private let failureCount = Counter()
    /// Tokens and owners handed over, to be released by whichever thread takes them.
    private let tokenBin = Protected<[ChurnToken]>([])
    private let ownerBin = Protected<[Owner]>([])

    /// - Parameter stableFilters: The sender filter (an index into ``sharedSenders``) of each stable observer, in
    ///   registration order.
    init(center: NotificationCenter, seed: UInt64, stableFilters: [Int?]) {
        self.center = center
        self.seed = seed
        expectedTrails = (0...3).map { sender in
            stableFilters.indices.filter { stableFilters[$0] == nil || stableFilters[$0] == sender }
        }
    }

    // MARK: Running

    /// One thread's share of the storm.
    func run(thread: Int, operations: Int, privateRoundsOnly: Bool = false) {
        var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
        let privateSender = Sender(generation: 100 + thread)
        var churn: [ChurnToken] = []
        for _ in 0..<operations {
            let roll = privateRoundsOnly ? 80 + random.below(20) : random.below(100)
            switch roll {
            case ..<30: post(from: random.below(4), plain: random.chance(30), depth: 0)
            case ..<33: center.post(name: Traced.notificationName, object: sharedSenders[random.below(3)])
            case ..<48: churn.append(observeChurn(random: &random))
            case ..<58:
                if !churn.isEmpty { end(churn.remove(at: random.below(churn.count))) }
            case ..<63:
                if !churn.isEmpty { handOver(churn.remove(at: random.below(churn.count))) }
            case ..<70: releaseHandedOver(random: &random)
            case ..<74: churnUnrelated()
            case ..<80: observeOwnedChurn(random: &random)
            default: privateRound(sender: privateSender, random: &random)
            }
        }
        for token in churn { end(token) }
    }

    /// Ends everything the threads left: handed-over tokens and owners.
    func releaseEverything() {
        let tokens = tokenBin.withLock { bin in
            defer { bin.removeAll() }
            return bin
        }
        for token in tokens { end(token) }
        ownerBin.withLock { $0.removeAll() }
    }

    func report(test: String) {
        let count = failureCount.value
        guard count > 0 else { return }
        let samples = failures.value.joined(separator: "\n")
        Issue.record(
            """
            \(count) violations under concurrency (seed \(TestEnvironment.hex(seed))); first ones:
            \(samples)
            Thread interleavings do not replay; the seed only fixes each thread's choices.
            """
        )
    }

    private func fail(_ message: @autoclosure () -> String) {
        if failureCount.increment() <= 5 {
            let text = message()
            failures.withLock { $0.append(text) }
        }
    }

    // MARK: Posting

    /// Posts from shared sender `senderIndex` (`3` for `nil`) and checks the stable observers' trail.
    private func post(from senderIndex: Int, plain: Bool, depth: Int) {
        let sender: Sender? = senderIndex < sharedSenders.count ? sharedSenders[senderIndex] : nil
        let trail = Trail()
        let payload = Traced(stamp: clock.increment(), depth: depth, trail: trail, isPlain: plain)
        send(payload, from: sender, plain: plain)
        let expected = expectedTrails[senderIndex]
        if trail.visits != expected {
            let kind = plain ? "plain" : "typed"
            fail("a \(kind) post from sender \(senderIndex) reached \(trail.visits), not \(expected)")
        }
    }

    /// Posts `payload` typed, or plain with the payload under `typedPayloadKey`.
    private func send(_ payload: Traced, from sender: Sender?, plain: Bool) {
        posts.increment()
        if plain {
            let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: payload]
            center.post(name: Traced.notificationName, object: sender, userInfo: userInfo)
        } else {
            payload.post(from: sender, in: center)
        }
    }

    // MARK: Churn

    private func observeChurn(random: inout SplitMix64) -> ChurnToken {
        let ended = EndStamp()
        let sender: Sender? = random.chance(50) ? sharedSenders[random.below(3)] : nil
        let repostsOnce = random.chance(10) ? OneShot() : nil
        let nestedSender = random.below(4)
        let nestedIsPlain = random.chance(30)
        let token = Traced.observe(from: sender, in: center) { [weak self] payload in
            guard let self else { return }
            let endedAt = ended.value
            if payload.stamp > endedAt {
                let kind = payload.isPlain ? "plain" : "typed"
                fail(
                    "a \(kind) post (depth \(payload.depth)) stamped \(payload.stamp) reached an observation that ended"
                        + " at \(endedAt) (\(ended.how))"
                )
            }
            if payload.depth == 0, let repostsOnce, repostsOnce.take() {
                post(from: nestedSender, plain: nestedIsPlain, depth: 1)
            }
        }
        return ChurnToken(token: token, ended: ended)
    }

    private func end(_ churn: ChurnToken) {
        churn.token.cancel()
        churn.ended.store(clock.increment(), how: "cancelled")
    }

    private func handOver(_ churn: ChurnToken) {
        tokenBin.withLock { $0.append(churn) }
    }

    /// Takes a token another thread handed over and releases it here, then records when its observation ended.
    private func releaseHandedOver(random: inout SplitMix64) {
        let takesOwner = random.chance(40)
        if takesOwner {
            let owner = ownerBin.withLock { $0.popLast() }
            withExtendedLifetime(owner) {}  // released here: its deinit records when it ended
            return
        }
        guard let churn = tokenBin.withLock({ $0.popLast() }) else { return }
        let ended = churn.ended
        _ = consume churn  // the only reference to the token: releasing it here ends the observation
        ended.store(clock.increment(), how: "token released by another thread")
    }

    /// An owner-bound observation whose owner goes into the bin, for some thread to release, maybe mid-post.
    private func observeOwnedChurn(random: inout SplitMix64) {
        let ended = EndStamp()
        let clock = clock
        let owner = Owner { ended.store(clock.increment(), how: "owner released") }
        let sender: Sender? = random.chance(50) ? sharedSenders[random.below(3)] : nil
        Traced.observe(for: owner, from: sender, in: center) { [weak self] _, payload in
            let endedAt = ended.value
            if payload.stamp > endedAt {
                let kind = payload.isPlain ? "plain" : "typed"
                self?.fail(
                    "a \(kind) post (depth \(payload.depth)) stamped \(payload.stamp) reached an owner-bound observation"
                        + " ended at \(endedAt)"
                )
            }
        }
        ownerBin.withLock { $0.append(owner) }
    }

    private func churnUnrelated() {
        let token = Unrelated.observe(in: center) { _ in }
        Unrelated.post((), in: center)
        token.cancel()
    }

    // MARK: Private rounds

    /// Observes this thread's own sender, posts to it, ends the observation one of three ways and posts again: the
    /// observer must get exactly the posts between, whatever other threads do to the shared channel meanwhile.
    ///
    /// An owner-bound observation ends when its owner is deallocated, which is not always when this thread drops
    /// it: another thread's post may be checking the observation's weak reference to the owner at that moment, and
    /// such a check holds the owner for an instant. So after dropping the owner, the round waits (yielding) until
    /// the owner's deinit has run, then posts.
    private func privateRound(sender: Sender, random: inout SplitMix64) {
        let calls = Counter()
        let deallocated = OneShot()
        var owner: Owner? = nil
        var token: HeldObservation?
        let ending = random.below(10)
        if ending < 3 {
            let newOwner = Owner { _ = deallocated.take() }
            owner = newOwner
            token = .ownerBound(Traced.observe(for: newOwner, from: sender, in: center) { _, _ in calls.increment() })
        } else {
            token = .token(Traced.observe(from: sender, in: center) { _ in calls.increment() })
        }
        let before = 1 + random.below(3)
        for _ in 0..<before { postPrivately(from: sender, plain: random.chance(40)) }
        if calls.value != before {
            fail("a private observer got \(calls.value) of its \(before) posts")
        }
        let how: String
        switch ending {
        case ..<3:
            how = "its owner was deallocated"
            owner = nil
            while deallocated.isAvailable { sched_yield() }
        case ..<6:
            how = "cancel() returned"
            token?.cancel()
        default:
            how = "its token was released"
            token = nil
        }
        let after = 1 + random.below(2)
        let plain = random.chance(40)
        for _ in 0..<after { postPrivately(from: sender, plain: plain) }
        if calls.value != before {
            let kind = plain ? "plain" : "typed"
            fail("a private observer got \(calls.value - before) of \(after) \(kind) posts made after \(how)")
        }
        withExtendedLifetime((token, owner)) {}
    }

    private func postPrivately(from sender: Sender, plain: Bool) {
        let payload = Traced(stamp: clock.increment(), depth: 0, trail: Trail(), isPlain: plain)
        send(payload, from: sender, plain: plain)
        // Only stable observers without a sender filter may see a post from a private sender.
        let expected = expectedTrails[sharedSenders.count]
        if payload.trail.visits != expected {
            fail("a private post reached stable observers \(payload.trail.visits), not \(expected)")
        }
    }
}

/// A churn observation's token, and when it ended.
struct ChurnToken: Sendable {
    let token: NotificationToken
    let ended: EndStamp
}

/// When an observation ended, on the ``LogicalClock``; `Int.max` while it has not.
final class EndStamp: Sendable {
    private let atomic = AtomicWord.make(UInt64(Int.max))
    private let ending = Protected("not ended")

    var value: Int { Int(truncatingIfNeeded: atomic.load()) }

    /// How the observation ended, for failure messages.
    var how: String { ending.value }

    func store(_ value: Int, how: String = "ended") {
        ending.set(how)
        atomic.store(UInt64(truncatingIfNeeded: value))
    }
}

/// A flag that can be taken once.
final class OneShot: Sendable {
    private let taken = AtomicWord.make()

    var isAvailable: Bool { !taken.isSet }

    func take() -> Bool {
        taken.set()
    }
}
