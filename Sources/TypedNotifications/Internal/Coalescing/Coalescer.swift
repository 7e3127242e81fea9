import Foundation

/// Coalesced bursts in progress (``NotificationCoalescing``), in one table: the posters' (``posters``, one burst per
/// type, center and sender, unless spanning senders), delivered by posting the burst; or one observation's (its
/// `coalescing:` option, one burst per sender), made with it and delivered to it alone, and closed when it ends, which
/// drops its bursts. A post joins its key's burst, or starts one and schedules its end; a throttle's first post of a
/// quiet period is delivered at once instead, and opens a window (an empty burst) that later posts join.
///
/// **One delivery at a time per key.** While a key's delivery is not done, posts gather in the key's next burst, whose
/// end is scheduled only once that delivery is done; so no observer gets an older burst after a newer one, and at most
/// one delivery of a key waits anywhere. "Done" is where the table's deliveries wait: an observation's table counts
/// its delivery done once its handler has run or the delivery was dropped (a ``DeliveryDone`` that the queued
/// delivery holds, released then, as `awaitDelivery`'s waits are), so a busy queue or a slow `async` handler collects
/// the posts of many windows into the one burst it gets when free; the posters' table once the post has returned.
///
/// Only bookkeeping runs under the lock: posting, merging (user code) and releasing replaced payloads happen outside it.
final class Coalescer: Sendable {
    struct Key: Hashable {
        let subject: ObjectIdentifier
        let center: ObjectIdentifier
        /// Whether the burst spans senders: such a burst never shares a key with the burst of posts without a sender.
        let spansSenders: Bool
        /// The sender's identity as a bit pattern; `0` for a burst that spans senders, and for posts without a sender.
        let sender: UInt

        init<Event>(_ subject: Event.Type, center: ObjectIdentifier, senderID: UInt, spansSenders: Bool) {
            self.subject = ObjectIdentifier(subject)
            self.center = center
            self.spansSenders = spansSenders
            sender = spansSenders ? 0 : senderID
        }
    }

    /// One burst. Its sender is held strongly until delivered (at most its window), and a poster's burst holds its
    /// center (in ``end``), so no other object can take the key's addresses meanwhile; an observer's burst holds its
    /// observation weakly, in a table that is the observation's alone. The actor it ends on is held weakly, and
    /// strongly only while it is delivered. `@unchecked Sendable`: the payloads are `Sendable`, held as `Any`; the
    /// sender need not be (handlers get it as a post's sender); both are touched only under the table's lock, or by
    /// the burst's end once taken out.
    final class Burst: @unchecked Sendable {
        var sender: AnyObject?
        /// The latest payload, or with a merge, every payload in post order; empty for a throttle's window that no
        /// post has joined yet.
        var payloads: [Any]
        let keepsAll: Bool
        /// The actor whose next turn ends the burst; `nil` for the global executor. If it is gone by then, the burst
        /// ends on the global executor.
        let context: WeakActor?
        /// The diagnostics scope of the post that began the burst (the first to join a window): its delivery reports
        /// there. Under the lock.
        var scope: NotificationDiagnostics.Scope?
        /// Those of the posts made inside `awaitDelivery` that joined the burst: their wait lasts until the burst's
        /// deliveries are done. Under the coalescer's lock.
        var pending: [PendingDeliveries] = []
        let delay: TimeInterval
        /// Whether a delivery of this key opens a window in which later posts gather (a throttle, `within(_:)`).
        let opensWindows: Bool
        /// For a burst that ends after a pause (``NotificationCoalescing/afterPause(_:)``): when its latest post came,
        /// as ``TimeLimit/now()`` read it; `nil` for a burst that ends `delay` after it is scheduled. Under the lock.
        var latestPost: UInt64?
        /// Ends the burst: takes its payloads and delivers them (generic over the type, which the slot does not know).
        /// `nil` once an observation that ended dropped the burst (``Coalescer/close()``), so that nothing it captures
        /// (a merge, the observation) outlives that. Under the lock.
        var end: (@Sendable (Coalescer, Burst, isolated (any Actor)?) -> Void)?
        /// The task that sleeps until the burst's end, cancelled when the burst is dropped. Under the lock.
        var timer: Task<Void, Never>?

        init(
            sender: AnyObject?,
            payloads: [Any],
            keepsAll: Bool,
            context: WeakActor?,
            delay: TimeInterval,
            opensWindows: Bool,
            restartsOnPost: Bool,
            end: @escaping @Sendable (Coalescer, Burst, isolated (any Actor)?) -> Void
        ) {
            self.sender = sender
            self.payloads = payloads
            self.keepsAll = keepsAll
            self.context = context
            self.delay = delay
            self.opensWindows = opensWindows
            scope = payloads.isEmpty ? nil : NotificationDiagnostics.queuedScope
            latestPost = restartsOnPost ? TimeLimit.now() : nil
            self.end = end
        }

