import Foundation
import OpenCombine
import Testing
@_spi(Testing) import TypedNotifications
import TypedNotificationsOpenCombine

// The library's `NotificationPublisher.swift`, compiled against OpenCombine, tested through OpenCombine's protocols
// and operators as Combine code would use it. Every test makes its own `NotificationCenter()`.

/// The spellings that make a publisher, which must behave the same. Since the type-first API there is one:
/// `center.publisher(for:from:)` is gone.
enum Spelling: String, CaseIterable, CustomTestStringConvertible {
    case notifiable = "CartDidChange.publisher(from:in:)"

    var testDescription: String { rawValue }

    func publisher(from cart: Cart?, in center: NotificationCenter) -> NotificationPublisher<CartDidChange> {
        switch self {
        case .notifiable: CartDidChange.publisher(from: cart, in: center)
        }
    }
}

func isSendable(_: some Sendable) -> Bool { true }

@Suite struct NotificationPublisherTests {
    // MARK: - Typed values

    @Test(arguments: Spelling.allCases) func deliversTypedPayloadsInPostOrder(spelling: Spelling) {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        spelling.publisher(from: nil, in: center).subscribe(subscriber)
        for count in 1...3 { CartDidChange(itemCount: count).post(in: center) }
        #expect(subscriber.values == [1, 2, 3].map(CartDidChange.init(itemCount:)))
        subscriber.cancel()
    }

    @Test func deliversASeparatePayloadType() {
        let center = NotificationCenter()
        var logins: [User] = []
        let cancellable = UserDidLogIn.publisher(in: center).sink { user in logins.append(user) }
        UserDidLogIn.post(User(name: "Ada"), in: center)
        #expect(logins == [User(name: "Ada")])
        cancellable.cancel()
    }

    @Test func deliversAVoidPayloadForEachPost() {
        let center = NotificationCenter()
        var activations = 0
        let cancellable = AppDidBecomeActive.publisher(in: center).sink { activations += 1 }
        AppDidBecomeActive.post((), in: center)
        AppDidBecomeActive.post((), in: center)
        #expect(activations == 2)
        cancellable.cancel()
    }

    @Test func composesWithOperators() {
        let center = NotificationCenter()
        var counts: [Int] = []
        let cancellable = CartDidChange.publisher(in: center)
            .map(\.itemCount)
            .removeDuplicates()
            .sink { counts.append($0) }
        for count in [1, 1, 2, 2, 3] { CartDidChange(itemCount: count).post(in: center) }
        #expect(counts == [1, 2, 3])
        cancellable.cancel()
    }

    @Test func thePublisherIsSendable() {
        #expect(isSendable(CartDidChange.publisher(in: NotificationCenter())))
    }

    // MARK: - Latest values

    struct UnreadCount: LatestValueNotifiable, Equatable {
        let count: Int
    }

    @Test func aSubscriberOfALatestValueTypeReceivesTheLatestPostFirst() {
        let center = NotificationCenter()
        UnreadCount(count: 1).post(in: center)
        UnreadCount(count: 2).post(in: center)
        let subscriber = RecordingSubscriber<UnreadCount>()
        UnreadCount.publisher(in: center).subscribe(subscriber)
        UnreadCount(count: 3).post(in: center)
        #expect(subscriber.values == [2, 3].map(UnreadCount.init(count:)))
        subscriber.cancel()
    }

