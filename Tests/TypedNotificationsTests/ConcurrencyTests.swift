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
