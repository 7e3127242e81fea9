import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// `awaitDelivery`, the task form and the center form (`in:`), while the handlers on the target re-post, end their own
/// observation and observe again, and another thread cancels and replaces observations all along: each wait ends
/// (within a generous bound, a hang detector), and never before the deliveries it covers have run, which an observer
/// that stays registered on the same target (the witness) shows.
@Suite(.seeded, .serialized) struct AwaitingDeliveryUnderChurnTests {
    enum Form: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case task, center
        var testDescription: String { rawValue }
    }

    @Test(arguments: SeamTarget.allCases, Form.allCases)
    func aWaitEndsAfterItsDeliveriesWhileHandlersRepostResubscribeAndOthersCancel(
        target: SeamTarget, form: Form
    ) async {
        let rounds = TestEnvironment.scaled(normal: 25, long: 250, sanitized: 6)
        let perRound = 8
        let center = NotificationCenter()
        let place = SeamPlace(target)
        let witness = Recorded<Int>()
        let endWitness = place.observe(in: center) { witness.append($0.index) }
        let churners = Protected<[Int: @Sendable () -> Void]>([:])
        let nextChurner = Counter()
        // A churner re-posts every third payload once (into the 1_000_000 range, never re-posted again), and every
        // fifth payload ends its own observation and starts a new one.
        @Sendable func addChurner() {
            let number = nextChurner.increment()
            let end = place.observe(in: center) { ping in
                if ping.index < 1_000_000, ping.index % 3 == 0 { SeamPing(ping.index + 1_000_000).post(in: center) }
                if ping.index < 1_000_000, ping.index % 5 == 0 {
                    let mine = churners.withLock { $0.removeValue(forKey: number) }
                    mine?()
                    addChurner()
                }
            }
            churners.withLock { $0[number] = end }
        }
        for _ in 0..<3 { addChurner() }
        let stop = Protected(false)
        let seed = TestSeed.run
        let canceller = onNewThread {
            var random = SplitMix64(seed: seed)
            while !stop.value {
                let victim = churners.withLock { churners -> (@Sendable () -> Void)? in
                    guard let key = churners.keys.sorted().first(where: { _ in random.chance(50) }) else { return nil }
                    return churners.removeValue(forKey: key)
                }
                victim?()
                addChurner()
                for _ in 0..<random.below(500) { sched_yield() }
            }
        }
        var problems: [String] = []
        for round in 0..<rounds {
            let indices = Array((round * perRound)..<((round + 1) * perRound))
            let waited = await finishes(within: 60) {
                switch form {
                case .task:
                    _ = try? await awaitDelivery {
                        for index in indices { SeamPing(index).post(in: center) }
                    }
                case .center:
                    _ = try? await awaitDelivery(in: center) {
                        await onThreads(2) { thread in
                            for index in indices where index % 2 == thread { SeamPing(index).post(in: center) }
                        }
                    }
                }
            }
            if !waited {
                problems.append("round \(round): the wait did not end")
                break
            }
            let seen = Set(witness.values)
            let missing = indices.filter { !seen.contains($0) }
            if !missing.isEmpty {
                problems.append("round \(round): the wait ended before \(missing) reached the witness")
            }
        }
        stop.set(true)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                canceller.wait()
                done.resume()
            }
        }
        #expect(problems.isEmpty, "\(target) \(form): \(problems.prefix(3))")
        endWitness()
        let ends = churners.withLock { churners in
            defer { churners.removeAll() }
            return Array(churners.values)
        }
        for end in ends { end() }
    }
}
