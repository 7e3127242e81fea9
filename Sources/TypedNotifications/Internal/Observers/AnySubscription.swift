// Public only so that the inlinable post path can read the ended flag (`hasEnded`).
public import CTypedNotificationsRuntime
public import Foundation

/// The type-independent part of one observer, in a ``Channel``: the registry's bookkeeping runs on it as concrete code;
/// only delivering a payload is generic. An observation ends on ``cancel()``, when its owner is found dead (by a post,
/// a sweep or its target), or when its center goes; then its handler is never called, even for a queued delivery.
///
/// **Weak loads.** No weak reference is loaded under a package lock: loading makes a strong reference, and if the other
/// holders let go meanwhile, `deinit` would run under the lock. The sender filter is loaded only if the post's sender
/// (held by the poster) has its identity (``senderID``). The owner (``Subscription/Route``) is loaded only outside
/// locks, and for a main-actor or main-queue observer only on the main actor, so that the package never becomes the
/// last holder of a main-actor object on another thread.
///
/// **Ending.** One rule decides whether a delivery may still run, on the posting thread and on every target alike: the
/// ``hasEnded`` flag, set once when the observation ends (``markEnded()``, under the registry's lock, which makes
/// "ends once" one decision) and read without a lock. Every check reads it just before the step it guards (a direct
/// call, queueing, a queued delivery's admission, the last check after an owner or a `where:` condition). The flag is
/// stored before `cancel()` returns, and a thread that knows that `cancel()` returned has synchronised with the thread
/// that called it, so its later loads happen after the store and read it (C11's coherence; the release store and
/// acquire loads also publish what the ending thread wrote before). A check that raced the store and passed belongs to
/// a call that started while `cancel()` ran, which `cancel()` never waits for: so once `cancel()` returns, no call
/// starts, on any target, coalesced or not, as with the lock this flag replaced, without a lock per delivery.
///
/// `@unchecked Sendable` for the weak sender, whose type need not be `Sendable`: it is only compared by identity, and
/// the runtime reads and clears weak references atomically; for the ended flag, only ever accessed through C11
/// atomics; for ``tally``, only used under its target's lock, and ``slot``, only under the registry's. All else is
/// immutable after `init`.
@usableFromInline
class AnySubscription: @unchecked Sendable {
    // Ordered to leave no padding: the one-byte properties and the tally share the first word, the slot shares the
    // site's last word. `endedFlag` must stay the first stored property: `endedFlagAddress` finds it there.
    /// `0`, then `1` once the observation has ended. Never read or written by Swift after `init`: only through C11
    /// atomics at `endedFlagAddress`, as the standard library keeps atomic fields in class instances of its own.
    private var endedFlag: UInt8 = 0
    @usableFromInline
    let isOwnerBound: Bool
    /// ``coalesces``, ``takesSender`` and ``waitsInOwnQueue``, one bit each: `Bool`s would push ``tally`` out of the
    /// first word and add a word to every observation (the memory rows of `TypedNotificationsRatios --filter memory`).
    @usableFromInline
    let traits: UInt8
    let kind: TypedObservation.Delivery
    /// The deliveries for this observer waiting in its target's queue (see ``DeliveryTarget/Tally``); only under the
    /// target's lock.
    var tally = DeliveryTarget.Tally()
    @usableFromInline
    let channel: Channel
    /// The sender filter's identity as a bit pattern (`0` for none); see "Weak loads" above.
    @usableFromInline
    let senderID: UInt
    /// Weak, so that a freed sender never matches again, even when a new object takes its address. Set once, in `init`.
    @usableFromInline
    weak var sender: AnyObject?
    /// Where the handler runs (see ``DeliveryTarget``); `nil` for an observer called on the posting thread.
    @usableFromInline
    let target: DeliveryTarget?
    /// Where the observation was made, for ``Foundation/NotificationCenter/typedObservations``.
    let site: ObservationSite
    /// Its index in ``Channel/subscriptions`` while registered, so that ending it finds it at once; only under the
    /// registry's lock.
    var slot: UInt32 = 0
    /// For an owner-bound observation, the handle that holds it (its ``OwnerBoundObservation``'s token), while it
    /// does: such an observation usually ends without it (its owner gone, or its center), and then takes itself out
    /// of it, so that a handler that holds its own handle, directly or through an object, is freed with the
    /// observation (``ObserverRegistry/letGoOfHolder(_:)``). A token's observation has none: it ends without its
    /// token only when its center goes, and holding it there would make every observation that is cancelled cost
    /// about 7% more (the observe-cancel row of the Performance article's instruction table, with the token kept as
    /// an app keeps it). `unowned(unsafe)`, not `weak`: a weak reference would give every handle a side table, an
    /// allocation of its own. Safe because it is set and cleared only under the registry's lock, and cleared there
    /// before its handle goes (``ObserverRegistry/cancel(_:released:)``, from the handle's `deinit`), so it never
    /// points to a freed handle.
    unowned(unsafe) var holder: NotificationToken?

