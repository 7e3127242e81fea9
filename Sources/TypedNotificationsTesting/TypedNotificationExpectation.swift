#if canImport(XCTest)
public import Foundation
public import TypedNotifications
public import XCTest

/// An `XCTestExpectation` fulfilled by posts of one `Notifiable` type: a typed `XCTNSNotificationExpectation`.
///
/// Each post of `Event` on the center (from `sender`, if given, and accepted by the predicate, if any) counts once.
/// `count` means exactly that many: the expectation is met by the `count`th post, and each post past it fails the
/// test at the line that made the expectation, listing the extra payloads, as Swift Testing's `expectPosts` does. A
/// test that means "at least" says so with ``init(_:atLeast:from:in:file:filePath:line:where:)``. Observation begins
/// before the initialiser returns and lasts as long as the expectation. The predicate receives the typed payload, not
/// a `Notification` whose `userInfo` must be cast.
///
/// ```swift
/// struct Saved: Notifiable { let id: Int }
///
/// final class StoreTests: XCTestCase {
///     func testSavingInTheBackgroundPostsEveryItem() {
///         let center = NotificationCenter()
///         let store = Store(center: center)
///         let saved = TypedNotificationExpectation(Saved.self, count: 2, in: center)   // exactly 2
///         store.saveInBackground([1, 2])
///         wait(for: [saved], timeout: 5)
///         XCTAssertEqual(saved.payloads.map(\.id), [1, 2])
///     }
/// }
/// ```
///
/// ## Failure messages
///
/// XCTest names an unmet expectation by its `expectationDescription`, which this class keeps up to date with what was
/// posted, so the failure says what happened instead (the wording around the description is XCTest's own):
///
/// ```
/// Asynchronous wait failed - Exceeded timeout of 5.0 seconds, with unfulfilled expectations:
/// expected 2 posts of Saved; 1 was posted: Saved(id: 1)
/// ```
///
/// A post past `count` fails the test at once, at the line that made the expectation, whether or not the test has
/// waited yet (posts that come after the test has ended are not checked):
///
/// ```
/// StoreTests.swift:7: error: expected 1 post of Saved, but 2 were posted: Saved(id: 1), Saved(id: 2); 1 more than
/// expected: Saved(id: 2)
/// ```
///
/// A `count` of 0 makes an inverted expectation, which fails as soon as `Event` is posted:
///
/// ```
/// Asynchronous wait failed - Fulfilled inverted expectation 'expected no posts of Saved; 1 was posted: Saved(id: 4)'
/// ```
///
/// - Important: The predicate runs synchronously on the posting thread, so it is `@Sendable`; the expectation is
///   `Sendable`, like every `XCTestExpectation`. A description you set yourself is overwritten at the next post. The
///   expectation calls `fulfill()` only for the posts it needs, so XCTest's `assertForOverFulfill` never fires.
public final class TypedNotificationExpectation<Event: Notifiable>: XCTestExpectation, @unchecked Sendable {
    // `@unchecked Sendable`, as XCTestExpectation itself is. What this subclass adds is safe to share: `report` is
    // guarded by its mutex, `observation` is set once in `init`, and the rest is immutable and `Sendable`.

    private let expected: String
    private let predicate: (@Sendable (Event.Payload) -> Bool)?
    /// The posts that meet the expectation: more are checked (`exactly`) or ignored.
    private let count: Int
    /// Whether a post past `count` fails the test.
    private let exactly: Bool
    /// Where the test made the expectation, where a post past `count` fails it.
    private let filePath: StaticString
    private let line: UInt
    private let report = Locked(PostReport<Event>())
    private let observation = Locked<PostObserver<Event>?>(nil)

    /// Makes an expectation met by exactly `count` posts of `subject` on `center`: each post past `count` fails the
    /// test at this line.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    ///
    /// let oneChange = TypedNotificationExpectation(CounterDidChange.self, in: center)   // exactly one
    /// let reachedThree = TypedNotificationExpectation(CounterDidChange.self, in: center) { $0.count == 3 }
    /// let noChange = TypedNotificationExpectation(CounterDidChange.self, count: 0, in: center)
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to expect.
    ///   - count: How many posts meet the expectation, exactly; 1 unless given. 0 makes it inverted: any post fails
    ///     it.
    ///   - sender: Only posts from this object, compared by identity, count; `nil` for every sender. Posts from other
    ///     senders are listed in the description.
    ///   - center: The center to observe; `.default` unless given. Prefer a center of the test's own.
    ///   - file: Where the expectation is made, as `NotificationCenter.typedObservations` lists it.
    ///     Leave the default.
    ///   - filePath: Where a post past `count` fails the test: the file that made the expectation. Leave the default.
    ///   - line: The line, likewise.
    ///   - predicate: Decides, on the posting thread, whether a payload counts; every post counts if `nil`. Posts it
    ///     rejects are listed in the description.
    public convenience init(
        _ subject: Event.Type,
        count: Int = 1,
        from sender: Event.Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        where predicate: (@Sendable (Event.Payload) -> Bool)? = nil
    ) {
        precondition(count >= 0, "TypedNotificationExpectation needs a count of at least 0, not \(count)")
        self.init(
            subject, count: count, exactly: true, from: sender, in: center, file: file, filePath: filePath, line: line,
            where: predicate)
    }

