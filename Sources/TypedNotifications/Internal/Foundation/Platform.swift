import Foundation

// Everything that differs between Apple platforms and the others is here, and the lock primitive in `Lock.swift`:
// how a Foundation observer's token is kept, how a post knows it runs on the main actor, how a main-actor handler is
// called, and the two facts about Foundation probed once per process. Delivery itself is the same code everywhere.
//
// `-Xswiftc -DTYPED_NOTIFICATIONS_SIMULATE_DARWIN` takes the Apple code paths that compile on Linux: the main thread
// counted as the main actor, and main-actor handlers called without `MainActor.assumeIsolated`. It keeps the Linux
// code where the Apple code names an Apple-only symbol, each a line beside the Linux line it replaces (listed in
// `Docs/ARCHITECTURE.md`): `autoreleasepool` in `withAutoreleasePool(_:)`, and the lock primitive's branches in
// `Lock.swift` (`os_unfair_lock`), whose mutex then traps on re-entry, as `os_unfair_lock` does; and where it relies on
// Apple's center keeping a Foundation observer's token (`addObserver(_:on:using:)`), which Swift's does not. It also
// stands in for what Apple's Foundation does that Swift's does not: it bridges `userInfo` as Apple's Foundation does.

/// What differs between Apple platforms and the others, in one namespace (see the comment above).
@usableFromInline
enum Platform {}

// MARK: - Foundation's observer tokens

extension Platform {
    /// Adds a Foundation observer of `name` on `center`, of every sender, called on the posting thread, and returns
    /// its token, for `removeObserver(_:)`, which the center keeps for as long as the observer is registered: the
    /// caller holds it weakly (``BridgeRegistration/token``), so that it never keeps the observer's block alive after
    /// its center is gone (the block's release is how the package learns that a center died).
    ///
    /// Apple's center "strongly holds this return value until you remove the observer registration". Swift's holds
    /// the block and not the token, which holds identifiers only: there the block holds the token, from the
    /// registration until the center releases the block (the observer's removal, or the center's death), which keeps
    /// it exactly as long, with no cycle.
    static func addObserver(
        _ name: Notification.Name,
        on center: NotificationCenter,
        using block: @escaping @Sendable (Notification) -> Void
    ) -> AnyObject {
        #if canImport(Darwin)
        center.addObserver(forName: name, object: nil, queue: nil, using: block)
        #else
        // `Locked` so that the `@Sendable` block may capture the box; it is written once, here, and never read: it
        // only keeps the token.
        let held = Locked<AnyObject?>(nil)
        let token = center.addObserver(forName: name, object: nil, queue: nil) { notification in
            withExtendedLifetime(held) { block(notification) }
        }
        held.withLock { $0 = token }
        return token
        #endif
    }
}

// MARK: - userInfo as observers receive it

extension Platform {
    /// The `userInfo` that the package hands to `NotificationCenter.post(name:object:userInfo:)`.
    ///
    /// On Apple platforms Foundation bridges it to `NSDictionary` and observers read it back as a dictionary that may
    /// not be the one posted: values become Objective-C objects (`nil`, at any depth of optionals, the `NSNull`
    /// singleton; numbers and `Bool` `NSNumber`; strings `NSString`; arrays and dictionaries `NSArray` and
    /// `NSDictionary` of values bridged so; other Swift values boxed; class instances stay themselves). The
    /// simulated-Apple build posts a new dictionary whose values are bridged so (``objectiveCValue(_:)``), by Swift's
    /// Foundation's own `as AnyObject` once optionals, arrays and dictionaries are taken apart. Elsewhere `userInfo` is
    /// passed on as it is.
    @inline(__always)
    static func postable(_ userInfo: [AnyHashable: Any]?) -> [AnyHashable: Any]? {
        #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        userInfo.map { userInfo in userInfo.mapValues(objectiveCValue) }
        #else
        userInfo
        #endif
    }

