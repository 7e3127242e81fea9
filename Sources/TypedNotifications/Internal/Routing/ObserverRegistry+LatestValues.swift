public import Foundation

// The latest post of a `LatestValueNotifiable` type, per center: kept by the post that takes its observers, in the
// same step, so that an observation starts with it or receives it live, never both (see `Subscription.replay`).

extension ObserverRegistry {
    /// For a typed post: makes it the latest of `subject` on `center` and takes the observers it reaches, in one step,
    /// in which it also queues itself on their targets (``DeliveryTarget/enqueueInLatestOrder``), so that they
    /// receive the type's posts in the order this keeps them.
    @usableFromInline
    func keepLatest<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        in center: NotificationCenter,
        isolation: (any Actor)?
    ) -> PostPlan {
        let post = LatestPost(BoxedPayload(payload), from: sender)
        let (isolation, onMainActor, context) = Self.queueingContext(isolation)
        var route: PostPlan?
        var replaced: LatestPost?
        var appended: [() -> Void] = []
        withChannel(
            of: ObjectIdentifier(subject),
            in: center,
            cacheName: { cacheName(of: subject) },
            makeChannel: { name in Channel.bridged(subject, on: center, name: name) },
            body: { _, channel in
                var kept = PostPlan(name: channel.name, observers: channel.subscriptions, keepsLatest: true)
                kept.queuedPosts = DeliveryTarget.enqueueInLatestOrder(
                    post.payload, to: kept.observers, from: sender, isolation: isolation,
                    onMainActor: onMainActor, context: context, appended: &appended)
                channel.latestOrder += 1
                kept.latestOrder = channel.latestOrder
                route = kept
                replaced = channel.latest
                channel.latest = post
            })
        withExtendedLifetime(replaced) {}  // released here, outside the lock: it may hold the last reference
        for after in appended { after() }
        // Set: `withChannel` returns only once `body` has run.
        return route!
    }

    /// For a plain post: makes `post` the latest of `channel`'s type and takes the observers it reaches, in one step,
    /// queued on their targets in the same step, as a typed post's; also returns its number in the center's order
    /// (``Channel/latestOrder``).
    func keepLatest(
        _ post: LatestPost, from sender: AnyObject?, on channel: Channel
    ) -> ([AnySubscription?], [DeliveryTarget.Queued], UInt64) {
        let (isolation, onMainActor, context) = Self.queueingContext(nil)
        var appended: [() -> Void] = []
        let (observers, queued, order, replaced) = state.withLock { _ in
            defer { channel.latest = post }
            channel.latestOrder += 1
            let observers = channel.subscriptions
            let queued = DeliveryTarget.enqueueInLatestOrder(
                post.payload, to: observers, from: sender, isolation: isolation,
                onMainActor: onMainActor, context: context, appended: &appended)
            return (observers, queued, channel.latestOrder, channel.latest)
        }
        withExtendedLifetime(replaced) {}
        for after in appended { after() }
        return (observers, queued, order)
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
