import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// Adversarial review of 498a2cb, 16fd5c8 and 8dce511: the type records moved from a lock-free table into the
// registry's locked state (a `TypeRecord` struct mutated in place), the simulated-Apple build bridges `userInfo`
// values with `as AnyObject`, `Locked` holds its mutex itself, and `AnySubscription.sender` keeps the runtime's
// exclusivity checks. Helpers (`r21Wait`, `R21Tally`, `r21Spin`, `r21Seed`) come from AdversarialReview21Tests.swift.

// MARK: - Fresh types

/// A type that no other test touches: each `Tag` is a chain of `R21cBit0`/`R21cBit1` wrappers built at run time
/// (``r21cWithFreshTag(_:)``), so its record is made by the test that uses it.
struct R21cFresh<Tag>: Notifiable { typealias Payload = Int }
/// The same, keeping its latest post.
struct R21cFreshLatest<Tag>: LatestValueNotifiable { typealias Payload = Int }
/// A fresh type whose custom name posts and observes another fresh type, and reads a third one's derived name.
struct R21cSideEffectName<Tag>: Notifiable {
    typealias Payload = Int
    static var notificationName: Notification.Name {
        R21cSide<Tag>.post(1, in: .default)
        let token = R21cSide<Tag>.observe(in: .default) { _ in }
        token.cancel()
        return Notification.Name("R21c.custom." + R21cFresh<Tag>.notificationName.rawValue)
    }
}
enum R21cSide<Tag>: Notifiable { typealias Payload = Int }
enum R21cBit0<Wrapped> {}
enum R21cBit1<Wrapped> {}
enum R21cRoot {}

/// Which fresh tag comes next, process-wide, so that no two uses share one.
let r21cFreshIndex = Counter()

protocol R21cTagVisitor {
    func visit<Tag>(_ tag: Tag.Type) async
}

private func r21cWrap<T>(_: T.Type, bit: Bool) -> Any.Type {
    bit ? R21cBit1<T>.self : R21cBit0<T>.self
}

private func r21cOpen<T>(_: T.Type, _ visitor: some R21cTagVisitor) async {
    await visitor.visit(T.self)
}

/// Calls `visitor` with a tag type that was never used before in this process.
func r21cWithFreshTag(_ visitor: some R21cTagVisitor) async {
    var index = r21cFreshIndex.increment()
    var tag: Any.Type = R21cRoot.self
    repeat {
        tag = r21cWrap(tag, bit: index & 1 == 1)
        index >>= 1
    } while index > 0
    await r21cOpen(tag, visitor)
}

// MARK: - Other fixtures

enum R21cResub: Notifiable { typealias Payload = Int }
enum R21cDying: Notifiable { typealias Payload = Int }
enum R21cChurnA: Notifiable { typealias Payload = Int }
enum R21cChurnB: Notifiable { typealias Payload = Int }
enum R21cTokens: Notifiable { typealias Payload = Int }
enum R21cShared: Notifiable { typealias Payload = Int }
enum R21cRelay: Notifiable { typealias Payload = Int }

/// An actor that records what its observers receive, per observer.
actor R21cSink {
    var seen: [Int: [Int]] = [:]
    func add(_ value: Int, observer: Int) { seen[observer, default: []].append(value) }
    func all() -> [Int: [Int]] { seen }
}

// MARK: - Type records: first use, names

