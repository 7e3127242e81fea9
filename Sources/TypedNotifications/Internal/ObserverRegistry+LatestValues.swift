public import Foundation

// The latest post of a `LatestValueNotifiable` type, per center: kept by the post that takes its observers, in the
// same step, so that an observation starts with it or receives it live, never both (see `Subscription.replay`).

extension ObserverRegistry {
    /// For a typed post: makes it the latest of `subject` on `center` and takes the observers it reaches, in one step.
    @usableFromInline
    func keepLatest<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        in center: NotificationCenter
    ) -> Route {
        let post = LatestPost(payload, from: sender)
        var route: Route?
        var replaced: LatestPost?
        withChannel(
            of: ObjectIdentifier(subject),
            in: center,
            cacheName: { cacheName(of: subject) },
            makeChannel: { name in Channel<Event>.bridged(on: center, name: name) },
            body: { _, channel in
                route = Route(name: channel.name, snapshot: Self.snapshot(of: channel), keepsLatest: true)
                replaced = channel.latest
                channel.latest = post
            })
        withExtendedLifetime(replaced) {}  // released here, outside the lock: it may hold the last reference
        // Set: `withChannel` returns only once `body` has run.
        return route!
    }

    /// For a plain post: makes `post` the latest of `channel`'s type and takes the observers it reaches, in one step.
    func keepLatest(_ post: LatestPost, on channel: AnyChannel) -> Snapshot {
        let (snapshot, replaced): (Snapshot, LatestPost?) = state.withLock { _ in
            defer { channel.latest = post }
            return (Self.snapshot(of: channel), channel.latest)
        }
        withExtendedLifetime(replaced) {}
        return snapshot
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
