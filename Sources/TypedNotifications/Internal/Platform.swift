import Foundation

// Everything that differs between Apple platforms and the others is here, and the lock primitive in `Lock.swift`:
// how a Foundation observer's token is kept, how a post knows it runs on the main actor, how the main queue is told,
// and the two facts about Foundation probed once per process. Delivery itself is the same code everywhere.
//
// `-Xswiftc -DTYPED_NOTIFICATIONS_SIMULATE_DARWIN` takes every Apple code path that compiles on Linux, and bridges
// `userInfo` as Apple's Foundation does. Only the lock primitive stays Linux's; it then traps on re-entry, as
// `os_unfair_lock` does.

// MARK: - Foundation's observer tokens

/// The token `addObserver(forName:object:queue:using:)` returns, kept for `removeObserver(_:)` without keeping the
/// observer's block alive after its center is gone (the block's release is how the package learns that a center died:
/// see ``BridgeRegistration``).
struct FoundationObserverToken {
    #if canImport(Darwin)
    /// Weak: Apple's center "strongly holds this return value until you remove the observer registration", and the
    /// token holds the block.
    weak var object: AnyObject?
    #else
    /// Strong: Swift's Foundation returns a token of identifiers only, which nothing else holds (a weak reference would
    /// let it go at once, also in the simulated-Apple build); the center alone holds the block.
    var object: AnyObject?
    #endif

    init(_ token: any NSObjectProtocol) {
        object = token
    }
}

// MARK: - userInfo as observers receive it

enum PlatformBridging {
    /// The `userInfo` that the package hands to `NotificationCenter.post(name:object:userInfo:)`.
    ///
    /// On Apple platforms Foundation bridges it to `NSDictionary` and observers read it back as a dictionary that may
    /// not be the one posted: values become Objective-C objects (`nil`, at any depth of optionals, the `NSNull`
    /// singleton; numbers and `Bool` `NSNumber`; strings `NSString`; other Swift values boxed; class instances stay
    /// themselves). The simulated-Apple build posts a new dictionary whose top-level values are bridged so, by Swift's
    /// Foundation's own `as AnyObject` after unwrapping optionals. Elsewhere `userInfo` is passed on as it is.
    @inline(__always)
    static func postable(_ userInfo: [AnyHashable: Any]?) -> [AnyHashable: Any]? {
        #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        userInfo.map { userInfo in userInfo.mapValues(objectiveCValue) }
        #else
        userInfo
        #endif
    }

    #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
    /// Optionals are unwrapped first, as Apple's bridge does (SE-0140): Swift's Foundation turns a nested `nil` into
    /// an object that still casts back to `Optional(nil)`, never a plain `NSNull`.
    private static func objectiveCValue(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .optional else { return value as AnyObject }
        return mirror.children.first.map { objectiveCValue($0.value) } ?? NSNull()
    }
    #endif
}

// MARK: - The main actor

/// How a post knows that it runs on the main actor, so that main-actor observers run during it: when the compiler
/// says so (the post's `isolation: isolated (any Actor)? = #isolation`), and on Apple platforms (and in the
/// simulated-Apple build) also on the main thread, which *is* the main actor there (UIKit and AppKit callbacks,
/// observers registered with `queue: .main`). On Linux the main thread proves nothing: main-actor jobs may run
/// elsewhere.
@usableFromInline
enum PlatformIsolation {
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
    /// On Apple platforms without `MainActor.assumeIsolated`: before Swift 6's runtime (iOS 15-17, macOS 12-14) that
    /// check can trap on the main thread outside a main-actor job (a GCD block, a UIKit callback). Elsewhere the check
    /// stays.
    @usableFromInline
    static func onMainActor<Payload: Sendable>(
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> @Sendable (Payload) -> Void {
        #if canImport(Darwin)
        // Safe: a `@MainActor` closure has a plain one's layout, and the package calls it only on the main actor.
        unsafeBitCast(handler, to: (@Sendable (Payload) -> Void).self)
        #else
        { payload in MainActor.assumeIsolated { handler(payload) } }
        #endif
    }
}

// MARK: - userInfo on its way to observers (probed)

extension PlatformBridging {
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
            let same = notification.userInfo.map { StorageIdentity.same(posted, $0) } ?? false
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
/// address never finds the dead one's observers. Checking always instead costs an observe-then-cancel cycle 12.8% more
/// instructions (2,176 → 2,454) and a post to one observer 1.8% (7,718 → 7,857; callgrind,
/// `Benchmarks/instructions.sh`).
enum CenterIdentity {
    /// Whether lookups load the weak reference; `false` where Foundation releases a dead center's observers.
    @usableFromInline
    static var isChecked: Bool {
        #if DEBUG
        if TestHooks.checksCenterIdentity { return true }
        #endif
        return !foundationReleasesObserversOfDeadCenters
    }

    /// Probed when the registry is made (``ObserverRegistry/shared``), never under its lock.
    static let foundationReleasesObserversOfDeadCenters: Bool = {
        LockDiscipline.assertNoLockHeld("probes Foundation")
        weak var probe: Probe?
        // A center with an observer whose block holds the probe, let go without removing the observer.
        func observeAndDrop() {
            let held = Probe()
            probe = held
            _ = NotificationCenter().addObserver(forName: .init("TypedNotifications.probe"), object: nil, queue: nil) {
                _ in withExtendedLifetime(held) {}
            }
        }
        #if canImport(Darwin)
        autoreleasepool { observeAndDrop() }
        #else
        observeAndDrop()
        #endif
        return probe == nil
    }()

    private final class Probe: Sendable {}
}

// MARK: - The main queue

enum PlatformQueues {
    /// Whether `queue` is the main queue. Swift's Dispatch on Linux makes a new wrapper each time `DispatchQueue.main`
    /// is read, so there it is told by a queue-specific value the package sets once (never by its label, which any
    /// queue may take).
    static func isMain(_ queue: DispatchQueue) -> Bool {
        #if canImport(Darwin)
        queue === DispatchQueue.main
        #else
        queue === DispatchQueue.main || queue.getSpecific(key: mainKey) == true
        #endif
    }

    #if !canImport(Darwin)
    /// Set on the main queue (the underlying queue, whatever wrapper reads it) when first used.
    private static let mainKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()
    #endif

    /// The identity the main queue's delivery target is found by, whatever wrapper object the observer passed.
    static let mainQueueIdentity = ObjectIdentifier(MainQueueIdentity.self)

    private enum MainQueueIdentity {}
}