@Suite struct Review21cTypeRecordTests {
    /// The first post of a fresh type races its first observations on several threads, for many fresh types: each
    /// observer receives its own thread's post made after it observed, no value twice, and the final post once; the
    /// type ends with one channel on the center, and the name is the derived one.
    @Test func r21cFirstPostRacesFirstObserveOnFreshTypes() async {
        let seed = r21Seed("first use", test: "r21cFirstPostRacesFirstObserveOnFreshTypes")
        struct Race: R21cTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = R21cFresh<Tag>
                let center = NotificationCenter()
                let observers = 3
                let received = (0..<observers).map { _ in Recorded<Int>() }
                let tokens = Protected<[NotificationToken]>([])
                await onThreads(6) { index in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round * 16 + index))
                    r21Spin(random.below(2_000))
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
                #expect(Event.notificationName.rawValue == r21Expected(Event.self))
                tokens.set([])
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 0)
                #expect(center.typedObservations.isEmpty)
            }
        }
        for round in 0..<40 { await r21cWithFreshTag(Race(seed: seed, round: round)) }
    }

    /// A custom `notificationName` that posts and observes another (fresh) type and reads a third one's derived name,
    /// read for the first time by several threads at once that post and observe: one name, every delivery once.
    @Test func r21cCustomNameThatPostsAndObservesRacesFirstUse() async {
        let seed = r21Seed("custom name", test: "r21cCustomNameThatPostsAndObservesRacesFirstUse")
        struct Race: R21cTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = R21cSideEffectName<Tag>
                let center = NotificationCenter()
                let names = Recorded<String>()
                let received = (0..<2).map { _ in Recorded<Int>() }
                let tokens = Protected<[NotificationToken]>([])
                await onThreads(4) { index in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round * 8 + index))
                    r21Spin(random.below(2_000))
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
                let expected = "R21c.custom." + r21Expected(R21cFresh<Tag>.self)
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
        for round in 0..<20 { await r21cWithFreshTag(Race(seed: seed, round: round)) }
    }

    /// Many threads read the derived name of fresh types while others post, observe and cancel them: every read is the
    /// same derived name, and the type's channel goes with its last observer.
    @Test func r21cDerivedNameReadsRacePostsAndObservations() async {
        let seed = r21Seed("name reads", test: "r21cDerivedNameReadsRacePostsAndObservations")
        struct Race: R21cTagVisitor {
            let seed: UInt64
            let round: Int
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = R21cFresh<Tag>
                typealias Latest = R21cFreshLatest<Tag>
                let center = NotificationCenter()
                let names = Recorded<Notification.Name>()
                let calls = Counter()
                await onThreads(6) { index in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: round * 8 + index))
                    for step in 0..<60 {
                        r21Spin(random.below(200))
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
                        $0.rawValue == r21Expected(Event.self) || $0.rawValue == r21Expected(Latest.self)
                    }, "seed \(seed)")
                #expect(names.values.filter { $0.rawValue == r21Expected(Event.self) }.count == 120)
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 0, "seed \(seed)")
                // A latest-value type keeps its channel while its center lives.
                #expect(ObserverRegistry.shared.channelCount(of: Latest.self) == 1, "seed \(seed)")
                #expect(Latest.latest(in: center) == 59)
                #expect(center.typedObservations.isEmpty)
            }
        }
        for round in 0..<10 { await r21cWithFreshTag(Race(seed: seed, round: round)) }
    }
}

// MARK: - Channels dropped and remade during posts