        /// A window of the same key, that no post has joined yet: the next burst after a throttle's delivery.
        func emptyWindow() -> Burst? {
            guard let end else { return nil }
            return Burst(
                sender: nil, payloads: [], keepsAll: keepsAll, context: context, delay: delay,
                opensWindows: opensWindows, restartsOnPost: false, end: end)
        }

        /// How long the burst still lasts once its timer fired: for one that ends after a pause, what is left of the
        /// pause since its latest post; else nothing. Under the lock.
        var remainingPause: TimeInterval {
            guard let latestPost else { return 0 }
            let quiet = TimeInterval(TimeLimit.nanoseconds(since: latestPost)) / 1_000_000_000
            return delay - quiet
        }

        /// Adds a post; returns what it replaced, for the caller to release outside the lock.
        func add(_ payload: Any, from sender: AnyObject?) -> (payloads: [Any], sender: AnyObject?) {
            var replaced: (payloads: [Any], sender: AnyObject?) = ([], self.sender)
            if payloads.isEmpty { scope = NotificationDiagnostics.queuedScope }
            if latestPost != nil { latestPost = TimeLimit.now() }
            if keepsAll {
                payloads.append(payload)
            } else {
                swap(&replaced.payloads, &payloads)
                payloads = [payload]
            }
            self.sender = sender
            return replaced
        }
    }

    /// A key's bursts: the one gathering posts, and whether a delivery of the key is not done yet. A quiet key has no
    /// slot.
    struct Slot {
        var gathering: Burst?
        var isDelivering = false

        /// Whether a post to this key is the first of a quiet period: no burst gathers and none is being delivered.
        var isQuiet: Bool { gathering == nil && !isDelivering }
    }

    /// Held by a delivery of an observation's table until its handler has run or it was dropped (through the
    /// ``PendingDeliveries`` it was queued with); its release lets the key's next burst be scheduled. Immutable.
    final class DeliveryDone: Sendable {
        private let coalescer: Coalescer
        private let key: Key
        /// For a throttle's delivery: its key's next window, if no post gathers meanwhile.
        private let window: Burst?

        init(_ coalescer: Coalescer, key: Key, window: Burst?) {
            self.coalescer = coalescer
            self.key = key
            self.window = window
        }

        deinit {
            coalescer.finishDelivery(of: key, opening: window)
        }
    }

    /// The table's bursts by key; `nil` once closed (its observation ended: it takes no more posts).
    let slots = Locked<[Key: Slot]?>([:])
    /// Whether a delivery is done only once its handlers have run (an observation's table), or once it returns.
    let pacesByDelivery: Bool

    init(pacesByDelivery: Bool) {
        self.pacesByDelivery = pacesByDelivery
    }

    /// The posters' table, for the process.
    static let posters = Coalescer(pacesByDelivery: false)

    /// Adds a coalesced post to its key's burst in ``posters``, or starts one; the burst's end posts it on `center`.
    /// A throttle's first post of a quiet period is posted now.
    static func post<Event: Notifiable>(
        _ payload: Event.Payload,
        as subject: Event.Type,
        from sender: AnyObject?,
        in center: NotificationCenter,
        coalescing: NotificationCoalescing<Event.Payload>,
        isolation: (any Actor)?
    ) {
        // Asked before the lock: where the main thread is the main actor, the answer asks Foundation.
        let context = endContext(of: PendingDeliveries.isolation(of: isolation)).map(WeakActor.init)
        let gathered = posters.gather(
            payload, of: subject, from: sender, in: ObjectIdentifier(center), coalescing: coalescing, context: context,
            pending: PendingDeliveries.current?.waitsOnly
        ) {
            payload, sender, context in
            center.deliver(payload, as: subject, from: sender, isolation: context)
        }
        posters.finish(gathered)
        guard let lead = gathered.lead else { return }
        center.deliver(payload, as: subject, from: sender, isolation: isolation)
        withExtendedLifetime(lead) {}  // released here: the post is done, and its window starts
    }

    /// What a post did to its key's bursts (``gather(_:of:from:in:coalescing:context:pending:deliver:)``): the burst
    /// whose end is to be scheduled, the ``DeliveryDone`` of a post to deliver now, and what the post replaced.
    typealias Gathered = (scheduled: Burst?, lead: DeliveryDone?, replaced: (payloads: [Any], sender: AnyObject?)?)

