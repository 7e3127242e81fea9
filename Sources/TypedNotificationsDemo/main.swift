// A walk through the five seed articles' scenarios, rebuilt on TypedNotifications.
// Run it with `swift run TypedNotificationsDemo`.

import Dispatch
import Foundation
import TypedNotifications

func section(_ title: String) {
    print("\n== \(title)")
}

let center = NotificationCenter()

// MARK: - Seed 002: enum cases as notification names

section("Seed 002: payment accepted / rejected, as enum cases")

enum PaymentNotifications: Notifiable, Equatable {
    case accepted
    case rejected
}

let acceptedToken = PaymentNotifications.accepted.observe(in: center) { _ in print("payment accepted") }
let rejectedToken = PaymentNotifications.rejected.observe(in: center) { _ in print("payment rejected") }
PaymentNotifications.accepted.post(in: center)
PaymentNotifications.rejected.post(in: center)
print("(the compiler, not a string, keeps accepted and rejected apart)")

// MARK: - Seed 002, continued: the legacy string notification, bridged

section("Seed 002: a legacy poster and a typed observer talking")

struct Payment: Sendable {
    let id: String
    let amount: Int
}

enum PaymentAccepted: Notifiable {
    typealias Payload = Payment
    static var notificationName: Notification.Name { .init("PaymentViewControllerNotificationAccepted") }

    static func payload(from notification: Notification) throws -> Payment {
        guard let id = notification.userInfo?["paymentID"] as? String else {
            throw NotificationDecodingError.missingValue(key: "paymentID")
        }
        guard let amount = notification.userInfo?["amount"] as? Int else {
            throw NotificationDecodingError.missingValue(key: "amount")
        }
        return Payment(id: id, amount: amount)
    }

    static func userInfo(for payment: Payment) -> [AnyHashable: Any]? {
        ["paymentID": payment.id, "amount": payment.amount]
    }
}

NotificationDiagnostics.setHandler { event in print("diagnostics: \(event)") }
let paymentToken = PaymentAccepted.observe(in: center) { payment in
    print("typed observer: payment \(payment.id) of \(payment.amount)")
}
let legacyObserver = center.addObserver(forName: PaymentAccepted.notificationName, object: nil, queue: nil) { note in
    print("legacy observer: userInfo paymentID = \(note.userInfo?["paymentID"] as? String ?? "?")")
}
print("legacy code posts with a string name and userInfo:")
center.post(
    name: .init("PaymentViewControllerNotificationAccepted"),
    object: nil,
    userInfo: ["paymentID": "p-42", "amount": 1_999]
)
print("typed code posts a Payment:")
PaymentAccepted.post(Payment(id: "p-43", amount: 500), in: center)
print("legacy code posts junk (no crash, no delivery, one diagnostic):")
center.post(name: PaymentAccepted.notificationName, object: nil, userInfo: ["amount": "lots"])
center.removeObserver(legacyObserver)

// MARK: - Seed 004: counter did change, auto-derived names, typed senders

section("Seed 004: counter did change, with a derived name and a typed sender")

final class Counter: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

struct CounterDidChange: Notifiable {
    typealias Sender = Counter
    let count: Int
}

print("derived name: \(CounterDidChange.notificationName.rawValue)")
let clicks = Counter(name: "clicks")
let views = Counter(name: "views")
let allCounters = CounterDidChange.observe(in: center) { change in print("any counter: \(change.count)") }
let clicksOnly = CounterDidChange.observe(from: clicks, in: center) { change in print("clicks only: \(change.count)") }
CounterDidChange(count: 3).post(from: clicks, in: center)
CounterDidChange(count: 10).post(from: views, in: center)

// MARK: - Seed 001: separate payloads, payload-less events, auto-removal

section("Seed 001: login with a separate payload, a payload-less event, a token released")

struct User: Sendable {
    let name: String
}

enum UserDidLogIn: Notifiable {
    typealias Payload = User
}

enum AppDidBecomeActive: Notifiable {
    typealias Payload = Void
}

var loginToken: NotificationToken? = UserDidLogIn.observe(in: center) { user in print("welcome, \(user.name)") }
let activeToken = AppDidBecomeActive.observe(in: center) { print("app became active") }
UserDidLogIn.post(User(name: "Ada"), in: center)
AppDidBecomeActive.post(in: center)
loginToken = nil
print("login token released; posting again:")
UserDidLogIn.post(User(name: "Grace"), in: center)
print("(nothing: the observation ended with its token)")

// MARK: - Seed 000: a message bus of nested enums, subscribe and forget

section("Seed 000: a message bus, consumers switching on nested enums, subscribe and forget")

enum MessageEvent: Notifiable {
    enum NativeEvent: Sendable {
        case open, close, loaded
        case error(String)
    }
    case article(id: Int, NativeEvent)
    case applicationConfiguration(version: String, NativeEvent)
}