    @Test func theLatestPostWaitsForDemand() {
        let center = NotificationCenter()
        UnreadCount(count: 5).post(in: center)
        let subscriber = RecordingSubscriber<UnreadCount>(initialDemand: .none)
        UnreadCount.publisher(in: center).subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values == [UnreadCount(count: 5)])
        subscriber.cancel()
    }

    // MARK: - Sender filter

    @Test(arguments: Spelling.allCases) func senderFilterDeliversOnlyThatSendersPosts(spelling: Spelling) {
        let center = NotificationCenter()
        let cart = Cart()
        let subscriber = RecordingSubscriber<CartDidChange>()
        spelling.publisher(from: cart, in: center).subscribe(subscriber)
        CartDidChange(itemCount: 1).post(from: cart, in: center)
        CartDidChange(itemCount: 2).post(from: Cart(), in: center)
        CartDidChange(itemCount: 3).post(in: center)
        CartDidChange(itemCount: 4).post(from: cart, in: center)
        #expect(subscriber.values.map(\.itemCount) == [1, 4])
        subscriber.cancel()
    }

    @Test func withoutASenderEverySendersPostsArrive() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        CartDidChange.publisher(in: center).subscribe(subscriber)
        CartDidChange(itemCount: 1).post(from: Cart(), in: center)
        CartDidChange(itemCount: 2).post(in: center)
        #expect(subscriber.values.map(\.itemCount) == [1, 2])
        subscriber.cancel()
    }

    @Test func aSenderGoneBeforeSubscriptionMeansNothingArrives() {
        let center = NotificationCenter()
        var cart: Cart? = Cart()
        weak var weakCart: Cart?
        weakCart = cart
        let publisher = CartDidChange.publisher(from: cart, in: center)
        cart = nil
        #expect(weakCart == nil, "the publisher holds its sender weakly")
        let subscriber = RecordingSubscriber<CartDidChange>()
        publisher.subscribe(subscriber)
        CartDidChange(itemCount: 1).post(in: center)
        CartDidChange(itemCount: 2).post(from: Cart(), in: center)
        #expect(subscriber.values.isEmpty, "the filter must not widen to every sender")
        #expect(center.typedRegistrationCounts() == (0, 0))
        subscriber.cancel()
    }

    // MARK: - Demand and back-pressure

    @Test func deliversNoMoreThanRequested() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .max(1))
        CartDidChange.publisher(in: center).subscribe(subscriber)
        for count in 1...4 { CartDidChange(itemCount: count).post(in: center) }
        #expect(subscriber.values.map(\.itemCount) == [1])
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.itemCount) == [1, 2])
        subscriber.request(.max(5))
        #expect(subscriber.values.map(\.itemCount) == [1, 2, 3, 4])
        CartDidChange(itemCount: 5).post(in: center)  // 3 of the 5 requested are left
        #expect(subscriber.values.map(\.itemCount) == [1, 2, 3, 4, 5])
        subscriber.cancel()
    }

    @Test func bufferIsUnboundedAndKeepsPostOrderUntilDemanded() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .none)
        CartDidChange.publisher(in: center).subscribe(subscriber)
        for count in 0..<10_000 { CartDidChange(itemCount: count).post(in: center) }
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(3))
        #expect(subscriber.values.map(\.itemCount) == [0, 1, 2])
        subscriber.request(.unlimited)
        #expect(subscriber.values.map(\.itemCount) == Array(0..<10_000))
        subscriber.cancel()
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let center = NotificationCenter()
        // Asks for one more after each even count: 0 and 1 arrive, then 2, then 3 waits.
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .max(1)) { change, _ in
            change.itemCount.isMultiple(of: 2) ? .max(1) : .none
        }
        CartDidChange.publisher(in: center).subscribe(subscriber)
        for count in 0..<4 { CartDidChange(itemCount: count).post(in: center) }
        #expect(subscriber.values.map(\.itemCount) == [0, 1])
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.itemCount) == [0, 1, 2, 3])
        subscriber.cancel()
    }

    @Test func requestingFromInsideReceiveDoesNotDeadlockAndKeepsOrder() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .none) { _, subscription in
            subscription.request(.max(1))  // re-entrant: the delivering thread picks it up
            return .none
        }
        CartDidChange.publisher(in: center).subscribe(subscriber)
        for count in 1...3 { CartDidChange(itemCount: count).post(in: center) }
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.itemCount) == [1, 2, 3])
        CartDidChange(itemCount: 4).post(in: center)  // one request is left over
        #expect(subscriber.values.map(\.itemCount) == [1, 2, 3, 4])
        #expect(!subscriber.callsOverlapped)
        subscriber.cancel()
    }

    @Test func aPostFromInsideReceiveIsDeliveredAfterItReturns() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange> { change, _ in
            if change.itemCount < 3 { CartDidChange(itemCount: change.itemCount + 1).post(in: center) }
            return .none
        }
        CartDidChange.publisher(in: center).subscribe(subscriber)
        CartDidChange(itemCount: 1).post(in: center)
        #expect(subscriber.values.map(\.itemCount) == [1, 2, 3])
        #expect(!subscriber.callsOverlapped)
        subscriber.cancel()
    }

    @Test func requestingNothingDeliversNothing() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .none)
        CartDidChange.publisher(in: center).subscribe(subscriber)
        CartDidChange(itemCount: 1).post(in: center)
        subscriber.request(.none)
        #expect(subscriber.values.isEmpty)
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.itemCount) == [1])
        subscriber.cancel()
    }

    @Test func combinesBufferOperatorToKeepOnlyTheNewest() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .none)
        CartDidChange.publisher(in: center)
            .buffer(size: 1, prefetch: .byRequest, whenFull: .dropOldest)
            .subscribe(subscriber)
        for count in 1...3 { CartDidChange(itemCount: count).post(in: center) }
        subscriber.request(.max(1))
        #expect(subscriber.values.map(\.itemCount) == [3])
        subscriber.cancel()
    }

    // MARK: - Where the subscriber is called

    @Test func withDemandTheSubscriberIsCalledOnThePostingThreadBeforePostReturns() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        CartDidChange.publisher(in: center).subscribe(subscriber)
        let poster = LockedBox<ObjectIdentifier?>(nil)
        let deliveredBeforeReturn = LockedBox(false)
        onNewThread {
            poster.value = currentThread()
            CartDidChange(itemCount: 1).post(in: center)
            deliveredBeforeReturn.value = subscriber.values.count == 1
        }
        #expect(deliveredBeforeReturn.value)
        #expect(subscriber.threads == [poster.value])
        subscriber.cancel()
    }

    @Test func withoutDemandTheSubscriberIsCalledOnTheThreadThatRequests() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>(initialDemand: .none)
        CartDidChange.publisher(in: center).subscribe(subscriber)
        onNewThread { CartDidChange(itemCount: 1).post(in: center) }
        #expect(subscriber.values.isEmpty)
        let requester = LockedBox<ObjectIdentifier?>(nil)
        onNewThread {
            requester.value = currentThread()
            subscriber.request(.max(1))
        }
        #expect(subscriber.values.map(\.itemCount) == [1])
        #expect(subscriber.threads == [requester.value])
        subscriber.cancel()
    }

    // MARK: - When observation begins and ends

    @Test func observationBeginsAtSubscriptionNotWhenThePublisherIsMade() {
        let center = NotificationCenter()
        let publisher = CartDidChange.publisher(in: center)
        #expect(center.typedRegistrationCounts().observers == 0)
        CartDidChange(itemCount: 1).post(in: center)
        let subscriber = RecordingSubscriber<CartDidChange>()
        publisher.subscribe(subscriber)
        #expect(center.typedRegistrationCounts().observers == 1)
        CartDidChange(itemCount: 2).post(in: center)
        #expect(subscriber.values.map(\.itemCount) == [2])
        subscriber.cancel()
    }

    @Test func eachSubscriberHasItsOwnObservation() {
        let center = NotificationCenter()
        let publisher = CartDidChange.publisher(in: center)
        let first = RecordingSubscriber<CartDidChange>()
        let second = RecordingSubscriber<CartDidChange>(initialDemand: .max(1))
        publisher.subscribe(first)
        publisher.subscribe(second)
        #expect(center.typedRegistrationCounts().observers == 2)
        CartDidChange(itemCount: 1).post(in: center)
        CartDidChange(itemCount: 2).post(in: center)
        first.cancel()
        CartDidChange(itemCount: 3).post(in: center)
        second.request(.unlimited)
        #expect(first.values.map(\.itemCount) == [1, 2])
        #expect(second.values.map(\.itemCount) == [1, 2, 3])
        second.cancel()
        #expect(center.typedRegistrationCounts() == (0, 0))
    }

    @Test func cancellingEndsTheObservationAndDropsTheBuffer() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<Parcel>(initialDemand: .none)
        ParcelDidArrive.publisher(in: center).subscribe(subscriber)
        weak var buffered: Parcel?
        do {
            let parcel = Parcel(1)
            buffered = parcel
            ParcelDidArrive.post(parcel, in: center)
        }
        #expect(buffered != nil, "kept until demanded")
        subscriber.cancel()
        #expect(center.typedRegistrationCounts() == (0, 0))
        #expect(buffered == nil, "cancelling releases what was buffered")
        ParcelDidArrive.post(Parcel(2), in: center)
        subscriber.request(.unlimited)
        #expect(subscriber.values.isEmpty)
        #expect(subscriber.completions == 0)
    }

    @Test func cancellingFromInsideReceiveStopsDelivery() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange> { change, subscription in
            if change.itemCount == 2 { subscription.cancel() }
            return .none
        }
        CartDidChange.publisher(in: center).subscribe(subscriber)
        for count in 1...3 { CartDidChange(itemCount: count).post(in: center) }
        #expect(subscriber.values.map(\.itemCount) == [1, 2])
        #expect(center.typedRegistrationCounts() == (0, 0))
        #expect(subscriber.completions == 0)
    }

    @Test func cancellingTwiceIsHarmless() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        CartDidChange.publisher(in: center).subscribe(subscriber)
        subscriber.cancel()
        subscriber.cancel()
        #expect(center.typedRegistrationCounts() == (0, 0))
    }

    @Test func releasingTheSubscriptionEndsTheObservation() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        CartDidChange.publisher(in: center).subscribe(subscriber)
        CartDidChange(itemCount: 1).post(in: center)
        #expect(center.typedRegistrationCounts().observers == 1)
        subscriber.releaseSubscription()
        #expect(!subscriber.subscriptionIsAlive, "the observation does not keep the subscription alive")
        #expect(center.typedRegistrationCounts() == (0, 0))
        CartDidChange(itemCount: 2).post(in: center)
        #expect(subscriber.values.map(\.itemCount) == [1])
        #expect(subscriber.completions == 0)
    }

    @Test func releasingTheCancellableEndsTheObservation() {
        let center = NotificationCenter()
        var counts: [Int] = []
        var cancellable: AnyCancellable? = CartDidChange.publisher(in: center).sink { counts.append($0.itemCount) }
        CartDidChange(itemCount: 1).post(in: center)
        cancellable = nil
        #expect(center.typedRegistrationCounts() == (0, 0))
        CartDidChange(itemCount: 2).post(in: center)
        #expect(counts == [1])
        withExtendedLifetime(cancellable) {}
    }

    @Test func completionIsNeverSentNotEvenWhenTheCenterGoes() {
        var center: NotificationCenter? = NotificationCenter()
        weak var weakCenter: NotificationCenter?
        weakCenter = center
        let subscriber = RecordingSubscriber<CartDidChange>()
        CartDidChange.publisher(in: center!).subscribe(subscriber)
        CartDidChange(itemCount: 1).post(in: center!)
        center = nil
        #expect(weakCenter == nil, "a subscription does not keep its center alive")
        #expect(subscriber.values.map(\.itemCount) == [1])
        #expect(subscriber.completions == 0)
        subscriber.cancel()
        #expect(subscriber.completions == 0)
    }

    // MARK: - Introspection

    @Test func typedObservationsListEachSubscriptionWhereThePublisherWasMade() throws {
        let center = NotificationCenter()
        let cart = Cart()
        let line = #line + 1
        let publisher = CartDidChange.publisher(from: cart, in: center)
        #expect(center.typedObservations.isEmpty)
        let first = RecordingSubscriber<CartDidChange>()
        let second = RecordingSubscriber<CartDidChange>()
        publisher.subscribe(first)
        publisher.subscribe(second)
        let observations = center.typedObservations
        #expect(observations.count == 2)
        let observation = try #require(observations.first)
        #expect(observation.fileID == #fileID)
        #expect(observation.line == line)
        #expect(observation.delivery == .publisher)
        #expect(observation.filtersBySender)
        #expect(!observation.isOwnerBound)
        first.cancel()
        second.cancel()
        #expect(center.typedObservations.isEmpty)
    }

    @Test func aPublisherWithoutASenderFilterRecordsWhereItWasMade() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        let line = #line + 1
        CartDidChange.publisher(in: center).subscribe(subscriber)
        #expect(center.typedObservations.map(\.line) == [line])
        subscriber.cancel()
    }

    // MARK: - Threads

    @Test func concurrentPostsArriveExactlyOnceInEachThreadsOrder() {
        let seed = SeededGenerator.seedFromEnvironment()
        let posters = 4
        let postsPerThread = 2_500
        let center = NotificationCenter()
        // Random demand: each value asks for 0, 1 or 2 more, while another thread requests more at random.
        let random = LockedBox(SeededGenerator(seed: seed))
        let subscriber = RecordingSubscriber<Tick>(initialDemand: .max(8)) { _, _ in
            .max(Int(random.withValue { $0.next() % 3 }))
        }
        Tick.publisher(in: center).subscribe(subscriber)
        DispatchQueue.concurrentPerform(iterations: posters + 1) { thread in
            var generator = SeededGenerator(seed: seed &+ UInt64(thread))
            if thread == posters {
                for _ in 0..<postsPerThread { subscriber.request(.max(Int.random(in: 0...2, using: &generator))) }
            } else {
                for index in 0..<postsPerThread { Tick(thread: thread, index: index).post(in: center) }
            }
        }
        subscriber.request(.unlimited)  // whatever is still buffered

        let values = subscriber.values
        let comment = Comment(rawValue: "seed \(seed); replay with TYPED_NOTIFICATIONS_SEED=\(seed)")
        #expect(values.count == posters * postsPerThread, comment)
        #expect(Set(values).count == values.count, "each post arrives once; \(comment)")
        for thread in 0..<posters {
            let indices = values.filter { $0.thread == thread }.map(\.index)
            #expect(indices == Array(0..<postsPerThread), "thread \(thread) in order; \(comment)")
        }
        #expect(!subscriber.callsOverlapped, comment)
        #expect(subscriber.completions == 0, comment)
        subscriber.cancel()
        #expect(center.typedRegistrationCounts() == (0, 0), comment)
    }

    @Test func concurrentSubscribeAndCancelLeaveNothingBehind() {
        let center = NotificationCenter()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<300 {
                let subscriber = RecordingSubscriber<Tick>(initialDemand: index.isMultiple(of: 2) ? .unlimited : .none)
                Tick.publisher(in: center).subscribe(subscriber)
                Tick(thread: thread, index: index).post(in: center)
                if index.isMultiple(of: 3) { subscriber.releaseSubscription() } else { subscriber.cancel() }
            }
        }
        #expect(center.typedRegistrationCounts() == (0, 0))
    }

    // MARK: - Plain posts

    @Test func aPlainPostWithADecodableUserInfoReachesThePublisher() {
        let center = NotificationCenter()
        let subscriber = RecordingSubscriber<CartDidChange>()
        CartDidChange.publisher(in: center).subscribe(subscriber)
        center.post(
            name: CartDidChange.notificationName,
            object: nil,
            userInfo: [Notification.typedPayloadKey: CartDidChange(itemCount: 7)]
        )
        let failures = LockedBox(0)
        let countFailures: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .decodingFailed = event.kind { failures.withValue { $0 += 1 } }
        }
        NotificationDiagnostics.withHandler(countFailures) {
            center.post(name: CartDidChange.notificationName, object: nil, userInfo: ["unrelated": 1])  // skipped
        }
        #expect(subscriber.values.map(\.itemCount) == [7])
        #expect(failures.value == 1, "the skipped post is reported, to the scope rather than to standard error")
        #expect(subscriber.completions == 0)
        subscriber.cancel()
    }
}
