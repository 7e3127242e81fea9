// The examples of the article "Testing code that posts notifications", verbatim apart from suite and class names, so
// that they provably compile and pass. Keep the two in step.

import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedNotificationsTesting
import XCTest

@Suite struct ArticleExamplesTests {
    // MARK: - Before

    @Suite struct Before {
        final class SavedIDs: @unchecked Sendable {  // every test grows one of these; `ids` only under `lock`
            private let lock = NSLock()
            private var ids: [Int] = []
            func append(_ id: Int) { lock.withLock { ids.append(id) } }
            var all: [Int] { lock.withLock { ids } }
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func savingPostsOneNotificationPerItem() {
            let center = NotificationCenter()
            let store = Store(center: center)
            let saved = SavedIDs()
            let observer = center.addObserver(forName: Saved.notificationName, object: nil, queue: nil) { note in
                guard let payload = note.userInfo?[Notification.typedPayloadKey] as? Saved else { return }
                saved.append(payload.id)
            }
            defer { center.removeObserver(observer) }

            store.save([1, 2, 3])

            #expect(saved.all == [1, 2, 3])
        }

        /// Not run: it is the sleep the article warns against. It only has to compile.
        func savingInTheBackgroundPostsThreeTimes() async throws {
            let center = NotificationCenter()
            let store = Store(center: center)
            let saved = SavedIDs()
            let observer = center.addObserver(forName: Saved.notificationName, object: nil, queue: nil) { note in
                guard let payload = note.userInfo?[Notification.typedPayloadKey] as? Saved else { return }
                saved.append(payload.id)
            }
            defer { center.removeObserver(observer) }

            store.saveInBackground([1, 2, 3])
            try await Task.sleep(for: .milliseconds(200))  // long enough… on this machine, today

            #expect(saved.all == [1, 2, 3])
        }
    }

    // MARK: - After

    @Suite struct After {
        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func savingPostsOneNotificationPerItem() async throws {
            let center = NotificationCenter()
            let store = Store(center: center)
            let recorder = NotificationRecorder(Saved.self, in: center)  // records from this line on

            store.save([1, 2, 3])

            #expect(recorder.payloads.map(\.id) == [1, 2, 3])
            #expect(recorder.count == 3)
            let first = try await recorder.next()
            #expect(first.id == 1)
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func savingPostsOnePerItemFromTheStore() async {
            let center = NotificationCenter()
            let store = Store(center: center)

            let saved = await expectPosts(Saved.self, count: 3, from: store, in: center) {
                store.save([1, 2, 3])
            }

            #expect(saved.map(\.id) == [1, 2, 3])
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func savingNothingPostsNothing() async {
            let center = NotificationCenter()
            let store = Store(center: center)

            await expectNoPosts(Saved.self, in: center) {
                store.save([])
            }
        }

        @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
        @Test(.timeLimit(.minutes(1))) func savingInTheBackgroundPostsThreeTimes() async throws {
            let center = NotificationCenter()
            let store = Store(center: center)
            let recorder = NotificationRecorder(Saved.self, in: center)

            store.saveInBackground([1, 2, 3])

            let saved = try await recorder.waitForCount(3, timeout: .seconds(5))
            #expect(saved.map(\.id) == [1, 2, 3])
        }
    }
}

// MARK: - XCTest

final class ArticleBeforeExampleTests: XCTestCase {
    func testSavingPostsTheSecondItem() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let second = XCTNSNotificationExpectation(
            name: Saved.notificationName, object: store, notificationCenter: center)
        second.handler = { notification in
            (notification.userInfo?[Notification.typedPayloadKey] as? Saved)?.id == 2
        }

        store.save([1, 2, 3])

        wait(for: [second], timeout: 1)
    }
}

final class ArticleAfterExampleTests: XCTestCase {
    func testSavingPostsTheSecondItem() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let second = TypedNotificationExpectation(Saved.self, from: store, in: center) { $0.id == 2 }

        store.save([1, 2, 3])

        wait(for: [second], timeout: 1)
    }

    func testSavingPostsThreeTimes() {
        let center = NotificationCenter()
        let store = Store(center: center)
        let saved = TypedNotificationExpectation(Saved.self, count: 3, in: center)

        store.saveInBackground([1, 2, 3])

        wait(for: [saved], timeout: 5)
        XCTAssertEqual(saved.payloads.map(\.id), [1, 2, 3])
    }
}
