import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// Mistakes a newcomer makes, and what the package does about each: a compile error that names the fix, or a report
// in debug builds. The reports are caught with a diagnostics scope, so these tests run in parallel with the others.

@Suite struct MisuseTests {
    /// The reports `body` causes on this task (debug builds report these kinds only).
    private func reports(_ body: () -> Void) -> [NotificationDiagnostics.Event.Kind] {
        let events = Recorded<NotificationDiagnostics.Event.Kind>()
        NotificationDiagnostics.withHandler({ events.append($0.kind) }, operation: body)
        return events.values
    }

    // MARK: - A discarded token

    @Test func aTokenDiscardedWithUnderscoreIsReportedAtItsLine() {
        let center = NotificationCenter()
        let delivered = Recorded<Int>()
        var line = 0
        let kinds = reports {
            line = #line + 1
            _ = CounterDidChange.observe(in: center) { delivered.append($0.count) }
            CounterDidChange(count: 1).post(in: center)
        }
        #expect(delivered.values.isEmpty, "the token ended the observation as it was released")
        #if DEBUG
        guard case .discardedToken(let fileID, let reportedLine)? = kinds.first else {
            Issue.record("expected a .discardedToken report, got \(kinds)")
            return
        }
        #expect(kinds.count == 1)
        #expect(fileID == #fileID)
        #expect(reportedLine == line)
        #else
        #expect(kinds.isEmpty)
        #endif
    }

    @Test func tokensThatAreKeptOrCancelledAreNotReported() {
        let center = NotificationCenter()
        let kinds = reports {
            // Kept until after another observation was made: the usual life of a stored token.
            var kept: NotificationToken? = CounterDidChange.observe(in: center) { _ in }
            let other = Reading.observe(in: center) { _ in }
            kept = nil
            // Stored in a set, released with it, and one whose observation was made by the owner-bound form.
            var tokens: Set<NotificationToken> = []
            CounterDidChange.observe(in: center) { _ in }.store(in: &tokens)
            Reading.observe(in: center) { _ in }.store(in: &tokens)
            tokens.removeAll()
            // Kept briefly on purpose, and ended by cancelling it, as the report advises.
            let brief = Reading.observe(in: center) { _ in }
            brief.cancel()
            withExtendedLifetime((kept, other)) {}
        }
        #expect(kinds.isEmpty)
    }

    @Test func theDiscardedTokenReportCallsItALikelyMistakeAndSaysHowToEndItOnPurpose() {
        let center = NotificationCenter()
        let messages = Recorded<String>()
        NotificationDiagnostics.withHandler(
            { messages.append("\($0)") },
            operation: { _ = CounterDidChange.observe(in: center) { _ in } }
        )
        #if DEBUG
        let message = messages.values.first ?? ""
        #expect(messages.values.count == 1)
        #expect(message.contains("likely a mistake"))
        #expect(message.contains("call cancel() on its token, which is not reported"))
        #else
        #expect(messages.values.isEmpty)
        #endif
    }

    // MARK: - Observations that can never fire

    @Test func aCenterPassedAsTheSenderIsReported() {
        let center = NotificationCenter()
        var line = 0
        let kinds = reports {
            line = #line + 1
            let token = CounterDidChange.observe(from: center, in: center) { _ in }
            CounterDidChange(count: 1).post(in: center)
            withExtendedLifetime(token) {}
        }
        #if DEBUG
        #expect(kinds.count == 1)
        guard case .centerAsSender(_, let reportedLine)? = kinds.first else {
            Issue.record("expected .centerAsSender, got \(kinds)")
            return
        }
        #expect(reportedLine == line)
        #else
        #expect(kinds.isEmpty)
        #endif
    }

    @Test func aCenterPassedAsThePostsSenderIsReported() {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let token = CounterDidChange.observe(in: center) { received.append($0.count) }
        let kinds = reports {
            CounterDidChange(count: 1).post(from: center, in: .default)  // meant: in: center
            CounterDidChange(count: 2).post(in: center)
        }
        #expect(received.values == [2])
        #if DEBUG
        guard case .centerAsPostSender? = kinds.first, kinds.count == 1 else {
            Issue.record("expected one .centerAsPostSender, got \(kinds)")
            return
        }
        #else
        #expect(kinds.isEmpty)
        #endif
        withExtendedLifetime(token) {}
    }

