import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Observations never keep a center alive: when the last reference to a center goes, the center is deallocated, and
/// its channels, Foundation observers and handlers go with it, with no later activity on anything.
@Suite struct CenterLifetimeTests {
    /// How an observation on the center was made and left.
    enum Observation: String, CaseIterable, CustomTestStringConvertible {
        /// Owner-bound, with the owner gone too.
        case ownerBoundWithDeadOwner
        /// Owner-bound, with the owner still alive.
        case ownerBoundWithLiveOwner
        /// A token that is still held, not cancelled.
        case liveToken
        /// A token that is still held, cancelled.
        case cancelledToken
        /// A sequence that is still held.
        case sequence
        /// Queue delivery, with a delivery still queued.
        case queued

        var testDescription: String { rawValue }
    }

    @Test(arguments: Observation.allCases)
    func centerIsDeallocatedAndReleasesItsHandlers(observation: Observation) {
        let live = LiveCount()
        let queue = DispatchQueue(label: "CenterLifetimeTests.queue")
        let gate = DispatchSemaphore(value: 0)
        let owner = Owner()
        var kept: [AnyObject] = []
        weak var weakCenter: NotificationCenter?
        do {
            let center = NotificationCenter()
            weakCenter = center
            let probe = Probe(live)
            switch observation {
            case .ownerBoundWithDeadOwner:
                let shortLived = Owner()
                Tick.observe(for: shortLived, in: center) { _, _ in withExtendedLifetime(probe) {} }
            case .ownerBoundWithLiveOwner:
                Tick.observe(for: owner, in: center) { _, _ in withExtendedLifetime(probe) {} }
            case .liveToken:
                kept.append(Tick.observe(in: center) { _ in withExtendedLifetime(probe) {} })
            case .cancelledToken:
                let token = Tick.observe(in: center) { _ in withExtendedLifetime(probe) {} }
                token.cancel()
                kept.append(token)
            case .sequence:
                let sequence = Tick.notifications(in: center)
                kept.append(SequenceBox(sequence))
                kept.append(probe)  // a sequence's handler captures nothing of the caller's; the probe stands for it
            case .queued:
                queue.async { gate.wait() }  // holds the queue, so the delivery below stays queued
                kept.append(
                    Tick.observe(in: center, delivery: .async(on: queue)) { _ in withExtendedLifetime(probe) {} })
                Tick(id: 1).post(in: center)
            }
        }
        #expect(weakCenter == nil, "an observation kept its center alive")
        gate.signal()
        queue.sync {}
        // The package let go of every handler of the dead center; a handler is still alive only while the caller
        // holds the token (or sequence) that owns it, which is inert now: cancelling or releasing it is safe. A
        // cancelled token let go of its handler when it was cancelled.
        let held = kept.isEmpty || observation == .cancelledToken ? 0 : 1
        #expect(live.value == held, "the package kept a handler of a dead center")
        for case let token as NotificationToken in kept { token.cancel() }
        kept.removeAll()
        #expect(live.value == 0, "a handler outlived its center and its token")
        withExtendedLifetime(owner) {}
    }

    /// A new center that the allocator places where a dead one was never inherits the dead one's observers. The
    /// scenario is tried until a new center takes a dead one's address (the allocator decides when).
    @Test func newCenterAtADeadCentersAddressInheritsNothing() throws {
        let calls = Counter()
        let (reused, kept) = centerAtADeadOnesAddress { center in Tick.observe(in: center) { _ in calls.increment() } }
        guard let reused else {
            // AddressSanitizer quarantines freed memory, so no object gets the address soon: nothing to check.
            #expect(TestEnvironment.isAddressSanitized, "no new center took a dead one's address in 20 tries")
            return
        }
        #expect(ObserverRegistry.shared.registrationCounts(in: reused) == (0, 0))
        Tick(id: 1).post(in: reused)
        #expect(calls.value == 0)
        let own = Tick.observe(in: reused) { _ in calls.increment() }
        Tick(id: 2).post(in: reused)
        #expect(calls.value == 1)
        withExtendedLifetime((own, kept)) {}
    }

