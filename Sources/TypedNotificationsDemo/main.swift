// A tour of TypedNotifications, one section per idea. Run it with `swift run TypedNotificationsDemo`; each section
// prints its title and the line of this file where its code starts.

import Dispatch
import Foundation
import TypedNotifications

func section(_ title: String, line: Int = #line) {
    print("\n== \(title)  (\(#fileID):\(line))")
}

// Every section uses this center, so that the tour never touches `NotificationCenter.default`. In an app, leave out
// `in:` and the default center is used.
let center = NotificationCenter()

// MARK: - A notification is a type

section("A notification is a type: its name is derived, its payload is the value")

struct CounterDidChange: Notifiable {
    let count: Int
}

print("derived name: \(CounterDidChange.notificationName.rawValue)")
let counterToken = CounterDidChange.observe(in: center) { change in print("observer got count \(change.count)") }
CounterDidChange(count: 3).post(in: center)
counterToken.cancel()
CounterDidChange(count: 4).post(in: center)
print("(after cancel(), nothing more; releasing the token would have done the same)")

// MARK: - Enum cases as names

section("Enum cases as names: observe one case, or say which ones with where:")

enum PaymentDidFinish: Notifiable, Equatable {
    case accepted
    case rejected
}

let acceptedToken = PaymentDidFinish.accepted.observe(in: center) { _ in print("payment accepted") }
let anyCaseToken = PaymentDidFinish.observe(in: center, where: .equals(.rejected)) { _ in print("payment rejected") }
PaymentDidFinish.accepted.post(in: center)
PaymentDidFinish.rejected.post(in: center)

// MARK: - A payload of another type

section("A payload of another type: the notification names it, posts carry it")

struct User: Sendable {
    let name: String
}

enum UserDidLogIn: Notifiable {
    typealias Payload = User
}

let loginToken = UserDidLogIn.observe(in: center) { user in print("welcome, \(user.name)") }
UserDidLogIn.post(User(name: "Ada"), in: center)

// MARK: - Senders

section("Senders: filter by who posted, or receive it (the payload always comes last)")

final class Counter: Sendable {
    let name: String
    init(name: String) { self.name = name }
}

struct ClicksDidChange: Notifiable {
    typealias Sender = Counter
    let count: Int
}

let clicks = Counter(name: "clicks")
let views = Counter(name: "views")
let clicksOnly = ClicksDidChange.observe(from: clicks, in: center) { change in
    print("clicks only: \(change.count)")
}
let anySender = ClicksDidChange.observe(in: center) { counter, change in
    print("\(counter?.name ?? "nobody") changed to \(change.count)")
}
ClicksDidChange(count: 3).post(from: clicks, in: center)
ClicksDidChange(count: 10).post(from: views, in: center)
clicksOnly.cancel()
anySender.cancel()

// MARK: - Owners

section("Owners: an observation that lasts as long as an object, with no token to keep")

final class Tracker: Sendable {
    func record(_ event: PaymentDidFinish) { print("tracker recorded \(event)") }
}

var tracker: Tracker? = Tracker()
PaymentDidFinish.observe(for: tracker!, in: center) { tracker, event in tracker.record(event) }
PaymentDidFinish.accepted.post(in: center)
tracker = nil
print("tracker released; posting again:")
PaymentDidFinish.accepted.post(in: center)
print("(only the token observers above spoke: the tracker's observation ended with it)")

// MARK: - The main actor

section("The main actor: a view model updates during a post made on the main actor")

@MainActor final class CounterViewModel {
    private(set) var text = "–"

    init(center: NotificationCenter) {
        CounterDidChange.observeOnMainActor(for: self, in: center) { model, change in
            model.text = "\(change.count) items"
        }
    }
}

// Top-level code runs on the main actor, so main-actor observers run before `post` returns.
let viewModel = CounterViewModel(center: center)
CounterDidChange(count: 5).post(in: center)
print("view model reads \"\(viewModel.text)\" right after post returned")

// MARK: - Actors

section("Actors: the handler is isolated to the actor that owns the observation")

actor ClickTally {
    private(set) var total = 0

    func start(in center: NotificationCenter) {
        ClicksDidChange.observe(for: self, in: center) { tally, change in tally.total += change.count }
    }

    /// A post made on the actor runs its observers during the post.
    func add(_ count: Int, in center: NotificationCenter) -> Int {
        ClicksDidChange(count: count).post(in: center)
        return total
    }
}

let tally = ClickTally()
await tally.start(in: center)
print("tally is \(await tally.add(4, in: center)) right after a post made on the actor")

// MARK: - Queues and async handlers

section("Queues and async handlers: the poster never waits")