    @Test func theReportOfACenterAsThePostsSenderSaysWhatToWriteInstead() {
        let center = NotificationCenter()
        let descriptions = Recorded<String>()
        NotificationDiagnostics.withHandler(
            { descriptions.append($0.description) },
            operation: {
                CounterDidChange(count: 1).post(from: center, in: NotificationCenter())
            })
        #if DEBUG
        #expect(descriptions.values.count == 1)
        let description = descriptions.values.first ?? ""
        #expect(description.contains("post(from: center)"), "names what was written: \(description)")
        #expect(description.contains("write post(in: center)"), "names what to write: \(description)")
        #else
        #expect(descriptions.values.isEmpty)
        #endif
    }

    /// Posts from itself in its `deinit`, where observers filtering by it can no longer see it.
    private final class PostsInDeinit: Sendable {
        let center: NotificationCenter
        init(center: NotificationCenter) { self.center = center }
        func close() { DocumentDidClose().post(from: self, in: center) }
        deinit { DocumentDidClose().post(from: self, in: center) }
    }

    private struct DocumentDidClose: Notifiable {
        typealias Sender = PostsInDeinit
    }

    @Test func aPostFromASenderInItsDeinitReachesNoSenderFilterAndIsReported() {
        let center = NotificationCenter()
        var document: PostsInDeinit? = PostsInDeinit(center: center)
        let fromDocument = Counter()
        let fromAnyone = Counter()
        let tokens = [
            DocumentDidClose.observe(from: document, in: center) { _ in fromDocument.increment() },
            DocumentDidClose.observe(in: center) { _ in fromAnyone.increment() },
        ]
        var kinds = reports { document?.close() }
        #expect(kinds.isEmpty, "a post from a live sender is fine")
        #expect(fromDocument.count == 1)
        kinds = reports { document = nil }
        #expect(fromDocument.count == 1, "the sender filter no longer sees the object in its deinit")
        #expect(fromAnyone.count == 2, "observers of every sender still receive it")
        #if DEBUG
        #expect(kinds.count == 1)
        guard case .deinitializingSender? = kinds.first else {
            Issue.record("expected .deinitializingSender, got \(kinds)")
            return
        }
        #else
        #expect(kinds.isEmpty)
        #endif
        withExtendedLifetime(tokens) {}
    }

    /// Observes itself in its `deinit`, where the observation can never fire.
    private final class ObservesInDeinit: Sendable {
        let center: NotificationCenter
        init(center: NotificationCenter) { self.center = center }
        deinit {
            CounterDidChange.observe(for: self, in: center) { _, _ in }
        }
    }

    @Test func anOwnerBoundObservationMadeInTheOwnersDeinitIsReported() {
        let center = NotificationCenter()
        let kinds = reports {
            _ = ObservesInDeinit(center: center)
        }
        #if DEBUG
        #expect(kinds.count == 1)
        guard case .deinitializingOwner(let fileID, _)? = kinds.first else {
            Issue.record("expected .deinitializingOwner, got \(kinds)")
            return
        }
        #expect(fileID == #fileID)
        #else
        #expect(kinds.isEmpty)
        #endif
        #expect(center.typedObservations.isEmpty, "the observation ended with the owner")
    }

    @Test func aLiveOwnerIsNotReported() {
        let center = NotificationCenter()
        let owner = Counter()
        let kinds = reports {
            CounterDidChange.observe(for: owner, in: center) { owner, _ in owner.increment() }
        }
        #expect(kinds.isEmpty)
        CounterDidChange(count: 1).post(in: center)
        #expect(owner.count == 1)
    }

    /// A class that conforms, and a subclass that inherits the conformance.
    class Announcement: Notifiable, @unchecked Sendable {}
    final class UrgentAnnouncement: Announcement, @unchecked Sendable {}

    @Test func observingASubclassOfAConformingClassIsReported() {
        let center = NotificationCenter()
        let received = Recorded<Bool>()
        var kinds = reports {
            let conforming = Announcement.observe(in: center) { received.append($0 is UrgentAnnouncement) }
            let urgent: Announcement = UrgentAnnouncement()  // `UrgentAnnouncement().post()` does not compile
            urgent.post(in: center)
            withExtendedLifetime(conforming) {}
        }
        #expect(kinds.isEmpty, "the conforming class itself is fine")
        #expect(received.values == [true], "observing the conforming class sees its subclasses' posts")
        var tokens: Set<NotificationToken> = []  // kept: its observation never fires, but it is not discarded
        kinds = reports {
            UrgentAnnouncement.observe(in: center) { _ in }.store(in: &tokens)
            Announcement().post(in: center)
        }
        #if DEBUG
        #expect(kinds.count == 1)
        guard case .inheritedConformance? = kinds.first else {
            Issue.record("expected .inheritedConformance, got \(kinds)")
            return
        }
        #else
        #expect(kinds.isEmpty)
        #endif
    }

