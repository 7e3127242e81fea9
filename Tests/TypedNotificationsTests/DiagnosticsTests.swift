import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// The diagnostics hook is process-wide, so these tests run one at a time and only look at their own center's events.
@Suite(.serialized) struct DiagnosticsTests {
    /// Installs a handler that records the events of `center` for the duration of `body`.
    private func recordingEvents(
        of center: NotificationCenter,
        reportingUnobserved: Bool = false,
        _ body: () throws -> Void
    ) rethrows -> [NotificationDiagnostics.Event] {
        let events = Recorded<NotificationDiagnostics.Event>()
        NotificationDiagnostics.setHandler { event in
            if event.center === center { events.append(event) }
        }
        NotificationDiagnostics.reportsUnobservedPosts = reportingUnobserved
        defer {
            NotificationDiagnostics.setHandler(nil)
            NotificationDiagnostics.reportsUnobservedPosts = false
        }
        try body()
        return events.values
    }

    /// As above, for asynchronous code.
    private func recordingEvents(
        of center: NotificationCenter,
        _ body: () async -> Void
    ) async -> [NotificationDiagnostics.Event] {
        let events = Recorded<NotificationDiagnostics.Event>()
        NotificationDiagnostics.setHandler { event in
            if event.center === center { events.append(event) }
        }
        defer { NotificationDiagnostics.setHandler(nil) }
        await body()
        return events.values
    }

    // MARK: - Where reports go

    @Test(arguments: [false, true])
    func aTaskThatOutlivesItsScopeReportsToTheProcessWideHandler(whileAnotherTaskHasAScopeOpen: Bool) async {
        let center = NotificationCenter()
        let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
        let endedScope = Recorded<NotificationDiagnostics.Event>()
        let otherScope = Recorded<NotificationDiagnostics.Event>()
        let recordEnded: @Sendable (NotificationDiagnostics.Event) -> Void = { endedScope.append($0) }
        let recordOther: @Sendable (NotificationDiagnostics.Event) -> Void = { otherScope.append($0) }

        // Another task's scope, open until the end of the test, if asked for.
        let (opened, open) = AsyncStream.makeStream(of: Void.self)
        let (released, release) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            guard whileAnotherTaskHasAScopeOpen else { return open.finish() }
            await NotificationDiagnostics.withHandler(recordOther) {
                open.finish()
                for await _ in released {}
            }
        }
        for await _ in opened {}