let queue = DispatchQueue(label: "demo.consumer")
let delivered = DispatchSemaphore(value: 0)
let queueToken = CounterDidChange.observe(in: center, delivery: .async(on: queue)) { change in
    print("queue observer: \(change.count), on the queue, after post returned")
    delivered.signal()
}
CounterDidChange(count: 6).post(in: center)
print("poster: post returned")
delivered.wait()
queueToken.cancel()

let saved = AsyncStream.makeStream(of: Int.self)
let saver = CounterDidChange.observe(in: center) { change async in
    await Task.yield()  // an async handler may suspend; the next delivery waits for it
    saved.continuation.yield(change.count)
}
CounterDidChange(count: 7).post(in: center)
for await count in saved.stream {
    print("async handler saved \(count)")
    break
}
saver.cancel()

// MARK: - for await

section("for await: make the sequence first, then the task that reads it")

// Made here, the sequence observes from this line on; made inside the task, it would miss what is posted before the
// task starts.
let changes = CounterDidChange.notifications(in: center)
let reader = Task {
    var seen: [Int] = []
    for await change in changes {
        seen.append(change.count)
        if seen.count == 3 { break }
    }
    return seen
}
for count in 1...3 { CounterDidChange(count: count).post(in: center) }
print("the loop received \(await reader.value)")

// MARK: - Latest values

section("Latest values: a screen that appears late shows the current count")

struct UnreadCount: LatestValueNotifiable {
    let count: Int
}

UnreadCount(count: 3).post(in: center)  // no observer yet: the center keeps it
print("latest unread count, read directly: \(UnreadCount.latest(in: center)?.count ?? 0)")
let badge = UnreadCount.observe(in: center) { unread in print("badge shows \(unread.count)") }  // 3, at once
UnreadCount(count: 4).post(in: center)  // then every later post
badge.cancel()

// MARK: - Coalescing

section("Coalescing: 200 posts in one main-actor job reach observers once, at its next turn")

struct RowsDidChange: Notifiable {
    let rows: Set<Int>
}

let refreshed = AsyncStream.makeStream(of: Int.self)
let table = RowsDidChange.observeOnMainActor(in: center) { change in
    print("table reloads once, for \(change.rows.count) rows")
    refreshed.continuation.yield(change.rows.count)
}
let oneReload = NotificationCoalescing<RowsDidChange>.nextTurn.merging { RowsDidChange(rows: $0.rows.union($1.rows)) }
for row in 0..<200 { RowsDidChange(rows: [row]).post(in: center, coalescing: oneReload) }
print("200 posts made; nothing delivered yet")
for await _ in refreshed.stream { break }
table.cancel()

// MARK: - Waiting for one notification

section("Waiting for one notification: observe, start the work that posts, await a match with a time limit")

struct ExportDidFinish: Notifiable {
    let id: Int
}

let second = try await ExportDidFinish.next(in: center, where: .matching { $0.id == 2 }, timeout: 5) {
    // Stands for starting three exports.
    Task { for id in 1...3 { ExportDidFinish(id: id).post(in: center) } }
}
print("export \(second.id) finished")
do {
    _ = try await ExportDidFinish.next(in: center, where: .matching { $0.id == 9 }, timeout: 0.05) {
        ExportDidFinish(id: 8).post(in: center)
    }
} catch {
    print("no export 9: \(error)")
}

// MARK: - Bridging a legacy string notification

section("Bridging a legacy string notification: typed and plain code talk both ways")

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
    print("plain observer: paymentID \(note.userInfo?["paymentID"] as? String ?? "?")")
}
print("plain code posts a string name and a userInfo dictionary:")
center.post(
    name: .init("PaymentViewControllerNotificationAccepted"), object: nil,
    userInfo: ["paymentID": "p-42", "amount": 1_999])
print("typed code posts a Payment:")
PaymentAccepted.post(Payment(id: "p-43", amount: 500), in: center)
print("plain code posts a malformed userInfo (no crash, no delivery, one report):")
center.post(name: PaymentAccepted.notificationName, object: nil, userInfo: ["amount": "lots"])
center.removeObserver(legacyObserver)

// MARK: - Reports

section("Reports: what debug builds tell you about")

NotificationDiagnostics.reportsUnobservedPosts = true
struct NobodyListens: Notifiable {}
NobodyListens().post(in: center)
NotificationDiagnostics.reportsUnobservedPosts = false
print("observing with a center where the sender goes:")
let misplaced = CounterDidChange.observe(from: center, in: center) { _ in }
NotificationDiagnostics.setHandler(nil)

withExtendedLifetime((acceptedToken, anyCaseToken, loginToken, paymentToken, misplaced, viewModel)) {}
print("\nDone.")