@Suite struct Review21cResubscribeTests {
    /// Each call of the handler cancels its own observation (the channel's last, so the channel is dropped) and
    /// observes again (a new channel, with a new bridge) while the post runs, as threads post: no observation
    /// receives a value twice, no new observation receives the post that made it, and a final post reaches the one
    /// live observation exactly once.
    @Test func r21cResubscribeInsideHandlerWhileThreadsPost() async {
        let seed = r21Seed("resubscribe", test: "r21cResubscribeInsideHandlerWhileThreadsPost")
        let center = NotificationCenter()
        let log = Recorded<(observation: Int, value: Int, madeBy: Int)>()
        let tokens = Protected<[NotificationToken]>([])
        let nextID = Counter()
        @Sendable func observe(madeBy: Int) {
            let id = nextID.increment()
            let replaced = AtomicWord.make()
            let wantsCancel = AtomicWord.make()
            let own = Slot<NotificationToken>()
            let token = R21cResub.observe(in: center) { value in
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
                r21Spin(random.below(500))
                R21cResub.post(thread * 1_000 + step, in: center)
                if random.chance(10) {
                    // A plain post under the name, decoded by whichever bridge is current.
                    center.post(
                        name: R21cResub.notificationName, object: nil,
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
        #expect(ObserverRegistry.shared.channelCount(of: R21cResub.self) == 1)
        let before = log.count
        R21cResub.post(-5, in: center)
        #expect(log.values.dropFirst(before).map(\.value) == [-5])
        for token in tokens.value { token.cancel() }  // the live one's slot still holds it
        tokens.set([])
        #expect(ObserverRegistry.shared.channelCount(of: R21cResub.self) == 0)
    }

    /// A plain observer re-posts each typed post once with another sender (a relay) while a typed handler cancels the
    /// last observation and observes again: the typed post reaches the new observation never, the relay once.
    @Test func r21cRelayWhileTheChannelIsReplaced() {
        let center = NotificationCenter()
        let relaySender = Sender()
        let received = Recorded<String>()
        let current = Slot<NotificationToken>()
        let relay = center.addObserver(forName: R21cRelay.notificationName, object: nil, queue: nil) { note in
            guard note.object == nil else { return }
            center.post(name: note.name, object: relaySender, userInfo: note.userInfo)
        }
        current.set(
            R21cRelay.observe(in: center) { value in
                received.append("old \(value)")
                current.value?.cancel()
                current.set(R21cRelay.observe(in: center) { received.append("new \($0)") })
            })
        R21cRelay.post(1, in: center)
        #expect(received.values == ["old 1", "new 1"], "the relay reaches the new observation once, the post never")
        R21cRelay.post(2, in: center)
        #expect(received.values == ["old 1", "new 1", "new 2", "new 2"])
        center.removeObserver(relay)
        current.set(nil)
    }
}

// MARK: - Centers that die

@Suite struct Review21cCenterLifetimeTests {
    /// Threads make centers, observe and post on them, and let them go with the tokens still held, while other
    /// threads post and observe the same type on a center of their own: no handler sees another center's post, every
    /// post on a center reaches its observers once, and dead centers leave no channel.
    @Test func r21cCentersDieWhileOtherThreadsPostAndObserveTheSameType() async {
        let seed = r21Seed("dying centers", test: "r21cCentersDieWhileOtherThreadsPostAndObserveTheSameType")
        let stable = NotificationCenter()
        let stableSeen = Recorded<Int>()
        let stableToken = R21cDying.observe(in: stable) { stableSeen.append($0) }
        let strays = Recorded<String>()
        let kept = Protected<[NotificationToken]>([])
        await onThreads(5) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            for step in 0..<300 {
                let tag = (thread + 1) * 100_000 + step * 10
                if thread < 3 {
                    var center: NotificationCenter? = NotificationCenter()
                    let seen = Recorded<Int>()
                    let token = R21cDying.observe(in: center!) { value in
                        seen.append(value)
                        if value / 10 != tag / 10 { strays.append("\(tag): got \(value)") }
                    }
                    R21cDying.post(tag, in: center!)
                    if random.chance(50) { R21cDying.post(tag + 1, in: center!) }
                    r21Spin(random.below(300))
                    center = nil
                    if seen.values.first != tag { strays.append("\(tag): missed its post (\(seen.values))") }
                    // Released later, on another thread, after its center.
                    kept.withLock { $0.append(token) }
                } else {
                    R21cDying.post(thread * 1_000 + step, in: stable)
                    let token = R21cDying.observe(in: stable) { _ in }
                    r21Spin(random.below(300))
                    token.cancel()
                }
            }
        }
        #expect(strays.values.isEmpty, "\(strays.values.prefix(5)), seed \(TestSeed.hex(seed))")
        let expected = (3..<5).flatMap { thread in (0..<300).map { thread * 1_000 + $0 } }
        #expect(stableSeen.values.sorted() == expected, "the stable center lost or duplicated posts")
        #expect(ObserverRegistry.shared.channelCount(of: R21cDying.self) == 1, "a dead center left its channel")
        let tokens = kept.value
        kept.set([])
        await onThreads(2) { thread in
            for (index, token) in tokens.enumerated() where index % 2 == thread { token.cancel() }
        }
        #expect(ObserverRegistry.shared.channelCount(of: R21cDying.self) == 1)
        withExtendedLifetime(stableToken) {}
    }

    /// A center dies with an observation still held; new centers, likely at its address, must never reach it, and
    /// their own observers receive each post once.
    @Test func r21cNewCenterAtADeadCentersAddress() {
        var reused = 0
        for round in 0..<200 {
            var address: ObjectIdentifier?
            weak var dead: NotificationCenter?
            let old = Recorded<Int>()
            var token: NotificationToken?
            do {
                let center = NotificationCenter()
                address = ObjectIdentifier(center)
                dead = center
                token = R21cShared.observe(in: center) { old.append($0) }
                R21cShared.post(round, in: center)
            }
            #expect(dead == nil, "round \(round): the observation kept its center alive")
            // New centers until one takes the dead one's address (or 16 tried); all are observed and posted to.
            var centers: [NotificationCenter] = []
            var newTokens: [NotificationToken] = []
            let new = Recorded<Int>()
            repeat {
                let center = NotificationCenter()
                centers.append(center)
                newTokens.append(R21cShared.observe(in: center) { new.append($0) })
            } while ObjectIdentifier(centers.last!) != address && centers.count < 16
            if ObjectIdentifier(centers.last!) == address { reused += 1 }
            for (index, center) in centers.enumerated() { R21cShared.post(-index - 1, in: center) }
            #expect(old.values == [round], "round \(round): the dead center's observer saw \(old.values)")
            #expect(new.values.sorted() == (1...centers.count).map { -$0 }.reversed())
            #expect(centers.last!.typedObservations.count == 1)
            withExtendedLifetime((token, newTokens)) {}
            token = nil
        }
        print("Review21c: \(reused) of 200 rounds made a center at a dead one's address")
    }
}

// MARK: - Latest values across centers

@Suite struct Review21cLatestValueTests {
    /// Posters on three centers post increasing values of one latest-value type while observers on the posting thread
    /// start on random centers at random times: each observation receives every post from the latest when it
    /// started (no older) to the last, each exactly once; `clearLatest` on one center never touches another. (The
    /// order is not checked: a handler on the posting thread receives the latest on the observing thread, and a live
    /// post from the poster's thread may reach it first, as documented.)
    @Test func r21cLatestValuesRaceAcrossCenters() async {
        let seed = r21Seed("latest", test: "r21cLatestValuesRaceAcrossCenters")
        struct Race: R21cTagVisitor {
            let seed: UInt64
            func visit<Tag>(_: Tag.Type) async {
                typealias Event = R21cFreshLatest<Tag>
                let centers = (0..<3).map { _ in NotificationCenter() }
                let posts = 300
                let problems = Recorded<String>()
                typealias Observation = (center: Int, start: Int, seen: Recorded<Int>, token: NotificationToken)
                let observations = Protected<[Observation]>([])
                await onThreads(6) { thread in
                    var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
                    if thread < 3 {
                        for value in 1...posts {
                            Event.post(value, in: centers[thread])
                            r21Spin(random.below(100))
                        }
                        return
                    }
                    for _ in 0..<20 {
                        r21Spin(random.below(3_000))
                        let index = random.below(3)
                        let start = Event.latest(in: centers[index]) ?? 0
                        let seen = Recorded<Int>()
                        let token = Event.observe(in: centers[index]) { seen.append($0) }
                        observations.withLock { $0.append((index, start, seen, token)) }
                    }
                }
                for (index, start, seen, _) in observations.value {
                    let values = seen.values.sorted()
                    guard let first = values.first, values == Array(first...posts) else {
                        problems.append("center \(index): not each post once, up to the last: \(seen.values)")
                        continue
                    }
                    if first < start { problems.append("center \(index): first \(first) older than \(start)") }
                }
                #expect(problems.values.isEmpty, "\(problems.values.prefix(5)), seed \(TestSeed.hex(seed))")
                Event.clearLatest(in: centers[0])
                #expect(Event.latest(in: centers[0]) == nil)
                #expect(Event.latest(in: centers[1]) == posts && Event.latest(in: centers[2]) == posts)
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 3)
                observations.set([])
                #expect(ObserverRegistry.shared.channelCount(of: Event.self) == 3, "latest-value channels stay")
                withExtendedLifetime(centers) {}
            }
        }
        await r21cWithFreshTag(Race(seed: seed))
    }
}

// MARK: - Introspection, tokens, owners, shared targets

@Suite struct Review21cChurnTests {
    /// Introspection (`typedObservations`, `typedRegistrationCounts`, the registry's channel count) runs while threads
    /// observe and cancel two types: it never sees more than can exist, and all of it reads zero at the end.
    @Test func r21cIntrospectionDuringChurn() async {
        let seed = r21Seed("introspection", test: "r21cIntrospectionDuringChurn")
        let center = NotificationCenter()
        let problems = Recorded<String>()
        let done = AtomicWord.make()
        await onThreads(5) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            if thread == 4 {
                while !done.isSet {
                    let observations = center.typedObservations
                    let counts = ObserverRegistry.shared.registrationCounts(in: center)
                    if observations.count > 16 { problems.append("\(observations.count) observations") }
                    if counts.foundationObservers > 2 { problems.append("\(counts.foundationObservers) bridges") }
                    if ObserverRegistry.shared.channelCount(of: R21cChurnA.self) > 1 {
                        problems.append("two channels of one type on one center")
                    }
                    let names = Set(observations.map(\.name))
                    if !names.isSubset(of: [R21cChurnA.notificationName, R21cChurnB.notificationName]) {
                        problems.append("names \(names)")
                    }
                }
                return
            }
            for step in 0..<1_000 {
                let owner = R21Owner()
                let first =
                    random.chance(50)
                    ? R21cChurnA.observe(in: center) { _ in } : R21cChurnB.observe(in: center) { _ in }
                R21cChurnB.observe(for: owner, in: center) { _, _ in }
                R21cChurnA.post(step, in: center)
                r21Spin(random.below(200))
                first.cancel()
            }
            if thread == 0 { _ = done.set() }
        }
        done.store(1)
        #expect(problems.values.isEmpty, "\(problems.values.prefix(5)), seed \(TestSeed.hex(seed))")
        #expect(center.typedObservations.isEmpty)
        let counts = ObserverRegistry.shared.registrationCounts(in: center)
        #expect(counts.observers == 0 && counts.foundationObservers == 0)
        #expect(ObserverRegistry.shared.channelCount(of: R21cChurnA.self) == 0)
    }

    /// Tokens made on one thread are released (not cancelled) on others while threads post: a post that begins after
    /// a release has returned never calls its handler. Each post carries the set of tokens released before it began.
    @Test func r21cTokensReleasedOnOtherThreadsWhilePosting() async {
        let seed = r21Seed("token release", test: "r21cTokensReleasedOnOtherThreadsWhilePosting")
        let center = NotificationCenter()
        let count = 60
        let released = AtomicWord.make()
        let late = Recorded<Int>()
        let tokens = Protected<[NotificationToken?]>(
            (0..<count).map { index in
                R21cTokens.observe(in: center) { mask in
                    if UInt64(truncatingIfNeeded: mask) & (1 << UInt64(index)) != 0 { late.append(index) }
                }
            })
        let releaseLock = NSLock()
        await onThreads(4) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            if thread < 2 {
                for _ in 0..<400 { R21cTokens.post(Int(truncatingIfNeeded: released.load()), in: center) }
                return
            }
            for index in stride(from: thread - 2, to: count, by: 2) {
                r21Spin(random.below(2_000))
                let token = tokens.withLock { tokens in
                    defer { tokens[index] = nil }
                    return tokens[index]
                }
                _ = consume token  // released here, on this thread
                releaseLock.lock()
                released.store(released.load() | (1 << UInt64(index)))
                releaseLock.unlock()
            }
        }
        #expect(late.values.isEmpty, "handlers ran for posts begun after their token was released: \(late.values)")
        #expect(center.typedObservations.isEmpty)
        #expect(ObserverRegistry.shared.channelCount(of: R21cTokens.self) == 0)
    }