    /// Makes an expectation met by `count` posts of `subject` on `center`, which more posts do not fail.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    ///
    /// let someChanges = TypedNotificationExpectation(CounterDidChange.self, atLeast: 2, in: center)
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to expect.
    ///   - count: How many posts meet the expectation; at least 1. Posts past it are listed in ``payloads`` only.
    ///   - sender: Only posts from this object, compared by identity, count; `nil` for every sender.
    ///   - center: The center to observe; `.default` unless given. Prefer a center of the test's own.
    ///   - file: Where the expectation is made, as `NotificationCenter.typedObservations` lists it.
    ///     Leave the default.
    ///   - filePath: The file that made the expectation. Leave the default.
    ///   - line: The line, likewise.
    ///   - predicate: Decides, on the posting thread, whether a payload counts; every post counts if `nil`.
    public convenience init(
        _ subject: Event.Type,
        atLeast count: Int,
        from sender: Event.Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        where predicate: (@Sendable (Event.Payload) -> Bool)? = nil
    ) {
        precondition(count >= 1, "TypedNotificationExpectation(atLeast:) needs a count of at least 1, not \(count)")
        self.init(
            subject, count: count, exactly: false, from: sender, in: center, file: file, filePath: filePath, line: line,
            where: predicate)
    }

    private init(
        _ subject: Event.Type,
        count: Int,
        exactly: Bool,
        from sender: Event.Sender?,
        in center: NotificationCenter,
        file: StaticString,
        filePath: StaticString,
        line: UInt,
        where predicate: (@Sendable (Event.Payload) -> Bool)?
    ) {
        let expected =
            "expected " + (exactly ? "" : "at least ")
            + PostReport<Event>.expectation(count, filtersBySender: sender != nil)
            + (predicate == nil ? "" : " matching the predicate")
        self.expected = expected
        self.predicate = predicate
        self.count = count
        self.exactly = exactly
        self.filePath = filePath
        self.line = line
        // Only `description`: Apple's XCTest has no `file:line:` variant of this initialiser or of `fulfill()`.
        super.init(description: expected)
        if count == 0 {
            isInverted = true
        } else {
            expectedFulfillmentCount = count
        }
        let observer = PostObserver(center: center, sender: sender, file: file, line: line) { [weak self] post in
            self?.receive(post)
        }
        observation.withLock { $0 = observer }
    }

    /// The payloads that counted towards the expectation so far, in post order.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let changes = TypedNotificationExpectation(CounterDidChange.self, in: center)
    /// CounterDidChange(count: 1).post(in: center)
    /// XCTAssertEqual(changes.payloads.map(\.count), [1])
    /// ```
    public var payloads: [Event.Payload] {
        report.withLock { $0.matched }
    }

    /// What a post does to the expectation, decided under the lock.
    private enum Outcome {
        /// It does not count, or counts past an "at least" count.
        case nothing
        /// It is one of the posts the expectation needs (any post, for an inverted one, which XCTest then fails).
        case fulfils
        /// It is past an exact count: the report as it stands, to word the failure after the lock.
        case exceeds(PostReport<Event>)
    }

    private func receive(_ post: ObservedPost<Event>) {
        // The predicate is user code: run it before taking the lock, so it may post or read `payloads`.
        let counts = post.isFromObservedSender && (try? post.payload.get()).map { predicate?($0) ?? true } == true
        let outcome: Outcome = report.withLock { report in
            switch (post.payload, post.isFromObservedSender) {
            case (.success(let payload), true):
                if counts { report.matched.append(payload) } else { report.rejected.append(payload) }
            case (.success(let payload), false):
                report.fromOtherSenders.append(payload)
            case (.failure(let error), true):
                report.decodingErrors.append(error)
            case (.failure, false):
                break
            }
            // Updated under the lock so that concurrent posts never leave an older description behind, and before
            // `fulfill()` so that XCTest reports an inverted expectation with the post that broke it.
            expectationDescription = expected + "; " + report.summary
            guard counts else { return .nothing }
            if count == 0 || report.matched.count <= count { return .fulfils }
            return exactly ? .exceeds(report) : .nothing
        }
        switch outcome {
        case .nothing:
            break
        case .fulfils:
            // Only for the posts the expectation needs, so that XCTest's `assertForOverFulfill` never fires.
            fulfill()
        case .exceeds(let report):
            // At the test's line, from the posting thread: XCTest attributes a failure recorded on any thread to the
            // test that is running.
            XCTFail(
                expected + ", but " + report.outcome + report.excess(over: count) + report.ignored, file: filePath,
                line: line)
        }
    }
}
#endif