    /// Adds `payload` to its key's burst, or starts one, whose end (unless the key's last delivery is not done) calls
    /// `deliver` with the burst's payload and sender on `context`. A closed table drops it. Takes only this table's
    /// lock and calls nothing out, so that a latest-value type's post gathers under the registry's lock, in the
    /// center's order (see ``DeliveryTarget/enqueueInLatestOrder``); the caller then calls ``finish(_:)`` after every
    /// lock.
    ///
    /// `pending`: the waits of `awaitDelivery` the post reports to, which the burst keeps until its delivery is done.
    ///
    /// The result's `lead` is set when the caller must deliver `payload` now, as a throttle's first post of a quiet
    /// period: the caller holds it until that delivery is done (for an observation's table, the queued delivery holds
    /// it), and later posts gather in the window it opened meanwhile.
    func gather<Event: Notifiable>(
        _ payload: Event.Payload,
        of subject: Event.Type,
        from sender: AnyObject?,
        in center: ObjectIdentifier,
        coalescing: NotificationCoalescing<Event.Payload>,
        context: WeakActor?,
        pending: PendingDeliveries?,
        deliver: @escaping @Sendable (Event.Payload, AnyObject?, isolated (any Actor)?) -> Void
    ) -> Gathered {
        let senderID = sender.map { UInt(bitPattern: ObjectIdentifier($0)) } ?? 0
        let key = Key(subject, center: center, senderID: senderID, spansSenders: coalescing.spansSenders)
        let (delay, restartsOnPost): (TimeInterval, Bool) =
            switch coalescing.end {
            case .nextTurn: (0, false)
            case .after(let seconds): (seconds, false)
            case .afterPause(let seconds): (seconds, true)
            }
        let merge = coalescing.merge
        let leads = coalescing.leads
        return slots.withLock { slots in
            // Its observation has ended: the post is dropped, released with what a burst would replace.
            guard slots != nil else { return (nil, nil, ([payload], sender)) }
            if let burst = slots?[key]?.gathering {
                // Once per wait: the posts of one `awaitDelivery` that join a burst hold it once.
                if let pending, !burst.pending.contains(where: { $0 === pending }) { burst.pending.append(pending) }
                return (nil, nil, burst.add(payload, from: sender))
            }
            let isQuiet = slots?[key]?.isQuiet ?? true
            let burst = Burst(
                sender: isQuiet && leads ? nil : sender,
                payloads: isQuiet && leads ? [] : [payload],
                keepsAll: merge != nil,
                context: context,
                delay: delay,
                opensWindows: leads,
                restartsOnPost: restartsOnPost,
                end: { coalescer, burst, context in
                    coalescer.deliver(burst, key: key, as: subject, merge: merge, on: context, through: deliver)
                }
            )
            if isQuiet && leads {
                // The first post of a quiet period goes now; the window it opens gathers what follows, and its timer
                // starts when this delivery is done.
                slots?[key] = Slot(gathering: burst, isDelivering: true)
                return (nil, DeliveryDone(self, key: key, window: nil), nil)
            }
            if let pending { burst.pending.append(pending) }
            slots?[key, default: Slot()].gathering = burst
            return (slots?[key]?.isDelivering == true ? nil : burst, nil, nil)
        }
    }

    /// What ``gather(_:of:from:in:coalescing:context:pending:deliver:)`` leaves to do after every lock: releases what
    /// the post replaced (it may hold the last reference to a user object) and schedules the burst it began.
    func finish(_ gathered: Gathered) {
        withExtendedLifetime(gathered.replaced) {}
        if let scheduled = gathered.scheduled { schedule(scheduled) }
    }

    /// Closes an observation's table as the observation ends: the bursts it was gathering are dropped, so that their
    /// payloads go now, not at their end, and later posts are dropped as they come (a post racing the end finds the
    /// table closed, or has made its burst before, which this drops).
    func close() {
        typealias Dropped = (Burst, [Any], AnyObject?, [PendingDeliveries], Any?, Task<Void, Never>?)
        let dropped: [Dropped] = slots.withLock { slots in
            defer { slots = nil }
            // Emptied, so that what they hold goes now; their timers, cancelled, end without delivering.
            return (slots ?? [:]).values.compactMap(\.gathering).map { burst in
                let held: Dropped = (burst, burst.payloads, burst.sender, burst.pending, burst.end, burst.timer)
                (burst.payloads, burst.sender, burst.pending, burst.end, burst.timer) = ([], nil, [], nil, nil)
                return held
            }
        }
        for (_, _, _, _, _, timer) in dropped { timer?.cancel() }
        withExtendedLifetime(dropped) {}  // released here, outside the lock
    }
}
