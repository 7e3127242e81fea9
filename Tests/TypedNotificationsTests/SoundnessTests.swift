import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// The delivery guarantees that hold by construction: how a typed post is recognised when it comes back through
/// Foundation, where owners are loaded, and how queued deliveries are ordered. Each test pins one of them with the
/// interleaving or the input that a design without it gets wrong.
@Suite struct SoundnessTests {
    struct Tick: Notifiable, Equatable {
        let id: Int
    }

    enum Unrelated: Notifiable {
        typealias Payload = Void
    }

    // MARK: - Owners are loaded outside the package's locks

    /// An owner that keeps a token of its own, as a view model does: its `deinit` cancels it, which takes the
    /// registry's lock. If the package loaded the owner under that lock and became its last holder, the `deinit`
    /// would re-enter the lock (a trap with `os_unfair_lock`, and in debug builds here).
    final class TokenKeepingOwner: Sendable {
        let token = Slot<NotificationToken>()
        let locksHeldAtDeinit: Slot<Int>

        init(locksHeldAtDeinit: Slot<Int>) {
            self.locksHeldAtDeinit = locksHeldAtDeinit
        }

        deinit {
            locksHeldAtDeinit.set(LockDiscipline.locksHeld)
            token.value?.cancel()
        }
    }

    enum OwnerRelease: CaseIterable, Sendable {
        /// A new registration of the type sweeps for dead owners.
        case registration
        /// A post checks the owner before calling the handler.
        case post
        /// Introspection drops observations whose owner is gone.
        case introspection
    }

    /// The hook pins the window deterministically: when the package loads the owner, the test drops its own last
    /// reference, so the package's load is the last one and the `deinit` runs where the package loaded it.
    @Test(arguments: OwnerRelease.allCases)
    func ownerWhoseLastReferenceThePackageHoldsDeinitialisesOutsideItsLocks(release: OwnerRelease) throws {
        let center = NotificationCenter()
        let locksHeld = Slot<Int>()
        let held = Slot<TokenKeepingOwner>()
        let owner = TokenKeepingOwner(locksHeldAtDeinit: locksHeld)
        let ownerID = ObjectIdentifier(owner)
        owner.token.set(Tick.observe(in: center) { _ in })
        let calls = Counter()
        Tick.observe(for: owner, in: center) { _, _ in calls.increment() }
        held.set(owner)
        TestHooks.onOwnerLoad(of: owner) { _ in held.set(nil) }
        defer { TestHooks.removeOwnerLoadHook(for: ownerID) }
        _ = consume owner

        switch release {
        case .registration: withExtendedLifetime(Tick.observe(in: center) { _ in }) {}
        case .post: Tick(id: 1).post(in: center)
        case .introspection: _ = center.typedObservations
        }

        #expect(held.value == nil, "the package loaded the owner")
        #expect(locksHeld.value == 0, "the owner's deinit ran while the package held a lock")
        // A post loads the owner once and hands it to the handler: alive when loaded, it dies after the call.
        #expect(calls.count == (release == .post ? 1 : 0))
        #expect(center.typedObservations.isEmpty, "the owner's token and its owner-bound observation both ended")
    }

    @MainActor final class ViewModel {
        var seen: [Int] = []
    }