    #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
    /// `value` as Apple's bridge writes it: optionals unwrapped first, `nil` at any depth of optionals the `NSNull`
    /// singleton (SE-0140), where Swift's Foundation turns a nested `nil` into an object that still casts back to
    /// `Optional(nil)`; arrays and dictionaries as `NSArray` and `NSDictionary` of values bridged so, at any depth.
    private static func objectiveCValue(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        switch mirror.displayStyle {
        case .optional:
            return mirror.children.first.map { objectiveCValue($0.value) } ?? NSNull()
        case .collection where value is [Any]:
            return NSArray(array: mirror.children.map { objectiveCValue($0.value) })
        case .dictionary:
            guard let entries = value as? [AnyHashable: Any] else { return value as AnyObject }
            return NSDictionary(dictionary: entries.mapValues(objectiveCValue))
        default:
            return value as AnyObject
        }
    }
    #endif
}

// MARK: - The main actor

/// How a post knows that it runs on the main actor, so that main-actor observers run during it: when the compiler
/// says so (the post's `isolation: isolated (any Actor)? = #isolation`), and on Apple platforms (and in the
/// simulated-Apple build) also on the main thread, which *is* the main actor there (UIKit and AppKit callbacks,
/// observers registered with `queue: .main`). On Linux the main thread proves nothing: main-actor jobs may run
/// elsewhere.
extension Platform {
    /// Whether the main thread counts as the main actor on this platform.
    package static var mainThreadIsMainActor: Bool {
        #if canImport(Darwin) || TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        true
        #else
        false
        #endif
    }

    /// Whether a post made with `isolation` runs on the main actor.
    @usableFromInline
    static func isMainActor(_ isolation: (any Actor)?) -> Bool {
        if let isolation { return isolation === MainActor.shared }
        LockDiscipline.assertNoLockHeld("asks Foundation whether it runs on the main thread")
        return mainThreadIsMainActor && Thread.isMainThread
    }

    /// `handler` as a closure the package calls only on the main actor (during a post that ``isMainActor(_:)`` says is
    /// on it, or from a main-actor job).
    ///
    /// Where the main thread is the main actor, without `MainActor.assumeIsolated`: before Swift 6's runtime (iOS
    /// 15-17, macOS 12-14) that check can trap on the main thread outside a main-actor job (a GCD block, a UIKit
    /// callback). Elsewhere the check stays.
    @usableFromInline
    static func onMainActor<Payload: Sendable>(
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> @Sendable (Payload) -> Void {
        #if canImport(Darwin) || TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        // Safe: a `@MainActor` closure has a plain one's layout, and the package calls it only on the main actor.
        unsafeBitCast(handler, to: (@Sendable (Payload) -> Void).self)
        #else
        { payload in MainActor.assumeIsolated { handler(payload) } }
        #endif
    }

    /// As above, for an owner-bound handler, which the checks before it hand the owner they loaded.
    static func onMainActor<Payload: Sendable>(
        _ handler: @escaping @MainActor @Sendable (Payload, AnyObject?) -> Void
    ) -> @Sendable (Payload, AnyObject?, AnyObject?) -> Void {
        #if canImport(Darwin) || TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        // Safe, as above.
        let handler = unsafeBitCast(handler, to: (@Sendable (Payload, AnyObject?) -> Void).self)
        return { payload, _, owner in handler(payload, owner) }
        #else
        return { payload, _, owner in
            // `nonisolated(unsafe)` is safe: every owner the public API takes is `Sendable`.
            nonisolated(unsafe) let owner = owner
            MainActor.assumeIsolated { handler(payload, owner) }
        }
        #endif
    }
}

// MARK: - userInfo on its way to observers (probed)

extension Platform {
    /// Whether observers receive a copy of a post's `userInfo` rather than the dictionary posted, probed once per
    /// process on a center of the package's own. Swift's Foundation hands it over as it is; so does Apple's, whose
    /// bridging adopts a Swift dictionary's native storage on the way back. The simulated-Apple build copies it
    /// (``postable(_:)``), standing for a Foundation that rebuilds it. `FoundationBridge` depends on it.
    static let foundationCopiesUserInfo: Bool = {
        LockDiscipline.assertNoLockHeld("probes Foundation")
        let center = NotificationCenter()
        let name = Notification.Name("TypedNotifications.probe")
        // `nonisolated(unsafe)` is safe: the observer reads it only during the synchronous `post` below, on this
        // thread, and nothing writes it.
        nonisolated(unsafe) let posted: [AnyHashable: Any] = [Notification.typedPayloadKey: 0]
        let sameStorage = Locked<Bool?>(nil)
        let observer = center.addObserver(forName: name, object: nil, queue: nil) { notification in
            let same = notification.userInfo.map { FoundationBridge.hasSameStorage(posted, $0) } ?? false
            sameStorage.withLock { $0 = same }
        }
        center.post(name: name, object: nil, userInfo: postable(posted))
        center.removeObserver(observer)
        return sameStorage.withLock { $0 } != true
    }()
}

// MARK: - Centers that die (probed)

/// Whether a channel found by its center's identity must also be checked against the center itself.
///
/// When a center dies, Foundation releases its observers' blocks, and with them the package's bridges, which drop
/// the center's channels before its memory can be reused (``BridgeRegistration``). Swift's Foundation does, and surely
/// Apple's, but nothing documents it: it is probed once per process, by letting a center with an observer go. Where
/// it does not, lookups also load the channel's weak reference to its center, so that a new center at a dead one's
/// address never finds the dead one's observers. Not checked always: loading the weak reference retains and
/// releases the center, two atomic operations in every lookup of a channel, which observing, cancelling and posting
/// each make (the observe-cancel and post-1 rows of the Performance article's instruction table).
extension Platform {
    /// Whether lookups load the weak reference; `false` where Foundation releases a dead center's observers.
    @usableFromInline
    static var checksCenterIdentity: Bool {
        #if DEBUG
        if TestHooks.checksCenterIdentity { return true }
        #endif
        return !foundationReleasesObserversOfDeadCenters
    }

