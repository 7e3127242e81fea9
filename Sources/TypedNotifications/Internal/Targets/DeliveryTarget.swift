public import Foundation

/// One serial place where one center's handlers run: the main actor, one actor, one `DispatchQueue` or one
/// `OperationQueue` (its observers share one FIFO, those that coalesce what they receive included). Per center, so
/// that one center's backlog never holds up another's and centers (one per test, say) stay independent. The registry
/// makes one per center and queue or actor, counts its observations, and finds it by identity under its lock, with no
/// weak load.
///
/// **One order per target.** A post queues its payload for all of a target's observers in one step (one lock round
/// trip, on reaching the first of them in registration order); the target runs its FIFO in order, one entry at a time.
/// So its observers see the posts, from any thread, in one order, and no two of its handlers run at once. Each queue
/// object is a target (whether it is serial cannot be asked); the main actor and `DispatchQueue.main` are two.
///
/// **A post made on the target's actor** runs the FIFO through its own entries before it returns, after what was queued
/// before: code that posts on the main actor and then reads main-actor state sees it updated. Not when more than
/// ``batchLimit`` entries wait (no post runs an unbounded backlog) or a handler of the target is running (the post came
/// from it): then it is only queued, and runs once that handler returns, so no handler is re-entered. One drain is
/// scheduled at a time, and yields its executor after ``batchLimit`` entries.
///
/// **What a drain keeps.** A drain is a detached task (or a queue's job): it carries none of the posters' task-locals
/// or priority; each entry carries its own post's context (``Entry/context``). It holds an actor weakly
/// between batches and strongly only for one batch: a released actor's observations get at most the batch then
/// running, and what waits for them is released when the next batch finds the actor gone.
@usableFromInline
final class DeliveryTarget: Sendable {
    @usableFromInline
    enum Executor: Sendable {
        case mainActor
        case actor(WeakActor)
        case dispatch(DispatchQueue)
        case operation(OperationQueue)
    }

    /// One delivery waiting for its observer's turn. `@unchecked Sendable`: the payload is the observer's `Sendable`
    /// payload, held as `Any`; the sender need not be `Sendable`, but is kept only for a handler that takes it, and
    /// handed to it on its target, as Foundation hands `object` to an observer registered with a queue.
    struct Entry: @unchecked Sendable {
        let subscription: AnySubscription
        /// The post's payload in a ``BoxedPayload`` of the subscription's `Payload` (or ``OwnerCheck/shared``): a
        /// reference, which the target casts back without the runtime's dynamic cast of an `Any`, and copies with one
        /// retain (the main-actor-1 row of the Performance article's instruction table).
        let payload: AnyObject
        let sender: AnyObject?
        /// Latest post for a new observer taking the sender: its sender is loaded on the target, never under a lock.
        var replayed: LatestPost? = nil
        /// What the delivery carries from its post (for a latest value, from the observation): the diagnostics scope
        /// its handler reports to, and what `awaitDelivery` waits for, held until it has run or been dropped.
        var context = PostContext()
        /// Its place in the target's queue (``State/append(_:)``). In the entry, not paired with it in a tuple: a
        /// tuple's copies go through the runtime's generic tuple witnesses (see the async-1 row of the Performance
        /// article's instruction table).
        var number: UInt64 = 0

        /// On the target; the subscription checks that it is still active.
        func run() {
            subscription.runQueued(self)
        }

    }

    /// What a post still has to do after queueing on ``target``: run entries now (on the target's own actor) or
    /// schedule a drain (``DeliveryTarget/finish(_:)``, after every lock). A latest-value post queues on its targets
    /// under the registry's lock, and finishes as it reaches each target in registration order.
    @usableFromInline
    struct Queued {
        let target: DeliveryTarget
        /// The number of the last entry to run now, for a post made on the target's actor.
        let runsThrough: UInt64?
        let schedules: Bool
    }

    struct State {
        /// Numbered in queue order, so that a post on the target's actor runs the queue up to its own last entry.
        var queue = FIFO<Entry>()
        var lastNumber: UInt64 = 0
        /// Whether a drain is scheduled (or running).
        var isScheduled = false
        /// Whether a handler of this target is running, on its executor.
        var isRunning = false
        /// The entries in `queue` whose observation ended and was discarded here (``Tally/isDiscarded``).
        var endedEntries = 0