    /// Where Foundation would keep a dead center's observers (simulated by holding the package's Foundation observer,
    /// so that its channel outlives the center), the package checks each channel's center itself: a new center at the
    /// dead one's address still inherits nothing. When Foundation lets the dead center's observer go at last, the dead
    /// channel ends without touching the new center's, which took its place. The probe says whether this Foundation
    /// releases them.
    @Test func newCenterAtADeadCentersAddressInheritsNothingWhateverFoundationDoes() throws {
        #expect(Platform.foundationReleasesObserversOfDeadCenters, "Swift's Foundation releases them")
        TestHooks.checksCenterIdentity = true
        defer { TestHooks.checksCenterIdentity = false }
        let calls = Counter()
        var made = centerAtADeadOnesAddress { center in
            let token = ReusedAddressTick.observe(in: center) { _ in calls.increment() }
            return (token, ObserverRegistry.shared.bridge(of: ReusedAddressTick.self, in: center))
        }
        guard let reused = made.center else {
            #expect(TestEnvironment.isAddressSanitized, "no new center took a dead one's address in 20 tries")
            return
        }
        #expect(ObserverRegistry.shared.registrationCounts(in: reused) == (0, 0))
        ReusedAddressTick(id: 1).post(in: reused)
        #expect(calls.value == 0, "the dead center's observer was not called")
        let own = ReusedAddressTick.observe(in: reused) { _ in calls.increment() }
        ReusedAddressTick(id: 2).post(in: reused)
        reused.post(
            name: ReusedAddressTick.notificationName, object: nil,
            userInfo: [Notification.typedPayloadKey: ReusedAddressTick(id: 3)])
        #expect(calls.value == 2, "the new center's own observer gets typed and plain posts")
        #expect(ObserverRegistry.shared.channelCount(of: ReusedAddressTick.self) == made.kept.count + 1)
        // Foundation lets the dead centers' observers go: each bridge drops its channel, never the new center's.
        let deadTokens = made.kept.map(\.0)
        made.kept.removeAll()
        #expect(ObserverRegistry.shared.channelCount(of: ReusedAddressTick.self) == 1)
        #expect(ObserverRegistry.shared.registrationCounts(in: reused) == (1, 1))
        ReusedAddressTick(id: 4).post(in: reused)
        reused.post(
            name: ReusedAddressTick.notificationName, object: nil,
            userInfo: [Notification.typedPayloadKey: ReusedAddressTick(id: 5)])
        #expect(calls.value == 4, "the new center's observer lost typed or plain posts with the dead channel's end")
        withExtendedLifetime((own, deadTokens)) {}
    }

    /// A new center at the address of a dead one that `observe` observed, and what `observe` returned for each dead
    /// center (kept alive by the caller); `nil` if no new center took a dead one's address in 20 tries.
    private func centerAtADeadOnesAddress<Kept>(
        observe: (NotificationCenter) -> Kept
    ) -> (center: NotificationCenter?, kept: [Kept]) {
        var kept: [Kept] = []
        for _ in 0..<20 {
            var center: NotificationCenter? = NotificationCenter()
            let address = ObjectIdentifier(center!)
            kept.append(observe(center!))
            center = nil
            var others: [NotificationCenter] = []  // kept, so that each attempt gets another block
            for _ in 0..<2_000 {
                let candidate = NotificationCenter()
                if ObjectIdentifier(candidate) == address { return (candidate, kept) }
                others.append(candidate)
            }
        }
        return (nil, kept)
    }

    /// Centers made, observed in every way, and dropped, over and over: none stays alive, no handler survives, and the
    /// registry holds no channel for any of them.
    @Test func droppedCentersLeaveNothingBehind() {
        let cycles = TestEnvironment.scaled(normal: 20_000, long: 200_000, sanitized: 2_000)
        let live = LiveCount()
        var survivors = 0
        for index in 0..<cycles {
            weak var weakCenter: NotificationCenter?
            do {
                let center = NotificationCenter()
                weakCenter = center
                let probe = Probe(live)
                let owner = Owner()
                let token = CycleTick.observe(in: center) { _ in withExtendedLifetime(probe) {} }
                CycleTick.observe(for: owner, in: center) { _, _ in withExtendedLifetime(probe) {} }
                CycleTick(id: index).post(in: center)
                if index.isMultiple(of: 2) { token.cancel() }
                withExtendedLifetime((token, owner)) {}
            }
            if weakCenter != nil { survivors += 1 }
        }
        #expect(survivors == 0)
        #expect(live.value == 0)
        #expect(ObserverRegistry.shared.channelCount(of: CycleTick.self) == 0)
    }
}

/// Observed by ``CenterLifetimeTests/droppedCentersLeaveNothingBehind()`` only, so that its count of channels is that
/// test's alone while other tests run in parallel.
private struct CycleTick: Notifiable {
    let id: Int
}

/// Observed by ``CenterLifetimeTests/newCenterAtADeadCentersAddressInheritsNothingWhateverFoundationDoes()`` only, so
/// that its count of channels is that test's alone.
private struct ReusedAddressTick: Notifiable {
    let id: Int
}

/// Holds a sequence as an object.
private final class SequenceBox: Sendable {
    let sequence: NotificationSequence<Tick>

    init(_ sequence: NotificationSequence<Tick>) {
        self.sequence = sequence
    }
}
