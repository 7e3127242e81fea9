import Foundation

// An observer with a queue of its own (`Handler.queued`: an `async` handler, a sequence): what a post does with it
// (see `ConsumerQueue`).

extension Subscription {
    /// Appends a payload to this observer's own queue: starts an `async` handler's task if the queue was idle, and
    /// reports what a sequence's bounded buffer drops.
    func append(_ payload: Payload, to queue: ConsumerQueue<Payload>) {
        switch queue.append(payload) {
        case .queued, .ended: break
        case .startsDrain: startTask(of: queue)
        case .dropped:
            guard queue.reportsDrops, let center = channel.center else { return }
            NotificationDiagnostics.report(.dropped, for: Event.self, name: Event.notificationName, in: center)
        }
    }

    /// Starts the task that calls an `async` handler with what its queue holds, after the checks a queued handler
    /// makes.
    func startTask(of queue: ConsumerQueue<Payload>) {
        queue.drain { [self] payload in admissionOnTarget(of: payload) }
    }
}