final class TrackingConsumer: Sendable {
    func consume(_ event: MessageEvent) {
        switch event {
        case .article(let id, .open): print("tracking: article \(id) opened")
        case .applicationConfiguration(let version, .loaded): print("tracking: configuration \(version) loaded")
        case .applicationConfiguration(_, .error(let reason)): print("tracking: configuration failed: \(reason)")
        default: break
        }
    }
}

var tracker: TrackingConsumer? = TrackingConsumer()
// Subscribe and forget: no token to keep, and the tracker is not retained.
MessageEvent.observe(for: tracker!, in: center) { tracker, event in tracker.consume(event) }
MessageEvent.article(id: 7, .open).post(in: center)
MessageEvent.article(id: 7, .close).post(in: center)
MessageEvent.applicationConfiguration(version: "2.1", .loaded).post(in: center)
MessageEvent.applicationConfiguration(version: "2.2", .error("offline")).post(in: center)
tracker = nil
print("tracker deallocated; posting again:")
MessageEvent.article(id: 8, .open).post(in: center)
print("(nothing: the observation ended with its owner)")

print("asynchronous delivery on a queue (the poster never waits):")
let queue = DispatchQueue(label: "demo.consumer")
let posterDone = DispatchSemaphore(value: 0)
let delivered = DispatchSemaphore(value: 0)
let asyncToken = MessageEvent.observe(in: center, delivery: .async(on: queue)) { event in
    posterDone.wait()  // a slow consumer: it cannot finish before the poster has moved on
    if case .article(let id, .loaded) = event { print("queue consumer: article \(id) loaded") }
    delivered.signal()
}
MessageEvent.article(id: 9, .loaded).post(in: center)
print("poster: post returned while the consumer is still busy")
posterDone.signal()
delivered.wait()

// MARK: - Seed 003: "notification not found"

section("Seed 003: reporting posts that nobody observes")

NotificationDiagnostics.reportsUnobservedPosts = true
struct NobodyListens: Notifiable {}
NobodyListens().post(in: center)
NotificationDiagnostics.reportsUnobservedPosts = false

// MARK: - Where handlers run

section("Where handlers run: the main actor, any actor, async handlers, the sender")

// The earlier sections' observers of CounterDidChange end here, so that they stay quiet from now on.
allCounters.cancel()
clicksOnly.cancel()

@MainActor final class CartBadge {
    var text = "0"
    init(center: NotificationCenter) {
        CounterDidChange.observeOnMainActor(for: self, in: center) { badge, change in badge.text = "\(change.count)" }
    }
}

// This file's top-level code runs on the main actor, so its posts reach main-actor observers before they return.
let badge = CartBadge(center: center)
CounterDidChange(count: 3).post(from: clicks, in: center)
print("main actor: badge reads \(badge.text) right after the post returned")

actor ClickTally {
    var total = 0
    var token: NotificationToken?
    func start(in center: NotificationCenter) {
        token = center.observe(CounterDidChange.self, on: self) { tally, change in tally.total += change.count }
    }
    /// Posted on this actor: its observer runs during the post.
    func add(_ count: Int, from counter: Counter, in center: NotificationCenter) -> Int {
        CounterDidChange(count: count).post(from: counter, in: center)
        return total
    }
}

let tally = ClickTally()
await tally.start(in: center)
print("actor: total is \(await tally.add(4, from: clicks, in: center)) after a post made on the actor")

let slowSaves = AsyncStream.makeStream(of: Int.self)
let saver = center.observe(CounterDidChange.self) { change async in
    await Task.yield()  // an async handler may suspend; the next delivery waits for it
    slowSaves.continuation.yield(change.count)
}
let whoChanged = center.observe(CounterDidChange.self) { change, counter in
    print("sender: \(counter?.name ?? "nobody") changed to \(change.count)")
}
CounterDidChange(count: 5).post(from: views, in: center)
for await count in slowSaves.stream {
    print("async handler: saved \(count), one delivery at a time, in post order")
    break
}

print("live typed observations of CounterDidChange on this center:")
for observation in center.typedObservations where observation.typeName.hasSuffix("CounterDidChange") {
    print("  \(observation.delivery), \(observation.fileID):\(observation.line)")
}
saver.cancel()
whoChanged.cancel()
await tally.token?.cancel()

// MARK: - Async sequences

section("Async sequences: for await")

let changes = center.notifications(of: CounterDidChange.self)
for count in 1...3 { CounterDidChange(count: count).post(from: clicks, in: center) }
var seen: [Int] = []
for await change in changes {
    seen.append(change.count)
    if seen.count == 3 { break }
}
print("for await received \(seen)")

withExtendedLifetime((acceptedToken, rejectedToken, paymentToken, activeToken, asyncToken, badge)) {}
print("\nDone.")