        // A task made in a scope that posts after the scope has ended.
        let (started, start) = AsyncStream.makeStream(of: Void.self)
        let leaked = NotificationDiagnostics.withHandler(recordEnded) {
            Task {
                for await _ in started {}
                center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil)
            }
        }
        let processWide = await recordingEvents(of: center) {
            start.finish()
            await leaked.value
        }
        release.finish()
        await holder.value

        #expect(endedScope.values.isEmpty, "an ended scope received a report")
        #expect(otherScope.values.isEmpty, "another task's scope received a report")
        #expect(processWide.count == 1)
        withExtendedLifetime(token) {}
    }

    // MARK: - Reports

    @Test func postTraceReportsTypeSenderAndTypedObserversReached() {
        let center = NotificationCenter()
        let first = CounterDidChange.observe(in: center) { _ in }
        let second = CounterDidChange.observe(from: Sender(), in: center) { _ in }
        let sender = Sender()
        NotificationDiagnostics.tracesPosts = true
        defer { NotificationDiagnostics.tracesPosts = false }
        let events = recordingEvents(of: center) {
            CounterDidChange(count: 1).post(from: sender, in: center)
            AppDidBecomeActive.post((), in: center)
        }
        #expect(events.count == 2)
        guard events.count == 2 else { return }
        if case .posted(let reached) = events[0].kind {
            #expect(reached == 1, "the second observer filters another sender")
        } else {
            Issue.record("expected a post trace, got \(events[0])")
        }
        #expect(events[0].sender == String(describing: sender))
        #expect(events[0].description.hasSuffix("reaching 1 typed observer"))
        if case .posted(let reached) = events[1].kind { #expect(reached == 0) }
        #expect(String(reflecting: events[1].type) == String(reflecting: AppDidBecomeActive.self))
        #expect(events[1].sender == nil)
        withExtendedLifetime((first, second)) {}
    }

    @Test func decodingFailureIsReportedWithTypeNameAndError() {
        let center = NotificationCenter()
        let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
        let events = recordingEvents(of: center) {
            center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: ["amount": 1])
        }
        #expect(events.count == 1)
        let event = events.first
        #expect(event?.type == BridgingTests.PaymentAccepted.self)
        #expect(event?.name == BridgingTests.PaymentAccepted.notificationName)
        if case .decodingFailed(let error) = event?.kind {
            #expect(error as? NotificationDecodingError == .missingValue(key: "paymentID"))
        } else {
            Issue.record("expected a decoding failure, got \(String(describing: event))")
        }
        #expect(event?.description.contains("PaymentViewControllerNotificationAccepted") == true)
        withExtendedLifetime(token) {}
    }

    @Test func boundedSequencesReportEachDroppedPayload() {
        let center = NotificationCenter()
        let newest = CounterDidChange.notifications(in: center, bufferingPolicy: .bufferingNewest(2))
        let oldest = CounterDidChange.notifications(in: center, bufferingPolicy: .bufferingOldest(1))
        let unbounded = CounterDidChange.notifications(in: center)
        let events = recordingEvents(of: center) {
            for count in 1...5 { CounterDidChange(count: count).post(in: center) }
        }
        // Three drops from the newest-2 buffer, four from the oldest-1 buffer, none from the unbounded one.
        #expect(events.count == 7)
        #expect(events.allSatisfy { if case .dropped = $0.kind { true } else { false } })
        #expect(events.allSatisfy { $0.type == CounterDidChange.self })
        #expect(events.first?.description.contains("dropped a payload") == true)
        withExtendedLifetime((newest, oldest, unbounded)) {}
    }

    @Test func unobservedPostsAreReportedOnlyWhenAskedFor() {
        let center = NotificationCenter()
        let silent = recordingEvents(of: center) {
            CounterDidChange(count: 1).post(in: center)
        }
        #expect(silent.isEmpty)
        let reported = recordingEvents(of: center, reportingUnobserved: true) {
            CounterDidChange(count: 1).post(in: center)
            let token = CounterDidChange.observe(in: center) { _ in }
            CounterDidChange(count: 2).post(in: center)
            withExtendedLifetime(token) {}
        }.filter {
            // Debug builds also report the token, released at the end of the closure, as released at once: not a
            // post, so not what this test is about.
            if case .discardedToken = $0.kind { false } else { true }
        }
        #expect(reported.count == 1)
        if case .unobserved = reported.first?.kind {} else { Issue.record("expected .unobserved, got \(reported)") }
    }

    @Test func postFilteredOutBySenderCountsAsUnobserved() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let token = Reading.observe(from: kitchen, in: center) { _ in }
        let events = recordingEvents(of: center, reportingUnobserved: true) {
            Reading(celsius: 1).post(from: Thermometer(), in: center)
            Reading(celsius: 2).post(from: kitchen, in: center)
        }
        #expect(events.count == 1)
        withExtendedLifetime(token) {}
    }

    @Test func withoutAHandlerABadPlainPostIsSkipped() {
        let center = NotificationCenter()
        let received = Counter()
        let token = CounterDidChange.observe(in: center) { _ in received.increment() }
        // No handler installed: a bad post is skipped (and, in debug builds, reported once to standard error).
        _ = defaultReports { center.post(name: CounterDidChange.notificationName, object: nil, userInfo: ["junk": 1]) }
        #expect(received.count == 0)
        withExtendedLifetime(token) {}
    }

    // MARK: - Debug builds' default reports

    /// What the default reporter writes while `body` runs, instead of writing it to standard error, keeping the
    /// messages that contain `text`.
    private func defaultReports(containing text: String = "", _ body: () -> Void) -> [String] {
        let messages = Recorded<String>()
        NotificationDiagnostics.defaultReportSink = { message in
            if message.contains(text) { messages.append(message) }
        }
        defer { NotificationDiagnostics.defaultReportSink = nil }
        body()
        return messages.values
    }

    @Test func withoutAHandlerDebugBuildsReportADecodingFailureOncePerTypeAndReason() {
        let center = NotificationCenter()
        let token = LoudlyDecoded.observe(in: center) { _ in }
        let name = LoudlyDecoded.notificationName
        let reports = defaultReports(containing: String(reflecting: LoudlyDecoded.self)) {
            for _ in 0..<3 {
                center.post(name: name, object: nil, userInfo: [:])
                center.post(name: name, object: nil, userInfo: ["amount": "ten"])
            }
        }
        #if DEBUG
        let type = String(reflecting: LoudlyDecoded.self)
        let missing = NotificationDecodingError.missingValue(key: "amount")
        let mismatch = NotificationDecodingError.typeMismatch(key: "amount", expected: "Int", found: "String")
        #expect(
            reports == [
                "TypedNotifications: \(type): could not decode a plain post of \(name.rawValue): \(missing)"
                    + Self.reportedOnce,
                "TypedNotifications: \(type): could not decode a plain post of \(name.rawValue): \(mismatch)"
                    + Self.reportedOnce,
            ]
        )
        #else
        #expect(reports.isEmpty)
        #endif
        withExtendedLifetime(token) {}
    }

    @Test func withAHandlerEveryDecodingFailureGoesToItAndNoneToTheDefaultReporter() {
        let center = NotificationCenter()
        let token = LoudlyDecoded.observe(in: center) { _ in }
        var events: [NotificationDiagnostics.Event] = []
        let reports = defaultReports(containing: String(reflecting: LoudlyDecoded.self)) {
            events = recordingEvents(of: center) {
                for _ in 0..<3 { center.post(name: LoudlyDecoded.notificationName, object: nil, userInfo: [:]) }
            }
        }
        #expect(events.count == 3)
        #expect(reports.isEmpty)
        withExtendedLifetime(token) {}
    }

    /// Observes `CounterDidChange` in `center` with `sender` as the sender filter, as if at `line`, and ends the
    /// observation at once. Owner-bound, so that no token is released at once (which debug builds report too).
    private func observeAndCancel(from sender: AnyObject?, in center: NotificationCenter, line: UInt) {
        let owner = Sender()
        CounterDidChange.observe(for: owner, from: sender, in: center, file: #fileID, line: line) { _, _ in }
            .cancel()
    }

    @Test func withoutAHandlerDebugBuildsReportACenterPassedAsSenderOncePerCallSite() {
        let center = NotificationCenter()
        let observed = NotificationCenter()
        let reports = defaultReports(containing: "as its sender filter") {
            // Three observing calls made at line 10 (in a loop, say), one at line 11.
            for line: UInt in [10, 10, 10, 11] {
                observeAndCancel(from: center, in: observed, line: line)
            }
            // Not a center, or no filter at all: nothing to report.
            observeAndCancel(from: Thermometer(), in: observed, line: 12)
            observeAndCancel(from: nil, in: observed, line: 13)
        }
        #if DEBUG
        let type = String(reflecting: CounterDidChange.self)
        let expected = [10, 11].map { line in
            "TypedNotifications: \(type): observed at \(#fileID):\(line) with a NotificationCenter as its sender filter "
                + "(from:), so it sees only posts sent by that center object; to observe posts in that center, pass "
                + "it as in:" + Self.reportedOnce
        }
        #expect(reports == expected)
        #else
        #expect(reports.isEmpty)
        #endif
    }

    @Test func withAHandlerEveryCenterPassedAsSenderGoesToIt() {
        let center = NotificationCenter()
        let observed = NotificationCenter()
        var events: [NotificationDiagnostics.Event] = []
        let reports = defaultReports(containing: "as its sender filter") {
            events = recordingEvents(of: observed) {
                for _ in 0..<2 {
                    observeAndCancel(from: center, in: observed, line: 7)
                }
                observeAndCancel(from: Thermometer(), in: observed, line: 8)
            }
        }
        #expect(reports.isEmpty)
        #if DEBUG
        #expect(events.count == 2)
        for event in events {
            guard case .centerAsSender(let fileID, let line) = event.kind else {
                Issue.record("expected .centerAsSender, got \(event)")
                continue
            }
            #expect(fileID == #fileID)
            #expect(line == 7)
            #expect(ObjectIdentifier(event.type) == ObjectIdentifier(CounterDidChange.self))
            #expect(event.name == CounterDidChange.notificationName)
        }
        #else
        #expect(events.isEmpty)
        #endif
    }

    /// The end of each default report.
    private static var reportedOnce: String {
        " (debug builds report this once; a NotificationDiagnostics handler receives every report)"
    }

    // MARK: - Randomised bad input

    @Test func randomUserInfoNeverCrashesAndNeverDeliversJunk() {
        let seed = TestSeed.run
        var random = SplitMix64(seed: seed)
        let center = NotificationCenter()
        let payments = Recorded<BridgingTests.Payment>()
        let counters = Recorded<Int>()
        let tokens = [
            BridgingTests.PaymentAccepted.observe(in: center) { payments.append($0) },
            CounterDidChange.observe(in: center) { counters.append($0.count) },
        ]
        var expectedPayments: [BridgingTests.Payment] = []
        var expectedCounts: [Int] = []
        var expectedFailures = 0
        let events = recordingEvents(of: center) {
            for round in 0..<3_000 {
                let userInfo = Self.randomUserInfo(using: &random)
                let payment = Self.validPayment(in: userInfo)
                center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: userInfo)
                if let payment { expectedPayments.append(payment) } else { expectedFailures += 1 }
                let counter = userInfo?[Notification.typedPayloadKey] as? CounterDidChange
                center.post(name: CounterDidChange.notificationName, object: nil, userInfo: userInfo)
                if let counter { expectedCounts.append(counter.count) } else { expectedFailures += 1 }
                // A valid typed post after each junk one must still arrive.
                CounterDidChange(count: -round).post(in: center)
                expectedCounts.append(-round)
            }
        }
        #expect(payments.values == expectedPayments, "seed \(seed)")
        #expect(counters.values == expectedCounts, "seed \(seed)")
        #expect(events.count == expectedFailures, "seed \(seed)")
        if payments.values != expectedPayments || events.count != expectedFailures {
            print("randomUserInfoNeverCrashesAndNeverDeliversJunk failed; replay with TYPED_NOTIFICATIONS_SEED=\(seed)")
        }
        withExtendedLifetime(tokens) {}
    }

    private static func randomKey(using random: inout SplitMix64) -> AnyHashable {
        let keys: [AnyHashable] = [
            "paymentID", "amount", Notification.typedPayloadKey, "other", 1, 2.5, AnyHashable(Notification.Name("n")),
        ]
        return keys.randomElement(using: &random)!
    }

    private static func randomValue(using random: inout SplitMix64) -> Any {
        switch Int.random(in: 0..<10, using: &random) {
        case 0: "p-\(Int.random(in: 0..<100, using: &random))"
        case 1: Int.random(in: -1_000...1_000, using: &random)
        case 2: Double.random(in: -1...1, using: &random)
        case 3: [1, 2, 3]
        case 4: ["nested": "dictionary"]
        case 5: CounterDidChange(count: Int.random(in: 0..<100, using: &random))
        case 6: NSNull()
        case 7: Optional<Int>.none as Any
        case 8: Sender()
        default: Data([0xFF, 0x00])
        }
    }

    private static func randomUserInfo(using random: inout SplitMix64) -> [AnyHashable: Any]? {
        if Int.random(in: 0..<8, using: &random) == 0 { return nil }
        var userInfo: [AnyHashable: Any] = [:]
        for _ in 0..<Int.random(in: 0...4, using: &random) {
            userInfo[randomKey(using: &random)] = randomValue(using: &random)
        }
        return userInfo
    }

    private static func validPayment(in userInfo: [AnyHashable: Any]?) -> BridgingTests.Payment? {
        guard let id = userInfo?["paymentID"] as? String, let amount = userInfo?["amount"] as? Int else { return nil }
        return BridgingTests.Payment(id: id, amount: amount)
    }
}

