import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The first use of a type (its record, its derived or custom name) races posts and observations on other threads.
@Suite struct FirstUseOfATypeTests {
    /// The first post of a fresh type races its first observations on several threads, for many fresh types: each
    /// observer receives its own thread's post made after it observed, no value twice, and the final post once; the
    /// type ends with one channel on the center, and the name is the derived one.
    @Test(.seeded) func firstPostRacesFirstObserveOnFreshTypes() async {
        let seed = TestSeed.run
        struct Race: FreshTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = FreshNumber<Tag>
                let center = NotificationCenter()
                let observers = 3
                let received = (0..<observers).map { _ in Recorded<Int>() }
                let tokens = Protected<[NotificationToken]>([])
                await onThreads(6) { index in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round * 16 + index))
                    busyWait(random.below(2_000))
                    if index < observers {
                        let token = Event.observe(in: center) { received[index].append($0) }
                        tokens.withLock { $0.append(token) }
                        Event.post(1_000 + index, in: center)
                    } else {
                        Event.post(index, in: center)
                        _ = Event.notificationName
                    }
                }
                Event.post(-1, in: center)
                for index in 0..<observers {
                    let values = received[index].values
                    #expect(values.contains(1_000 + index), "observer \(index) missed its own post, seed \(seed)")
                    #expect(Set(values).count == values.count, "observer \(index) got a value twice: \(values)")
                    #expect(values.filter { $0 == -1 }.count == 1, "observer \(index) final post: \(values)")
                }
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 1)
                #expect(center.typedObservations.count == observers)
                #expect(Event.notificationName.rawValue == expectedDerivedName(Event.self))
                tokens.set([])
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 0)
                #expect(center.typedObservations.isEmpty)
            }
        }
        for round in 0..<40 { await withFreshTag(Race(seed: seed, round: round)) }
    }

    /// A post of a type that no center observes finds that out without the registry's lock; the type's first
    /// observation, made on another thread while posts run (the type fresh, or observed before and ended since),
    /// receives every post made after the poster saw it registered, none twice, in post order, and the posts stop
    /// reaching it once it ends. Typed-only too, where a typed post that missed the observer has no Foundation post
    /// for the type's bridge to deliver instead.
    @Test(.seeded) func firstObserverMadeWhilePostsRunReceivesEveryLaterPostOnce() async {
        let seed = TestSeed.run
        struct Race: FreshTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                run(FreshNumber<Tag>.self, seed: seed, round: round)
                // The same type again, now with a record: unobserved once more after the first run's end.
                run(FreshNumber<Tag>.self, seed: seed, round: round + 1_000)
                run(FreshTypedOnlyNumber<Tag>.self, seed: seed, round: round + 2_000)
                run(FreshTypedOnlyNumber<Tag>.self, seed: seed, round: round + 3_000)
            }

            /// Synchronous: the poster is a thread of its own, which the waits below never hold up.
            func run<Event: Notifiable>(_: Event.Type, seed: UInt64, round: Int) where Event.Payload == Int {
                let center = NotificationCenter()
                let received = Recorded<Int>()
                let postsRun = DispatchSemaphore(value: 0)
                let registered = Protected(false)
                // The first post the poster made after it saw the observation registered.
                let firstAfter = Protected<Int?>(nil)
                let poster = onNewThread {
                    var number = 0
                    var after: Int?
                    while after.map({ number < $0 + 50 }) ?? true {
                        if after == nil, registered.value { after = number + 1 }
                        number += 1
                        Event.post(number, in: center)
                        if number == 1 { postsRun.signal() }
                    }
                    firstAfter.set(after)
                }
                var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round))
                postsRun.wait()  // posts are running: the observation begins among them
                busyWait(random.below(2_000))
                let token = Event.observe(in: center) { received.append($0) }
                registered.set(true)
                poster.wait()
                token.cancel()
                Event.post(-1, in: center)
                let values = received.values
                let after = firstAfter.value ?? .max
                #expect(zip(values, values.dropFirst()).allSatisfy { $0 < $1 }, "twice or out of order: \(values)")
                #expect(Set(after..<(after + 50)).isSubset(of: values), "a post after the registration was missed")
                #expect(!values.contains(-1), "a post after the end reached the observer")
            }
        }
        for round in 0..<100 { await withFreshTag(Race(seed: seed, round: round)) }
    }

    /// The table of type records, which posts read without the registry's lock, grows while other threads read it:
    /// every record inserted before a reader looks is found, with its own name, through every growth of the table,
    /// and a type never inserted is not found.
    @Test(.seeded) func typeRecordsAreFoundWithoutTheLockWhileTheTableGrows() async {
        var random = SplitMix64(seed: TestSeed.run)
        let records = TypeRecords()
        let count = 2_000
        // Stand-ins for types: objects whose identities key the records, alive for the whole test.
        let subjects = (0..<count).map { _ in NSObject() }
        let ids = subjects.map(ObjectIdentifier.init)
        let order = Array(0..<count).shuffled(using: &random)
        let inserted = Counter()
        let insertions = Protected(())  // the registry's lock, for `insert`
        let missing = Counter()
        await onThreads(4) { thread in
            if thread == 0 {
                for index in order {
                    let record = TypeRecord(
                        of: ids[index], name: Notification.Name("\(index)"), keepsLatest: false,
                        checksBridging: false)
                    insertions.withLock { _ in records.insert(record) }
                    inserted.increment()
                }
                return
            }
            var random = SplitMix64(seed: SplitMix64.derivedSeed(TestSeed.run, index: thread))
            while inserted.value < count {
                let known = inserted.value
                guard known > 0 else { continue }
                let index = order[random.below(known)]
                if records[ids[index]]?.name.rawValue != "\(index)" { missing.increment() }
            }
        }
        #expect(missing.value == 0, "a reader missed an inserted record, or found another's")
        #expect(order.allSatisfy { records[ids[$0]]?.name.rawValue == "\($0)" })
        #expect(records[ObjectIdentifier(NSObject())] == nil)
        #expect(records.values.count == count)
        withExtendedLifetime(subjects) {}
    }

    /// A custom `notificationName` that posts and observes another (fresh) type and reads a third one's derived name,
    /// read for the first time by several threads at once that post and observe: one name, every delivery once.
    @Test(.seeded) func customNameThatPostsAndObservesRacesFirstUse() async {
        let seed = TestSeed.run
        struct Race: FreshTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = SideEffectNamed<Tag>
                let center = NotificationCenter()
                let names = Recorded<String>()
                let received = (0..<2).map { _ in Recorded<Int>() }
                let tokens = Protected<[NotificationToken]>([])
                await onThreads(4) { index in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round * 8 + index))
                    busyWait(random.below(2_000))
                    switch index {
                    case 0, 1:
                        let token = Event.observe(in: center) { received[index].append($0) }
                        tokens.withLock { $0.append(token) }
                        Event.post(10 + index, in: center)
                    case 2: Event.post(2, in: center)
                    default: names.append(Event.notificationName.rawValue)
                    }
                }
                names.append(Event.notificationName.rawValue)
                let expected = "FirstUse.custom." + expectedDerivedName(FreshNumber<Tag>.self)
                #expect(names.values.allSatisfy { $0 == expected }, "\(names.values) seed \(seed)")
                // A plain post under the custom name reaches both typed observers, once each.
                center.post(
                    name: Notification.Name(expected), object: nil, userInfo: [Notification.typedPayloadKey: -1])
                for index in 0..<2 {
                    let values = received[index].values
                    #expect(values.contains(10 + index), "observer \(index) missed its own post, seed \(seed)")
                    #expect(Set(values).count == values.count, "observer \(index): \(values)")
                    #expect(values.filter { $0 == -1 }.count == 1, "observer \(index) plain post: \(values)")
                }
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 1)
                tokens.set([])
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 0)
            }
        }
        for round in 0..<20 { await withFreshTag(Race(seed: seed, round: round)) }
    }

    /// Many threads read the derived name of fresh types while others post, observe and cancel them: every read is the
    /// same derived name, and the type's channel goes with its last observer.
    @Test(.seeded) func derivedNameReadsRacePostsAndObservations() async {
        let seed = TestSeed.run
        struct Race: FreshTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = FreshNumber<Tag>
                typealias Latest = FreshLatestNumber<Tag>
                let center = NotificationCenter()
                let names = Recorded<Notification.Name>()
                let calls = Counter()
                await onThreads(6) { index in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round * 8 + index))
                    for step in 0..<60 {
                        busyWait(random.below(200))
                        switch index % 3 {
                        case 0:
                            names.append(Event.notificationName)
                            names.append(Latest.notificationName)
                        case 1:
                            Event.post(step, in: center)
                            Latest.post(step, in: center)
                        default:
                            let token = Event.observe(in: center) { _ in calls.increment() }
                            let latest = Latest.observe(in: center) { _ in calls.increment() }
                            if random.chance(50) { token.cancel() }
                            latest.cancel()
                            token.cancel()
                        }
                    }
                }
                #expect(
                    names.values.allSatisfy {
                        $0.rawValue == expectedDerivedName(Event.self)
                            || $0.rawValue == expectedDerivedName(Latest.self)
                    }, "seed \(seed)")
                #expect(names.values.filter { $0.rawValue == expectedDerivedName(Event.self) }.count == 120)
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 0, "seed \(seed)")
                // A latest-value type keeps its channel while its center lives.
                #expect(ObserverRegistry.shared.channelCount(of: Latest.self) == 1, "seed \(seed)")
                #expect(Latest.latest(in: center) == 59)
                #expect(center.typedObservations.isEmpty)
            }
        }
        for round in 0..<10 { await withFreshTag(Race(seed: seed, round: round)) }
    }
}
