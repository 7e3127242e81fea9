import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// `async` observers beside main-actor, queue and other `async` observers on one center.
@Suite struct AsyncHandlerMixedTargetsTests {
    /// Re-subscribing inside an async handler, and re-posting after it: the new observer receives the re-post and
    /// later posts; a handler that cancels itself and observes anew stops at once, and its replacement takes over.
    @Test func resubscribingInsideAnAsyncHandler() async {
        let center = NotificationCenter()
        let outerSeen = Recorded<Int>()
        let innerSeen = Recorded<Int>()
        let replacementSeen = Recorded<Int>()
        let inner = Slot<NotificationToken>()
        let replacement = Slot<NotificationToken>()
        let outerSlot = Slot<NotificationToken>()
        let innerReady = Signal()
        let replacementReady = Signal()
        let finished = CountdownTally(2)
        outerSlot.set(
            NumberPosted.observe(in: center) { value async in
                outerSeen.append(value)
                if value == 0 {
                    inner.set(
                        NumberPosted.observe(in: center) { value async in
                            innerSeen.append(value)
                            if value == 4 { finished.bump() }
                        })
                    NumberPosted.post(1, in: center)
                    innerReady.fire()
                }
                if value == 2 {
                    // Cancels itself and observes anew: the replacement sees later posts; this one sees no more.
                    outerSlot.value?.cancel()
                    replacement.set(
                        NumberPosted.observe(in: center) { value async in
                            replacementSeen.append(value)
                            if value == 4 { finished.bump() }
                        })
                    NumberPosted.post(3, in: center)
                    replacementReady.fire()
                }
            })
        NumberPosted.post(0, in: center)
        await waitOrRecordTimeout(innerReady, "the inner observer")
        NumberPosted.post(2, in: center)
        await waitOrRecordTimeout(replacementReady, "the replacement observer")
        NumberPosted.post(4, in: center)
        await waitOrRecordTimeout(finished.reached, "4 at the inner and replacement observers")
        #expect(outerSeen.values == [0, 1, 2], "the outer handler ran after cancelling itself: \(outerSeen.values)")
        #expect(innerSeen.values == [1, 2, 3, 4], "\(innerSeen.values)")
        #expect(replacementSeen.values == [3, 4], "\(replacementSeen.values)")
        let kinds = center.typedObservations.map(\.delivery)
        #expect(kinds == [.async, .async], "inner and replacement: \(kinds)")
    }

    /// Three async observers, one main-actor observer and one queue observer on one center, posts from two threads:
    /// each sees every post of each thread in order; one async observer blocked on its first call holds up nobody
    /// else; introspection lists each async observer as `.async`.
    @Test func severalAsyncObserversWithMainActorAndQueueObservers() async {
        let center = NotificationCenter()
        let perThread = 200
        let total = 2 * perThread
        let names = ["asyncA", "asyncB", "asyncC", "main", "queue"]
        let seen = names.map { _ in Recorded<Int>() }
        let tallies = names.map { _ in CountdownTally(total) }
        let overlaps = names.map { _ in AsyncHandlerTests.Overlap() }
        let gate = Signal()
        var tokens: [NotificationToken] = []
        for index in 0..<3 {
            tokens.append(
                NumberPosted.observe(in: center) { value async in
                    overlaps[index].enter()
                    if index == 2, seen[2].count == 0 { await gate.wait() }  // asyncC blocks on its first call
                    if value % 5 == 0 { await Task.yield() }
                    seen[index].append(value)
                    overlaps[index].leave()
                    tallies[index].bump()
                })
        }
        tokens.append(
            NumberPosted.observeOnMainActor(in: center) { value in
                seen[3].append(value)
                tallies[3].bump()
            })
        tokens.append(
            NumberPosted.observe(
                in: center, delivery: .async(on: DispatchQueue(label: "async-beside-main-actor-and-queue"))
            ) { value in
                seen[4].append(value)
                tallies[4].bump()
            })
        let kinds = center.typedObservations.map(\.delivery)
        #expect(kinds.filter { $0 == .async }.count == 3, "\(kinds)")
        #expect(kinds.filter { $0 == .mainActor }.count == 1, "\(kinds)")
        #expect(kinds.filter { $0 == .queue }.count == 1, "\(kinds)")
        await onThreads(2) { thread in
            for index in 0..<perThread { NumberPosted.post(thread * 1_000_000 + index, in: center) }
        }
        for index in [0, 1, 3, 4] {
            await waitOrRecordTimeout(tallies[index].reached, "\(names[index]) while asyncC is blocked")
        }
        #expect(seen[2].count == 0, "asyncC is still blocked on its first call")
        gate.fire()
        await waitOrRecordTimeout(tallies[2].reached, "asyncC")
        for (index, name) in names.enumerated() {
            let values = seen[index].values
            #expect(values.count == total, "\(name): \(values.count) of \(total)")
            for thread in 0..<2 {
                expectSourceInOrder(
                    values, source: thread, expected: (0..<perThread).map { thread * 1_000_000 + $0 }, name)
            }
            #expect(!overlaps[index].everOverlapped, "\(name) overlapped itself")
        }
        // The main-actor and queue observers see one order each (one target each); the async ones are independent.
        withExtendedLifetime(tokens) {}
    }