        /// Whether the entries a post queues run during it: a post made on the target's executor (`isCurrent`), while
        /// no handler of the target runs (the post came from it) and at most ``batchLimit`` entries wait.
        func runsNow(isCurrent: Bool) -> Bool {
            isCurrent && !isRunning && queue.count <= DeliveryTarget.batchLimit
        }

        /// What the post that queued entries does next: run them (`runsNow`), or schedule a drain unless one is.
        mutating func queued(on target: DeliveryTarget, runsNow: Bool) -> Queued {
            if runsNow { return Queued(target: target, runsThrough: lastNumber, schedules: false) }
            defer { isScheduled = true }
            return Queued(target: target, runsThrough: nil, schedules: !isScheduled)
        }

        mutating func append(_ entry: consuming Entry) {
            lastNumber &+= 1
            entry.number = lastNumber
            entry.subscription.tally.queued += 1
            if entry.subscription.tally.isDiscarded { endedEntries += 1 }
            queue.append(entry)
        }

        /// The oldest entry, taken out of the queue.
        mutating func take() -> Entry? {
            guard let entry = queue.take() else { return nil }
            entry.subscription.tally.queued -= 1
            if entry.subscription.tally.isDiscarded { endedEntries -= 1 }
            return entry
        }

        /// Drops the entries of discarded observations, all at once: one pass over the queue, when they are at least
        /// half of it (so each dropped entry pays a constant share), or when the queue is short (a bounded cost).
        mutating func dropEndedEntries() -> [Entry] {
            guard endedEntries > 0, endedEntries * 2 >= queue.count || queue.count <= DeliveryTarget.shortQueue else {
                return []
            }
            let dropped = queue.removeAll { $0.subscription.tally.isDiscarded }
            for entry in dropped { entry.subscription.tally.queued -= 1 }
            endedEntries = 0
            return dropped
        }

        /// Empties the queue, handing the entries to the caller to release.
        mutating func removeAll() -> [Entry?] {
            let dropped = queue.removeAll()
            for case let entry? in dropped { entry.subscription.tally.queued -= 1 }
            endedEntries = 0
            return dropped
        }
    }

    /// What a target knows of one observer's deliveries in its queue, kept in the observer
    /// (``AnySubscription/tally``) and used only under the target's lock: how many wait, and whether they count as
    /// ended (``DeliveryTarget/discardPending(for:)`` marks an observation that ended so).
    struct Tally {
        private var raw: UInt32 = 0

        private static var discardedBit: UInt32 { 1 << 31 }

        var queued: UInt32 {
            get { raw & ~Self.discardedBit }
            set { raw = raw & Self.discardedBit | newValue }
        }

        var isDiscarded: Bool {
            get { raw & Self.discardedBit != 0 }
            set { raw = newValue ? raw | Self.discardedBit : raw & ~Self.discardedBit }
        }
    }

    /// Up to this many entries, a queue drops an ended observation's entries at once (``State/dropEndedEntries()``).
    static var shortQueue: Int { 2 * batchLimit }

    /// The most entries a drain runs before it yields its executor; the longest backlog a post on its actor runs.
    static var batchLimit: Int { 64 }

    let executor: Executor
    /// The identity the registry finds a target by: its center's and its executor's.
    let key: Key
    /// Guards the FIFO and whether a drain is scheduled; only the package's bookkeeping runs under it (here and in
    /// `DeliveryTarget+Draining.swift`, which runs the FIFO).
    let state = Locked(State())

    struct Key: Hashable {
        let center: ObjectIdentifier
        /// The queue's or actor's identity; `nil` for the main actor.
        let executor: ObjectIdentifier?

