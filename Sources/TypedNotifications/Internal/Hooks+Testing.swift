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
    /// ``CenterIdentity``); for the test that simulates such a Foundation.
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

    /// What to call when a typed post with typed observers is about to go to Foundation, by the center's identity.
    private static let foundationPosts = Locked<[ObjectIdentifier: @Sendable () -> Void]>([:])

    /// Calls `hook` on the posting thread each time a typed post on `center` that has typed observers has made its
    /// record (see ``FoundationBridge``) and is about to call Foundation, until ``removeFoundationPostHook(for:)``.
    ///
    /// A hook that has another thread observe meanwhile registers a Foundation observer that Foundation may call for
    /// the post, as when that thread wins the race on its own.
    package static func onFoundationPost(in center: NotificationCenter, _ hook: @escaping @Sendable () -> Void) {
        foundationPosts.withLock { $0[ObjectIdentifier(center)] = hook }
        installed.add(1)
    }

    package static func removeFoundationPostHook(for center: NotificationCenter) {
        let removed = foundationPosts.withLock { $0.removeValue(forKey: ObjectIdentifier(center)) }
        if removed != nil { installed.add(UInt64.max) }
    }

    static func willPostToFoundation(on center: NotificationCenter) {
        guard installed.load() != 0 else { return }
        let hook = foundationPosts.withLock { $0[ObjectIdentifier(center)] }
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
        state.withLock { $0.records[ObjectIdentifier(subject)]?.channels.count ?? 0 }
    }
}

extension FIFO {
    /// The slots held, taken or not, for tests of the memory bound.
    var capacityUsed: Int { slots.count }
}