    enum Light: Notifiable, Equatable {
        case on, off
    }

    @Test func aCaseFilterOnAnEnumCaseIsFineAndOnAStructValueIsReported() {
        let center = NotificationCenter()
        let onlyOn = Recorded<Light>()
        var kinds = reports {
            let token = Light.on.observe(in: center) { onlyOn.append($0) }
            Light.off.post(in: center)
            Light.on.post(in: center)
            withExtendedLifetime(token) {}
        }
        #expect(kinds.isEmpty)
        #expect(onlyOn.values == [.on])
        let three = Recorded<Int>()
        kinds = reports {
            let token = CounterDidChange(count: 3).observe(in: center) { three.append($0.count) }
            CounterDidChange(count: 2).post(in: center)
            CounterDidChange(count: 3).post(in: center)
            withExtendedLifetime(token) {}
        }
        #expect(three.values == [3], "equality is still what it filters by")
        #if DEBUG
        #expect(kinds.count == 1)
        guard case .caseFilterOnNonEnum? = kinds.first else {
            Issue.record("expected .caseFilterOnNonEnum, got \(kinds)")
            return
        }
        #else
        #expect(kinds.isEmpty)
        #endif
    }

    enum PaymentDidFinish: Notifiable, Equatable {
        case accepted
        case finished(id: Int)
    }

    @Test func aCaseFilterOnACaseWithAnAssociatedValueIsReportedWithTheMatchingCondition() {
        let center = NotificationCenter()
        let events = Recorded<NotificationDiagnostics.Event>()
        var line = 0
        NotificationDiagnostics.withHandler(
            { events.append($0) },
            operation: {
                let accepted = PaymentDidFinish.accepted.observe(in: center) { _ in }
                line = #line + 1
                let finished = PaymentDidFinish.finished(id: 0).observe(in: center) { _ in }
                PaymentDidFinish.accepted.post(in: center)  // uses the tokens, which are then not "discarded"
                withExtendedLifetime((accepted, finished)) {}
            })
        #if DEBUG
        #expect(events.values.count == 1, "a case without values is not reported: \(events.values.map(\.kind))")
        guard let event = events.values.first,
            case .caseFilterWithAssociatedValue(let caseName, let fileID, let reportedLine) = event.kind
        else {
            Issue.record("expected .caseFilterWithAssociatedValue, got \(events.values.map(\.kind))")
            return
        }
        #expect(caseName == "finished")
        #expect(fileID == #fileID)
        #expect(reportedLine == line)
        #expect(
            event.description.contains(".observe(where: .matching { if case .finished = $0 { true } else { false } })"),
            "shows the condition to write: \(event.description)")
        #else
        #expect(events.values.isEmpty)
        #endif
    }

    // MARK: - A sequence made before its task

    @Test func aSequenceMadeBeforeItsTaskReceivesAPostMadeBeforeTheTaskRuns() async {
        let center = NotificationCenter()
        let changes = CounterDidChange.notifications(in: center)  // as the docs say: first the sequence…
        let firstTwo = Task {  // …then the task that reads it
            var seen: [Int] = []
            for await change in changes {
                seen.append(change.count)
                if seen.count == 2 { break }
            }
            return seen
        }
        // Posted at once: the task may not have started, and nothing is lost.
        CounterDidChange(count: 1).post(in: center)
        CounterDidChange(count: 2).post(in: center)
        #expect(await firstTwo.value == [1, 2])
    }
}

extension MisuseTests {
    private func reportsAsync(_ body: () async -> Void) async -> [NotificationDiagnostics.Event.Kind] {
        let events = Recorded<NotificationDiagnostics.Event.Kind>()
        await NotificationDiagnostics.withHandler({ events.append($0.kind) }, operation: body)
        return events.values
    }

    private static func isDiscardedToken(_ kind: NotificationDiagnostics.Event.Kind) -> Bool {
        if case .discardedToken = kind { return true }
        return false
    }

    // MARK: - The discarded-token report: false positives

    /// How a test keeps a token that it plainly uses.
    enum Keeping: String, CaseIterable, Sendable {
        case localConstant, property, setInsert, array, returnedFromFunction
    }

    final class Holder: @unchecked Sendable {
        var token: NotificationToken?
        var tokens: Set<NotificationToken> = []
        var list: [NotificationToken] = []
    }