        /// The key of `executor`'s target on the center `center`, found without making a target (the registry looks
        /// targets up under its lock, where it allocates only a new one).
        init(_ executor: Executor, center: ObjectIdentifier) {
            self.center = center
            self.executor =
                switch executor {
                case .mainActor: nil
                case .actor(let actor): actor.id
                case .dispatch(let queue):
                    Platform.isMainQueue(queue) ? Platform.mainQueueIdentity : ObjectIdentifier(queue)
                case .operation(let queue): ObjectIdentifier(queue)
                }
        }
    }

    init(_ executor: Executor, center: ObjectIdentifier) {
        self.executor = executor
        key = Key(executor, center: center)
    }

    /// Whether handlers run on the main thread, where alone such an observer's owner is loaded (``AnySubscription``).
    var isMain: Bool {
        switch executor {
        case .mainActor: true
        case .actor: false
        case .dispatch(let queue): Platform.isMainQueue(queue)
        case .operation(let queue): queue === OperationQueue.main
        }
    }

    /// Whether this serves `other`: for an actor, the same one, not a dead one at its address. Its reference is loaded
    /// only when the identities match, when it is the caller's own actor or `nil`.
    func serves(_ other: Executor) -> Bool {
        switch (executor, other) {
        case (.mainActor, .mainActor): true
        case (.actor(let mine), .actor(let theirs)): mine.id == theirs.id && mine.actor === theirs.actor
        case (.dispatch(let mine), .dispatch(let theirs)):
            mine === theirs || (Platform.isMainQueue(mine) && Platform.isMainQueue(theirs))
        case (.operation(let mine), .operation(let theirs)): mine === theirs
        default: false
        }
    }

    /// Whether a post made with `isolation` runs on this target, so that its observers may run during the post.
    @usableFromInline
    func isCurrent(_ isolation: (any Actor)?) -> Bool {
        executor.isCurrent(isolation, onMainActor: Platform.isMainActor(isolation))
    }

    /// As ``isCurrent(_:)``, with whether the post is on the main actor asked before: under the registry's lock,
    /// where the package never calls Foundation (which the question asks where the main thread is the main actor).
    func isCurrent(_ isolation: (any Actor)?, onMainActor: Bool) -> Bool {
        executor.isCurrent(isolation, onMainActor: onMainActor)
    }
}

extension DeliveryTarget.Executor {
    /// Whether code running with `isolation` runs on this executor: the package's one answer, for a post (whose
    /// observers here may then run during it) and for a new observer of a latest value (which then gets it before the
    /// observing call returns). The main actor's answer is `onMainActor`, asked only for the main actor. An actor is
    /// loaded only when its identity is the caller's actor, which the caller holds, so never a dead one at its address.
    func isCurrent(_ isolation: (any Actor)?, onMainActor: @autoclosure () -> Bool) -> Bool {
        switch self {
        case .mainActor: onMainActor()
        case .actor(let target): isolation.map { ObjectIdentifier($0) == target.id && target.actor === $0 } ?? false
        case .dispatch, .operation: false
        }
    }
}

/// An actor, held weakly (an observation never keeps its actor alive), with the identity its target is found by.
/// `@unchecked Sendable` only as a weak reference must be a `var`: set once, in `init`, and read and cleared atomically
/// by the runtime. Actors are `Sendable`.
@usableFromInline
final class WeakActor: @unchecked Sendable {
    @usableFromInline
    weak var actor: (any Actor)?
    let id: ObjectIdentifier

    init(_ actor: any Actor) {
        self.actor = actor
        id = ObjectIdentifier(actor)
    }
}

/// A post's payload as a queued delivery holds it (``DeliveryTarget/Entry/payload``), and as a channel keeps its latest
/// (``LatestPost/payload``): made once per post, shared by its entries.
@usableFromInline
final class BoxedPayload<Payload: Sendable>: Sendable {
    let value: Payload

    @usableFromInline
    init(_ value: Payload) { self.value = value }

    /// The payload in `box`, which holds a `Payload`: the caller knows it (a subscription's own type's entry, a
    /// channel's own type's latest post), so the cast is not checked.
    static func unbox(_ box: AnyObject) -> Payload {
        // Safe: every caller passes a box made for its own `Payload` (see each call's comment).
        unsafeDowncast(box, to: BoxedPayload<Payload>.self).value
    }
}