    /// An async handler runs from a queue of its own, never from a center's target: main-actor observers made before
    /// and after async ones that come and go share one target (the main actor's, whose key has no executor identity).
    @Test func asyncObserversNeverTakeOrDropTheMainActorsTarget() {
        let center = NotificationCenter()
        func site(_ line: UInt = #line) -> ObservationSite { ObservationSite(fileID: #fileID, line: line) }
        func asyncHandler<Payload>() -> Handler<Payload> { .queued(ConsumerQueue { _, _ in }) }
        let firstAsync = center.register(
            NumberPosted.self, sender: nil, on: nil, handler: asyncHandler(), site: site(), kind: .async)
        let main = center.register(
            NumberPosted.self, sender: nil, on: .mainActor, handler: .payload { _ in }, site: site())
        let secondAsync = center.register(
            NumberPosted.self, sender: nil, on: nil, handler: asyncHandler(), site: site(), kind: .async)
        #expect(main.target != nil && firstAsync.target == nil && secondAsync.target == nil)
        #expect(firstAsync.route != nil && secondAsync.route != nil, "an async observer has no queue of its own")
        if let first = firstAsync.route?.queue, let second = secondAsync.route?.queue {
            #expect(first !== second, "two async observers share a queue")
        } else {
            Issue.record("an async observer is not queued")
        }
        #expect(main.target?.key.executor == nil, "the main actor's target is found by its center alone")
        #expect(center.typedObservations.filter { $0.delivery == .async }.count == 2)
        firstAsync.cancel()
        secondAsync.cancel()
        let mainAgain = center.register(
            NumberPosted.self, sender: nil, on: .mainActor, handler: .payload { _ in }, site: site())
        #expect(mainAgain.target === main.target, "cancelling async observers dropped the main actor's target entry")
        // And on another type of the same center (targets are per center, not per type).
        let otherAsync = center.register(
            ReleaseReportingPosted.self, sender: nil, on: nil, handler: asyncHandler(), site: site(), kind: .async)
        otherAsync.cancel()
        let mainOther = center.register(
            ReleaseReportingPosted.self, sender: nil, on: .mainActor, handler: .payload { _ in }, site: site())
        #expect(mainOther.target === main.target)
        #expect(
            center.typedObservations.map(\.delivery).sorted { $0.rawValue < $1.rawValue } == [
                .mainActor, .mainActor, .mainActor,
            ])
        main.cancel()
        mainAgain.cancel()
        mainOther.cancel()
        #expect(center.typedObservations.isEmpty)
    }

    /// Main-actor observers registered before and after async observers are cancelled keep one order between them
    /// (one target): a behavioural form of the check above.
    @Test func mainActorObserversKeepOneOrderAcrossAsyncChurn() async {
        let center = NotificationCenter()
        let log = Recorded<String>()
        let done = CountdownTally(200)
        let first = NumberPosted.observeOnMainActor(in: center) { value in
            log.append("first \(value)")
            done.bump()
        }
        for _ in 0..<5 {
            let churn = NumberPosted.observe(in: center) { _ async in }
            churn.cancel()
        }
        let second = NumberPosted.observeOnMainActor(in: center) { value in
            log.append("second \(value)")
            done.bump()
        }
        await onThreads(2) { thread in
            for index in 0..<50 { NumberPosted.post(thread * 50 + index, in: center) }
        }
        await waitOrRecordTimeout(done.reached, "the main-actor observers")
        // One target: every post reaches `first` then `second`, adjacent.
        let values = log.values
        for pair in stride(from: 0, to: values.count, by: 2) {
            let a = values[pair]
            let b = values[pair + 1]
            #expect(a.hasPrefix("first ") && b == "second " + a.dropFirst("first ".count), "\(a), \(b)")
        }
        withExtendedLifetime((first, second)) {}
    }
}

