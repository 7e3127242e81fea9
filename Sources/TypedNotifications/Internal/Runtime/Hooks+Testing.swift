import Foundation

#if DEBUG
/// Hooks that let tests pin a race window, in debug builds only: each is a no-op until a test installs one.
///
/// Keyed by the object they watch, so that tests running in parallel never see each other's hooks.
package enum TestHooks {
    /// A point where a test may step in, on one object: a center, or an owner.
    package enum Point: Hashable, Sendable {
        /// A typed post that has typed observers has made its record (see ``FoundationBridge``) and is about to call
        /// Foundation. A hook that has another thread observe meanwhile registers a Foundation observer that
        /// Foundation may call for the post, as when that thread wins the race on its own.
        case foundationPost
        /// A post (or a burst's end) has found its observers on a target active and is about to queue their
        /// deliveries (see ``DeliveryTarget/queue(_:isCurrent:)``). A hook that ends one of them
        /// meanwhile does so between the check and the queueing, as another thread may.
        case queueing
        /// The package has loaded an owner's weak reference (to see whether an owner-bound observation lives) and
        /// holds the owner strongly. A hook that drops the test's last reference to the owner makes the package the
        /// last holder, so the owner's `deinit` runs where the package loaded it.
        case ownerLoad
        /// A new observer has been added with its type's latest value, which it gets next, after the registry's lock
        /// (see ``Subscription/replay(_:filter:onTarget:)``). A hook that has another thread post meanwhile
        /// races the latest value as a post from another thread may.
        case latestValueReplay
    }

    /// What to call at a point, by the watched object's identity and the point.
    private static let hooks = Locked<[ObjectIdentifier: [Point: @Sendable () -> Void]]>([:])
    /// How many hooks are installed, so that a point reached with none costs one atomic read.
    private static let installed = AtomicWord.make()

    /// Calls `hook` on the thread that reaches `point` on `object` (a post on that center, or a load of that owner),
    /// each time, until ``removeHook(at:for:)``.
    package static func on(_ point: Point, in object: AnyObject, _ hook: @escaping @Sendable () -> Void) {
        hooks.withLock { $0[ObjectIdentifier(object), default: [:]][point] = hook }
        installed.add(1)
    }

    /// Removes the hook at `point` on the object of identity `id` (which may be gone).
    package static func removeHook(at point: Point, for id: ObjectIdentifier) {
        let removed = hooks.withLock { $0[id]?.removeValue(forKey: point) }
        if removed != nil { installed.add(UInt64.max) }
    }

    static func reached(_ point: Point, on id: ObjectIdentifier) {
        guard installed.load() != 0 else { return }
        let hook = hooks.withLock { $0[id]?[point] }
        hook?()
    }

    /// The owner is held by the caller while its hook runs.
    static func didLoadOwner(_ owner: AnyObject) {
        reached(.ownerLoad, on: ObjectIdentifier(owner))
    }

    /// While set, lookups check a channel's center itself, as where Foundation keeps a dead center's observers (see
    /// ``Platform/checksCenterIdentity``); for the test that simulates such a Foundation.
    private static let centerChecks = AtomicWord.make()

    package static var checksCenterIdentity: Bool {
        get { centerChecks.isSet }
        set { centerChecks.store(newValue ? 1 : 0) }
    }
}
#endif

// What only the package's tests read, in every build.

extension ObserverRegistry {
    /// `subject`'s bridge on `center`; a test holds it to act as a Foundation that keeps dead centers' observers.
    func bridge<Event: Notifiable>(of subject: Event.Type, in center: NotificationCenter) -> BridgeRegistration? {
        let channel = state.withLock { $0.records[ObjectIdentifier(subject)]?.channel(in: center) }
        return channel?.bridge
    }

    /// How many channels `subject` has, on every center; for tests that dead centers leave none.
    func channelCount<Event: Notifiable>(of subject: Event.Type) -> Int {
        state.withLock { $0.records[ObjectIdentifier(subject)]?.count ?? 0 }
    }
}

extension Subscription {
    /// The keys its own coalescing's table holds: bursts gathering or being delivered; a quiet key holds none.
    var coalescingKeyCount: Int {
        route?.coalescing?.bursts.slots.withLock { $0?.count ?? 0 } ?? 0
    }
}

extension FIFO {
    /// The slots held, taken or not, for tests of the memory bound.
    var capacityUsed: Int { slots.count }
}
