import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

@Suite struct ConcurrencyTests {
    @Test func concurrentPostsReachEveryObserverExactlyOnce() {
        let center = NotificationCenter()
        let counters = (0..<4).map { _ in Counter() }
        let tokens = counters.map { counter in CounterDidChange.observe(in: center) { _ in counter.increment() } }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for count in 0..<1_000 { CounterDidChange(count: thread * 1_000 + count).post(in: center) }
        }
        #expect(counters.map(\.count) == [8_000, 8_000, 8_000, 8_000])
        withExtendedLifetime(tokens) {}
    }

    @Test func postsFromOneThreadArriveInOrderWhileOthersPost() {
        let center = NotificationCenter()
        let perSender = (0..<4).map { _ in Recorded<Int>() }
        let senders = (0..<4).map { _ in Sender() }
        let tokens = (0..<4).map { index in
            CounterDidChange.observe(from: senders[index], in: center) { perSender[index].append($0.count) }
        }
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for count in 0..<500 { CounterDidChange(count: count).post(from: senders[thread], in: center) }
        }
        for recorded in perSender { #expect(recorded.values == Array(0..<500)) }
        withExtendedLifetime(tokens) {}
    }

    @Test func noDeliveryAfterCancelReturnsOnAnyThread() {
        let center = NotificationCenter()
        let late = Counter()
        let steady = Counter()
        let steadyToken = CounterDidChange.observe(in: center) { _ in steady.increment() }
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<200 {
                let sender = Sender()
                let cancelled = Slot<Bool>()
                let token = CounterDidChange.observe(from: sender, in: center) { _ in
                    if cancelled.value == true { late.increment() }
                }
                CounterDidChange(count: 0).post(from: sender, in: center)
                token.cancel()
                cancelled.set(true)
                CounterDidChange(count: 1).post(from: sender, in: center)
            }
        }
        #expect(late.count == 0)
        #expect(steady.count == 8 * 200 * 2)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (1, 1))
        withExtendedLifetime(steadyToken) {}
    }

    @Test func concurrentObserveCancelAndPostLeaveNothingBehind() {
        let center = NotificationCenter()
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for count in 0..<300 {
                let token = CounterDidChange.observe(in: center) { _ in }
                CounterDidChange(count: count).post(in: center)
                if thread.isMultiple(of: 2) { token.cancel() }
            }
        }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }
}

extension ConcurrencyTests {
    /// Introspection (`typedObservations`, `typedRegistrationCounts`, the registry's channel count) runs while threads
    /// observe and cancel two types: it never sees more than can exist, and all of it reads zero at the end.
    @Test(.seeded) func introspectionDuringChurnNeverSeesMoreThanExistsAndEndsAtZero() async {
        let seed = TestSeed.run
        let center = NotificationCenter()
        let problems = Recorded<String>()
        let done = AtomicWord.make()
        await onThreads(5) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            if thread == 4 {
                while !done.isSet {
                    let observations = center.typedObservations
                    let counts = ObserverRegistry.shared.registrationCounts(in: center)
                    if observations.count > 16 { problems.append("\(observations.count) observations") }
                    if counts.foundationObservers > 2 { problems.append("\(counts.foundationObservers) bridges") }
                    if ObserverRegistry.shared.channelCount(of: ChurnA.self) > 1 {
                        problems.append("two channels of one type on one center")
                    }
                    let names = Set(observations.map(\.name))
                    if !names.isSubset(of: [ChurnA.notificationName, ChurnB.notificationName]) {
                        problems.append("names \(names)")
                    }
                }
                return
            }
            for step in 0..<1_000 {
                let owner = DeinitReportingOwner()
                let first =
                    random.chance(50)
                    ? ChurnA.observe(in: center) { _ in } : ChurnB.observe(in: center) { _ in }
                ChurnB.observe(for: owner, in: center) { _, _ in }
                ChurnA.post(step, in: center)
                busyWait(random.below(200))
                first.cancel()
            }
            if thread == 0 { _ = done.set() }
        }
        done.store(1)
        #expect(problems.values.isEmpty, "\(problems.values.prefix(5)), seed \(TestSeed.hex(seed))")
        #expect(center.typedObservations.isEmpty)
        let counts = ObserverRegistry.shared.registrationCounts(in: center)
        #expect(counts.observers == 0 && counts.foundationObservers == 0)
        #expect(ObserverRegistry.shared.channelCount(of: ChurnA.self) == 0)
    }

    /// Tokens made on one thread are released (not cancelled) on others while threads post: a post that begins after
    /// a release has returned never calls its handler. Each post carries the set of tokens released before it began.
    @Test(.seeded) func tokensReleasedOnOtherThreadsWhilePosting() async {
        let seed = TestSeed.run
        let center = NotificationCenter()
        let count = 60
        let released = AtomicWord.make()
        let late = Recorded<Int>()
        let tokens = Protected<[NotificationToken?]>(
            (0..<count).map { index in
                ReleasedTokenNumber.observe(in: center) { mask in
                    if UInt64(truncatingIfNeeded: mask) & (1 << UInt64(index)) != 0 { late.append(index) }
                }
            })
        let releaseLock = NSLock()
        await onThreads(4) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            if thread < 2 {
                for _ in 0..<400 { ReleasedTokenNumber.post(Int(truncatingIfNeeded: released.load()), in: center) }
                return
            }
            for index in stride(from: thread - 2, to: count, by: 2) {
                busyWait(random.below(2_000))
                let token = tokens.withLock { tokens in
                    defer { tokens[index] = nil }
                    return tokens[index]
                }
                _ = consume token  // released here, on this thread
                releaseLock.lock()
                released.store(released.load() | (1 << UInt64(index)))
                releaseLock.unlock()
            }
        }
        #expect(late.values.isEmpty, "handlers ran for posts begun after their token was released: \(late.values)")
        #expect(center.typedObservations.isEmpty)
        #expect(ObserverRegistry.shared.channelCount(of: ReleasedTokenNumber.self) == 0)
    }

    /// Several observers on one queue and several on one actor, posts from threads: each observer receives every post
    /// once, and all observers of one target see one order.
    @Test func severalObserversOnOneQueueAndOneActor() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "one-queue-several-observers")
        let sink = ObserverSink()
        let perQueue = (0..<3).map { _ in Recorded<Int>() }
        let posts = 4 * 200
        let total = posts * 6
        let tally = CountdownTally(total)
        var tokens: [Any] = []
        for index in 0..<3 {
            tokens.append(
                SharedTargetNumber.observe(in: center, delivery: .async(on: queue)) { value in
                    perQueue[index].append(value)
                    tally.bump()
                })
            tokens.append(
                SharedTargetNumber.observe(for: sink, in: center) { sink, value in
                    sink.add(value, observer: index)
                    tally.bump()
                })
        }
        await onThreads(4) { thread in
            for step in 0..<200 { SharedTargetNumber.post(thread * 1_000 + step, in: center) }
        }
        await waitOrRecordTimeout(tally.reached, "every delivery")
        let expected = (0..<4).flatMap { thread in (0..<200).map { thread * 1_000 + $0 } }
        #expect(perQueue[0].values.sorted() == expected)
        #expect(perQueue[1].values == perQueue[0].values && perQueue[2].values == perQueue[0].values)
        let onActor = await sink.all()
        #expect(onActor[0]?.sorted() == expected)
        #expect(onActor[1] == onActor[0] && onActor[2] == onActor[0])
        withExtendedLifetime(tokens) {}
    }
}
