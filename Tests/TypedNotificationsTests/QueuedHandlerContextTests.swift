import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// A queued handler runs with none of the posters' task-locals (its drain is a detached task or a queue's job), and
/// its diagnostics reports go to the scope its own post was made in.
@Suite struct QueuedHandlerContextTests {
    enum Context {
        @TaskLocal static var tag: String?
    }

    @Test(arguments: ObservingTarget.queued)
    func aQueuedHandlerRunsWithNoneOfThePostersTaskLocals(target: ObservingTarget) async {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let releases = Releases(expecting: 2)
        let observation = observeTracked(on: target, in: center) { payload in
            seen.append("\(payload.index):\(Context.tag ?? "none")")
        }
        Context.$tag.withValue("A") { releases.payload(1).post(in: center) }
        Context.$tag.withValue("B") { releases.payload(2).post(in: center) }
        await releases.wait()
        #expect(seen.values == ["1:none", "2:none"])
        withExtendedLifetime(observation) {}
    }

    @Test(arguments: ObservingTarget.queued)
    func aQueuedHandlersReportsGoToTheScopeItsPostWasMadeIn(target: ObservingTarget) async {
        let center = NotificationCenter()
        let handled = [Signal(), Signal()]
        let observation = observeTracked(on: target, in: center) { payload in
            // A mistake reported where it is made: a center as a post's sender.
            CounterDidChange(count: payload.index).post(from: center, in: center)
            handled[payload.index].fire()
        }
        let reports = [Counter(), Counter()]
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<2 {
                group.addTask {
                    let log: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
                        if case .centerAsPostSender = event.kind, event.center === center { reports[index].increment() }
                    }
                    await NotificationDiagnostics.withHandler(log) {
                        Tracked(index).post(in: center)
                        await handled[index].wait()
                    }
                }
            }
        }
        #if DEBUG
        #expect(reports.map(\.value) == [1, 1], "each scope receives the report of its own post's handler")
        #else
        #expect(reports.map(\.value) == [0, 0])
        #endif
        withExtendedLifetime(observation) {}
    }
}

// Posts made on the target's actor, coalesced posts, and the posters' priority.
extension QueuedHandlerContextTests {
    /// A post made on the target's own actor runs what was queued before it, synchronously, in its own task: earlier
    /// posts' handlers then see that task's task-locals (as any code it runs does), but their diagnostics reports
    /// still go to the scope their own post was made in (here scope A, which the earlier post's thread keeps open).
    @Test(arguments: ["mainActor", "actor"])
    func anEarlierPostsHandlerRunByAPostOnTheActorReportsToItsOwnPostsScope(target: String) async {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let reportsInA = Counter()
        let reportsInB = Counter()
        let log = countingCenterAsSenderReports(of: center, into: reportsInB)
        let handler: @Sendable (Tracked) -> Void = { payload in
            seen.append("\(payload.index):\(Context.tag ?? "none")")
            reportFromHandler(in: center)
        }
        // P1: posted on a plain thread under task-local "A", in a diagnostics scope of its own.
        let older = PostOnAnotherThread.Post(log: countingCenterAsSenderReports(of: center, into: reportsInA)) {
            Context.$tag.withValue("A") { Tracked(1).post(in: center) }
        }
        let earlier: PostOnAnotherThread
        switch target {
        case "mainActor":
            let token = Tracked.observeOnMainActor(in: center) { handler($0) }
            earlier = await MainActor.run {
                // Blocks the main thread (not a pool thread) while P1 is queued, so P1's drain cannot run first.
                let earlier = PostOnAnotherThread(older)
                Context.$tag.withValue("B") {
                    NotificationDiagnostics.withHandler(log) {
                        Tracked(2).post(in: center, isolation: MainActor.shared)
                    }
                }
                return earlier
            }
            withExtendedLifetime(token) {}
        default:
            let poster = ActorPoster()
            let observation = Tracked.observe(for: poster, in: center) { _, payload in handler(payload) }
            earlier = await poster.postOwnBehind(older: older, own: Tracked(2), in: center, log: log)
            withExtendedLifetime(observation) {}
        }
        #expect(earlier.wasPosted)
        #expect(earlier.finish())
        // Both ran during P2's post (synchronously), so they are recorded now.
        #expect(seen.values.count == 2)
        #if DEBUG
        #expect(
            reportsInB.value == 1,
            "the later post's scope received \(reportsInB.value) reports: the earlier post's handler reported into it")
        #expect(reportsInA.value == 1, "the earlier post's scope received \(reportsInA.value) reports")
        #endif
    }

    /// A post made inside a `withHandler` scope, coalesced or not: the reports of the handlers it reaches go to that
    /// scope, though a burst is delivered by a detached task.
    @Test(arguments: [false, true])
    func aHandlerReachedByAPostMadeInAScopeReportsToThatScope(coalesced: Bool) async {
        let center = NotificationCenter()
        let handled = Signal()
        let token = Tracked.observe(in: center) { _ in
            reportFromHandler(in: center)
            handled.fire()
        }
        let reports = Counter()
        let done = await NotificationDiagnostics.withHandler(countingCenterAsSenderReports(of: center, into: reports)) {
            if coalesced {
                Tracked(0).post(in: center, coalescing: .nextTurn)
            } else {
                Tracked(0).post(in: center)
            }
            return await finishes(within: 10) { await handled.wait() }
        }
        #expect(done)
        #if DEBUG
        #expect(reports.value == 1, "coalesced: \(coalesced): the scope the post was made in got \(reports.value)")
        #endif
        withExtendedLifetime(token) {}
    }

    /// Queued handlers take neither the task-locals nor the priority of the task that posted.
    @Test(arguments: [ObservingTarget.actor, .mainActor, .asyncHandler, .dispatchQueue])
    func aQueuedHandlerTakesNeitherThePostersPriorityNorItsTaskLocals(target: ObservingTarget) async {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let releases = Releases(expecting: 2)
        let observation = observeTracked(on: target, in: center) { payload in
            seen.append("\(payload.index):\(Task.currentPriority.rawValue):\(Context.tag ?? "none")")
        }
        await Task.detached(priority: .high) {
            Context.$tag.withValue("high") { releases.payload(0).post(in: center) }
        }.value
        await Task.detached(priority: .low) {
            Context.$tag.withValue("low") { releases.payload(1).post(in: center) }
        }.value
        #expect(await finishes(within: 10) { await releases.wait() })
        let values = seen.values
        #expect(values.count == 2)
        if values.count == 2 {
            let parts = values.map { $0.split(separator: ":") }
            #expect(parts[0][1] == parts[1][1], "the handler's priority followed the poster's: \(values)")
            #expect(parts.allSatisfy { $0[2] == "none" }, "\(values)")
        }
        withExtendedLifetime(observation) {}
    }
}
