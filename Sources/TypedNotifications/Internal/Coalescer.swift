import Foundation

/// The bursts of coalesced posts in progress (see ``NotificationCoalescing``): one per type, center and, unless the
/// burst spans senders, sender.
///
/// A coalesced post joins its key's burst under the lock, or starts one and schedules its end. The end takes the
/// burst's payloads under the lock and posts them outside it. The bursts of one key are delivered one after the
/// other, in order: while one is being delivered, new posts gather in the next, whose end is scheduled only when the
/// delivery is done. So an observer never receives an older burst after a newer one. Nothing but the bookkeeping
/// runs under the lock: merging (user code) and releasing replaced payloads happen outside it.
enum Coalescer {
    struct Key: Hashable {
        let subject: ObjectIdentifier
        let center: ObjectIdentifier
        /// Whether the burst spans senders: such a burst never shares a key with the burst of posts without a sender.
        let spansSenders: Bool
        /// `nil` for a burst that spans senders, and for posts without a sender.
        let sender: ObjectIdentifier?
    }

    /// One burst: the payloads to deliver, its center, its latest sender, and where and when it ends. The center and
    /// sender are held strongly until the burst is delivered (so that no other center or sender can take their
    /// addresses, which the key holds, meanwhile).
    ///
    /// `@unchecked Sendable` because the payloads are held as `Any` (they are the type's `Sendable` payloads) and the
    /// sender need not be `Sendable` (it is handed to handlers as a post's sender is); they are only touched under the
    /// lock of ``slots``, and by the burst's end once it took them out.
    final class Burst: @unchecked Sendable {
        let center: NotificationCenter
        var sender: AnyObject?
        /// The latest payload, or with a merge, every payload in post order.
        var payloads: [Any]
        let keepsAll: Bool
        /// The actor whose next turn ends the burst; `nil` for the global executor.
        let context: (any Actor)?
        let delay: TimeInterval
        /// Ends the burst: takes its payloads and posts them (generic over the type, which the slot does not know).
        let end: @Sendable (Burst, isolated (any Actor)?) -> Void

        init(
            center: NotificationCenter,
            sender: AnyObject?,
            payload: Any,
            keepsAll: Bool,
            context: (any Actor)?,
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

    /// Adds `payload` to its key's burst, starting one (and scheduling its end, unless an earlier burst of the key is
    /// being delivered) if none is gathering posts.
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
        let context = endContext(of: isolation)
        let (scheduled, replaced): (Burst?, (payloads: [Any], sender: AnyObject?)?) = slots.withLock { slots in
            if let burst = slots[key]?.gathering { return (nil, burst.add(payload, from: sender)) }
            let burst = Burst(
                center: center,
                sender: sender,
                payload: payload,
                keepsAll: merge != nil,
                context: context,
                delay: delay,
                end: { burst, context in deliver(burst, key: key, as: subject, merge: merge, on: context) }
            )
            slots[key, default: Slot()].gathering = burst
            return (slots[key]!.isDelivering ? nil : burst, nil)
        }
        withExtendedLifetime(replaced) {}  // released here, outside the lock: it may hold the last reference
        if let scheduled { schedule(scheduled) }
    }

    /// The context a burst begun with `isolation` ends on: the main actor for one begun on it (also, where the main
    /// thread is the main actor, from code there that the compiler does not know to be isolated), the actor for one
    /// begun on an actor, and none (the global executor) otherwise.
    private static func endContext(of isolation: (any Actor)?) -> (any Actor)? {
        if let isolation { return isolation }
        return PlatformIsolation.isMainActor(nil) ? MainActor.shared : nil
    }

    /// Schedules the end of `burst`: its delay on a timer, then a job on its context.
    private static func schedule(_ burst: Burst) {
        Task {
            if burst.delay > 0 { try? await Task.sleep(nanoseconds: UInt64(burst.delay * 1_000_000_000)) }
            await end(burst, on: burst.context)
        }
    }

    private static func end(_ burst: Burst, on context: isolated (any Actor)?) {
        burst.end(burst, context)
    }

    /// Ends `burst`: takes its payloads, merges them if asked, posts the result on `context`, then schedules the end
    /// of the key's next burst, if posts gathered in one meanwhile.
    private static func deliver<Event: Notifiable>(
        _ burst: Burst,
        key: Key,
        as subject: Event.Type,
        merge: (@Sendable (Event.Payload, Event.Payload) -> Event.Payload)?,
        on context: isolated (any Actor)?
    ) {
        let (payloads, sender): ([Any], AnyObject?) = slots.withLock { slots in
            slots[key]?.gathering = nil
            slots[key]?.isDelivering = true
            defer { (burst.payloads, burst.sender) = ([], nil) }
            return (burst.payloads, burst.sender)
        }
        // Safe: a burst holds only payloads of its key's type.
        let typed = payloads.map { $0 as! Event.Payload }
        if var payload = typed.last {
            if let merge {
                payload = typed[0]
                for later in typed.dropFirst() { payload = merge(payload, later) }
            }
            burst.center.deliver(payload, as: subject, from: sender, isolation: context)
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
