import Foundation
import Observation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// `LatestValue`: the latest payload of a `LatestValueNotifiable` type as an `@Observable` model. It starts with the
// kept latest payload, changes on the main actor, tells Observation (and so SwiftUI) when it does, ends its observation
// when released and never keeps its center alive. How the package keeps the latest payload is in
// `LatestValueNotifiableTests`. Each test is `@available` as `LatestValue` is: Swift Testing takes the attribute on a
// test, not on a suite.

struct BadgeCount: LatestValueNotifiable, Equatable {
    let count: Int
}

/// A payload-only type: no sender, and a payload that is not the type itself.
enum SignedInUser: LatestValueNotifiable {
    typealias Payload = String
}

@Suite struct LatestValueTests {
    /// A signal that fires when `model.value` is about to change, through `withObservationTracking`, as SwiftUI
    /// tracks it; `onChange` also checks that the change happens on the main actor. Made before the change, so that
    /// a change from another thread cannot come first.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @MainActor
    private func nextChange<Event>(of model: LatestValue<Event>) -> Signal {
        let changed = Signal()
        withObservationTracking {
            _ = model.value
        } onChange: {
            MainActor.assertIsolated("the value changes on the main actor")
            changed.fire()
        }
        return changed
    }

    // MARK: - The value it starts with

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func startsWithTheKeptLatestValue() {
        let center = NotificationCenter()
        BadgeCount(count: 1).post(in: center)
        BadgeCount(count: 3).post(in: center)
        let model = LatestValue<BadgeCount>(in: center)
        #expect(model.value == BadgeCount(count: 3))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func startsWithNilWhenNothingIsKept() {
        let center = NotificationCenter()
        let model = LatestValue<BadgeCount>(in: center)
        #expect(model.value == nil)
        BadgeCount(count: 1).post(in: center)
        BadgeCount.clearLatest(in: center)
        #expect(LatestValue<BadgeCount>(in: center).value == nil, "a model made after clearLatest starts with nil")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func clearLatestLeavesTheValueAsItIsUntilTheNextPost() {
        let center = NotificationCenter()
        BadgeCount(count: 1).post(in: center)
        let model = LatestValue<BadgeCount>(in: center)
        BadgeCount.clearLatest(in: center)
        #expect(model.value == BadgeCount(count: 1))
        BadgeCount(count: 2).post(in: center)
        #expect(model.value == BadgeCount(count: 2))
    }

    // MARK: - Changes, on the main actor

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func aPostOnTheMainActorChangesTheValueBeforePostReturns() {
        let center = NotificationCenter()
        let model = LatestValue<BadgeCount>(in: center)
        BadgeCount(count: 1).post(in: center)
        #expect(model.value == BadgeCount(count: 1))
        BadgeCount(count: 2).post(in: center)
        #expect(model.value == BadgeCount(count: 2))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func observationTrackingSeesAPostChangeTheValue() async {
        let center = NotificationCenter()
        BadgeCount(count: 1).post(in: center)
        let model = LatestValue<BadgeCount>(in: center)
        let changes = Counter()
        withObservationTracking {
            _ = model.value
        } onChange: {
            changes.increment()
        }
        #expect(changes.count == 0, "making the model and tracking it changed nothing")
        BadgeCount(count: 2).post(in: center)
        #expect(changes.count == 1, "onChange ran during the post, made on the main actor")
        #expect(model.value == BadgeCount(count: 2))

        let changed = nextChange(of: model)
        BadgeCount(count: 3).post(in: center)
        await changed.wait()
        #expect(model.value == BadgeCount(count: 3))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func aPostFromAnotherThreadChangesTheValueOnTheMainActor() async {
        let center = NotificationCenter()
        BadgeCount(count: 1).post(in: center)
        let model = LatestValue<BadgeCount>(in: center)
        let changed = nextChange(of: model)
        _ = onNewThread { BadgeCount(count: 2).post(in: center) }  // not waited for: it returns at once
        await changed.wait()
        // `onChange` runs as the value is about to change; the change is done by the time this task runs again on
        // the main actor, after the job that delivered the post.
        #expect(model.value == BadgeCount(count: 2))
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func aPayloadOnlyTypeIsObservedToo() {
        let center = NotificationCenter()
        SignedInUser.post("ada", in: center)
        let model = LatestValue<SignedInUser>(in: center)
        #expect(model.value == "ada")
        SignedInUser.post("grace", in: center)
        #expect(model.value == "grace")
    }

    // MARK: - Lifetime

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func releasingTheModelEndsItsObservation() {
        let center = NotificationCenter()
        var model: LatestValue<BadgeCount>? = LatestValue(in: center)
        weak var probe: LatestValue<BadgeCount>?
        probe = model
        #expect(center.typedObservations.count == 1)
        model = nil
        #expect(probe == nil, "nothing else keeps the model")
        #expect(center.typedObservations.isEmpty, "the model's observation ended with it")
        BadgeCount(count: 1).post(in: center)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func theModelDoesNotKeepItsCenterAlive() {
        weak var weakCenter: NotificationCenter?
        let model: LatestValue<BadgeCount>
        do {
            let center = NotificationCenter()
            weakCenter = center
            BadgeCount(count: 5).post(in: center)
            model = LatestValue(in: center)
        }
        #expect(weakCenter == nil, "the model kept its center alive")
        #expect(model.value == BadgeCount(count: 5), "the model keeps the value it had")
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func aModelMadeAndDroppedAtOnceIsNoDiscardedToken() {
        // SwiftUI evaluates a `@State` initial value again with every new value of the view, and drops the model.
        let center = NotificationCenter()
        let events = Recorded<String>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { events.append("\($0)") }
        NotificationDiagnostics.withHandler(record) {
            _ = LatestValue<BadgeCount>(in: center)
        }
        #expect(events.values.isEmpty)
        #expect(center.typedObservations.isEmpty)
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Test @MainActor func theObservationIsListedWhereTheModelIsMade() {
        let center = NotificationCenter()
        let line = #line + 1
        let model = LatestValue<BadgeCount>(in: center)
        let observations = center.typedObservations
        #expect(observations.map(\.delivery) == [.mainActor])
        #expect(observations.map(\.fileID) == [#fileID])
        #expect(observations.map(\.line) == [line])
        withExtendedLifetime(model) {}
    }
}
