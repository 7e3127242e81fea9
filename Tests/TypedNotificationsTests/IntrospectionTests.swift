import Foundation
import Testing
@_spi(Publisher) import TypedNotifications
import TypedNotificationsTestSupport

/// `typedObservations`: what is observed, how, and where in the code.
@Suite struct IntrospectionTests {
    @Test(.capturesReports) func listsEachObservationWithTheFileAndLineThatMadeIt() {
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

    @Test(.capturesReports) func observationsOfAnotherCenterAreNotListed() {
        let center = NotificationCenter()
        let other = NotificationCenter()
        let token = CounterDidChange.observe(in: other) { _ in }
        #expect(center.typedObservations.isEmpty)
        #expect(other.typedObservations.count == 1)
        withExtendedLifetime(token) {}
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