    /// Several observers on one queue and several on one actor, posts from threads: each observer receives every post
    /// once, and all observers of one target see one order.
    @Test func r21cSeveralObserversOnOneQueueAndOneActor() async {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "r21c")
        let sink = R21cSink()
        let perQueue = (0..<3).map { _ in Recorded<Int>() }
        let posts = 4 * 200
        let total = posts * 6
        let tally = R21Tally(total)
        var tokens: [Any] = []
        for index in 0..<3 {
            tokens.append(
                R21cShared.observe(in: center, delivery: .async(on: queue)) { value in
                    perQueue[index].append(value)
                    tally.bump()
                })
            tokens.append(
                R21cShared.observe(for: sink, in: center) { sink, value in
                    sink.add(value, observer: index)
                    tally.bump()
                })
        }
        await onThreads(4) { thread in
            for step in 0..<200 { R21cShared.post(thread * 1_000 + step, in: center) }
        }
        await r21Wait(tally.reached, "every delivery")
        let expected = (0..<4).flatMap { thread in (0..<200).map { thread * 1_000 + $0 } }
        #expect(perQueue[0].values.sorted() == expected)
        #expect(perQueue[1].values == perQueue[0].values && perQueue[2].values == perQueue[0].values)
        let onActor = await sink.all()
        #expect(onActor[0]?.sorted() == expected)
        #expect(onActor[1] == onActor[0] && onActor[2] == onActor[0])
        withExtendedLifetime(tokens) {}
    }
}

