import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The race that latest values must win: observations start on some threads while posts are made on others. Every
/// observation must receive the latest post from before its start (if there is one) and every post after it, each
/// exactly once; an ordered observation (on a queue, `async`, a sequence) must receive the latest post first.
///
/// Each post carries its poster and its number on that poster. After the threads have finished, one more post (the
/// *sentinel*) reaches every observation live; each waits for it, so the checks see everything delivered.
@Suite(.seeded) struct LatestValueTortureTests {
    static let postsPerPoster = TestEnvironment.scaled(normal: 2_000, long: 20_000, sanitized: 300)
    static let observationsPerThread = TestEnvironment.scaled(normal: 40, long: 200, sanitized: 12)

    struct Stamp: LatestValueNotifiable, Hashable {
        let poster: Int
        let number: Int
        static let sentinel = Stamp(poster: -1, number: 0)
    }

    /// The interleaving that two threads posting at once only sometimes hit, made every time where it can happen: a
    /// post that has become the latest lets another thread post before it is queued for the queue's observer (the
    /// `.queueing` hook). The observer still ends on the latest, as its target receives the posts in the order the
    /// center kept them.
    @Test func aPostOvertakenOnItsWayToTheQueueStillLeavesTheObserverOnTheLatest() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "latest")
        let lastOnQueue = Protected<Stamp?>(nil)
        let token = Stamp.observe(in: center, delivery: .async(on: queue)) { stamp in lastOnQueue.set(stamp) }
        let isFirst = Protected(true)
        TestHooks.on(.queueing, in: center) {
            guard
                isFirst.withLock({ isFirst in
                    defer { isFirst = false }
                    return isFirst
                })
            else { return }
            onNewThread { Stamp(poster: 1, number: 0).post(in: center) }.wait()
        }
        defer { TestHooks.removeHook(at: .queueing, for: ObjectIdentifier(center)) }
        Stamp(poster: 0, number: 0).post(in: center)
        // Where the post is queued in the step that keeps it, nothing comes between: the second post comes after.
        if isFirst.withLock({ $0 }) { Stamp(poster: 1, number: 0).post(in: center) }
        await withCheckedContinuation { (drained: CheckedContinuation<Void, Never>) in queue.async { drained.resume() }
        }
        #expect(Stamp.latest(in: center) == Stamp(poster: 1, number: 0))
        #expect(lastOnQueue.value == Stamp.latest(in: center))
        withExtendedLifetime(token) {}
    }

    /// Two threads post at the same moment: the center keeps one of the posts as the latest, and every observer on a
    /// target, a queue's or the main actor's (a `LatestValue` model's too), receives the two in that order, so once
    /// the deliveries have run each ends on `latest(in:)`, every round.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)  // `LatestValue`
    @MainActor @Test func queuedObserversEndOnTheLatestWhenTwoThreadsPostAtOnce() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "latest")
        let lastOnQueue = Protected<Stamp?>(nil)
        let token = Stamp.observe(in: center, delivery: .async(on: queue)) { stamp in lastOnQueue.set(stamp) }
        let model = LatestValue<Stamp>(in: center)
        let rounds = TestEnvironment.scaled(normal: 1_000, long: 5_000, sanitized: 200)
        var mismatches: [String] = []
        for round in 0..<rounds {
            try await awaitDelivery(in: center) {
                await onThreads(2) { poster in Stamp(poster: poster, number: round).post(in: center) }
            }
            let latest = Stamp.latest(in: center)
            if lastOnQueue.value != latest || model.value != latest {
                mismatches.append(
                    "round \(round): latest \(String(describing: latest)), queue \(String(describing: lastOnQueue.value)), model \(String(describing: model.value))"
                )
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) of \(rounds) rounds: \(mismatches.prefix(3))")
        withExtendedLifetime(token) {}
    }

    /// With one poster the exact sequence is known: from the latest post at the start (or the first post) to the
    /// last, without a gap or a repeat, in order where the observation is ordered.
    @Test func oneWriterAndObservationsStartingOnOtherThreadsSeeEveryPostOnceFromTheLatest() async {
        let seed = TestEnvironment.runSeed
        let outcome = await Self.storm(posters: 1, observingThreads: 2, seed: seed)
        for observation in outcome {
            let numbers = observation.stamps.map(\.number)
            let expected = numbers.isEmpty ? [] : Array((numbers.min() ?? 1)...Self.postsPerPoster)
            let problem = Self.difference(observation.isOrdered ? numbers : numbers.sorted(), from: expected)
            #expect(problem == nil, "\(observation.kind): \(problem ?? ""), seed \(seed)")
            // Something always reaches it: the latest post, or (before the first post) live ones.
            #expect(!numbers.isEmpty, "\(observation.kind), seed \(seed)")
        }
    }

    /// With several posters, each poster's posts reach an observation as one unbroken run up to its last post, each
    /// once; in order, where the observation is ordered.
    @Test func severalWritersAndObservationsStartingOnOtherThreadsSeeEachPostOnce() async {
        let seed = TestEnvironment.runSeed ^ 0x1A7E57
        let posters = 3
        let outcome = await Self.storm(posters: posters, observingThreads: 2, seed: seed)
        for observation in outcome {
            #expect(Set(observation.stamps).count == observation.stamps.count, "repeat, seed \(seed)")
            for poster in 0..<posters {
                let numbers = observation.stamps.filter { $0.poster == poster }.map(\.number)
                guard let first = numbers.min() else { continue }
                let expected = Array(first...Self.postsPerPoster)
                let problem = Self.difference(observation.isOrdered ? numbers : numbers.sorted(), from: expected)
                #expect(problem == nil, "\(observation.kind), poster \(poster): \(problem ?? ""), seed \(seed)")
            }
        }
    }

    /// Where `numbers` first differs from `expected`, in a few words; `nil` if they are equal.
    static func difference(_ numbers: [Int], from expected: [Int]) -> String? {
        guard numbers != expected else { return nil }
        let common = min(numbers.count, expected.count)
        let index = (0..<common).first { numbers[$0] != expected[$0] } ?? common
        let got = index < numbers.count ? "\(numbers[index])" : "nothing"
        let wanted = index < expected.count ? "\(expected[index])" : "nothing"
        return
            "\(numbers.count) posts instead of \(expected.count); at position \(index) got \(got), expected \(wanted)"
    }

    // MARK: - The storm

    enum Kind: Int, CaseIterable {
        case postingThread, queue, asyncHandler, sequence
    }

    struct Outcome {
        let kind: Kind
        let stamps: [Stamp]
        var isOrdered: Bool { kind != .postingThread }
    }

    /// One observation of the storm: what it received, up to the sentinel.
    final class Watcher: Sendable {
        let kind: Kind
        let received = Protected<[Stamp]>([])
        let sawSentinel = AsyncStream<Void>.makeStream()

        init(kind: Kind) {
            self.kind = kind
        }

        func receive(_ stamp: Stamp) {
            if stamp == .sentinel {
                sawSentinel.continuation.finish()
            } else {
                received.withLock { $0.append(stamp) }
            }
        }

        func waitForSentinel() async {
            for await _ in sawSentinel.stream {}
        }
    }

    /// `posters` threads post `postsPerPoster` stamps each while `observingThreads` threads start observations of
    /// every kind at seeded moments; then the sentinel is posted and awaited.
    static func storm(posters: Int, observingThreads: Int, seed: UInt64) async -> [Outcome] {
        let center = NotificationCenter()
        let watchers = Protected<[Watcher]>([])
        let held = Protected<[any AnyObject & Sendable]>([])
        let finishedPosters = Counter()
        await onThreads(posters + observingThreads) { thread in
            if thread < posters {
                for number in 1...postsPerPoster {
                    Stamp(poster: thread, number: number).post(in: center)
                }
                finishedPosters.increment()
                return
            }
            var random = SplitMix64(seed: seed &+ UInt64(thread))
            for index in 0..<observationsPerThread {
                // A seeded pause between observations, so that they start at different points of the posts.
                for _ in 0..<random.below(20_000) { _ = finishedPosters.value }
                let kind = Kind(rawValue: (index + random.below(4)) % Kind.allCases.count)!
                let watcher = Watcher(kind: kind)
                watchers.withLock { $0.append(watcher) }
                held.withLock { $0.append(observe(kind, in: center, into: watcher)) }
            }
        }
        Stamp.sentinel.post(in: center)
        for watcher in watchers.value { await watcher.waitForSentinel() }
        let outcome = watchers.value.map {
            Outcome(kind: $0.kind, stamps: $0.received.value)
        }
        held.withLock { $0.removeAll() }
        return outcome
    }

    /// Starts an observation of `kind` that hands each stamp to `watcher`; returns what keeps it alive.
    static func observe(_ kind: Kind, in center: NotificationCenter, into watcher: Watcher) -> any AnyObject & Sendable
    {
        switch kind {
        case .postingThread:
            return Stamp.observe(in: center) { watcher.receive($0) }
        case .queue:
            let queue = DispatchQueue(label: "LatestValueTortureTests")
            return Stamp.observe(in: center, delivery: .async(on: queue)) { watcher.receive($0) }
        case .asyncHandler:
            return Stamp.observe(in: center) { (stamp: Stamp) async in watcher.receive(stamp) }
        case .sequence:
            let stamps = Stamp.notifications(in: center)
            let consumer = Task {
                for await stamp in stamps {
                    watcher.receive(stamp)
                    if stamp == .sentinel { break }
                }
            }
            return TaskHolder(consumer)
        }
    }

    /// Keeps a consumer task's handle with the other observations.
    final class TaskHolder: Sendable {
        let task: Task<Void, Never>
        init(_ task: Task<Void, Never>) { self.task = task }
    }
}
