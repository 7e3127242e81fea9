import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// The code examples of the articles in `Docs/TypedNotifications.docc`, compiled and run.
//
// Each article's declarations and snippets live in a namespace enum (`GettingStartedArticle`, …), copied from the
// article. The only additions are `withExtendedLifetime(token) {}` where a snippet leaves its token unused, lines
// marked `// test only`, and type names qualified where a declaration cannot be nested. Inside a namespace, `print`
// is the namespace's own, which records the line, so the tests check exactly what an example prints. Only public API
// is used: this file does not `@testable import`. When you change an article's code, change it here too. The
// Combine examples of the "Combine and SwiftUI" article are compiled against OpenCombine, and run, in
// `IntegrationTests/Combine/Tests/TypedNotificationsOpenCombineTests/DocumentationExamplesTests.swift`.
//
// Every test makes its own `NotificationCenter()`, except the one example about the default center, which is in the
// `.serialized` suite `GettingStarted` with the rest of that article's tests.

// MARK: - Support

/// The lines an article's examples printed, in order; thread-safe, and awaitable for deliveries made elsewhere.
///
/// `@unchecked Sendable`: `state` is only touched while `lock` is held. `NSLock` rather than `Synchronization.Mutex`,
/// whose locking ThreadSanitizer cannot see on Linux.
final class PrintedLines: @unchecked Sendable {
    private struct State {
        var lines: [String] = []
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let lock = NSLock()
    private var state = State()

    func append(_ line: String) {
        let ready = lock.withLock {
            state.lines.append(line)
            let count = state.lines.count
            let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
            state.waiters.removeAll { $0.count <= count }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    func reset() {
        lock.withLock { state.lines.removeAll() }
    }

    var lines: [String] {
        lock.withLock { state.lines }
    }

    /// Returns once at least `count` lines have been printed, without sleeping.
    func waitForCount(_ count: Int) async {
        await withCheckedContinuation { continuation in
            let isReady = lock.withLock {
                if state.lines.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if isReady { continuation.resume() }
        }
    }

    /// The text `Swift.print` would have written, without the newline.
    static func line(_ items: [Any], separator: String) -> String {
        items.map { "\($0)" }.joined(separator: separator)
    }
}

/// Yields the main actor until `condition` holds: main-actor deliveries run in between.
@MainActor private func waitUntil(_ condition: @MainActor () -> Bool) async {
    while !condition() { await Task.yield() }
}

/// As above, for a condition that must `await` an actor's state.
private func waitUntil(_ condition: () async -> Bool) async {
    while await !condition() { await Task.yield() }
}

// MARK: - Getting started

enum GettingStartedArticle {
    static let printed = PrintedLines()
    static func print(_ items: Any..., separator: String = " ") {
        printed.append(PrintedLines.line(items, separator: separator))
    }

    struct CounterDidChange: Notifiable {
        let count: Int
    }

    static func landingPage() {
        let center = NotificationCenter()
        let token = CounterDidChange.observe(in: center) { change in print(change.count) }
        CounterDidChange(count: 3).post(in: center)  // prints 3
        withExtendedLifetime(token) {}
    }

    static func postAndObserve() {
        let center = NotificationCenter()
        let token = CounterDidChange.observe(in: center) { change in
            print("count is now", change.count)
        }
        CounterDidChange(count: 3).post(in: center)  // prints "count is now 3"
        token.cancel()
        CounterDidChange(count: 4).post(in: center)  // prints nothing: the observation has ended
    }

    final class CounterLogger {
        private let token: NotificationToken

        init(center: NotificationCenter) {
            token = CounterDidChange.observe(in: center) { change in print("count:", change.count) }
        }
    }  // releasing the logger releases the token, which ends the observation

    static func tokensInASet() {
        let center = NotificationCenter()
        var tokens: Set<NotificationToken> = []
        CounterDidChange.observe(in: center) { change in print("first:", change.count) }.store(in: &tokens)
        CounterDidChange.observe(in: center) { change in print("second:", change.count) }.store(in: &tokens)
        CounterDidChange(count: 1).post(in: center)  // prints "first: 1", then "second: 1"
        tokens.removeAll()  // ends both observations
        CounterDidChange(count: 2).post(in: center)  // prints nothing
    }

    struct AppDidBecomeActive: Notifiable {}

    static func payloadless() {
        let center = NotificationCenter()
        let token = AppDidBecomeActive.observe(in: center) { _ in print("active") }
        AppDidBecomeActive().post(in: center)  // prints "active"
        withExtendedLifetime(token) {}
    }

    struct User: Sendable {
        let name: String
    }

    enum UserDidLogIn: Notifiable {
        typealias Payload = User
    }

    static func separatePayload() {
        let center = NotificationCenter()
        let token = UserDidLogIn.observe(in: center) { user in print("welcome,", user.name) }
        UserDidLogIn.post(User(name: "Ada"), in: center)  // prints "welcome, Ada"
        withExtendedLifetime(token) {}
    }

    final class Thermometer: Sendable {}

    struct Reading: Notifiable {
        typealias Sender = Thermometer
        let celsius: Double
    }

    static func typedSender() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let token = Reading.observe(from: kitchen, in: center) { reading in print("kitchen:", reading.celsius) }
        Reading(celsius: 21).post(from: kitchen, in: center)  // prints "kitchen: 21.0"
        Reading(celsius: 5).post(from: Thermometer(), in: center)  // another thermometer: not delivered
        Reading(celsius: 9).post(in: center)  // no sender: not delivered
        withExtendedLifetime(token) {}
    }

    enum PaymentNotifications: Notifiable, Equatable {
        case accepted
        case rejected
    }

    static func enumCasesAsNames() {
        let center = NotificationCenter()
        let accepted = PaymentNotifications.accepted.observe(in: center) { _ in print("accepted") }
        let everyPayment = PaymentNotifications.observe(in: center) { event in print("payment:", event) }
        PaymentNotifications.rejected.post(in: center)  // prints "payment: rejected"
        PaymentNotifications.accepted.post(in: center)  // prints "accepted", then "payment: accepted"
        withExtendedLifetime((accepted, everyPayment)) {}
    }

    static func defaultCenter() {
        let token = CounterDidChange.observe { change in print("default center:", change.count) }
        CounterDidChange(count: 1).post()  // prints "default center: 1"
        CounterDidChange(count: 2).post(in: NotificationCenter())  // another center: not delivered
        withExtendedLifetime(token) {}
    }

    @MainActor final class Counter {
        private let center: NotificationCenter
        private(set) var count = 0

        init(center: NotificationCenter = .default) {
            self.center = center
        }

        func increment() {
            count += 1
            CounterDidChange(count: count).post(from: self, in: center)
        }
    }
}

// MARK: - Lifetimes and delivery

enum LifetimesArticle {
    static let printed = PrintedLines()
    static func print(_ items: Any..., separator: String = " ") {
        printed.append(PrintedLines.line(items, separator: separator))
    }

    struct CounterDidChange: Notifiable {
        let count: Int
    }

    struct User: Sendable {
        let name: String
    }

    enum UserDidLogIn: Notifiable {
        typealias Payload = User
    }

    enum UserDidLogOut: Notifiable {
        typealias Payload = Void
    }

    static func dispatchQueueDelivery() {
        let center = NotificationCenter()
        let queue = DispatchQueue(label: "counter.observer")
        let token = CounterDidChange.observe(in: center, delivery: .async(on: queue)) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            print("on the queue:", change.count)
        }
        CounterDidChange(count: 1).post(in: center)  // returns at once; the handler runs later, on `queue`
        queue.sync {}  // test only: the delivery above is on the queue by now
        withExtendedLifetime(token) {}
    }

    static func operationQueueDelivery() {
        let center = NotificationCenter()
        let operations = OperationQueue()
        operations.maxConcurrentOperationCount = 4
        let token = CounterDidChange.observe(in: center, delivery: .async(on: operations)) { change in
            print("as an operation:", change.count)
        }
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }  // never waits for an operation
        operations.waitUntilAllOperationsAreFinished()  // test only
        withExtendedLifetime(token) {}
    }