// MARK: - Payloads through the (simulated) Objective-C bridge

/// Payload kinds, each posted typed and relayed by a plain observer with another sender (so that typed observers decode
/// the relayed `userInfo`), and decoded by the plain observer with the type's own decoder.
@Suite struct Review21cBridgedPayloadTests {
    enum Text: Notifiable { typealias Payload = String }
    enum Texts: Notifiable { typealias Payload = [String] }
    enum Numbers: Notifiable { typealias Payload = [Int] }
    enum MaybeText: Notifiable { typealias Payload = String? }
    enum MaybeMaybe: Notifiable { typealias Payload = Int?? }
    enum Table: Notifiable { typealias Payload = [String: Int] }
    enum Blob: Notifiable { typealias Payload = Data }
    enum When: Notifiable { typealias Payload = Date }
    struct Point: Notifiable, Equatable {
        let x: Int
        let label: String?
    }
    enum Mode: Notifiable, Equatable {
        case off
        case on(level: Int?)
    }
    final class Handle: Sendable {}
    enum Handed: Notifiable { typealias Payload = Handle }

    /// What a plain observer decodes from the typed post, and what typed observers receive: the post, then the relay.
    private func roundTrip<Event: Notifiable>(
        _: Event.Type, _ payload: Event.Payload
    ) -> (plain: [Result<Event.Payload, any Error>], typed: [Event.Payload]) {
        let center = NotificationCenter()
        let relaySender = Sender()
        let plain = Recorded<Result<Event.Payload, any Error>>()
        let relay = center.addObserver(forName: Event.notificationName, object: nil, queue: nil) { note in
            guard note.object == nil else { return }
            plain.append(Result { try Event.payload(from: note) })
            center.post(name: note.name, object: relaySender, userInfo: note.userInfo)
        }
        let typed = Recorded<Event.Payload>()
        let token = Event.observe(in: center) { typed.append($0) }
        Event.post(payload, in: center)
        center.removeObserver(relay)
        withExtendedLifetime(token) {}
        return (plain.values, typed.values)
    }

