import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

@Suite struct ObservingTests {
    // MARK: - Order

    @Test(arguments: [2, 5, 20, 100])
    func observersRunInRegistrationOrderOnEveryPost(observerCount: Int) {
        let center = NotificationCenter()
        let calls = Recorded<Int>()
        let tokens = (0..<observerCount).map { index in
            CounterDidChange.observe(in: center) { _ in calls.append(index) }
        }
        for count in 0..<3 { CounterDidChange(count: count).post(in: center) }
        let expected = Array(0..<observerCount)
        #expect(calls.values == expected + expected + expected)
        withExtendedLifetime(tokens) {}
    }

    // MARK: - Filters

    @Test func senderFilterDeliversOnlyThatSendersPosts() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let garden = Thermometer()
        let readings = Recorded<Double>()
        let token = Reading.observe(from: kitchen, in: center) { readings.append($0.celsius) }
        Reading(celsius: 1).post(from: garden, in: center)
        Reading(celsius: 2).post(in: center)
        Reading(celsius: 3).post(from: kitchen, in: center)
        #expect(readings.values == [3])
        withExtendedLifetime(token) {}
    }

    @Test func freedSendersAddressReusedByNewObjectsNeverMatches() {
        let center = NotificationCenter()
        let calls = Counter()
        var sender: Thermometer? = Thermometer()
        let freedAddress = ObjectIdentifier(sender!)
        let token = Reading.observe(from: sender, in: center) { _ in calls.increment() }
        sender = nil
        var reused = 0
        for _ in 0..<500 {
            let fresh = Thermometer()
            if ObjectIdentifier(fresh) == freedAddress { reused += 1 }
            Reading(celsius: 0).post(from: fresh, in: center)
        }
        #expect(calls.count == 0)
        // Not a requirement, but it shows the test exercised the case it is about.
        print("freed sender's address was reused by \(reused) of 500 new objects")
        withExtendedLifetime(token) {}
    }

    @Test func equatableValueObservesOnlyEqualPayloads() {
        let center = NotificationCenter()
        let accepted = Counter()
        let rejected = Counter()
        let tokens = [
            PaymentNotifications.accepted.observe(in: center) { _ in accepted.increment() },
            PaymentNotifications.rejected.observe(in: center) { _ in rejected.increment() },
        ]
        PaymentNotifications.accepted.post(in: center)
        PaymentNotifications.accepted.post(in: center)
        PaymentNotifications.rejected.post(in: center)
        #expect(accepted.count == 2)
        #expect(rejected.count == 1)
        withExtendedLifetime(tokens) {}
    }

    enum PaymentDidFinish: Notifiable, Equatable {
        case accepted
        case finished(id: Int)
    }

    @Test func matchingACaseDeliversEveryPostOfThatCaseWhateverItsValues() async {
        let center = NotificationCenter()
        let everyFinished = Recorded<PaymentDidFinish>()
        let onMainActor = Recorded<PaymentDidFinish>()
        let isFinished: NotificationCondition<PaymentDidFinish> = .matching {
            if case .finished = $0 { true } else { false }
        }
        let tokens = [
            PaymentDidFinish.observe(in: center, where: isFinished) { everyFinished.append($0) },
            await MainActor.run {
                PaymentDidFinish.observeOnMainActor(in: center, where: isFinished) { onMainActor.append($0) }
            },
        ]
        await MainActor.run {
            PaymentDidFinish.finished(id: 1).post(in: center)
            PaymentDidFinish.accepted.post(in: center)
            PaymentDidFinish.finished(id: 2).post(in: center)
        }
        #expect(everyFinished.values == [.finished(id: 1), .finished(id: 2)])
        #expect(onMainActor.values == [.finished(id: 1), .finished(id: 2)], "posted on the main actor, delivered then")
        withExtendedLifetime(tokens) {}
    }

    @Test func theCaseShorthandOnACaseWithValuesDeliversOnlyEqualValues() {
        let center = NotificationCenter()
        let received = Recorded<PaymentDidFinish>()
        // Its debug report is checked in MisuseTests; here it is caught, so that it does not reach standard error.
        let token = NotificationDiagnostics.withHandler(
            { _ in },
            operation: {
                PaymentDidFinish.finished(id: 0).observe(in: center) { received.append($0) }
            })
        PaymentDidFinish.finished(id: 7).post(in: center)
        PaymentDidFinish.finished(id: 0).post(in: center)
        #expect(received.values == [.finished(id: 0)], "what the docs warn of: other ids never arrive")
        withExtendedLifetime(token) {}
    }

    @Test func twoObserversOfOneTypeAreBothCalledInTheOrderTheyWereMade() {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let tokens = [
            CounterDidChange.observe(in: center) { _ in calls.append("first") },
            CounterDidChange.observe(in: center) { _ in calls.append("second") },
        ]
        CounterDidChange(count: 1).post(in: center)
        #expect(calls.values == ["first", "second"])
        withExtendedLifetime(tokens) {}
    }

    // MARK: - Observers changing during a post

    @Test func observerCancelledDuringDeliveryIsNotCalledLaterInThatPost() {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let victim = Slot<NotificationToken>()
        let first = CounterDidChange.observe(in: center) { _ in
            calls.append("first")
            victim.value?.cancel()
        }
        victim.set(CounterDidChange.observe(in: center) { _ in calls.append("victim") })
        let last = CounterDidChange.observe(in: center) { _ in calls.append("last") }
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        #expect(calls.values == ["first", "last", "first", "last"])
        withExtendedLifetime((first, last)) {}
    }

    @Test func observerCancellingItselfIsNotCalledAgain() {
        let center = NotificationCenter()
        let calls = Counter()
        let own = Slot<NotificationToken>()
        own.set(
            CounterDidChange.observe(in: center) { _ in
                calls.increment()
                own.value?.cancel()
                // Posting again from inside the handler must not reach it either.
                CounterDidChange(count: 99).post(in: center)
            })
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        #expect(calls.count == 1)
    }

    @Test func observerAddedDuringDeliveryStartsWithTheNextPost() {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let added = Slot<NotificationToken>()
        let adder = CounterDidChange.observe(in: center) { change in
            calls.append("adder \(change.count)")
            if added.value == nil {
                added.set(CounterDidChange.observe(in: center) { change in calls.append("added \(change.count)") })
            }
        }
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        #expect(calls.values == ["adder 1", "adder 2", "added 2"])
        withExtendedLifetime(adder) {}
    }

    @Test func postingFromInsideAHandlerDeliversTheNestedPostToEveryObserver() {
        let center = NotificationCenter()
        let calls = Recorded<String>()
        let tokens = [
            CounterDidChange.observe(in: center) { change in
                calls.append("a\(change.count)")
                if change.count == 1 { CounterDidChange(count: 2).post(in: center) }
            },
            CounterDidChange.observe(in: center) { change in calls.append("b\(change.count)") },
        ]
        CounterDidChange(count: 1).post(in: center)
        // The nested post completes (reaching both) before the outer one continues to b.
        #expect(calls.values == ["a1", "a2", "b2", "b1"])
        withExtendedLifetime(tokens) {}
    }

    // MARK: - Registrations

    @Test(.capturesReports) func registrationsAreDroppedWithTheLastObserver() {
        let center = NotificationCenter()
        var tokens = (0..<3).map { _ in CounterDidChange.observe(in: center) { _ in } }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (3, 1))
        tokens.removeAll()
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }
}
