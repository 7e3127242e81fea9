public import Foundation

// The latest post of a `LatestValueNotifiable` type, per center: kept by the post that takes its observers, in the
// same step, so that an observation starts with it or receives it live, never both (see `Subscription.replay`).

extension ObserverRegistry {
    /// For a typed post: makes it the latest of `subject` on `center` and takes the observers it reaches, in one step,
    /// in which it also enters their queues and bursts (``keep(_:from:on:_:)``).
    @usableFromInline
    func keepLatest<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        in center: NotificationCenter,
        isolation: (any Actor)?
    ) -> PostPlan {
        let post = LatestPost(BoxedPayload(payload), from: sender)
        let queueing = Self.queueingContext(isolation)
        var kept: Kept?
        withChannel(
            of: ObjectIdentifier(subject),
            in: center,
            cacheName: { cacheName(of: subject) },
            makeChannel: { name in Channel.bridged(subject, on: center, name: name) },
            body: { _, channel in kept = Self.keep(post, from: sender, on: channel, queueing) })
        // Set: `withChannel` returns only once `body` has run.
        return Self.finish(kept!)
    }

    /// For a plain post: as a typed post's, on `channel`, whose type's post it is.
    func keepLatest(_ post: LatestPost, from sender: AnyObject?, on channel: Channel) -> PostPlan {
        let queueing = Self.queueingContext(nil)
        return Self.finish(state.withLock { _ in Self.keep(post, from: sender, on: channel, queueing) })
    }

    /// What ``keep(_:from:on:_:)`` did, for ``finish(_:)`` after the lock.
    private typealias Kept = (plan: PostPlan, after: [() -> Void], replaced: LatestPost?)

    /// Runs what the step left for after the lock, and releases the post it replaced (it may hold the last reference
    /// to a user object); returns the post's plan.
    private static func finish(_ kept: Kept) -> PostPlan {
        for step in kept.after { step() }
        withExtendedLifetime(kept.replaced) {}
        return kept.plan
    }

    /// The one step, under the lock: makes `post` the latest of `channel`, takes its observers, and has the post enter
    /// their targets' queues, their own queues and their bursts (``DeliveryTarget/enqueueInLatestOrder``), so that
    /// every observer receives the type's posts in the order this keeps them. Returns the post's plan, what must run
    /// after the lock, and the post it replaced.
    private static func keep(
        _ post: LatestPost, from sender: AnyObject?, on channel: Channel,
        _ queueing: (isolation: (any Actor)?, onMainActor: Bool, context: PostContext)
    ) -> Kept {
        var plan = PostPlan(name: channel.name, observers: channel.subscriptions, keepsLatest: true)
        var after: [() -> Void] = []
        var leads: [(AnySubscription, PendingDeliveries)] = []
        let queued = DeliveryTarget.enqueueInLatestOrder(
            post.payload, to: plan.observers, from: sender, isolation: queueing.isolation,
            onMainActor: queueing.onMainActor, context: queueing.context, appended: &after, leads: &leads)
        plan.keptLatest = (queued, leads)
        let replaced = channel.latest
        channel.latest = post
        return (plan, after, replaced)
    }

    /// What queueing a post on targets under the lock needs to know of the posting context, found before the lock
    /// (whether the post runs on the main actor asks Foundation where the main thread is the main actor): its
    /// isolation, whether that is the main actor, and the post's context.
    private static func queueingContext(
        _ isolation: (any Actor)?
    ) -> (isolation: (any Actor)?, onMainActor: Bool, context: PostContext) {
        let isolation = PendingDeliveries.isolation(of: isolation)
        return (isolation, Platform.isMainActor(isolation), .current)
    }

    func latest<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) -> LatestPost? {
        state.withLock { $0.records[ObjectIdentifier(subject)]?.channel(in: center)?.latest }
    }

    /// Forgets the latest post of `subject` on `center`, releasing it outside the lock.
    func clearLatest<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) {
        let cleared: LatestPost? = state.withLock { state in
            guard let channel = state.records[ObjectIdentifier(subject)]?.channel(in: center) else {
                return nil
            }
            defer { channel.latest = nil }
            return channel.latest
        }
        withExtendedLifetime(cleared) {}
    }
}
