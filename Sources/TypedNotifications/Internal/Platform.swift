import CTypedNotificationsRuntime
import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Android)
import Android
#endif

// Everything in the package that differs between Apple platforms and the others is in this file and in `Lock.swift`
// (the lock primitive): how the token of a Foundation observer is kept, how a post knows it runs on the main actor, and (in the build that
// simulates Apple platforms on Linux) how `userInfo` reaches observers. Delivery itself is the same code everywhere.
//
// `-Xswiftc -DTYPED_NOTIFICATIONS_SIMULATE_DARWIN` builds the simulation: every Apple code path that compiles on
// Linux is taken. Only the lock primitive is Linux's, and it then traps on re-entry as `os_unfair_lock` does.

// MARK: - Foundation's observer tokens

/// How the package keeps the token that `NotificationCenter.addObserver(forName:object:queue:using:)` returns: alive
/// for `removeObserver(_:)`, and never keeping the observer's block alive after the center is gone (the block owns a
/// ``BridgeRegistration``, whose release is how the package learns that a center was deallocated).
struct FoundationObserverToken {
    #if canImport(Darwin)
    /// Weak: Apple's `NotificationCenter` holds the token it returns until the observer is removed ("The notification
    /// center strongly holds this return value until you remove the observer registration"), and the token holds the
    /// block, so a strong reference here would keep the block alive after the center is deallocated.
    weak var object: AnyObject?
    #else
    /// Strong: Swift's open-source Foundation returns a token that holds only identifiers, and nothing else holds it.
    /// The block alone is held by the center, and goes with it. (Also in the simulated-Apple build, which runs on this
    /// Foundation: a weak reference would let the token go at once, and the observer could never be removed.)
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
    /// not be the one posted: values become Objective-C objects (`Optional.none` becomes `NSNull`, numbers and `Bool`
    /// become `NSNumber`, other Swift values are boxed; class instances stay themselves). The simulated-Apple build
    /// does the part Linux's Foundation can mimic, to the top-level values: it posts a new dictionary with `nil` as
    /// `NSNull`, numbers and `Bool` as `NSNumber`, and other values as objects (Swift values boxed). Elsewhere
    /// `userInfo` is passed on as it is.
    @inline(__always)
    static func postable(_ userInfo: [AnyHashable: Any]?) -> [AnyHashable: Any]? {
        #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        userInfo.map { userInfo in userInfo.mapValues(objectiveCValue) }
        #else
        userInfo
        #endif
    }

    #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
    /// `value` as Foundation on Apple platforms may hand it back after bridging it to Objective-C.
    private static func objectiveCValue(_ value: Any) -> Any {
        let mirror = Mirror(reflecting: value)
        if mirror.displayStyle == .optional {
            guard let wrapped = mirror.children.first?.value else { return NSNull() }
            return objectiveCValue(wrapped)
        }
        switch value {
        case let value as Bool: return NSNumber(value: value)
        case let value as Int: return NSNumber(value: value)
        case let value as Int8: return NSNumber(value: value)
        case let value as Int16: return NSNumber(value: value)
        case let value as Int32: return NSNumber(value: value)
        case let value as Int64: return NSNumber(value: value)
        case let value as UInt: return NSNumber(value: value)
        case let value as UInt8: return NSNumber(value: value)
        case let value as UInt16: return NSNumber(value: value)
        case let value as UInt32: return NSNumber(value: value)
        case let value as UInt64: return NSNumber(value: value)
        case let value as Float: return NSNumber(value: value)
        case let value as Double: return NSNumber(value: value)
        // Other values become objects: class instances stay themselves, Swift structs and enums are boxed
        // (`__SwiftValue`) as Apple's bridge boxes them, and `as?` unboxes them again.
        default: return value as AnyObject
        }
    }
    #endif
}

// MARK: - The main actor