    @MainActor final class CounterViewModel {
        private(set) var text = ""

        init(center: NotificationCenter) {
            CounterDidChange.observeOnMainActor(for: self, in: center) { model, change in
                model.text = "Count: \(change.count)"
            }
        }
    }

    @MainActor static func refresh(_ model: CounterViewModel, center: NotificationCenter) {
        CounterDidChange(count: 7).post(in: center)
        print(model.text)  // "Count: 7": posted on the main actor, delivered before `post` returned
    }

    actor CounterTotal {
        private(set) var total = 0

        init(center: NotificationCenter) {
            CounterDidChange.observe(for: self, in: center) { counter, change in counter.total += change.count }
        }
    }

    actor CounterStore {
        func save(_ count: Int) async {}
        var saved: [Int] = []  // test only
        func record(_ count: Int) { saved.append(count) }  // test only
    }

    static func asyncHandler(center: NotificationCenter) -> (CounterStore, NotificationToken) {
        let store = CounterStore()
        let token = CounterDidChange.observe(in: center) { change async in
            await store.save(change.count)
            await store.record(change.count)  // test only
        }
        return (store, token)  // test only
    }

    final class Counter: Sendable {
        let name: String
        init(name: String) { self.name = name }
    }

    struct CounterDidTick: Notifiable {
        typealias Sender = Counter
        let count: Int
    }

    static func whoPosted() {
        let center = NotificationCenter()
        let token = CounterDidTick.observe(in: center) { counter, tick in
            print(counter?.name ?? "unknown", "ticked", tick.count)
        }
        CounterDidTick(count: 1).post(from: Counter(name: "clicks"), in: center)  // prints "clicks ticked 1"
        withExtendedLifetime(token) {}
    }

