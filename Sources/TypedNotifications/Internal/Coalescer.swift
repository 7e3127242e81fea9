import Foundation

/// The coalesced bursts in progress (``NotificationCoalescing``), one per type, center and sender (unless spanning
/// senders). A post joins its key's burst, or starts one and schedules its end. A key's bursts are delivered one after
/// another: while one is delivered, posts gather in the next, whose end is scheduled only once that delivery is done,
/// so no observer gets an older burst after a newer one. Only bookkeeping runs under the lock: posting, merging (user
/// code) and releasing replaced payloads happen outside it.
enum Coalescer {
    struct Key: Hashable {
        let subject: ObjectIdentifier
        let center: ObjectIdentifier
        /// Whether the burst spans senders: such a burst never shares a key with the burst of posts without a sender.
        let spansSenders: Bool
        /// `nil` for a burst that spans senders, and for posts without a sender.
        let sender: ObjectIdentifier?
    }

    /// One burst. Its center and sender are held strongly until delivered (at most its window), so no other object can
    /// take the key's addresses meanwhile; the actor it ends on is held weakly, and strongly only while it is
    /// delivered. `@unchecked Sendable`: the payloads are `Sendable`, held as `Any`; the sender need not be (handlers
    /// get it as a post's sender); both are touched only under the lock of ``slots``, or by the burst's end once taken
    /// out.
    final class Burst: @unchecked Sendable {
        let center: NotificationCenter
        var sender: AnyObject?
        /// The latest payload, or with a merge, every payload in post order.
        var payloads: [Any]
        let keepsAll: Bool
        /// The actor whose next turn ends the burst; `nil` for the global executor. If it is gone by then, the burst
        /// ends on the global executor.
        let context: WeakActor?
        /// The diagnostics scope of the post that began the burst: its delivery reports there.
        let scope: NotificationDiagnostics.Scope? = NotificationDiagnostics.queuedScope
        /// Those of the posts made inside `awaitDelivery` that joined the burst: their wait lasts until the burst's
        /// deliveries are done. Under the coalescer's lock.
        var pending: [PendingDeliveries] = []
        let delay: TimeInterval
        /// Ends the burst: takes its payloads and posts them (generic over the type, which the slot does not know).
        let end: @Sendable (Burst, isolated (any Actor)?) -> Void

        init(
            center: NotificationCenter,
            sender: AnyObject?,
            payload: Any,
            keepsAll: Bool,
            context: WeakActor?,
            delay: TimeInterval,
            end: @escaping @Sendable (Burst, isolated (any Actor)?) -> Void
        ) {
            self.center = center
            self.sender = sender
            payloads = [payload]
            self.keepsAll = keepsAll
            self.context = context
            self.delay = delay
            self.end = end
        }

        /// Adds a post; returns what it replaced, for the caller to release outside the lock.
        func add(_ payload: Any, from sender: AnyObject?) -> (payloads: [Any], sender: AnyObject?) {
            var replaced: (payloads: [Any], sender: AnyObject?) = ([], self.sender)
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

    /// A key's bursts: the one gathering posts, and whether an earlier one is being delivered.
    struct Slot {
        var gathering: Burst?
        var isDelivering = false
    }

    private static let slots = Locked<[Key: Slot]>([:])

    /// Adds `payload` to its key's burst, or starts one and schedules its end (unless the key's last is delivering).
    static func post<Event: Notifiable>(
        _ payload: Event.Payload,
        as subject: Event.Type,
        from sender: AnyObject?,
        in center: NotificationCenter,
        coalescing: NotificationCoalescing<Event.Payload>,
        isolation: (any Actor)?
    ) {
        let key = Key(
            subject: ObjectIdentifier(subject),
            center: ObjectIdentifier(center),
            spansSenders: coalescing.spansSenders,
            sender: coalescing.spansSenders ? nil : sender.map(ObjectIdentifier.init)
        )
        let delay: TimeInterval =
            switch coalescing.end {
            case .nextTurn: 0
            case .after(let seconds): seconds
            }
        let merge = coalescing.merge
        // Asked before the lock: where the main thread is the main actor, the answer asks Foundation.
        let context = endContext(of: isolation).map(WeakActor.init)
        let pending = PendingDeliveries.current
        let (scheduled, replaced): (Burst?, (payloads: [Any], sender: AnyObject?)?) = slots.withLock { slots in
            if let burst = slots[key]?.gathering {
                if let pending { burst.pending.append(pending) }
                return (nil, burst.add(payload, from: sender))
            }
            let burst = Burst(
                center: center,
                sender: sender,
                payload: payload,
                keepsAll: merge != nil,
                context: context,
                delay: delay,
                end: { burst, context in deliver(burst, key: key, as: subject, merge: merge, on: context) }
            )
            if let pending { burst.pending.append(pending) }
            slots[key, default: Slot()].gathering = burst
            return (slots[key]!.isDelivering ? nil : burst, nil)
        }
        withExtendedLifetime(replaced) {}  // released here, outside the lock: it may hold the last reference
        if let scheduled { schedule(scheduled) }
    }

    /// Where a burst begun with `isolation` ends: on that actor; else on the main actor if the code runs there (even if
    /// the compiler does not know it), or else on the global executor.
    private static func endContext(of isolation: (any Actor)?) -> (any Actor)? {
        if let isolation { return isolation }
        return PlatformIsolation.isMainActor(nil) ? MainActor.shared : nil
    }

    /// Schedules the end of `burst`: its delay on a timer, then a job on its context. Detached, so that the burst's
    /// delivery carries none of the task-locals or the priority of the post that began it.
    private static func schedule(_ burst: Burst) {
        Task.detached {
            if burst.delay > 0 { try? await Task.sleep(nanoseconds: UInt64(burst.delay * 1_000_000_000)) }
            await end(burst, on: burst.context?.actor)
        }
    }

    private static func end(_ burst: Burst, on context: isolated (any Actor)?) {
        NotificationDiagnostics.reporting(to: burst.scope) { burst.end(burst, context) }
    }

    /// Ends `burst`: posts its payloads (merged if asked) on `context`, then schedules the key's next burst, if any.
    private static func deliver<Event: Notifiable>(
        _ burst: Burst,
        key: Key,
        as subject: Event.Type,
        merge: (@Sendable (Event.Payload, Event.Payload) -> Event.Payload)?,
        on context: isolated (any Actor)?
    ) {
        let (payloads, sender, joined): ([Any], AnyObject?, [PendingDeliveries]) = slots.withLock { slots in
            slots[key]?.gathering = nil
            slots[key]?.isDelivering = true
            defer { (burst.payloads, burst.sender, burst.pending) = ([], nil, []) }
            return (burst.payloads, burst.sender, burst.pending)
        }
        // Safe: a burst holds only payloads of its key's type.
        let typed = payloads.map { $0 as! Event.Payload }
        if var payload = typed.last {
            if let merge {
                payload = typed[0]
                for later in typed.dropFirst() { payload = merge(payload, later) }
            }
            if joined.isEmpty {
                burst.center.deliver(payload, as: subject, from: sender, isolation: context)
            } else {
                // The burst's deliveries hold the waits of the posts it joined.
                let pending = PendingDeliveries(joining: joined)
                PendingDeliveries.collecting(into: pending) {
                    burst.center.deliver(payload, as: subject, from: sender, isolation: context)
                }
            }
        }
        let next: Burst? = slots.withLock { slots in
            guard let next = slots[key]?.gathering else {
                slots[key] = nil
                return nil
            }
            slots[key]?.isDelivering = false
            return next
        }
        if let next { schedule(next) }
    }
}
