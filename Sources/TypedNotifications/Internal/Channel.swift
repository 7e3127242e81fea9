import Foundation

/// The typed observers of one `Notifiable` type on one `NotificationCenter`, in registration order.
///
/// Each channel registers a single Foundation observer (its *bridge*) under the type's name, which decodes plain
/// posts once and fans them out here. Typed posts reach the observers directly, without `userInfo`.
///
/// `subscriptions` and `bridge` are read and written only while `ObserverRegistry`'s lock is held; `center` and
/// `name` never change. That is what makes the class safe to share across threads.
final class Channel<Subject: Notifiable>: @unchecked Sendable, SweepableChannel {
    /// Held strongly: a center stays alive while it has typed observers, so its identity is never reused meanwhile.
    let center: NotificationCenter
    let name: Notification.Name
    var subscriptions: [Subscription<Subject>] = []
    var bridge: (any NSObjectProtocol)?

    init(center: NotificationCenter, name: Notification.Name) {
        self.center = center
        self.name = name
    }

    func remove(_ subscription: Subscription<Subject>) {
        ObserverRegistry.shared.remove(subscription, from: self)
    }

    /// Delivers a plain (non-typed) post that reached the bridge: decode once, then fan out in registration order.
    func receivePlain(_ notification: Notification) {
        if FoundationBridge.isOwnPost(notification, on: self) { return }
        let subscriptions = ObserverRegistry.shared.subscriptions(of: self)
        guard !subscriptions.isEmpty else { return }
        let payload: Subject.Payload
        do {
            payload = try Subject.payload(from: notification)
        } catch {
            NotificationDiagnostics.report(.decodingFailed(error), for: Subject.self, name: name, in: center)
            return
        }
        let sender = notification.object.map { $0 as AnyObject }
        for subscription in subscriptions {
            subscription.deliver(payload, from: sender)
        }
    }

    var observerCount: Int { subscriptions.count }

    func collectEnded(into list: inout [any Observation]) {
        for subscription in subscriptions where !subscription.isAlive {
            list.append(subscription)
        }
    }
}