    static func sequence() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)  // observing from here on
        CounterDidChange(count: 1).post(in: center)  // buffered until the loop asks for it
        CounterDidChange(count: 2).post(in: center)
        for await change in changes {
            print("got", change.count)
            if change.count == 2 { break }  // leaving the loop ends the observation
        }
    }

    static func cancelledLoop() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)  // first the sequence…
        let task = Task {  // …then the task that reads it
            for await change in changes {
                print("got", change.count)
            }
            print("loop ended")
        }
        task.cancel()  // ends the loop and the observation
        await task.value  // test only
    }

    static func newestOnly() async {
        let center = NotificationCenter()
        let latest = CounterDidChange.notifications(in: center, bufferingPolicy: .bufferingNewest(1))
        for count in 1...3 { CounterDidChange(count: count).post(in: center) }
        for await change in latest {
            print("latest:", change.count)  // prints "latest: 3": 1 and 2 were dropped
            break
        }
    }

    static func firstLogin() async {
        let center = NotificationCenter()
        let logins = UserDidLogIn.notifications(in: center)  // observing from here on
        UserDidLogIn.post(User(name: "Ada"), in: center)  // code that logs in, posting right away
        for await user in logins {
            print("first login:", user.name)
            break
        }
    }

    static func waitForGrace() async throws {
        let center = NotificationCenter()
        let ready = UserDidLogIn.notifications(in: center)  // observing from here on
        UserDidLogIn.post(User(name: "Grace"), in: center)
        let grace = try await ready.next(where: .matching { $0.name == "Grace" }, timeout: 10)
        print("logged in:", grace.name)  // prints "logged in: Grace"
    }

    enum AppEvent: Notifiable {
        enum Lifecycle: Sendable {
            case open
            case close
            case failed(reason: String)
        }

        enum Account: Sendable {
            case loggedIn(name: String)
            case loggedOut
        }

        case article(id: Int, Lifecycle)
        case account(Account)
    }

    final class ReadingTracker: @unchecked Sendable {
        // Guarded by `lock` (which is what makes the class Sendable): handlers run on whichever thread posts.
        private let lock = NSLock()
        private var opened = 0

        init(center: NotificationCenter) {
            AppEvent.observe(for: self, in: center) { tracker, event in tracker.consume(event) }
        }

        func consume(_ event: AppEvent) {
            switch event {
            case .article(_, .open): lock.withLock { opened += 1 }
            case .article(let id, .failed(let reason)): print("article \(id) failed: \(reason)")
            default: break
            }
        }

        var openedArticles: Int { lock.withLock { opened } }
    }

    static func messageBus() {
        let center = NotificationCenter()
        var tracker: ReadingTracker? = ReadingTracker(center: center)
        AppEvent.article(id: 1, .open).post(in: center)
        AppEvent.account(.loggedIn(name: "ada")).post(in: center)
        AppEvent.article(id: 2, .failed(reason: "offline")).post(in: center)  // prints "article 2 failed: offline"
        print("opened:", tracker?.openedArticles ?? 0)  // prints "opened: 1"
        tracker = nil  // no unsubscribing: the observation ends with the tracker
        AppEvent.article(id: 3, .failed(reason: "offline")).post(in: center)  // prints nothing
    }

    @MainActor final class ProfileViewModel {
        private(set) var title = "Signed out"

        func userDidLogIn(_ user: User) { title = "Hello, \(user.name)" }
        func userDidLogOut() { title = "Signed out" }
    }

    @MainActor final class ProfileNotificationsProxy {
        private var tokens: Set<NotificationToken> = []

        init(forwardingTo model: ProfileViewModel, center: NotificationCenter = .default) {
            UserDidLogIn.observeOnMainActor(in: center) { [weak model] user in model?.userDidLogIn(user) }
                .store(in: &tokens)
            UserDidLogOut.observeOnMainActor(in: center) { [weak model] in model?.userDidLogOut() }
                .store(in: &tokens)
        }
    }
}

// MARK: - Migrating string notifications

enum MigratingArticle {
    static let printed = PrintedLines()
    static func print(_ items: Any..., separator: String = " ") {
        printed.append(PrintedLines.line(items, separator: separator))
    }

    struct Payment: Sendable, Equatable {
        let id: String
        let amount: Int
    }

    enum PaymentResponse {
        case accepted(Payment)
        case rejected(Payment)
    }

    final class SadPaymentViewController {
        private let center: NotificationCenter
        private var observers: [any NSObjectProtocol] = []

        init(center: NotificationCenter = .default) {
            self.center = center
            for name in ["PaymentViewControllerNotificationRejected", "PaymentViewControllerNotificationAccepted"] {
                let observer = center.addObserver(forName: Notification.Name(name), object: nil, queue: nil) { note in
                    let id = note.userInfo?["paymentID"] as? String ?? "?"  // hope the key and the type are right
                    print(note.name.rawValue, id)
                }
                observers.append(observer)
            }
        }