    private func check<Event: Notifiable>(
        _ subject: Event.Type, _ payload: Event.Payload, sourceLocation: SourceLocation = #_sourceLocation
    ) where Event.Payload: Equatable {
        let (plain, typed) = roundTrip(subject, payload)
        #expect(plain.count == 1, sourceLocation: sourceLocation)
        switch plain.first {
        case .failure(let error):
            Issue.record("the plain observer could not decode \(payload): \(error)", sourceLocation: sourceLocation)
        case .success(let value):
            #expect(
                value == payload, "the plain observer decoded \(value), not \(payload)",
                sourceLocation: sourceLocation)
        case nil: break
        }
        #expect(
            typed == [payload, payload], "typed observers received \(typed) for \(payload)",
            sourceLocation: sourceLocation)
    }

    @Test func r21cStrings() {
        check(Text.self, "héllo")
        check(Texts.self, ["a", "b"])
        check(Numbers.self, [1, -2, .max])
        check(Table.self, ["a": 1])
    }

    @Test func r21cOptionals() {
        check(MaybeText.self, "x")
        check(MaybeText.self, nil)
    }

    /// Nested optionals: `nil` comes back `nil` (the documented "NSNull decodes as nil"), `.some(3)` as itself.
    ///
    /// Failed in the simulated-Apple build when its bridge was Swift's Foundation's bare `as AnyObject`: a nested
    /// `nil` became an object that reports itself as `NSNull` but casts back as `.some(nil)`.
    @Test func r21cNestedOptionalNilComesBackNil() {
        check(MaybeMaybe.self, .some(3))
        check(MaybeMaybe.self, .none)
    }

    /// `.some(nil)` reaches typed observers of the typed post as itself. Where Foundation bridges `userInfo` (the
    /// simulated-Apple build), its inner `nil` becomes `NSNull`, as Apple's bridge makes it (SE-0140), so plain
    /// observers, and typed observers of a relay, read `nil`; elsewhere they read `.some(nil)`.
    @Test func r21cNestedOptionalSomeNil() {
        let (plain, typed) = roundTrip(MaybeMaybe.self, .some(.none))
        let bridged: Int?? = PlatformBridging.foundationCopiesUserInfo ? .none : .some(.none)
        #expect(plain.count == 1)
        #expect((try? plain.first?.get()) == .some(bridged))
        #expect(typed == [.some(.none), bridged])
    }

    @Test func r21cFoundationValues() {
        check(Blob.self, Data([0, 1, 255]))
        check(When.self, Date(timeIntervalSince1970: 12_345))
    }

    @Test func r21cStructsEnumsAndClasses() {
        check(Point.self, Point(x: 1, label: nil))
        check(Point.self, Point(x: 2, label: "two"))
        check(Mode.self, .on(level: nil))
        check(Mode.self, .off)
        let handle = Handle()
        let (plain, typed) = roundTrip(Handed.self, handle)
        #expect(plain.count == 1 && (try? plain.first?.get()) === handle)
        #expect(typed.count == 2 && typed.allSatisfy { $0 === handle })
    }
}