/// How a post knows that it runs on the main actor, so that main-actor observers run during it.
///
/// Everywhere: when the caller is isolated to the main actor, as the compiler tells the post through its
/// `isolation: isolated (any Actor)? = #isolation` parameter. On Apple platforms (and in the simulated-Apple build)
/// also when a caller that the compiler does not know to be isolated runs on the main thread: there the main actor
/// *is* the main thread, as it is for UIKit and AppKit callbacks and for `NotificationCenter` observers registered
/// with `queue: .main`. Elsewhere the main thread proves nothing: Swift on Linux may run main-actor jobs on other
/// threads.
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

    /// `handler` as a closure the package calls only where it runs on the main actor: during a post that
    /// ``isMainActor(_:)`` says is on it, or from a job on the main actor.
    ///
    /// On Apple platforms it is called without `MainActor.assumeIsolated`: before Swift 6's runtime (iOS 15-17,
    /// macOS 12-14), that check can trap on the main thread when the code there is not a main-actor job (a GCD block,
    /// a UIKit callback that the compiler does not know to be isolated), although the main thread *is* the main actor
    /// there. The package's own rule is what makes the call safe. Elsewhere the runtime's check stays: the main
    /// thread proves nothing there.
    @usableFromInline
    static func onMainActor<Payload: Sendable>(
        _ handler: @escaping @MainActor @Sendable (Payload) -> Void
    ) -> @Sendable (Payload) -> Void {
        #if canImport(Darwin)
        // Safe: a `@MainActor` closure has the layout of a plain one; only where it may be called differs, and the
        // package calls it only on the main actor, as above.
        unsafeBitCast(handler, to: (@Sendable (Payload) -> Void).self)
        #else
        { payload in MainActor.assumeIsolated { handler(payload) } }
        #endif
    }
}

// MARK: - userInfo on its way to observers (probed)

extension PlatformBridging {
    /// Whether observers of a post receive a copy of its `userInfo` rather than the dictionary posted: found out once
    /// per process, by posting a dictionary on a center of the package's own and comparing what its observer gets.
    ///
    /// Swift's Foundation hands the dictionary over as it is; so does Apple's, whose bridging adopts the native storage
    /// of a Swift dictionary on the way back. The build that simulates Apple platforms copies it (see ``postable(_:)``),
    /// standing for a Foundation that rebuilds it. See `FoundationBridge` for what depends on it.
    static let foundationCopiesUserInfo: Bool = {
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

/// Whether a center's channel must be checked against the center itself, not only its identity.
///
/// When a center is deallocated, Foundation releases its observers' blocks, and with them the package's bridges,
/// which drop the center's channels before its memory can be reused (see ``BridgeRegistration``); a channel found by
/// the center's identity is then always the center's own. Swift's Foundation does so, and so, surely, does Apple's,
/// but nothing documents it: this is found out once per process, by letting a center with an observer go and seeing
/// whether the observer's block is released. Where it is not, every lookup also loads the channel's weak reference
/// to its center (a weak load and a release through the center's side table), so that a new center at a dead one's
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

    static let foundationReleasesObserversOfDeadCenters: Bool = {
        let released = AtomicWord.make()
        let probe = ReleaseProbe { _ = released.set() }
        #if canImport(Darwin)
        autoreleasepool { observeAndDrop(holding: probe) }
        #else
        observeAndDrop(holding: probe)
        #endif
        _ = consume probe
        return released.isSet
    }()

    /// A center with an observer whose block holds `probe`, let go without removing the observer.
    private static func observeAndDrop(holding probe: ReleaseProbe) {
        let center = NotificationCenter()
        _ = center.addObserver(forName: .init("TypedNotifications.probe"), object: nil, queue: nil) { _ in
            withExtendedLifetime(probe) {}
        }
    }

    /// Calls `onRelease` when deallocated.
    private final class ReleaseProbe: Sendable {
        let onRelease: @Sendable () -> Void

        init(_ onRelease: @escaping @Sendable () -> Void) {
            self.onRelease = onRelease
        }

        deinit { onRelease() }
    }
}

// MARK: - The main queue

enum PlatformQueues {
    /// Whether `queue` is the main queue.
    ///
    /// On Apple platforms `DispatchQueue.main` is one object. Swift's Dispatch elsewhere makes a new wrapper object each
    /// time `DispatchQueue.main` is read, so the main queue is told there by a queue-specific value that the package
    /// sets on it once (never by its label, which any queue may take).
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