extension AsyncHandlerMixedTargetsTests {
    /// Async observers interleaved (in registration order) with main-actor, queue and posting-thread observers, some
    /// with a sender filter, posts from three threads and the main actor: each observer sees each source's accepted
    /// posts exactly once, in order; the two main-actor observers share one order (each post reaches both, adjacent).
    @Test func asyncObserversInterleavedWithEveryOtherKind() async {
        let center = NotificationCenter()
        let right = Sender()
        let owner = DeinitReportingOwner()
        let perSource = 200
        let sources = 4  // threads 0-2 and the main actor (3)
        // Every third post of each source comes from `right`; the others from no sender.
        @Sendable func fromRight(_ value: Int) -> Bool { (value % 1_000_000) % 3 == 0 }
        let names = [
            "mainA", "async1", "immediate", "queue", "asyncOwned", "mainB", "asyncFiltered", "immediateFiltered",
        ]
        let filtered: Set<Int> = [6, 7]
        let seen = names.map { _ in Recorded<Int>() }
        let expectedCount = { (index: Int) in
            filtered.contains(index) ? sources * (0..<perSource).filter { $0 % 3 == 0 }.count : sources * perSource
        }
        let tallies = names.indices.map { CountdownTally(expectedCount($0)) }
        let overlaps = names.map { _ in AsyncHandlerTests.Overlap() }
        let mainLog = Recorded<(Int, Int)>()
        @Sendable func record(_ index: Int, _ value: Int) {
            overlaps[index].enter()
            seen[index].append(value)
            overlaps[index].leave()
            tallies[index].bump()
        }
        var tokens: [NotificationToken] = []
        tokens.append(
            NumberPosted.observeOnMainActor(in: center) { value in
                mainLog.append((0, value))
                record(0, value)
            })
        tokens.append(
            NumberPosted.observe(in: center) { value async in
                if value % 7 == 0 { await Task.yield() }
                record(1, value)
            })
        tokens.append(NumberPosted.observe(in: center) { value in record(2, value) })
        tokens.append(
            NumberPosted.observe(in: center, delivery: .async(on: DispatchQueue(label: "async-and-every-other-kind"))) {
                value in
                record(3, value)
            })
        NumberPosted.observe(for: owner, in: center) { _, value async in record(4, value) }
        tokens.append(
            NumberPosted.observeOnMainActor(in: center) { value in
                mainLog.append((1, value))
                record(5, value)
            })
        tokens.append(
            NumberPosted.observe(from: right, in: center) { value async in
                if value % 5 == 0 { await Task.yield() }
                record(6, value)
            })
        tokens.append(
            NumberPosted.observe(from: right, in: center) { (sender: AnyObject?, value: Int) in
                #expect(sender === right)
                record(7, value)
            })
        let kinds = center.typedObservations.map(\.delivery)
        #expect(
            kinds == [.mainActor, .async, .immediate, .queue, .async, .mainActor, .async, .immediate], "\(kinds)")
        async let mainActorPosts: Void = { @MainActor in
            for index in 0..<perSource {
                let value = 3 * 1_000_000 + index
                NumberPosted.post(value, from: fromRight(value) ? right : nil, in: center)
            }
        }()
        await onThreads(3) { thread in
            for index in 0..<perSource {
                let value = thread * 1_000_000 + index
                NumberPosted.post(value, from: fromRight(value) ? right : nil, in: center)
            }
        }
        await mainActorPosts
        for (index, name) in names.enumerated() {
            await waitOrRecordTimeout(tallies[index].reached, name)
            let values = seen[index].values
            #expect(values.count == expectedCount(index), "\(name): \(values.count) of \(expectedCount(index))")
            for source in 0..<sources {
                let expected = (0..<perSource).filter { !filtered.contains(index) || $0 % 3 == 0 }.map {
                    source * 1_000_000 + $0
                }
                expectSourceInOrder(values, source: source, expected: expected, name)
            }
            // Posting-thread observers run on every posting thread at once; the others one call at a time.
            if index != 2, index != 7 { #expect(!overlaps[index].everOverlapped, "\(name) overlapped itself") }
        }
        let log = mainLog.values
        #expect(log.count == 2 * sources * perSource)
        for pair in stride(from: 0, to: log.count - 1, by: 2) {
            let (a, b) = (log[pair], log[pair + 1])
            #expect(a.0 == 0 && b.0 == 1 && a.1 == b.1, "main-actor observers not in one order at \(pair): \(a), \(b)")
        }
        withExtendedLifetime((tokens, owner)) {}
    }
}
