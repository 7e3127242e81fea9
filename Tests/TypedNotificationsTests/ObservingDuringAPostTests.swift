import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// An observation started during a post starts with the next post: from the post's own handler, from a handler of a
/// nested post, or on another thread while the post is under way.
@Suite struct ObservingDuringAPostTests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    @MainActor final class Log {
        var entries: [Int] = []
        var depth = 0
        var deepest = 0
    }

    // MARK: - Re-subscribing inside a handler

    /// "Observers added during a post start with the next post", and observation begins when `observe` returns: a
    /// main-actor handler that, on a queued payload, cancels its token and observes again gets none of the payloads
    /// that were already queued when it re-subscribed, and every later one.
    @Test @MainActor func mainActorHandlerThatResubscribesOnAQueuedPayloadStartsWithTheNextPost() async {
        let center = NotificationCenter()
        let old = Log()
        let new = Log()
        let done = Signal()
        let resubscribed = Signal()
        let token = Slot<NotificationToken>()
        token.set(
            Play.observeOnMainActor(in: center) { index in
                old.entries.append(index)
                guard index == 1 else { return }
                defer { resubscribed.fire() }
                token.value?.cancel()
                token.set(
                    Play.observeOnMainActor(in: center) { index in
                        new.entries.append(index)
                        if index == 4 { done.fire() }
                    })
            })
        #expect(runOnAnotherThreadAndWait { for index in 1...3 { Play.post(index, in: center) } })
        await resubscribed.wait()
        #expect(runOnAnotherThreadAndWait { Play.post(4, in: center) })
        await done.wait()
        #expect(old.entries == [1])
        #expect(new.entries == [4])
        token.set(nil)
    }
}

extension ObservingDuringAPostTests {
    /// Each call of the handler cancels its own observation (the channel's last, so the channel is dropped) and
    /// observes again (a new channel, with a new bridge) while the post runs, as threads post: no observation
    /// receives a value twice, no new observation receives the post that made it, and a final post reaches the one
    /// live observation exactly once.
    @Test(.seeded) func resubscribeInsideHandlerWhileThreadsPost() async {
        let seed = TestSeed.run
        let center = NotificationCenter()
        let log = Recorded<(observation: Int, value: Int, madeBy: Int)>()
        let tokens = Protected<[NotificationToken]>([])
        let nextID = Counter()
        @Sendable func observe(madeBy: Int) {
            let id = nextID.increment()
            let replaced = AtomicWord.make()
            let wantsCancel = AtomicWord.make()
            let own = Slot<NotificationToken>()
            let token = ResubscribedNumber.observe(in: center) { value in
                log.append((id, value, madeBy))
                // Only the first call of this observation replaces it; concurrent calls only record.
                if replaced.add(1) == 1 {
                    wantsCancel.store(1)
                    own.value?.cancel()
                    own.set(nil)  // the slot, which the handler captures, would keep the token alive
                    observe(madeBy: value)
                }
            }
            own.set(token)
            tokens.withLock { $0.append(token) }
            // The handler ran before the token was stored: it asked for the cancellation.
            if wantsCancel.isSet {
                token.cancel()
                own.set(nil)
            }
        }
        observe(madeBy: -1)
        await onThreads(4) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            for step in 0..<600 {
                busyWait(random.below(500))
                ResubscribedNumber.post(thread * 1_000 + step, in: center)
                if random.chance(10) {
                    // A plain post under the name, decoded by whichever bridge is current.
                    center.post(
                        name: ResubscribedNumber.notificationName, object: nil,
                        userInfo: [Notification.typedPayloadKey: 100_000 + thread * 1_000 + step])
                }
            }
        }
        let entries = log.values
        var seen = Set<[Int]>()
        for entry in entries {
            #expect(
                seen.insert([entry.observation, entry.value]).inserted,
                "observation \(entry.observation) received \(entry.value) twice, seed \(TestSeed.hex(seed))")
            #expect(entry.value != entry.madeBy, "an observation made during a post received that post")
        }
        #expect(center.typedObservations.count == 1, "seed \(TestSeed.hex(seed))")
        #expect(ObserverRegistry.shared.channelCount(of: ResubscribedNumber.self) == 1)
        let before = log.count
        ResubscribedNumber.post(-5, in: center)
        #expect(log.values.dropFirst(before).map(\.value) == [-5])
        for token in tokens.value { token.cancel() }  // the live one's slot still holds it
        tokens.set([])
        #expect(ObserverRegistry.shared.channelCount(of: ResubscribedNumber.self) == 0)
    }

    /// A plain observer re-posts each typed post once with another sender (a relay) while a typed handler cancels the
    /// last observation and observes again: the typed post reaches the new observation never, the relay once.
    @Test func relayWhileTheChannelIsReplaced() {
        let center = NotificationCenter()
        let relaySender = Sender()
        let received = Recorded<String>()
        let current = Slot<NotificationToken>()
        let relay = center.addObserver(forName: RelayedNumber.notificationName, object: nil, queue: nil) { note in
            guard note.object == nil else { return }
            center.post(name: note.name, object: relaySender, userInfo: note.userInfo)
        }
        current.set(
            RelayedNumber.observe(in: center) { value in
                received.append("old \(value)")
                current.value?.cancel()
                current.set(RelayedNumber.observe(in: center) { received.append("new \($0)") })
            })
        RelayedNumber.post(1, in: center)
        #expect(received.values == ["old 1", "new 1"], "the relay reaches the new observation once, the post never")
        RelayedNumber.post(2, in: center)
        #expect(received.values == ["old 1", "new 1", "new 2", "new 2"])
        center.removeObserver(relay)
        current.set(nil)
    }
}