        func paymentServiceDidReturn(_ response: PaymentResponse) {
            switch response {
            case .accepted(let payment):
                center.post(
                    name: Notification.Name("PaymentViewControllerNotificationRejected"),  // copied, pasted, wrong
                    object: nil,
                    userInfo: ["paymentID": payment.id, "amount": payment.amount]
                )
            case .rejected(let payment):
                center.post(
                    name: Notification.Name("PaymentViewControllerNotificationAccepted"),
                    object: nil,
                    userInfo: ["paymentID": payment.id, "amount": payment.amount]
                )
            }
        }

        deinit {
            for observer in observers { center.removeObserver(observer) }
        }
    }
}

extension MigratingArticle.Payment {
    /// The legacy `userInfo` layout: plain strings and numbers.
    var userInfo: [AnyHashable: Any] {
        ["paymentID": id, "amount": amount]
    }

    init(userInfo: [AnyHashable: Any]?) throws {
        guard let userInfo else { throw NotificationDecodingError.missingUserInfo }
        func value<Value>(_ key: String) throws -> Value {
            guard let value = userInfo[key] else { throw NotificationDecodingError.missingValue(key: key) }
            guard let typed = value as? Value else {
                throw NotificationDecodingError.typeMismatch(
                    key: key,
                    expected: "\(Value.self)",
                    found: "\(type(of: value))"
                )
            }
            return typed
        }
        self.init(id: try value("paymentID"), amount: try value("amount"))
    }
}

extension MigratingArticle {
    enum PaymentAccepted: Notifiable {
        typealias Payload = Payment

        static var notificationName: Notification.Name { .init("PaymentViewControllerNotificationAccepted") }

        static func payload(from notification: Notification) throws -> Payment {
            try Payment(userInfo: notification.userInfo)
        }

        static func userInfo(for payment: Payment) -> [AnyHashable: Any]? {
            payment.userInfo
        }
    }

    enum PaymentRejected: Notifiable {
        typealias Payload = Payment

        static var notificationName: Notification.Name { .init("PaymentViewControllerNotificationRejected") }

        static func payload(from notification: Notification) throws -> Payment {
            try Payment(userInfo: notification.userInfo)
        }

        static func userInfo(for payment: Payment) -> [AnyHashable: Any]? {
            payment.userInfo
        }
    }

    final class PaymentLog {
        private var tokens: Set<NotificationToken> = []

        init(center: NotificationCenter = .default) {
            PaymentAccepted.observe(in: center) { payment in print("accepted", payment.id, payment.amount) }
                .store(in: &tokens)
            PaymentRejected.observe(in: center) { payment in print("rejected", payment.id, payment.amount) }
                .store(in: &tokens)
        }
    }

    final class HappyPaymentViewController {
        private let center: NotificationCenter

        init(center: NotificationCenter = .default) {
            self.center = center
        }

        func paymentServiceDidReturn(_ response: PaymentResponse) {
            switch response {
            case .accepted(let payment): PaymentAccepted.post(payment, in: center)
            case .rejected(let payment): PaymentRejected.post(payment, in: center)
            }
        }
    }

    static func roundTrip<T: Notifiable>(_ type: T.Type, _ payload: T.Payload) throws -> T.Payload {
        let plain = Notification(name: T.notificationName, object: nil, userInfo: T.userInfo(for: payload))
        return try T.payload(from: plain)
    }

    /// Compiled, never run: the diagnostics hook is process-wide, and `DiagnosticsTests` installs its own.
    static func installDiagnostics() {
        NotificationDiagnostics.setHandler { event in
            switch event.kind {
            case .decodingFailed(let error):
                print("skipped a plain post of \(event.name.rawValue): \(error)")
            case .unobserved:
                print("\(event.name.rawValue) reached no typed observer")
            case .dropped:
                print("a bounded sequence dropped a payload of \(event.name.rawValue)")
            case .posted(let reached):
                print("\(event.name.rawValue) reached \(reached) typed observers")
            case .plainPostIgnored:
                print("\(event.name.rawValue) is typed-only: a plain post of it was ignored")
            default:
                print(event)  // the mistakes debug builds report, such as a token released at once
            }
        }
        NotificationDiagnostics.reportsUnobservedPosts = true
    }
}

// MARK: - Foundation's Message API

// The Message API exists on Linux from Swift 6.3, and on Apple platforms in the OS 26 SDKs (Swift 6.2).
#if compiler(>=6.3) || (compiler(>=6.2) && canImport(Darwin))
enum MessageAPIArticle {
    static let printed = PrintedLines()
    static func print(_ items: Any..., separator: String = " ") {
        printed.append(PrintedLines.line(items, separator: separator))
    }

