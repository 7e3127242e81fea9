import Foundation
import TypedNotifications
import TypedNotificationsTestSupport
import TypedNotificationsTesting
import XCTest

final class TypedNotificationExpectationTests: XCTestCase {
    // MARK: - Fulfilment

    func testIsFulfilledByTheGivenNumberOfPosts() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let saved = TypedNotificationExpectation(Saved.self, count: 2, in: center)
        let one = TypedNotificationExpectation(Saved.self, count: 2, in: center)
        store.save([1])
        // An expectation can be waited on once only, hence two of them.
        XCTAssertEqual(XCTWaiter().wait(for: [one], timeout: 0.05), .timedOut)
        store.save([2])
        XCTAssertEqual(XCTWaiter().wait(for: [saved], timeout: 5), .completed)
        XCTAssertEqual(saved.payloads.map(\.id), [1, 2])
    }

    /// An expectation left observing is listed by introspection at the test line that made it.
    func testIntrospectionListsTheExpectationAtTheLineThatMadeIt() throws {
        let center = NotificationCenter()
        let line = #line + 1
        let saved = TypedNotificationExpectation(Saved.self, in: center)
        let observation = try XCTUnwrap(center.typedObservations.first)
        XCTAssertEqual(observation.fileID, "TypedNotificationsTestingTests/TypedNotificationExpectationTests.swift")
        XCTAssertEqual(observation.line, line)
        withExtendedLifetime(saved) {}
    }

    func testIsFulfilledByPostsFromAnotherThread() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let saved = TypedNotificationExpectation(Saved.self, count: 3, in: center)
        store.saveInBackground([1, 2, 3])
        wait(for: [saved], timeout: 5)
        XCTAssertEqual(saved.payloads.map(\.id), [1, 2, 3])
    }

    func testWorksWithAsyncTests() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        let saved = TypedNotificationExpectation(Saved.self, in: center)
        store.saveInBackground([1])
        await fulfillment(of: [saved], timeout: 5)
    }

    func testOnlyPayloadsAcceptedByThePredicateCount() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let second = TypedNotificationExpectation(Saved.self, in: center) { $0.id == 2 }
        let notYet = TypedNotificationExpectation(Saved.self, in: center) { $0.id == 2 }
        store.save([1, 3])
        XCTAssertEqual(XCTWaiter().wait(for: [notYet], timeout: 0.05), .timedOut)
        store.save([2])
        XCTAssertEqual(XCTWaiter().wait(for: [second], timeout: 5), .completed)
        XCTAssertEqual(second.payloads, [Saved(id: 2)])
    }

    func testOnlyPostsFromTheSenderCount() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let reading = TypedNotificationExpectation(ReadingTaken.self, from: kitchen, in: center)
        let notYet = TypedNotificationExpectation(ReadingTaken.self, from: kitchen, in: center)
        ReadingTaken.post(Celsius(value: 9), from: Thermometer(), in: center)
        ReadingTaken.post(Celsius(value: 8), in: center)
        XCTAssertEqual(XCTWaiter().wait(for: [notYet], timeout: 0.05), .timedOut)
        ReadingTaken.post(Celsius(value: 21), from: kitchen, in: center)
        XCTAssertEqual(XCTWaiter().wait(for: [reading], timeout: 5), .completed)
        XCTAssertEqual(reading.payloads, [Celsius(value: 21)])
    }

    func testACountOfZeroIsMetWhenTheTypeIsNotPosted() {
        let center = NotificationCenter()
        let none = TypedNotificationExpectation(Saved.self, count: 0, in: center)
        XCTAssertTrue(none.isInverted)
        Refreshed.post((), in: center)
        XCTAssertEqual(XCTWaiter().wait(for: [none], timeout: 0.05), .completed)
    }

    func testACountOfZeroFailsAsSoonAsTheTypeIsPosted() {
        let center = NotificationCenter()
        let none = TypedNotificationExpectation(Saved.self, count: 0, in: center)
        Saved(id: 1).post(in: center)
        XCTAssertEqual(XCTWaiter().wait(for: [none], timeout: 5), .invertedFulfillment)
    }

    func testReleasingTheExpectationEndsObservation() {
        let center = NotificationCenter()
        weak var released: TypedNotificationExpectation<Saved>?
        do {
            let saved = TypedNotificationExpectation(Saved.self, in: center)
            released = saved
        }
        XCTAssertNil(released)
        Saved(id: 1).post(in: center)  // reaches nothing, and nothing crashes
    }

    // MARK: - Descriptions

    func testTheDescriptionNamesTheTypeAndWhatWasPosted() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let saved = TypedNotificationExpectation(Saved.self, count: 2, in: center)
        XCTAssertEqual(saved.expectationDescription, "expected 2 posts of Saved")
        store.save([1])
        XCTAssertEqual(saved.expectationDescription, "expected 2 posts of Saved; 1 was posted: Saved(id: 1)")
    }

    func testTheDescriptionListsWhatWasIgnored() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let warm = TypedNotificationExpectation(ReadingTaken.self, from: kitchen, in: center) { $0.value > 20 }
        ReadingTaken.post(Celsius(value: 18), from: kitchen, in: center)
        ReadingTaken.post(Celsius(value: 30), from: Thermometer(), in: center)
        let reported = reports { center.post(name: ReadingTaken.notificationName, object: kitchen, userInfo: nil) }
        XCTAssertEqual(reported.map(\.kindName), ["decodingFailed"])
        XCTAssertEqual(
            warm.expectationDescription,
            "expected 1 post of ReadingTaken from the given sender matching the predicate; none was posted"
                + "; 1 post from other senders was ignored: 30.0 °C"
                + "; 1 post not matching the predicate was ignored: 18.0 °C"
                + "; 1 plain post could not be decoded: the notification has no userInfo"
        )
    }

    // MARK: - XCTest's failure messages

    /// The failures XCTest reports while `capturesFailures` is set, instead of failing the test.
    private var capturedFailures: [String] = []
    /// Where each of `capturedFailures` was reported: the file's path and the line.
    private var capturedLocations: [(file: String, line: Int)] = []
    private var capturesFailures = false

    #if canImport(Darwin)
    override func record(_ issue: XCTIssue) {
        if capturesFailures {
            capturedFailures.append(issue.compactDescription)
            let location = issue.sourceCodeContext.location
            capturedLocations.append((location?.fileURL.path ?? "", location?.lineNumber ?? 0))
        } else {
            super.record(issue)
        }
    }
    #else
    override func recordFailure(
        withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool
    ) {
        if capturesFailures {
            capturedFailures.append(description)
            capturedLocations.append((filePath, lineNumber))
        } else {
            super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
        }
    }
    #endif

    // MARK: - A count is exact

    func testAnExpectationForOnePostFailsOnTwoAtTheLineThatMadeIt() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let line = #line + 1
        let saved = TypedNotificationExpectation(Saved.self, in: center)
        capturesFailures = true
        store.save([1, 2])
        capturesFailures = false
        wait(for: [saved], timeout: 5)
        XCTAssertEqual(
            capturedFailures.map { $0.contains("expected 1 post of Saved, but 2 were posted") }, [true],
            "\(capturedFailures)")
        XCTAssertTrue(
            capturedFailures.first?.contains("; 1 more than expected: Saved(id: 2)") == true, "\(capturedFailures)")
        XCTAssertEqual(capturedLocations.first?.file, "\(#filePath)")
        XCTAssertEqual(capturedLocations.first?.line, line)
    }

    func testEveryPostPastTheCountFailsAndListsTheExtraPayloads() {
        let center = NotificationCenter()
        let saved = TypedNotificationExpectation(Saved.self, count: 2, in: center) { $0.id > 0 }
        capturesFailures = true
        for id in [1, 0, 2, 3, 4] { Saved(id: id).post(in: center) }
        capturesFailures = false
        wait(for: [saved], timeout: 5)
        XCTAssertEqual(capturedFailures.count, 2, "\(capturedFailures)")
        XCTAssertTrue(
            capturedFailures.last?.contains(
                "expected 2 posts of Saved matching the predicate, but 4 were posted: Saved(id: 1), Saved(id: 2), "
                    + "Saved(id: 3), Saved(id: 4); 2 more than expected: Saved(id: 3), Saved(id: 4)"
                    + "; 1 post not matching the predicate was ignored: Saved(id: 0)") == true,
            "\(capturedFailures)")
    }

    func testAnAtLeastExpectationIsMetByMorePostsWithoutFailing() {
        let center = NotificationCenter()
        let saved = TypedNotificationExpectation(Saved.self, atLeast: 2, in: center)
        XCTAssertEqual(saved.expectationDescription, "expected at least 2 posts of Saved")
        // Set, it would fail the test if the expectation fulfilled itself past its count.
        saved.assertForOverFulfill = true
        capturesFailures = true
        Store(center: center).save([1, 2, 3])
        capturesFailures = false
        XCTAssertEqual(XCTWaiter().wait(for: [saved], timeout: 5), .completed)
        XCTAssertEqual(capturedFailures, [])
        XCTAssertEqual(saved.payloads.map(\.id), [1, 2, 3])
    }

    func testAnExactExpectationMetOnTimeDoesNotFail() {
        let center = NotificationCenter()
        let saved = TypedNotificationExpectation(Saved.self, count: 2, in: center)
        saved.assertForOverFulfill = true
        capturesFailures = true
        Store(center: center).saveInBackground([1, 2])
        XCTAssertEqual(XCTWaiter().wait(for: [saved], timeout: 5), .completed)
        capturesFailures = false
        XCTAssertEqual(capturedFailures, [])
    }

    func testATimeoutFailureSaysWhatWasPostedInstead() {
        let center = NotificationCenter()
        let counter = Store(center: center)
        let saved = TypedNotificationExpectation(Saved.self, count: 2, in: center)
        counter.save([1])
        capturesFailures = true
        wait(for: [saved], timeout: 0.05)
        capturesFailures = false
        XCTAssertEqual(capturedFailures.count, 1)
        let failure = capturedFailures.first ?? ""
        XCTAssertTrue(
            failure.contains("expected 2 posts of Saved; 1 was posted: Saved(id: 1)"),
            "unexpected failure message: \(failure)"
        )
    }

    func testAnInvertedFailureSaysWhatWasPosted() {
        let center = NotificationCenter()
        let none = TypedNotificationExpectation(Saved.self, count: 0, in: center)
        Store(center: center).save([4])
        capturesFailures = true
        wait(for: [none], timeout: 5)
        capturesFailures = false
        XCTAssertEqual(capturedFailures.count, 1)
        let failure = capturedFailures.first ?? ""
        XCTAssertTrue(
            failure.contains("expected no posts of Saved; 1 was posted: Saved(id: 4)"),
            "unexpected failure message: \(failure)"
        )
    }
}