extension ObservingDuringAPostTests {
    struct Tick: Notifiable, Equatable {
        let id: Int
    }

    enum Unrelated: Notifiable {
        typealias Payload = Void
    }

    enum Resubscription: CaseIterable, Sendable {
        /// The handler cancels its own token (the type's last observation) and observes again.
        case inTheHandler
        /// The same, from a handler of another type that this post's handler posts.
        case throughANestedPostOfAnotherType
    }

    @Test(arguments: Resubscription.allCases)
    func observerStartedDuringAPostStartsWithTheNextOne(resubscription: Resubscription) {
        let center = NotificationCenter()
        let received = Recorded<String>()
        let token = Slot<NotificationToken>()
        let nested = Slot<NotificationToken>()
        let generation = Counter()
        @Sendable func observe() {
            generation.increment()
            let current = generation.count
            token.set(
                Tick.observe(in: center) { tick in
                    received.append("\(current)←\(tick.id)")
                    switch resubscription {
                    case .inTheHandler:
                        token.value?.cancel()
                        observe()
                    case .throughANestedPostOfAnotherType:
                        Unrelated.post((), in: center)
                    }
                })
        }
        if resubscription == .throughANestedPostOfAnotherType {
            nested.set(
                Unrelated.observe(in: center) {
                    token.value?.cancel()
                    observe()
                })
        }
        observe()
        Tick(id: 1).post(in: center)
        Tick(id: 2).post(in: center)
        #expect(received.values == ["1←1", "2←2"])
        token.set(nil)
        nested.set(nil)
    }

    /// An observer that another thread starts, after ending the type's last observation, while a post goes from its
    /// typed observers to Foundation: its Foundation observer is registered before Foundation takes its list of
    /// observers, so Foundation calls it for the post, which it must skip like the one it replaced.
    @Test func observerStartedOnAnotherThreadWhileAPostReachesFoundationStartsWithTheNextOne() {
        let center = NotificationCenter()
        let old = Recorded<Int>()
        let renewed = Recorded<Int>()
        let first = Slot<NotificationToken>()
        let second = Slot<NotificationToken>()
        first.set(Tick.observe(in: center) { old.append($0.id) })
        TestHooks.on(.foundationPost, in: center) {
            guard second.value == nil else { return }
            onNewThread {
                first.value?.cancel()
                second.set(Tick.observe(in: center) { renewed.append($0.id) })
            }
            .wait()
        }
        defer { TestHooks.removeHook(at: .foundationPost, for: ObjectIdentifier(center)) }
        Tick(id: 1).post(in: center)
        Tick(id: 2).post(in: center)
        #expect(old.values == [1])
        #expect(renewed.values == [2], "the observer started after the post's typed half received that post")
        second.value?.cancel()
    }

    @Test func payloadlessObserverStartedDuringAPostStartsWithTheNextOne() {
        let center = NotificationCenter()
        let calls = Recorded<Int>()
        let token = Slot<NotificationToken>()
        let generation = Counter()
        @Sendable func observe() {
            generation.increment()
            let current = generation.count
            token.set(
                Unrelated.observe(in: center) {
                    calls.append(current)
                    token.value?.cancel()
                    observe()
                })
        }
        observe()
        Unrelated.post((), in: center)
        Unrelated.post((), in: center)
        #expect(calls.values == [1, 2])
        token.set(nil)
    }
}