    final class Downloader: Sendable {}

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    struct DownloadDidFinish: Notifiable, NotificationCenter.MainActorMessage {
        typealias Subject = Downloader  // the Message API's sender type
        typealias Sender = Downloader  // this package's sender type
        // Both APIs default to the module-qualified type name: keep them apart.
        static var notificationName: Notification.Name { .init("MyApp.DownloadDidFinish.typed") }

        let bytes: Int
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    struct ProgressDidChange: NotificationCenter.AsyncMessage {
        typealias Subject = Downloader
        let step: Int
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @MainActor static func bothAPIs() {
        let center = NotificationCenter()
        let downloader = Downloader()
        let message = center.addObserver(of: downloader, for: .downloadDidFinish) { finished in
            print("message observer:", finished.bytes)
        }
        let typed = DownloadDidFinish.observe(from: downloader, in: center) { finished in
            print("typed observer:", finished.bytes)
        }
        let finished = DownloadDidFinish(bytes: 512)
        center.post(finished, subject: downloader)  // the Message API: prints "message observer: 512"
        finished.post(from: downloader, in: center)  // TypedNotifications: prints "typed observer: 512"
        withExtendedLifetime((message, typed)) {}
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @MainActor static func announce(
        _ finished: DownloadDidFinish,
        by downloader: Downloader,
        in center: NotificationCenter
    ) {
        center.post(finished, subject: downloader)  // observers on the Message API
        finished.post(from: downloader, in: center)  // observers on TypedNotifications
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @MainActor static func ambiguousPost() {
        let center = NotificationCenter()
        let message = center.addObserver(for: DownloadDidFinish.self) { finished in
            print("message observer:", finished.bytes)
        }
        let typed = DownloadDidFinish.observe(in: center) { finished in print("typed observer:", finished.bytes) }
        center.post(DownloadDidFinish(bytes: 1))  // the Message API's post(_:): prints "message observer: 1"
        DownloadDidFinish(bytes: 2).post(in: center)  // prints "typed observer: 2"
        withExtendedLifetime((message, typed)) {}
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    static func messagesKeepTheNewestTen() async throws {
        let center = NotificationCenter()
        let progress = center.messages(for: ProgressDidChange.self)
        center.post(ProgressDidChange(step: 0))  // lost: nothing observes until the iterator exists
        var iterator = progress.makeAsyncIterator()
        for step in 1...15 { center.post(ProgressDidChange(step: step)) }
        if let first = try await iterator.next() {
            print("first:", first.step)  // prints "first: 6": only the newest 10 were kept
        }
    }
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<MessageAPIArticle.DownloadDidFinish> {
    static var downloadDidFinish: Self { .init() }
}
#endif

// MARK: - Tests

enum LatestValuesArticle {
    static let printed = PrintedLines()
    static func print(_ items: Any..., separator: String = " ") {
        printed.append(PrintedLines.line(items, separator: separator))
    }

    struct UnreadCount: LatestValueNotifiable {
        let count: Int
    }

    @MainActor final class InboxBadge {
        private(set) var text = ""

        /// Called when the inbox screen appears, perhaps long after the last post.
        func screenDidAppear(in center: NotificationCenter) {
            UnreadCount.observeOnMainActor(for: self, in: center) { badge, unread in
                badge.text = unread.count == 0 ? "" : "\(unread.count)"
                print("badge:", badge.text)
            }
        }
    }

    @MainActor static func badgeShowsTheCurrentCount() async -> InboxBadge {
        let center = NotificationCenter()
        UnreadCount(count: 3).post(in: center)  // the mail sync, before any screen exists
        let badge = InboxBadge()
        badge.screenDidAppear(in: center)  // prints "badge: 3"
        await printed.waitForCount(1)  // test only
        UnreadCount(count: 4).post(in: center)  // prints "badge: 4"
        await printed.waitForCount(2)  // test only
        return badge  // test only
    }

    struct MessagesDidChange: Notifiable {
        let ids: Set<Int>
    }

    @MainActor final class MessageList {
        private(set) var reloads = 0

        init(center: NotificationCenter) {
            MessagesDidChange.observeOnMainActor(for: self, in: center) { list, change in
                list.reloads += 1
                print("reload:", change.ids.count, "messages")
            }
        }
    }

    @MainActor static func importMessages(_ ids: [Int], in center: NotificationCenter) {
        let oneReload = NotificationCoalescing<MessagesDidChange>.nextTurn.merging { earlier, later in
            MessagesDidChange(ids: earlier.ids.union(later.ids))
        }
        for id in ids {
            // … store the message …
            MessagesDidChange(ids: [id]).post(in: center, coalescing: oneReload)
        }
    }

    @MainActor static func listReloadsOncePerBurst() async -> MessageList {
        let center = NotificationCenter()
        let list = MessageList(center: center)
        importMessages(Array(0..<200), in: center)  // at the main actor's next turn, prints "reload: 200 messages" once
        await printed.waitForCount(1)  // test only
        return list  // test only
    }

    struct ExportDidFinish: Notifiable {
        let id: Int
    }

    static func export(_ id: Int, in center: NotificationCenter) async throws -> ExportDidFinish {
        let finished = ExportDidFinish.notifications(in: center)  // observing from here on
        ExportDidFinish(id: id).post(in: center)  // stands for starting the export
        return try await finished.next(where: .matching { $0.id == id }, timeout: 30)
    }
}

@Suite struct DocumentationExamplesTests {
    // MARK: Getting started

    /// Serialized: the article shows the default center, and its examples share one `print` log.
    @Suite(.serialized) struct GettingStarted {
        typealias Article = GettingStartedArticle

        @Test func landingPage() {
            Article.printed.reset()
            Article.landingPage()
            #expect(Article.printed.lines == ["3"])
        }

        @Test func postAndObserve() {
            Article.printed.reset()
            Article.postAndObserve()
            #expect(Article.printed.lines == ["count is now 3"])
        }

        @Test func derivedNameIsTheModuleQualifiedTypeName() {
            #expect(
                Article.CounterDidChange.notificationName.rawValue
                    == "TypedNotificationsTests.GettingStartedArticle.CounterDidChange"
            )
        }

        @Test func releasingTheOwnerOfATokenEndsTheObservation() {
            Article.printed.reset()
            let center = NotificationCenter()
            var logger: Article.CounterLogger? = Article.CounterLogger(center: center)
            weak let weakLogger = logger
            Article.CounterDidChange(count: 1).post(in: center)
            logger = nil
            #expect(weakLogger == nil)
            Article.CounterDidChange(count: 2).post(in: center)
            #expect(Article.printed.lines == ["count: 1"])
        }

        @Test func tokensInASet() {
            Article.printed.reset()
            Article.tokensInASet()
            #expect(Article.printed.lines == ["first: 1", "second: 1"])
        }

        @Test func payloadless() {
            Article.printed.reset()
            Article.payloadless()
            #expect(Article.printed.lines == ["active"])
        }

        @Test func separatePayload() {
            Article.printed.reset()
            Article.separatePayload()
            #expect(Article.printed.lines == ["welcome, Ada"])
        }

        @Test func typedSender() {
            Article.printed.reset()
            Article.typedSender()
            #expect(Article.printed.lines == ["kitchen: 21.0"])
        }

        @Test func enumCasesAsNames() {
            Article.printed.reset()
            Article.enumCasesAsNames()
            #expect(Article.printed.lines == ["payment: rejected", "accepted", "payment: accepted"])
        }

        @Test func defaultCenter() {
            Article.printed.reset()
            Article.defaultCenter()
            #expect(Article.printed.lines == ["default center: 1"])
        }

        @Test @MainActor func injectedCenter() {
            let center = NotificationCenter()
            let counter = Article.Counter(center: center)
            let counts = PrintedLines()
            let token = Article.CounterDidChange.observe(from: counter, in: center) { change in
                counts.append("\(change.count)")
            }
            counter.increment()
            counter.increment()
            #expect(counts.lines == ["1", "2"])
            withExtendedLifetime(token) {}
        }
    }

    // MARK: Lifetimes and delivery

    @Suite(.serialized) struct LifetimesAndDelivery {
        typealias Article = LifetimesArticle

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func dispatchQueueDelivery() async {
            Article.printed.reset()
            Article.dispatchQueueDelivery()
            await Article.printed.waitForCount(1)
            #expect(Article.printed.lines == ["on the queue: 1"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func operationQueueDelivery() async {
            Article.printed.reset()
            Article.operationQueueDelivery()
            await Article.printed.waitForCount(3)
            #expect(Article.printed.lines == ["as an operation: 1", "as an operation: 2", "as an operation: 3"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) @MainActor func mainActorViewModel() async {
            let center = NotificationCenter()
            let model = Article.CounterViewModel(center: center)
            DispatchQueue.global().async {
                Article.CounterDidChange(count: 7).post(in: center)  // from a background thread
            }
            await waitUntil { model.text == "Count: 7" }
            #expect(model.text == "Count: 7")
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) @MainActor func mainActorPostUpdatesTheViewModelBeforeReturning() {
            Article.printed.reset()
            let center = NotificationCenter()
            let model = Article.CounterViewModel(center: center)
            Article.refresh(model, center: center)
            #expect(Article.printed.lines == ["Count: 7"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func actorTotal() async {
            let center = NotificationCenter()
            let total = Article.CounterTotal(center: center)
            Article.CounterDidChange(count: 2).post(in: center)
            Article.CounterDidChange(count: 3).post(in: center)
            await waitUntil { await total.total == 5 }
            #expect(await total.total == 5)
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func asyncHandlerSavesInOrder() async {
            let center = NotificationCenter()
            let (store, token) = Article.asyncHandler(center: center)
            for count in 1...3 { Article.CounterDidChange(count: count).post(in: center) }
            await waitUntil { await store.saved.count == 3 }
            #expect(await store.saved == [1, 2, 3])
            withExtendedLifetime(token) {}
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func whoPosted() {
            Article.printed.reset()
            Article.whoPosted()
            #expect(Article.printed.lines == ["clicks ticked 1"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func sequence() async {
            Article.printed.reset()
            await Article.sequence()
            #expect(Article.printed.lines == ["got 1", "got 2"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func cancelledLoop() async {
            Article.printed.reset()
            await Article.cancelledLoop()
            #expect(Article.printed.lines == ["loop ended"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func newestOnly() async {
            Article.printed.reset()
            await Article.newestOnly()
            #expect(Article.printed.lines == ["latest: 3"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func firstLogin() async {
            Article.printed.reset()
            await Article.firstLogin()
            #expect(Article.printed.lines == ["first login: Ada"])
        }

        @Test func waitForGrace() async throws {
            Article.printed.reset()
            try await Article.waitForGrace()
            #expect(Article.printed.lines == ["logged in: Grace"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func messageBus() {
            Article.printed.reset()
            Article.messageBus()
            #expect(Article.printed.lines == ["article 2 failed: offline", "opened: 1"])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) @MainActor func viewModelIsTestedWithoutNotifications() {
            let model = Article.ProfileViewModel()
            model.userDidLogIn(Article.User(name: "Ada"))
            #expect(model.title == "Hello, Ada")
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) @MainActor func proxyForwardsToItsViewModel() async {
            let center = NotificationCenter()
            let model = Article.ProfileViewModel()
            let other = Article.ProfileViewModel()
            let proxy = Article.ProfileNotificationsProxy(forwardingTo: model, center: center)
            Article.UserDidLogIn.post(Article.User(name: "Ada"), in: center)
            await waitUntil { model.title == "Hello, Ada" }
            Article.UserDidLogOut.post((), in: center)
            await waitUntil { model.title == "Signed out" }
            #expect(other.title == "Signed out")  // only the proxied instance reacts
            withExtendedLifetime(proxy) {}
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) @MainActor func releasedProxyStopsForwarding() async {
            let center = NotificationCenter()
            let model = Article.ProfileViewModel()
            var proxy: Article.ProfileNotificationsProxy? = Article.ProfileNotificationsProxy(
                forwardingTo: model,
                center: center
            )
            weak let weakProxy = proxy
            proxy = nil
            #expect(weakProxy == nil)
            let witness = Article.ProfileViewModel()
            let witnessProxy = Article.ProfileNotificationsProxy(forwardingTo: witness, center: center)
            Article.UserDidLogIn.post(Article.User(name: "Ada"), in: center)
            await waitUntil { witness.title == "Hello, Ada" }
            #expect(model.title == "Signed out")
            withExtendedLifetime(witnessProxy) {}
        }
    }

    // MARK: Migrating string notifications

    @Suite(.serialized) struct MigratingStringNotifications {
        typealias Article = MigratingArticle

        @Test func theSadViewControllerPostsTheWrongName() {
            Article.printed.reset()
            let center = NotificationCenter()
            let controller = Article.SadPaymentViewController(center: center)
            controller.paymentServiceDidReturn(.accepted(Article.Payment(id: "p-1", amount: 5)))
            #expect(Article.printed.lines == ["PaymentViewControllerNotificationRejected p-1"])
        }

        @Test func legacyPostsReachTypedObserversDecoded() {
            Article.printed.reset()
            let center = NotificationCenter()
            let log = Article.PaymentLog(center: center)
            center.post(
                name: Notification.Name("PaymentViewControllerNotificationAccepted"),
                object: nil,
                userInfo: ["paymentID": "p-1", "amount": 250]
            )
            #expect(Article.printed.lines == ["accepted p-1 250"])
            withExtendedLifetime(log) {}
        }

        @Test func legacyPostsThatDoNotDecodeAreSkipped() {
            Article.printed.reset()
            let center = NotificationCenter()
            let log = Article.PaymentLog(center: center)
            let name = Notification.Name("PaymentViewControllerNotificationRejected")
            center.post(name: name, object: nil, userInfo: nil)
            center.post(name: name, object: nil, userInfo: ["paymentID": "p-2"])
            center.post(name: name, object: nil, userInfo: ["paymentID": 2, "amount": 1])
            center.post(name: name, object: nil, userInfo: ["paymentID": "p-3", "amount": 3])
            #expect(Article.printed.lines == ["rejected p-3 3"])
            withExtendedLifetime(log) {}
        }

        @Test func decodingErrorsSayWhatIsWrong() {
            #expect(throws: NotificationDecodingError.missingUserInfo) {
                try Article.Payment(userInfo: nil)
            }
            #expect(throws: NotificationDecodingError.missingValue(key: "amount")) {
                try Article.Payment(userInfo: ["paymentID": "p-1"])
            }
            let mismatch = NotificationDecodingError.typeMismatch(key: "paymentID", expected: "String", found: "Int")
            #expect(throws: mismatch) {
                try Article.Payment(userInfo: ["paymentID": 1, "amount": 1])
            }
        }

        @Test func typedObserversAndTheSadViewControllerSideBySide() {
            Article.printed.reset()
            let center = NotificationCenter()
            let log = Article.PaymentLog(center: center)
            let controller = Article.SadPaymentViewController(center: center)
            controller.paymentServiceDidReturn(.rejected(Article.Payment(id: "p-2", amount: 7)))
            // Foundation calls the plain observers in an order of its own; compare as sets.
            #expect(Set(Article.printed.lines) == ["accepted p-2 7", "PaymentViewControllerNotificationAccepted p-2"])
            #expect(Article.printed.lines.count == 2)
            withExtendedLifetime((log, controller)) {}
        }

        @Test func typedPostsReachLegacyObserversWithTheLegacyLayout() {
            Article.printed.reset()
            let center = NotificationCenter()
            let legacy = Article.SadPaymentViewController(center: center)
            let log = Article.PaymentLog(center: center)
            let controller = Article.HappyPaymentViewController(center: center)
            controller.paymentServiceDidReturn(.accepted(Article.Payment(id: "p-3", amount: 9)))
            #expect(
                Set(Article.printed.lines) == ["accepted p-3 9", "PaymentViewControllerNotificationAccepted p-3"]
            )
            #expect(Article.printed.lines.count == 2)
            withExtendedLifetime((legacy, log)) {}
        }

        @Test func plainObserversSeeThePlainLegacyLayout() {
            let center = NotificationCenter()
            let seen = PrintedLines()
            let plain = center.addObserver(forName: Article.PaymentAccepted.notificationName, object: nil, queue: nil) {
                note in
                let id = note.userInfo?["paymentID"] as? String ?? "?"
                let amount = note.userInfo?["amount"] as? Int ?? -1
                seen.append("\(id) \(amount), \(note.userInfo?.count ?? 0) keys")
            }
            defer { center.removeObserver(plain) }
            Article.PaymentAccepted.post(Article.Payment(id: "p-4", amount: 1), in: center)
            #expect(seen.lines == ["p-4 1, 2 keys"])
        }

        @Test(arguments: [
            MigratingArticle.Payment(id: "p-1", amount: 250),
            MigratingArticle.Payment(id: "", amount: -5),
        ])
        func paymentNotificationsRoundTrip(payment: MigratingArticle.Payment) throws {
            #expect(try Article.roundTrip(Article.PaymentAccepted.self, payment) == payment)
            #expect(try Article.roundTrip(Article.PaymentRejected.self, payment) == payment)
        }
    }

    // MARK: Foundation's Message API

    #if compiler(>=6.3) || (compiler(>=6.2) && canImport(Darwin))
    /// Never mixes the two APIs on one name: on Linux, that aborts the process.
    @Suite(.serialized) struct FoundationMessageAPI {
        typealias Article = MessageAPIArticle

        @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
        @Test @MainActor func oneTypeConformsToBothAPIsUnderTwoNames() {
            Article.printed.reset()
            Article.bothAPIs()
            #expect(Article.printed.lines == ["message observer: 512", "typed observer: 512"])
            #expect(Article.DownloadDidFinish.notificationName.rawValue == "MyApp.DownloadDidFinish.typed")
        }

        @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
        @Test @MainActor func announcingThroughBothReachesEachObserverOnce() {
            let center = NotificationCenter()
            let downloader = Article.Downloader()
            let received = PrintedLines()
            let message = center.addObserver(of: downloader, for: .downloadDidFinish) { finished in
                received.append("message \(finished.bytes)")
            }
            let typed = Article.DownloadDidFinish.observe(from: downloader, in: center) { finished in
                received.append("typed \(finished.bytes)")
            }
            Article.announce(Article.DownloadDidFinish(bytes: 64), by: downloader, in: center)
            #expect(received.lines == ["message 64", "typed 64"])
            withExtendedLifetime((message, typed)) {}
        }

        @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
        @Test @MainActor func centerPostOfATypeConformingToBothIsTheMessageAPIs() {
            Article.printed.reset()
            Article.ambiguousPost()
            #expect(Article.printed.lines == ["message observer: 1", "typed observer: 2"])
        }

        @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
        @Test func messagesKeepsTheNewestTenFromWhenItsIteratorIsMade() async throws {
            Article.printed.reset()
            try await Article.messagesKeepTheNewestTen()
            #expect(Article.printed.lines == ["first: 6"])
        }
    }
    #endif

    @Suite(.serialized) struct LatestValuesAndCoalescing {
        typealias Article = LatestValuesArticle

        @Test @MainActor func badgeShowsTheCurrentCountWhenItsScreenAppears() async {
            Article.printed.reset()
            let badge = await Article.badgeShowsTheCurrentCount()
            #expect(Article.printed.lines == ["badge: 3", "badge: 4"])
            #expect(badge.text == "4")
        }

        @Test @MainActor func listReloadsOncePerBurst() async {
            Article.printed.reset()
            let list = await Article.listReloadsOncePerBurst()
            #expect(Article.printed.lines == ["reload: 200 messages"])
            #expect(list.reloads == 1)
        }

        @Test func exportWaitsForItsOwnNotification() async throws {
            let finished = try await Article.export(7, in: NotificationCenter())
            #expect(finished.id == 7)
        }
    }
}