/// A type whose plain posts fail to decode in two ways, for the default reporter's tests only.
private enum LoudlyDecoded: Notifiable {
    typealias Payload = Int

    static func payload(from notification: Notification) throws -> Int {
        guard let amount = notification.userInfo?["amount"] else {
            throw NotificationDecodingError.missingValue(key: "amount")
        }
        guard let cents = amount as? Int else {
            throw NotificationDecodingError.typeMismatch(key: "amount", expected: "Int", found: "\(type(of: amount))")
        }
        return cents
    }
}

extension DiagnosticsTests {
    struct Tick: Notifiable, Equatable {
        let id: Int
    }

    /// `Type.observe(from: center)`, a typo for `in: center`, compiles and never fires: debug builds report it.
    @Test func aCenterGivenAsTheSenderFilterIsReportedInDebugBuilds() {
        let center = NotificationCenter()
        let reports = Recorded<String>()
        let handler: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .centerAsSender(let fileID, _) = event.kind { reports.append(fileID) }
        }
        NotificationDiagnostics.withHandler(handler) {
            let mistaken = Tick.observe(from: center, in: center) { _ in }
            let intended = Tick.observe(in: center) { _ in }
            withExtendedLifetime((mistaken, intended)) {}
        }
        #if DEBUG
        #expect(reports.values == ["TypedNotificationsTests/DiagnosticsTests.swift"])
        #else
        #expect(reports.values.isEmpty, "only debug builds check")
        #endif
    }

    struct SharedNameA: Notifiable {
        static var notificationName: Notification.Name { .init("DiagnosticsTests.shared") }
        let a: Int
    }

    struct SharedNameB: Notifiable {
        static var notificationName: Notification.Name { .init("DiagnosticsTests.shared") }
        let b: String
    }

    /// Another type's typed post under a shared name is not a plain post that failed to decode.
    @Test func typesSharingANameDoNotReportEachOthersPostsAsDecodingFailures() {
        let center = NotificationCenter()
        let failures = Recorded<String>()
        let handler: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .decodingFailed = event.kind { failures.append(event.name.rawValue) }
        }
        NotificationDiagnostics.withHandler(handler) {
            let a = SharedNameA.observe(in: center) { _ in }
            let b = SharedNameB.observe(in: center) { _ in }
            SharedNameA(a: 1).post(in: center)
            center.post(name: SharedNameB.notificationName, object: nil, userInfo: [:])
            withExtendedLifetime((a, b)) {}
        }
        #expect(failures.values == [SharedNameB.notificationName.rawValue, SharedNameA.notificationName.rawValue])
    }
}
