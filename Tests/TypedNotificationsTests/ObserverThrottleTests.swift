import Dispatch
import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// An observer's throttle (`coalescing: .within(_:)`): the first post of a quiet period at once, then at most one
// delivery per window with the latest payload, ending with the last; a window starts when the observer's previous
// delivery has run, so a busy queue or a slow `async` handler gets one delivery when it is free, never a backlog.
// The timing checks here are lower bounds that the design guarantees (a window is a timer that never fires early), or
// counts far from their limits; the posts are spaced by sleeps because spacing in time is the scenario.

@Suite struct ObserverThrottleTests {
    /// The first post of a quiet period reaches the observer at once, before its window ends, wherever it runs; the
    /// posts made during the window arrive once, with the latest, at its end.
    @Test(arguments: ObservingTarget.allCases)
    func aThrottleDeliversTheFirstPostAtOnceAndTheLatestAtTheWindowsEnd(target: ObservingTarget) async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let first = Signal()
        let observation = observeTracked(on: target, in: center, coalescing: .within(0.5)) { tracked in
            received.append(tracked.index)
            if tracked.index == 0 { first.fire() }
        }
        let start = DispatchTime.now().uptimeNanoseconds
        try await awaitDelivery {
            for index in 0..<20 { Tracked(index).post(in: center) }
        }
        #expect(received.values == [0, 19])
        #expect(DispatchTime.now().uptimeNanoseconds - start >= 500_000_000, "the latest waits for the window's end")
        await first.wait()
        observation.cancel()
    }

    /// On the posting thread the first post runs the handler before `post` returns.
    @Test func aPostingThreadThrottleRunsTheFirstPostDuringThePost() {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observe(in: center, coalescing: .within(1_000)) { received.append($0.index) }
        Tracked(1).post(in: center)
        #expect(received.values == [1])
        Tracked(2).post(in: center)
        #expect(received.values == [1], "the second post waits for the window's end")
        token.cancel()
    }

    /// Behind a serial queue kept busy for several windows, the throttled handler is never called twice within half a
    /// window: the windows that end while its delivery waits are merged into that delivery.
    @Test func aThrottleBehindABusyQueueIsNeverCalledTwiceWithinHalfAWindow() async throws {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "busy")
        let window = 0.2
        let calls = Recorded<(at: UInt64, index: Int)>()
        let last = 59
        let delivered = Signal()
        let token = Tracked.observe(in: center, delivery: .async(on: queue), coalescing: .within(window)) { tracked in
            calls.append((DispatchTime.now().uptimeNanoseconds, tracked.index))
            if tracked.index == last { delivered.fire() }
        }
        let busy = DispatchSemaphore(value: 0)
        queue.async { busy.wait() }
        for index in 0...last {
            if index == 30 { busy.signal() }
            Tracked(index).post(in: center)
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        await delivered.wait()
        let times = calls.values.map(\.at)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(Double(later - earlier) / 1e9 >= window / 2, "calls: \(calls.values.map(\.index))")
        }
        #expect(calls.values.last?.index == last)
        token.cancel()
    }

    /// A throttled `async` handler slower than its window (0.1 s a call, a 0.02 s window) works through no backlog:
    /// once the posts stop, it gets at most one call that starts more than 0.25 s later, with the last payload.
    @Test func aSlowAsyncThrottleGetsAtMostOneCallAfterThePostsStop() async throws {
        let center = NotificationCenter()
        let window = 0.02
        let calls = Recorded<(at: UInt64, index: Int)>()
        let last = 79
        let delivered = Signal()
        let token = Tracked.observe(in: center, coalescing: .within(window)) { (tracked: Tracked) async in
            calls.append((DispatchTime.now().uptimeNanoseconds, tracked.index))
            try? await Task.sleep(nanoseconds: 100_000_000)
            if tracked.index == last { delivered.fire() }
        }
        var lastPost: UInt64 = 0
        for index in 0...last {
            Tracked(index).post(in: center)
            lastPost = DispatchTime.now().uptimeNanoseconds
            try await Task.sleep(nanoseconds: 10_000_000)
        }
        await delivered.wait()
        let late = calls.values.filter { $0.at > lastPost && Double($0.at - lastPost) / 1e9 > 0.25 }
        #expect(late.count <= 1, "calls more than 0.25 s after the last post: \(late.map(\.index))")
        #expect(calls.values.last?.index == last)
        #expect(calls.values.count < 20, "one call per window at most: \(calls.values.map(\.index))")
        token.cancel()
    }

    /// `trailingOnly` keeps a throttle's first post for the window's end: one delivery per window, the latest.
    @Test func aTrailingOnlyThrottleDeliversNothingAtOnce() async throws {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = Tracked.observe(in: center, coalescing: .within(0.05).trailingOnly) { received.append($0.index) }
        try await awaitDelivery {
            for index in 0..<3 { Tracked(index).post(in: center) }
            #expect(received.values.isEmpty)
        }
        #expect(received.values == [2])
        token.cancel()
    }
}
