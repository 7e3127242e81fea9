import Foundation
import Testing
@_spi(Publisher) import TypedNotifications
import TypedNotificationsTestSupport

/// `typedObservations`: what is observed, how, and where in the code.
@Suite struct IntrospectionTests {
    @Test func listsEachObservationWithTheFileAndLineThatMadeIt() {
        let center = NotificationCenter()
        let sender = Sender()
        let owner = Sender()
        let line = #line
        let token = CounterDidChange.observe(in: center) { _ in }
        let queued = CounterDidChange.observe(in: center, delivery: .async(on: .global())) { _ in }
        let fromOne = UserDidLogIn.observe(from: sender, in: center) { _ in }
        CounterDidChange.observe(for: owner, in: center) { _, _ in }
        let sequence = CounterDidChange.notifications(in: center)
        let onMain = CounterDidChange.observeOnMainActor(in: center) { _ in }
        let asynchronous = CounterDidChange.observe(in: center) { _ async in }

        let observations = center.typedObservations
        let counter = String(reflecting: CounterDidChange.self)
        let user = String(reflecting: UserDidLogIn.self)
        #expect(observations.map(\.typeName) == Array(repeating: counter, count: 6) + [user])
        #expect(
            observations.map(\.delivery) == [.immediate, .queue, .immediate, .sequence, .mainActor, .async, .immediate])
        #expect(observations.map(\.line) == [1, 2, 4, 5, 6, 7, 3].map { line + $0 })
        #expect(observations.allSatisfy { $0.fileID == #fileID })
        #expect(observations.map(\.isOwnerBound) == [false, false, true, false, false, false, false])
        #expect(observations.map(\.filtersBySender) == [false, false, false, false, false, false, true])
        #expect(observations.last?.name == UserDidLogIn.notificationName)
        #expect(observations.first?.description == "\(counter), immediate, any sender, \(#fileID):\(line + 1)")
        #expect(observations[2].description == "\(counter), immediate, any sender, owner-bound, \(#fileID):\(line + 4)")
        withExtendedLifetime((token, queued, fromOne, owner, sequence, onMain, asynchronous)) {}
    }

    @Test func typeShorthandsRecordTheCallersLocation() {
        let center = NotificationCenter()
        let line = #line
        let token = CounterDidChange.observe(in: center) { _ in }
        let values = CounterDidChange.notifications(in: center)
        #expect(center.typedObservations.map(\.line) == [line + 1, line + 2])
        withExtendedLifetime((token, values)) {}
    }

    @Test func endedObservationsAreNotListed() {
        let center = NotificationCenter()
        var owner: Sender? = Sender()
        let token = CounterDidChange.observe(in: center) { _ in }
        CounterDidChange.observe(for: owner!, in: center) { _, _ in }
        #expect(center.typedObservations.count == 2)
        owner = nil
        #expect(center.typedObservations.count == 1, "an owner-bound observation whose owner is gone has ended")
        token.cancel()
        #expect(center.typedObservations.isEmpty)
    }

    @Test func publisherObservationsAreListedAsPublishers() {
        let center = NotificationCenter()
        let line = #line
        let token = center.subscribeForPublisher(CounterDidChange.self, from: nil) { _ in }
        #expect(center.typedObservations.map(\.delivery) == [.publisher])
        #expect(center.typedObservations.map(\.line) == [line + 1])
        withExtendedLifetime(token) {}
    }

    @Test func observationsOfAnotherCenterAreNotListed() {
        let center = NotificationCenter()
        let other = NotificationCenter()
        let token = CounterDidChange.observe(in: other) { _ in }
        #expect(center.typedObservations.isEmpty)
        #expect(other.typedObservations.count == 1)
        withExtendedLifetime(token) {}
    }
}