    private static func observeCounts(
        in center: NotificationCenter, into received: Recorded<Int>
    ) -> NotificationToken {
        CounterDidChange.observe(in: center) { received.append($0.count) }
    }

    /// A token that is kept, and delivers a post made on another thread while this thread waits for it, is not
    /// reported as discarded when it is released: a post of its type on its center counts as use, from any thread,
    /// where this thread's "newest token" is cleared only by this thread's own calls into the package.
    @Test(arguments: Keeping.allCases)
    func aTokenThatReceivedAPostFromAnotherThreadIsNotReportedAsDiscarded(keeping: Keeping) {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let postFromAnotherThread = {
            #expect(runOnAnotherThreadAndWait { CounterDidChange(count: 1).post(in: center) })
        }
        let kinds = reports {
            let holder = Holder()
            switch keeping {
            case .localConstant:
                let token = CounterDidChange.observe(in: center) { received.append($0.count) }
                postFromAnotherThread()
                withExtendedLifetime(token) {}
            case .property:
                holder.token = CounterDidChange.observe(in: center) { received.append($0.count) }
                postFromAnotherThread()
                holder.token = nil
            case .setInsert:
                holder.tokens.insert(CounterDidChange.observe(in: center) { received.append($0.count) })
                postFromAnotherThread()
                holder.tokens.removeAll()
            case .array:
                holder.list.append(CounterDidChange.observe(in: center) { received.append($0.count) })
                postFromAnotherThread()
                holder.list.removeAll()
            case .returnedFromFunction:
                let token = Self.observeCounts(in: center, into: received)
                postFromAnotherThread()
                withExtendedLifetime(token) {}
            }
        }
        #expect(received.values == [1], "the token was kept and delivered")
        #expect(!kinds.contains(where: Self.isDiscardedToken), "a kept, used token was reported: \(kinds)")
    }

    /// A token that delivered a plain `NotificationCenter` post made on this thread (the migration path the docs
    /// describe) is not reported as discarded: the package's Foundation observer counts as a call into the package.
    @Test func aTokenThatReceivedAPlainPostIsNotReportedAsDiscarded() {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let kinds = reports {
            let token = CounterDidChange.observe(in: center) { received.append($0.count) }
            center.post(
                name: CounterDidChange.notificationName, object: nil,
                userInfo: CounterDidChange.userInfo(for: CounterDidChange(count: 1)))
            withExtendedLifetime(token) {}
        }
        #expect(received.values == [1], "the plain post was delivered")
        #expect(!kinds.contains(where: Self.isDiscardedToken), "a kept, used token was reported: \(kinds)")
    }

    /// A token kept across an `await` by code that always runs on one thread (a `@MainActor` view model on Apple
    /// platforms), and delivered to by another task meanwhile, is not reported as discarded: the post counts as use.
    @Test(.timeLimit(.minutes(1))) func aTokenKeptAcrossAnAwaitOnASingleThreadedActorIsNotReportedAsDiscarded() async {
        let center = NotificationCenter()
        let model = OneThreadModel()
        var received: [Int] = []
        let kinds = await reportsAsync {
            received = await model.observeAcrossAwait(in: center)
        }
        model.executor.stop()
        #expect(received == [1], "the token was kept and delivered")
        #expect(!kinds.contains(where: Self.isDiscardedToken), "a kept, used token was reported: \(kinds)")
    }

    /// A token kept to check that nothing arrives (a post from another sender, on another thread) is not reported as
    /// discarded, although nothing was delivered and this thread made no call into the package: a post of its type on
    /// its center counts as use, whether or not its sender filter lets the post through.
    @Test func aTokenKeptToCheckThatNothingArrivesIsNotReportedAsDiscarded() {
        let center = NotificationCenter()
        let thermometer = Thermometer()
        let received = Recorded<Double>()
        let kinds = reports {
            let token = Reading.observe(from: thermometer, in: center) { received.append($0.celsius) }
            #expect(runOnAnotherThreadAndWait { Reading(celsius: 1).post(from: Thermometer(), in: center) })
            withExtendedLifetime(token) {}
        }
        #expect(received.values.isEmpty, "the sender filter held")
        #expect(!kinds.contains(where: Self.isDiscardedToken), "a kept token was reported: \(kinds)")
    }