    /// A main-actor owner (a view model, a view controller) is only ever loaded on the main actor, so the package
    /// never becomes its last holder on a background thread.
    @Test @MainActor func mainActorOwnerIsNeverLoadedOffTheMainActor() async {
        let center = NotificationCenter()
        let model = ViewModel()
        let done = Signal()
        Tick.observeOnMainActor(for: model, in: center) { model, tick in
            model.seen.append(tick.id)
            if tick.id == 2 { done.fire() }
        }
        let loadsOffMainActor = Counter()
        let background = Slot<ObjectIdentifier>()
        TestHooks.onOwnerLoad(of: model) { _ in
            if background.value == ObjectIdentifier(Thread.current) { loadsOffMainActor.increment() }
        }
        defer { TestHooks.removeOwnerLoadHook(for: ObjectIdentifier(model)) }
        #expect(
            runOnAnotherThreadAndWait {
                background.set(ObjectIdentifier(Thread.current))
                Tick(id: 1).post(in: center)
                // A registration of the type sweeps for dead owners: not this one, off the main actor.
                withExtendedLifetime(Tick.observe(in: center) { _ in }) {}
                _ = center.typedObservations
                Tick(id: 2).post(in: center)
                // Cleared while the thread lives, so that no later thread at its address is taken for it.
                background.set(nil)
            })
        await done.wait()
        #expect(model.seen == [1, 2])
        #expect(loadsOffMainActor.count == 0)
    }

    // MARK: - Re-posts are posts

    /// A plain observer that relays a typed post's `userInfo` on behalf of another object: the typed observers of the
    /// original sender get it once, those of the other sender get the relay once.
    @Test(arguments: [true, false])
    func plainRelayForAnotherSenderIsANewPost(plainObserverFirst: Bool) {
        let center = NotificationCenter()
        let original = Sender()
        let other = Sender()
        let fromOriginal = Recorded<Int>()
        let fromOther = Recorded<Int>()
        var tokens: [NotificationToken] = []
        let relay = {
            // No object filter: Swift's Foundation calls observers of one object before those of any object.
            center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { note in
                guard note.object as AnyObject? === original else { return }
                center.post(name: note.name, object: other, userInfo: note.userInfo)
            }
        }
        let plain = plainObserverFirst ? relay() : nil
        tokens.append(Tick.observe(from: original, in: center) { fromOriginal.append($0.id) })
        tokens.append(Tick.observe(from: other, in: center) { fromOther.append($0.id) })
        let plainAfter = plainObserverFirst ? nil : relay()
        Tick(id: 7).post(from: original, in: center)
        #expect(fromOriginal.values == [7])
        #expect(fromOther.values == [7])
        for observer in [plain, plainAfter].compactMap({ $0 }) { center.removeObserver(observer) }
        withExtendedLifetime(tokens) {}
    }

    /// A plain observer that copies a typed post's `userInfo`, replaces the payload and re-posts it from the same
    /// sender makes a new post: typed observers get the original once and the new payload once. Where Foundation
    /// copies `userInfo` (the simulated-Apple build), only a transformer that drops the package's
    /// `Notification.typedPostKey` entry can always be told apart from a verbatim re-post: one that keeps it is taken
    /// for the original when it runs before the package's own observer (documented in the Guarantees article).
    @Test(arguments: [true, false], [true, false])
    func plainTransformerThatRepostsAnotherPayloadIsANewPost(plainObserverFirst: Bool, keepsMark: Bool) {
        let center = NotificationCenter()
        let sender = Sender()
        let received = Recorded<Int>()
        var token: NotificationToken?
        let transformer = {
            // No object filter: Swift's Foundation calls observers of one object before those of any object.
            center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { note in
                guard var userInfo = note.userInfo, (userInfo[Notification.typedPayloadKey] as? Tick)?.id == 1 else {
                    return
                }
                userInfo[Notification.typedPayloadKey] = Tick(id: 2)
                if !keepsMark { userInfo[Notification.typedPostKey] = nil }
                center.post(name: note.name, object: sender, userInfo: userInfo)
            }
        }
        let first = plainObserverFirst ? transformer() : nil
        token = Tick.observe(from: sender, in: center) { received.append($0.id) }
        let second = plainObserverFirst ? nil : transformer()
        Tick(id: 1).post(from: sender, in: center)
        if PlatformBridging.foundationCopiesUserInfo && keepsMark {
            // Swift's Foundation calls the observers of one name in hash order, so which of the transformer and the
            // package's observer runs first differs between processes: when the transformer does, its re-post is taken
            // for the post, and the original arrives once more instead of the new payload, as documented.
            #expect([[1, 1], [1, 2]].contains(received.values), "the original once, then the new or the original")
        } else {
            #expect(received.values.sorted() == [1, 2])
        }
        for observer in [first, second].compactMap({ $0 }) { center.removeObserver(observer) }
        withExtendedLifetime(token) {}
    }

    // MARK: - Observers started during a post start with the next one

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
        TestHooks.onFoundationPost(in: center) {
            guard second.value == nil else { return }
            onNewThread {
                first.value?.cancel()
                second.set(Tick.observe(in: center) { renewed.append($0.id) })
            }
            .wait()
        }
        defer { TestHooks.removeFoundationPostHook(for: center) }
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

    // MARK: - No delivery after cancel

    /// During a post made on the main actor, the main actor's backlog runs first; a handler that cancels its own
    /// observation on a queued payload gets nothing more, not even the post being made.
    @Test @MainActor func observerThatCancelsItselfOnAQueuedPayloadGetsNothingMore() {
        let center = NotificationCenter()
        let model = ViewModel()
        let token = Slot<NotificationToken>()
        token.set(
            Tick.observeOnMainActor(in: center) { tick in
                model.seen.append(tick.id)
                token.value?.cancel()
            })
        #expect(runOnAnotherThreadAndWait { Tick(id: 1).post(in: center) })
        Tick(id: 2).post(in: center)
        #expect(model.seen == [1])
        token.set(nil)
    }

    // MARK: - Sequences end with their center

    @Test func sequenceOfADeallocatedCenterEnds() async {
        var center: NotificationCenter? = NotificationCenter()
        let sequence = Tick.notifications(in: center!)
        Tick(id: 1).post(in: center!)
        weak let gone = center
        center = nil
        #expect(gone == nil)
        var received: [Int] = []
        for await tick in sequence { received.append(tick.id) }
        #expect(received == [1], "the buffered payload, then the end")
    }

    // MARK: - Queues give back what they took

    /// A standing backlog (two queued, one taken, for ever) keeps the queue's memory bounded.
    @Test func standingBacklogKeepsTheQueueBounded() {
        var queue = FIFO<Int>()
        var largest = 0
        queue.append(0)
        for item in 1...200_000 {
            queue.append(item)
            _ = queue.take()
            largest = max(largest, queue.capacityUsed)
        }
        #expect(queue.count == 1)
        #expect(largest <= 64, "the slots of taken items are given back")
    }

    final class Heavy: Sendable {}

    struct Carrying: Notifiable {
        let heavy: Heavy
    }

    /// A target's queue is shared by its observers: cancelling one drops (and releases) what is queued for it, and
    /// leaves the others' deliveries in place.
    @Test func cancellingAQueueObserverReleasesItsQueuedPayloadsAndKeepsTheOthers() async {
        let center = NotificationCenter()
        let (queue, gate) = busyQueue()
        let kept = Recorded<Int>()
        let done = Signal()
        let cancelled = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in kept.append(-1) }
        let other = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in
            kept.append(1)
            done.fire()
        }
        weak var heavy: Heavy?
        do {
            let posted = Heavy()
            heavy = posted
            Carrying(heavy: posted).post(in: center)
        }
        #expect(heavy != nil, "queued for both observers")
        cancelled.cancel()
        #expect(heavy != nil, "still queued for the other observer")
        gate.signal()
        await done.wait()
        #expect(kept.values == [1])
        withExtendedLifetime(other) {}
    }

    @Test func cancellingReleasesWhatIsQueuedAtOnce() {
        let center = NotificationCenter()
        let (queue, gate) = busyQueue()
        let token = Carrying.observe(in: center, delivery: .async(on: queue)) { _ in }
        weak var heavy: Heavy?
        do {
            let posted = Heavy()
            heavy = posted
            Carrying(heavy: posted).post(in: center)
        }
        #expect(heavy != nil)
        token.cancel()
        #expect(heavy == nil, "released by cancel(), not when the queue gets to it")
        gate.signal()
    }

    // MARK: - Async observers keep no sender

    @Test func asyncObserverDoesNotKeepTheSenderAlive() async {
        let center = NotificationCenter()
        let gate = Gate()
        let done = Signal()
        let token = Tick.observe(in: center) { tick in
            if tick.id == 1 { await gate.wait() }
            if tick.id == 2 { done.fire() }
        }
        weak var sender: Sender?
        do {
            let posting = Sender()
            sender = posting
            Tick(id: 1).post(from: posting, in: center)
            Tick(id: 2).post(from: posting, in: center)
        }
        #expect(sender == nil, "the queued delivery keeps the payload only")
        await gate.open()
        await done.wait()
        withExtendedLifetime(token) {}
    }

    // MARK: - Loud in debug builds

    /// `Type.observe(from: center)`, a typo for `in: center`, compiles and never fires: debug builds report it.
    @Test func aCenterGivenAsTheSenderFilterIsReportedInDebugBuilds() {
        let center = NotificationCenter()
        let reports = Recorded<String>()
        let handler: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .centerAsSender(let fileID, _) = event.kind { reports.append(fileID) }
        }
        NotificationDiagnostics.withHandler(handler) {
            let mistaken = Tick.observe(from: center, in: center) { _ in }
            let intended = Tick.observe(in: center) { _ in }
            withExtendedLifetime((mistaken, intended)) {}
        }
        #if DEBUG
        #expect(reports.values == ["TypedNotificationsTests/SoundnessTests.swift"])
        #else
        #expect(reports.values.isEmpty, "only debug builds check")
        #endif
    }

    // MARK: - Types sharing a name

    struct SharedNameA: Notifiable {
        static var notificationName: Notification.Name { .init("SoundnessTests.shared") }
        let a: Int
    }

    struct SharedNameB: Notifiable {
        static var notificationName: Notification.Name { .init("SoundnessTests.shared") }
        let b: String
    }

    /// Another type's typed post under a shared name is not a plain post that failed to decode.
    @Test func typesSharingANameDoNotReportEachOthersPostsAsDecodingFailures() {
        let center = NotificationCenter()
        let failures = Recorded<String>()
        let handler: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .decodingFailed = event.kind { failures.append(event.name.rawValue) }
        }
        NotificationDiagnostics.withHandler(handler) {
            let a = SharedNameA.observe(in: center) { _ in }
            let b = SharedNameB.observe(in: center) { _ in }
            SharedNameA(a: 1).post(in: center)
            center.post(name: SharedNameB.notificationName, object: nil, userInfo: [:])
            withExtendedLifetime((a, b)) {}
        }
        #expect(failures.values == [SharedNameB.notificationName.rawValue, SharedNameA.notificationName.rawValue])
    }
}