    @usableFromInline
    init(
        channel: Channel,
        sender: AnyObject?,
        isOwnerBound: Bool,
        target: DeliveryTarget?,
        coalesces: Bool,
        takesSender: Bool,
        waitsInOwnQueue: Bool,
        site: ObservationSite,
        kind: TypedObservation.Delivery
    ) {
        self.channel = channel
        traits = (coalesces ? 1 : 0) | (takesSender ? 2 : 0) | (waitsInOwnQueue ? 4 : 0)
        self.site = site
        self.kind = kind
        self.sender = sender
        self.senderID = sender.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        self.isOwnerBound = isOwnerBound
        self.target = target
        #if DEBUG
        assert(
            withUnsafeMutablePointer(to: &endedFlag) { UnsafeMutableRawPointer($0) }
                == _getUnsafePointerToStoredProperties(self),
            "the ended flag must be the first stored property")
        #endif
    }

    /// Whether posts gather in bursts of this observation's own first (its `coalescing:` option), whose end delivers
    /// one payload: on a target, its post goes through ``receive(_:from:isolation:context:)``.
    @inlinable
    final var coalesces: Bool { traits & 1 != 0 }

    /// Whether the handler takes the post's sender, so that a queued delivery keeps it.
    final var takesSender: Bool { traits & 2 != 0 }

    /// Whether the observer's deliveries wait in a queue of its own (an `async` handler, a sequence): a latest-value
    /// type's post appends there in the center's order (``receiveInCenterOrder(_:from:context:isolation:onMainActor:)``).
    @inlinable
    final var waitsInOwnQueue: Bool { traits & 4 != 0 }

    /// Whether the owner may be loaded on any thread: not for an observer on the main actor or main queue.
    final var ownerLoadsAnywhere: Bool { target?.isMain != true }

    /// `false` once an owner-bound observation's owner is gone. Loads the owner: see "Weak loads" above.
    @usableFromInline
    func ownerIsAlive() -> Bool {
        true
    }

    @usableFromInline
    final func cancel() {
        if ObserverRegistry.shared.cancel(self) { didEnd() }
    }

    /// Drops deliveries still queued on the observer's target, for an observation that ended.
    final func discardPending() {
        target?.discardPending(for: self)
    }

    /// Whether the observation has ended; lock-free, one atomic load (see "Ending" above). Inlinable: every post reads
    /// it for each of its observers.
    @inlinable
    final var hasEnded: Bool {
        tn_atomic8_load_acquire(endedFlagAddress) != 0
    }

    /// Ends the observation for every check that comes after; only under the registry's lock, which decides that an
    /// observation ends once (``ObserverRegistry/cancel(_:)``, and a center's end).
    final func markEnded() {
        tn_atomic8_store_release(endedFlagAddress, 1)
    }