/// Scoped diagnostics handlers and the post trace.
@Suite struct ScopedDiagnosticsTests {
    @Test func scopedHandlerSeesOnlyItsOwnScopesEvents() async {
        let center = NotificationCenter()
        let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
        let inside = Recorded<String>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in inside.append(event.name.rawValue) }
        await NotificationDiagnostics.withHandler(record) {
            center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: ["amount": 1])
            await Task {
                center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: [:])
            }.value
        }
        // Outside the scope: no handler of this test's sees it.
        center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: [:])
        #expect(inside.values == Array(repeating: BridgingTests.PaymentAccepted.notificationName.rawValue, count: 2))
        withExtendedLifetime(token) {}
    }

    @Test func aTaskThatOutlivesANestedScopeReportsToTheEnclosingScope() async {
        let center = NotificationCenter()
        let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
        let outer = Recorded<String>()
        let inner = Recorded<String>()
        let recordOuter: @Sendable (NotificationDiagnostics.Event) -> Void = { outer.append($0.name.rawValue) }
        let recordInner: @Sendable (NotificationDiagnostics.Event) -> Void = { inner.append($0.name.rawValue) }
        await NotificationDiagnostics.withHandler(recordOuter) {
            let (started, start) = AsyncStream.makeStream(of: Void.self)
            let leaked = NotificationDiagnostics.withHandler(recordInner) {
                Task {
                    for await _ in started {}
                    center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil)
                }
            }
            // The inner scope has ended; the outer one is still open.
            start.finish()
            await leaked.value
        }
        #expect(inner.values.isEmpty, "an ended scope received a report")
        #expect(outer.values == [BridgingTests.PaymentAccepted.notificationName.rawValue])
        withExtendedLifetime(token) {}
    }

    @Test func parallelScopesDoNotSeeEachOthersEvents() async {
        let results = await withTaskGroup(of: Int.self) { group in
            for failures in 1...4 {
                group.addTask {
                    let center = NotificationCenter()
                    let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
                    let events = Counter()
                    let count: @Sendable (NotificationDiagnostics.Event) -> Void = { _ in events.increment() }
                    NotificationDiagnostics.withHandler(count) {
                        for _ in 0..<failures {
                            center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil)
                        }
                    }
                    withExtendedLifetime(token) {}
                    return failures * 100 + events.count
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == [101, 202, 303, 404])
    }
}

extension IntrospectionTests {
    /// Async observations are listed as `.async`, with their sender filter, owner binding and call site; they leave
    /// the list when cancelled, released or their owner dies.
    @Test func typedObservationsListAsyncObservations() {
        let center = NotificationCenter()
        let sender = Sender()
        let ownerSlot = Slot<DeinitReportingOwner>()
        ownerSlot.set(DeinitReportingOwner())
        let line = #line
        var plain: NotificationToken? = NumberPosted.observe(in: center) { _ async in }
        let filtered = NumberPosted.observe(from: sender, in: center) { _ async in }
        NumberPosted.observe(for: ownerSlot.value!, from: sender, in: center) { _, _ async in }
        let immediate = NumberPosted.observe(in: center) { _ in }
        let listed = center.typedObservations
        #expect(listed.map(\.delivery) == [.async, .async, .async, .immediate])
        #expect(listed.map(\.filtersBySender) == [false, true, true, false])
        #expect(listed.map(\.isOwnerBound) == [false, false, true, false])
        #expect(listed.map(\.line) == [line + 1, line + 2, line + 3, line + 4])
        #expect(listed.allSatisfy { $0.fileID == #fileID && $0.name == NumberPosted.notificationName })
        ownerSlot.set(nil)
        #expect(center.typedObservations.map(\.delivery) == [.async, .async, .immediate])
        filtered.cancel()
        #expect(center.typedObservations.map(\.delivery) == [.async, .immediate])
        withExtendedLifetime(plain) {}
        plain = nil
        #expect(center.typedObservations.map(\.delivery) == [.immediate])
        // Activity, so that the debug build does not take `immediate` for a discarded token.
        NumberPosted.post(0, in: center)
        withExtendedLifetime(immediate) {}
    }
}
