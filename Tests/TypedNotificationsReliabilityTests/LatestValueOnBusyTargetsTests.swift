import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Latest values on targets kept busy: a serial `DispatchQueue` that other work keeps busy, an actor, an
// `OperationQueue` with `maxConcurrentOperationCount = 1`, and the main actor (with a `LatestValue` model). Every
// observer there ends on `latest(in:)` whichever thread posted last, and an observer registered while posts race gets
// the latest value exactly once, then every later post, in order.

/// A latest-value type numbered per poster.
struct BusyLevel: LatestValueNotifiable, Hashable {
    let poster: Int
    let number: Int
}

/// An actor that hosts observers of ``BusyLevel``.
actor BusyLevelHost {}

/// Where the observers of ``BusyLevel`` run, and what keeps that place busy.
struct BusyLevelPlace: Sendable {
    enum Target: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case busyQueue, actor, operationQueue, mainActor
        var testDescription: String { rawValue }
    }

    let target: Target
    let queue = DispatchQueue(label: "LatestValueOnBusyTargetsTests")
    let operationQueue: OperationQueue
    let host = BusyLevelHost()

    init(_ target: Target) {
        self.target = target
        let operationQueue = OperationQueue()
        operationQueue.maxConcurrentOperationCount = 1
        self.operationQueue = operationQueue
    }

    /// Observes here; returns what ends the observation.
    func observe(
        in center: NotificationCenter, _ handler: @escaping @Sendable (BusyLevel) -> Void
    ) -> @Sendable () -> Void {
        switch target {
        case .busyQueue:
            let token = BusyLevel.observe(in: center, delivery: .async(on: queue), handler)
            return { token.cancel() }
        case .operationQueue:
            let token = BusyLevel.observe(in: center, delivery: .async(on: operationQueue), handler)
            return { token.cancel() }
        case .actor:
            let observation = BusyLevel.observe(for: host, in: center) { _, level in handler(level) }
            return { observation.cancel() }
        case .mainActor:
            let token = BusyLevel.observeOnMainActor(in: center) { handler($0) }
            return { token.cancel() }
        }
    }

    /// Keeps the place busy with short work of its own until `stop` is set.
    func keepBusy(until stop: Protected<Bool>) {
        while !stop.value {
            let done = DispatchSemaphore(value: 0)
            let work: @Sendable () -> Void = {
                for _ in 0..<200 { sched_yield() }
                done.signal()
            }
            switch target {
            case .busyQueue: queue.async(execute: work)
            case .operationQueue: operationQueue.addOperation(work)
            case .actor: Task { await host.run(work) }
            case .mainActor: Task { @MainActor in work() }
            }
            done.wait()
        }
    }
}

extension BusyLevelHost {
    fileprivate func run(_ work: @Sendable () -> Void) { work() }
}

@Suite(.seeded, .serialized) struct LatestValueOnBusyTargetsTests {
    /// Two threads post at the same moment, round after round, while other work keeps the target busy: once each
    /// round's deliveries have run, every observer on the target (and, on the main actor, a `LatestValue` model) holds
    /// the payload `latest(in:)` returns.
    @Test(arguments: BusyLevelPlace.Target.allCases)
    func everyObserverOnABusyTargetEndsOnTheLatest(target: BusyLevelPlace.Target) async throws {
        let rounds = TestEnvironment.scaled(normal: 150, long: 1_500, sanitized: 40)
        let center = NotificationCenter()
        let place = BusyLevelPlace(target)
        let lasts = (0..<3).map { _ in Protected<BusyLevel?>(nil) }
        let ends = lasts.map { last in place.observe(in: center) { level in last.set(level) } }
        let model: LatestValue<BusyLevel>? = await MainActor.run {
            if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
                return LatestValue<BusyLevel>(in: center)
            }
            return nil
        }
        let stop = Protected(false)
        let busy = onNewThread { place.keepBusy(until: stop) }
        var mismatches: [String] = []
        for round in 0..<rounds {
            let waited = await finishes(within: 60) {
                _ = try? await awaitDelivery(in: center) {
                    await onThreads(2) { poster in BusyLevel(poster: poster, number: round).post(in: center) }
                }
            }
            #expect(waited, "round \(round): the wait did not end")
            let latest = BusyLevel.latest(in: center)
            let modelValue = await MainActor.run { model?.value }
            for (index, last) in lasts.enumerated() where last.value != latest {
                mismatches.append(
                    "round \(round): observer \(index) on \(String(describing: last.value)), latest \(String(describing: latest))"
                )
            }
            if let model = modelValue, model != latest {
                mismatches.append("round \(round): model on \(model), latest \(String(describing: latest))")
            }
        }
        stop.set(true)
        await waitForSemaphore(busy)
        #expect(mismatches.isEmpty, "\(mismatches.count) mismatches: \(mismatches.prefix(3))")
        for end in ends { end() }
        await MainActor.run { withExtendedLifetime(model) {} }
    }

    /// One thread posts while another registers observers on the busy target at random moments: each observer
    /// receives the latest payload from before it started (or, with none yet, the first post after) exactly once, then
    /// every later post, in order, ending on the last (and on a last post awaited after the race).
    @Test(arguments: BusyLevelPlace.Target.allCases)
    func anObserverRegisteredWhilePostsRaceGetsTheLatestOnceThenEveryLaterPostInOrder(
        target: BusyLevelPlace.Target
    ) async throws {
        let seed = TestSeed.run
        let posts = TestEnvironment.scaled(normal: 400, long: 4_000, sanitized: 100)
        let observers = TestEnvironment.scaled(normal: 12, long: 60, sanitized: 4)
        let center = NotificationCenter()
        let place = BusyLevelPlace(target)
        let received = (0..<observers).map { _ in Recorded<Int>() }
        let ends = Protected<[@Sendable () -> Void]>([])
        let stop = Protected(false)
        let busy = onNewThread { place.keepBusy(until: stop) }
        let waited = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) {
                await onThreads(2) { thread in
                    if thread == 0 {
                        for number in 0..<posts { BusyLevel(poster: 0, number: number).post(in: center) }
                    } else {
                        var random = SplitMix64(seed: seed)
                        for observer in 0..<observers {
                            for _ in 0..<random.below(posts * 4 / observers) { sched_yield() }
                            let mine = received[observer]
                            let end = place.observe(in: center) { level in mine.append(level.number) }
                            ends.withLock { $0.append(end) }
                        }
                    }
                }
            }
        }
        // One more post, awaited, reaches every observer after its first payload, whenever it started.
        let sentinelWaited = await finishes(within: 60) {
            _ = try? await awaitDelivery(in: center) { BusyLevel(poster: 0, number: posts).post(in: center) }
        }
        #expect(waited && sentinelWaited, "a wait did not end")
        stop.set(true)
        await waitForSemaphore(busy)
        #expect(BusyLevel.latest(in: center)?.number == posts)
        for (observer, list) in received.enumerated() {
            let numbers = list.values
            let first = numbers.first ?? -1
            #expect(
                first >= 0 && numbers == Array(first...posts),
                "observer \(observer): \(numbers.count) payloads from \(first), \(numbers.prefix(8))…\(numbers.suffix(3))"
            )
        }
        for end in ends.value { end() }
        #expect(center.typedObservations.isEmpty)
    }
}

/// Waits for `semaphore` without blocking a cooperative thread.
private func waitForSemaphore(_ semaphore: DispatchSemaphore) async {
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
        DispatchQueue.global().async {
            semaphore.wait()
            done.resume()
        }
    }
}