/// An async gate: `wait()` suspends until `open()`.
actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }
}

extension SoundnessTests {
    enum Play: Notifiable {
        typealias Payload = Int
    }

    // MARK: - Owners are loaded where they may die

    @MainActor final class MainQueueViewModel: Sendable {
        var seen: [Int] = []
    }

    /// A view model that observes with `delivery: .async(on: .main)` (the spelling that code migrating from
    /// `queue: .main` uses) is loaded by the package on whatever thread registers another observer of the type (the
    /// registration sweeps for dead owners), so the package can become the last holder of a main-actor object on a
    /// background thread, which the Guarantees article rules out for main-actor observations.
    @Test @MainActor func mainQueueOwnerIsNeverLoadedOffTheMainThread() async {
        let center = NotificationCenter()
        let model = MainQueueViewModel()
        let done = Signal()
        Play.observe(for: model, in: center, delivery: .async(on: DispatchQueue.main)) { model, index in
            MainActor.assumeIsolated { model.seen.append(index) }
            if index == 1 { done.fire() }
        }
        // Loads on the background thread below; not `Thread.isMainThread`, since on Linux the main queue may be
        // served by another thread.
        let loadsOffMain = Counter()
        let background = Slot<ObjectIdentifier>()
        TestHooks.onOwnerLoad(of: model) { _ in
            if background.value == ObjectIdentifier(Thread.current) { loadsOffMain.increment() }
        }
        defer { TestHooks.removeOwnerLoadHook(for: ObjectIdentifier(model)) }
        #expect(
            runOnAnotherThreadAndWait {
                background.set(ObjectIdentifier(Thread.current))
                withExtendedLifetime(Play.observe(in: center) { _ in }) {}
                _ = center.typedObservations
                Play.post(1, in: center)
                background.set(nil)
            })
        await done.wait()
        #expect(model.seen == [1])
        #expect(loadsOffMain.count == 0, "a main-queue owner was loaded off the main thread")
    }
}
