import Foundation

// A burst's end: its timer, the hop to the context it ends on, its delivery, and the key's next burst once that
// delivery is done (see "One delivery at a time per key" in `Coalescer`); and the one delivery of a key that no burst
// makes, a new observer's latest value.

extension Coalescer {
    /// Where a burst begun with `isolation` ends: on that actor; else on the main actor if the code runs there (even if
    /// the compiler does not know it), or else on the global executor.
    static func endContext(of isolation: (any Actor)?) -> (any Actor)? {
        if let isolation { return isolation }
        return Platform.isMainActor(nil) ? MainActor.shared : nil
    }

    /// Schedules the end of `burst`: its delay on a timer, then a job on its context. Detached, so that the burst's
    /// delivery carries none of the task-locals or the priority of the post that began it.
    /// A burst that ends after a pause sleeps again for what is left of the pause since its latest post.
    func schedule(_ burst: Burst) {
        let timer = Task.detached {
            var wait = burst.delay
            while wait > 0 {
                try? await TimeLimit(seconds: wait).sleep()
                // Dropped (its timer cancelled): nothing to deliver.
                guard let remaining = self.slots.withLock({ _ in burst.end == nil ? nil : burst.remainingPause }) else {
                    return
                }
                wait = remaining
            }
            await self.end(burst, on: burst.context?.actor)
        }
        let dropped = slots.withLock { _ in
            if burst.end == nil { return true }
            burst.timer = timer
            return false
        }
        if dropped { timer.cancel() }
    }

    private func end(_ burst: Burst, on context: isolated (any Actor)?) {
        guard let (end, scope) = slots.withLock({ _ in burst.end.map { ($0, burst.scope) } }) else { return }
        NotificationDiagnostics.reporting(to: scope) { end(self, burst, context) }
    }

    /// Ends `burst`: delivers its payloads (merged if asked) on `context`; once that delivery is done, the key's next
    /// burst is scheduled (``finishDelivery(of:opening:)``). A burst that an ended observation dropped (``close()``)
    /// delivers nothing, and a throttle's window that no post joined ends the key's throttling.
    func deliver<Event: Notifiable>(
        _ burst: Burst,
        key: Key,
        as subject: Event.Type,
        merge: (@Sendable (Event.Payload, Event.Payload) -> Event.Payload)?,
        on context: isolated (any Actor)?,
        through send: @Sendable (Event.Payload, AnyObject?, isolated (any Actor)?) -> Void
    ) {
        let taken: ([Any], AnyObject?, [PendingDeliveries], Burst?)? = slots.withLock { slots in
            guard slots?[key]?.gathering === burst else { return nil }
            slots?[key]?.gathering = nil
            slots?[key]?.isDelivering = true
            defer { (burst.payloads, burst.sender, burst.pending, burst.timer) = ([], nil, [], nil) }
            let window = burst.opensWindows && !burst.payloads.isEmpty ? burst.emptyWindow() : nil
            return (burst.payloads, burst.sender, burst.pending, window)
        }
        guard let (payloads, sender, joined, window) = taken else { return }
        // Safe: a burst holds only payloads of its key's type.
        let typed = payloads.map { $0 as! Event.Payload }
        guard var payload = typed.last else { return finishDelivery(of: key, opening: nil) }
        if let merge {
            payload = typed[0]
            for later in typed.dropFirst() { payload = merge(payload, later) }
        }
        if pacesByDelivery {
            // The deliveries it queues hold `DeliveryDone` (and the waits of the posts it joined) until they have run.
            let done = PendingDeliveries(joining: joined, holding: DeliveryDone(self, key: key, window: window))
            PendingDeliveries.collecting(into: done) { send(payload, sender, context) }
            return
        }
        if joined.isEmpty {
            send(payload, sender, context)
        } else {
            // The burst's deliveries hold the waits of the posts it joined.
            let pending = PendingDeliveries(joining: joined)
            PendingDeliveries.collecting(into: pending) { send(payload, sender, context) }
        }
        finishDelivery(of: key, opening: window)
    }

    /// A delivery of `key` is done: the burst that gathered meanwhile is scheduled; else, after a throttle's delivery,
    /// `window` (empty) gathers what comes before it ends; else the key is quiet again.
    func finishDelivery(of key: Key, opening window: Burst?) {
        let next: Burst? = slots.withLock { slots in
            guard slots?[key] != nil else { return nil }
            let next = slots?[key]?.gathering ?? window
            slots?[key] = next.map { Slot(gathering: $0, isDelivering: false) }
            return next
        }
        if let next { schedule(next) }
    }

    /// Takes a new observer's latest value as its key's first delivery in this, the observer's table: under the
    /// registry's lock, as the observer is added, so no post has reached the key (a latest-value type's posts gather
    /// under that lock too) and any that comes gathers behind it. The caller delivers it after the lock, holding the
    /// returned ``DeliveryDone`` until it has run; `nil` if the table is closed.
    func leadsLatest<Event: Notifiable>(
        of subject: Event.Type, in center: ObjectIdentifier, senderID: UInt,
        coalescing: NotificationCoalescing<Event.Payload>
    ) -> DeliveryDone? {
        let key = Key(subject, center: center, senderID: senderID, spansSenders: coalescing.spansSenders)
        return slots.withLock { slots in
            guard slots != nil, slots?[key]?.isQuiet ?? true else { return nil }
            slots?[key] = Slot(isDelivering: true)
            return DeliveryDone(self, key: key, window: nil)
        }
    }
}