    /// The ended flag's address: the first stored property of the root class starts the instance's stored properties,
    /// and an instance never moves while referenced. The standard library reaches atomic fields of its own class
    /// instances the same way.
    @usableFromInline
    final var endedFlagAddress: UnsafeMutablePointer<UInt8> {
        _getUnsafePointerToStoredProperties(self).assumingMemoryBound(to: UInt8.self)
    }

    @usableFromInline
    final func isObserving(_ center: NotificationCenter) -> Bool {
        channel.isOn(center)
    }

    @usableFromInline
    final var activity: UInt64 { channel.activity }

    /// Reports a discarded token; ``Subscription`` knows the type to name.
    @usableFromInline
    func reportDiscarded(site: ObservationSite) {}

    /// Whether a post from `postSender` is for this observer. Loads the filter only when `postSender` has its identity:
    /// then it is that object, or `nil` if the filter's object died and `postSender` took its address.
    @inlinable
    final func accepts(_ postSender: AnyObject?) -> Bool {
        guard senderID != 0 else { return true }
        guard let postSender, UInt(bitPattern: ObjectIdentifier(postSender)) == senderID else { return false }
        return sender === postSender
    }

    /// Reports an undecodable plain post to an observer that wants it and would have taken it; on the posting thread.
    func reportDecodingFailure(_ error: any Error, from postSender: AnyObject?) {}

    /// Runs a delivery that waited for this observer's target, if the observation is still active; on the target.
    func runQueued(_ entry: DeliveryTarget.Entry) {}

    /// A post to an observer that coalesces on a target (``coalesces``), as ``DeliveryTarget/dispatch`` meets it on
    /// the posting thread: its route's first stages (``Subscription/receive(_:boxed:from:isolation:isPost:context:)``).
    /// Returns what the post queues for it on the target in the post's order: a throttle's first post of a quiet
    /// period, or a check of a main-actor owner, which only the target may load; usually nothing.
    func receive(
        _ boxed: AnyObject, from postSender: AnyObject?, isolation: (any Actor)?, context: PostContext
    ) -> DeliveryTarget.Entry? { nil }

    /// A latest-value type's post to an observer with a queue of its own or its own coalescing, under the registry's
    /// lock, in the step that makes it the latest (see ``DeliveryTarget/enqueueInLatestOrder``): appended to that
    /// queue, or gathered into its bursts (``Subscription/gatherLatest(_:from:context:isolation:onMainActor:)``).
    /// Returns what enters its target's queue in the same step, a first post that the post loop delivers (with the
    /// waits it holds), and what to run after the lock.
    func receiveInCenterOrder(
        _ boxed: AnyObject, from sender: AnyObject?, context: PostContext, isolation: (any Actor)?, onMainActor: Bool
    ) -> (entry: DeliveryTarget.Entry?, lead: PendingDeliveries?, after: () -> Void) { (nil, nil, {}) }

    /// Called once the observation ended, outside every lock: drops what is queued for it; its own queue finishes.
    func didEnd() {}
}

/// Where an observation was made: the observing call's `#fileID` literal, by address, and its `#line`.
/// `@unchecked Sendable` for the pointer, to a string literal: static data of its module, never written or freed.
///
/// For memory, not speed: a `StaticString` and a `UInt` instead would make each observation larger than the plain
/// `NotificationCenter` twin's, where it is now smaller (the memory rows of `TypedNotificationsRatios --filter
/// memory`).
@usableFromInline
struct ObservationSite: @unchecked Sendable {
    /// A `#fileID` literal's UTF-8 bytes, NUL-terminated (for `String(cString:)`) as every string literal is.
    private let start: UnsafePointer<UInt8>
    @usableFromInline
    let line: UInt32

    @usableFromInline
    init(fileID: StaticString, line: UInt) {
        // `#fileID` is always a string literal, so the static string has a pointer representation.
        start = fileID.utf8Start
        self.line = UInt32(truncatingIfNeeded: line)
    }

    @usableFromInline
    var fileID: String {
        String(cString: start)
    }
}