    /// Only a token released on the thread that made it can be reported. The thread-local "newest token" is an
    /// address that can outlive its token, so a token made on another thread at that address, kept and used, would be
    /// taken for it when this thread releases it; so each token also records the thread that made it.
    @Test func aTokenReleasedOnAnotherThreadThanTheOneThatMadeItIsNotReported() {
        let center = NotificationCenter()
        let kinds = reports {
            let made = Slot<NotificationToken>()
            #expect(runOnAnotherThreadAndWait { made.set(CounterDidChange.observe(in: center) { _ in }) })
            made.set(nil)  // released here, at once, with nothing posted
        }
        #expect(!kinds.contains(where: Self.isDiscardedToken), "a token made on another thread was reported: \(kinds)")
    }

    // MARK: - The discarded-token report: what it must catch

    /// Every form that returns a token reports `_ =` at the line where it was written.
    @Test func everyTokenFormDiscardedWithUnderscoreIsReportedAtItsLine() {
        let center = NotificationCenter()
        var lines: [Int] = []
        let kinds = reports {
            lines.append(#line + 1)
            _ = CounterDidChange.observe(in: center) { _ in }
            lines.append(#line + 1)
            _ = Reading.observe(in: center) { _, _ in }
            lines.append(#line + 1)
            _ = CounterDidChange.observeOnMainActor(in: center) { _ in }
            lines.append(#line + 1)
            _ = CounterDidChange.observe(in: center) { _ async in }
            lines.append(#line + 1)
            _ = PaymentNotifications.accepted.observe(in: center) { _ in }
            lines.append(#line + 1)
            _ = CounterDidChange.observe(in: center, where: .matching { $0.count > 0 }) { _ in }
        }
        #if DEBUG
        let reported = kinds.compactMap { kind -> Int? in
            if case .discardedToken(let fileID, let line) = kind, fileID == #fileID { return line }
            return nil
        }
        #expect(reported == lines)
        #else
        #expect(kinds.isEmpty)
        #endif
        #expect(center.typedObservations.isEmpty)
    }

    // MARK: - Reports made when observing

    final class ObservesAsyncInDeinit: Sendable {
        let center: NotificationCenter
        init(center: NotificationCenter) { self.center = center }
        deinit {
            CounterDidChange.observe(for: self, in: center) { _, _ async in }
        }
    }

    /// The owner-bound `async` form made in its owner's `deinit` is reported, and leaves nothing behind.
    @Test func theOwnerBoundAsyncFormMadeInItsOwnersDeinitIsReported() {
        let center = NotificationCenter()
        let kinds = reports { _ = ObservesAsyncInDeinit(center: center) }
        #if DEBUG
        #expect(kinds.count == 1)
        #expect(kinds.contains { if case .deinitializingOwner = $0 { true } else { false } }, "\(kinds)")
        #endif
        #expect(center.typedObservations.isEmpty)
    }

    class Shape: @unchecked Sendable {}
    /// A conforming class whose payload is its superclass: it is the conforming class, not a subclass of one, and is
    /// not reported (as `.inheritedConformance` or otherwise).
    final class ShapeDidChange: Shape, Notifiable, @unchecked Sendable {
        typealias Payload = Shape
    }

    @Test func aConformingClassWhosePayloadIsItsSuperclassIsNotReportedAsASubclass() {
        let center = NotificationCenter()
        let received = Counter()
        let kinds = reports {
            let token = ShapeDidChange.observe(in: center) { _ in received.increment() }
            ShapeDidChange.post(Shape(), in: center)
            withExtendedLifetime(token) {}
        }
        #expect(received.count == 1, "it observes its own posts")
        #expect(kinds.isEmpty, "\(kinds)")
    }

    /// A conforming class with a payload of its own type (not `Self`), and a subclass that inherits the conformance.
    class Alarm: Notifiable, @unchecked Sendable {
        typealias Payload = Int
    }
    final class LoudAlarm: Alarm, @unchecked Sendable {}

    /// Observing the subclass never sees the conforming class's posts, the mistake the report is for: reported
    /// whatever the payload, including one that is not the class itself.
    @Test func observingASubclassIsReportedWhateverThePayload() {
        let center = NotificationCenter()
        let received = Counter()
        let kinds = reports {
            let token = LoudAlarm.observe(in: center) { _ in received.increment() }
            Alarm.post(3, in: center)
            withExtendedLifetime(token) {}
        }
        #expect(received.count == 0, "the subclass has a notification of its own")
        #if DEBUG
        #expect(
            kinds.contains { if case .inheritedConformance = $0 { true } else { false } },
            "observing a subclass of a conforming class went unreported: \(kinds)")
        #endif
    }
}
