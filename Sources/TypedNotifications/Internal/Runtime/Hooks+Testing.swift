// The debug-only hooks take a center in their package signatures; release builds have none of them.
#if DEBUG
package import Foundation
#else
import Foundation
#endif

#if DEBUG
/// Hooks that let tests pin a race window, in debug builds only: each is a no-op until a test installs one.
///
/// Keyed by the object they watch, so that tests running in parallel never see each other's hooks.
package enum TestHooks {
    /// What to call when the package loads an owner's weak reference, by the owner's identity.
    private static let ownerLoads = Locked<[ObjectIdentifier: @Sendable (AnyObject) -> Void]>([:])
    /// How many hooks are installed, so that a load with none costs one atomic read.
    private static let installed = AtomicWord.make()

    /// Calls `hook` on the loading thread, with the owner held strongly, each time the package loads `owner`'s weak
    /// reference (to see whether an owner-bound observation lives), until ``removeOwnerLoadHook(for:)``.
    ///
    /// A hook that drops the test's last reference to the owner makes the package the last holder, so the owner's
    /// `deinit` runs where the package loaded it.
    package static func onOwnerLoad(of owner: AnyObject, _ hook: @escaping @Sendable (AnyObject) -> Void) {
        ownerLoads.withLock { $0[ObjectIdentifier(owner)] = hook }
        installed.add(1)
    }

    package static func removeOwnerLoadHook(for id: ObjectIdentifier) {
        let removed = ownerLoads.withLock { $0.removeValue(forKey: id) }
        if removed != nil { installed.add(UInt64.max) }
    }

    /// While set, lookups check a channel's center itself, as where Foundation keeps a dead center's observers (see
    /// ``Platform/checksCenterIdentity``); for the test that simulates such a Foundation.
    private static let centerChecks = AtomicWord.make()

    package static var checksCenterIdentity: Bool {
        get { centerChecks.isSet }
        set { centerChecks.store(newValue ? 1 : 0) }
    }

    static func didLoadOwner(_ owner: AnyObject) {
        guard installed.load() != 0 else { return }
        let hook = ownerLoads.withLock { $0[ObjectIdentifier(owner)] }
        hook?(owner)
    }

    /// A point of a post on one center where a test may step in.
    package enum PostPoint: Hashable, Sendable {
        /// A typed post that has typed observers has made its record (see ``FoundationBridge``) and is about to call
        /// Foundation. A hook that has another thread observe meanwhile registers a Foundation observer that
        /// Foundation may call for the post, as when that thread wins the race on its own.
        case foundationPost
        /// A post (or a burst's end) has found its observers on a target active and is about to queue their
        /// deliveries (see ``DeliveryTarget/queue(_:isCurrent:)``). A hook that ends one of them
        /// meanwhile does so between the check and the queueing, as another thread may.
        case queueing
    }

    /// What to call at a point of a post, by the point and the center's identity.
    private static let postHooks = Locked<[PostHookKey: @Sendable () -> Void]>([:])

    private struct PostHookKey: Hashable {
        let point: PostPoint
        let center: ObjectIdentifier
    }

    /// Calls `hook` on the posting thread each time a post on `center` reaches `point`, until
    /// ``removeHook(at:for:)``.
    package static func on(_ point: PostPoint, in center: NotificationCenter, _ hook: @escaping @Sendable () -> Void) {
        postHooks.withLock { $0[PostHookKey(point: point, center: ObjectIdentifier(center))] = hook }
        installed.add(1)
    }

    package static func removeHook(at point: PostPoint, for center: NotificationCenter) {
        let key = PostHookKey(point: point, center: ObjectIdentifier(center))
        let removed = postHooks.withLock { $0.removeValue(forKey: key) }
        if removed != nil { installed.add(UInt64.max) }
    }

    static func reached(_ point: PostPoint, on centerID: ObjectIdentifier) {
        guard installed.load() != 0 else { return }
        let hook = postHooks.withLock { $0[PostHookKey(point: point, center: centerID)] }
        hook?()
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

extension FIFO {
    /// The slots held, taken or not, for tests of the memory bound.
    var capacityUsed: Int { slots.count }
}