    /// Probed when the registry is made (``ObserverRegistry/shared``), never under its lock.
    static let foundationReleasesObserversOfDeadCenters: Bool = {
        LockDiscipline.assertNoLockHeld("probes Foundation")
        weak var probe: Locked<Void>?
        // A center with an observer whose block holds the probe (any object), let go without removing the observer.
        func observeAndDrop() {
            let held = Locked(())
            probe = held
            _ = NotificationCenter().addObserver(forName: .init("TypedNotifications.probe"), object: nil, queue: nil) {
                _ in withExtendedLifetime(held) {}
            }
        }
        // In a pool: on Apple platforms the center may be autoreleased, and the probe must see it go.
        withAutoreleasePool(observeAndDrop)
        return probe == nil
    }()
}

// MARK: - Autorelease pools

/// Runs `body` in an autorelease pool where Objective-C has them, so that what it autoreleases is released when it
/// returns; elsewhere nothing is autoreleased, and `body` simply runs.
func withAutoreleasePool<Result>(_ body: () throws -> Result) rethrows -> Result {
    #if canImport(Darwin)
    try autoreleasepool(invoking: body)
    #else
    try body()
    #endif
}

// MARK: - The main queue

extension Platform {
    /// Whether `queue` is the main queue: the very object `DispatchQueue.main` returns, which is always the same one
    /// on Apple platforms; or, where Swift's Dispatch makes a new wrapper each time `DispatchQueue.main` is read (on
    /// Linux), a wrapper of it, told by a queue-specific value the package sets on it once (never by its label, which
    /// any queue may take). The same code on every platform: the value is read from `queue` itself, never from a
    /// queue it targets, so a queue that merely targets the main queue is not it.
    static func isMainQueue(_ queue: DispatchQueue) -> Bool {
        queue === DispatchQueue.main || queue.getSpecific(key: mainKey) == true
    }

    /// Set on the main queue (the underlying queue, whatever wrapper reads it) when first used.
    private static let mainKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    /// The identity the main queue's delivery target is found by, whatever wrapper object the observer passed: a
    /// metatype's, static metadata that no object's address can equal.
    static let mainQueueIdentity = ObjectIdentifier(Platform.self)
}
