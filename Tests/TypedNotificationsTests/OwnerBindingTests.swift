import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Owner-bound observation: subscribe and forget (seeds 000 and 001); the observation ends with its owner.
@Suite struct OwnerBindingTests {
    final class Consumer: Sendable {
        let received = Recorded<Int>()
    }

    @Test func ownerIsNotRetained() {
        let center = NotificationCenter()
        var consumer: Consumer? = Consumer()
        weak var weakConsumer: Consumer?
        weakConsumer = consumer
        CounterDidChange.observe(for: consumer!, in: center) { owner, change in owner.received.append(change.count) }
        consumer = nil
        #expect(weakConsumer == nil)
    }

    @Test func observationLastsAsLongAsTheOwnerEvenIfTheTokenIsDropped() {
        let center = NotificationCenter()
        let consumer = Consumer()
        CounterDidChange.observe(for: consumer, in: center) { owner, change in owner.received.append(change.count) }
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        #expect(consumer.received.values == [1, 2])
    }

    @Test func observationEndsWhenTheOwnerIsDeallocatedAndItsRegistrationIsCleanedUp() {
        let center = NotificationCenter()
        let calls = Counter()
        var consumer: Consumer? = Consumer()
        CounterDidChange.observe(for: consumer!, in: center) { _, _ in calls.increment() }
        CounterDidChange(count: 1).post(in: center)
        consumer = nil
        CounterDidChange(count: 2).post(in: center)
        #expect(calls.count == 1)
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (0, 0))
    }

    @Test(.capturesReports) func deadOwnersAreDroppedWhenTheNextObserverRegisters() {
        let center = NotificationCenter()
        for _ in 0..<100 {
            let consumer = Consumer()
            CounterDidChange.observe(for: consumer, in: center) { _, _ in }
        }
        let keeper = CounterDidChange.observe(in: center) { _ in }
        #expect(ObserverRegistry.shared.registrationCounts(in: center) == (1, 1))
        withExtendedLifetime(keeper) {}
    }

    @Test func cancellingTheTokenEndsTheObservationEarly() {
        let center = NotificationCenter()
        let consumer = Consumer()
        let token = CounterDidChange.observe(for: consumer, in: center) { owner, change in
            owner.received.append(change.count)
        }
        CounterDidChange(count: 1).post(in: center)
        token.cancel()
        CounterDidChange(count: 2).post(in: center)
        #expect(consumer.received.values == [1])
    }

    @Test func ownerBoundObservationHonoursTheSenderFilter() {
        let center = NotificationCenter()
        let consumer = Consumer()
        let kitchen = Thermometer()
        Reading.observe(for: consumer, from: kitchen, in: center) { owner, reading in
            owner.received.append(Int(reading.celsius))
        }
        Reading(celsius: 1).post(in: center)
        Reading(celsius: 2).post(from: kitchen, in: center)
        #expect(consumer.received.values == [2])
    }

    // MARK: - Seed 000: a message bus of nested enums, consumers switching on them

    enum MessageEvent: Notifiable {
        enum NativeEvent: Sendable {
            case open, close, loaded
        }
        case article(id: Int, NativeEvent)
        case userLoggedIn(String)
    }

    final class ArticleTracker: Sendable {
        let opened = Recorded<Int>()
        func consume(_ event: MessageEvent) {
            switch event {
            case .article(let id, .open): opened.append(id)
            default: break
            }
        }
    }

    @Test func messageBusConsumersSwitchOnNestedEnumsAndNeedNoUnsubscribe() {
        let center = NotificationCenter()
        var tracker: ArticleTracker? = ArticleTracker()
        let opened = tracker!.opened
        MessageEvent.observe(for: tracker!, in: center) { tracker, event in tracker.consume(event) }
        MessageEvent.article(id: 1, .open).post(in: center)
        MessageEvent.article(id: 1, .close).post(in: center)
        MessageEvent.userLoggedIn("ada").post(in: center)
        MessageEvent.article(id: 2, .open).post(in: center)
        tracker = nil
        MessageEvent.article(id: 3, .open).post(in: center)
        #expect(opened.values == [1, 2])
    }
}
