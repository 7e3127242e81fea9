import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedNotificationsTesting

@Suite struct PostExpectationTests {
    struct SaveFailed: Error {}

    // MARK: - Passing

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func expectPostsReturnsThePayloadsWhenTheCountMatches() async throws {
        let center = NotificationCenter()
        let store = Store(center: center)
        let saved = await expectPosts(Saved.self, count: 3, in: center) {
            store.save([1, 2, 3])
        }
        #expect(saved.map(\.id) == [1, 2, 3])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func onlyPostsMadeWhileTheBodyRunsCount() async {
        let center = NotificationCenter()
        Saved(id: 0).post(in: center)
        await expectPosts(Saved.self, in: center) {
            Saved(id: 1).post(in: center)
        }
        Saved(id: 2).post(in: center)
        await expectNoPosts(Saved.self, in: center) {}
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsFromWorkTheBodyAwaitsCount() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        await expectPosts(Saved.self, count: 2, in: center) {
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    store.save([1, 2])
                    continuation.resume()
                }
            }
        }
    }

    @MainActor @Test func theBodyRunsInTheCallersIsolation() async {
        let center = NotificationCenter()
        let model = CounterModel(center: center)
        await expectPosts(Refreshed.self, in: center) {
            model.refresh()  // main-actor code, called synchronously
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func expectNoPostsPassesWhenNothingIsPosted() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        await expectNoPosts(Saved.self, in: center) {
            store.save([])
            Refreshed.post((), in: center)
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aThrowingBodyRethrowsWithoutCheckingTheCount() async {
        let center = NotificationCenter()
        await #expect(throws: SaveFailed.self) {
            try await expectPosts(Saved.self, count: 2, in: center) { throw SaveFailed() }
        }
    }

    // MARK: - What counts: the block's task tree

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsFromTasksOutsideTheBlockDoNotCount() async {
        // Another test posting the same type on the same center, in a task of its own, while the block runs.
        let center = NotificationCenter()
        let (go, posted) = (Signal(), Signal())
        let madeBefore = Task {
            await go.wait()
            Saved(id: 98).post(in: center)
        }
        let detached = Task.detached {
            await madeBefore.value
            Saved(id: 99).post(in: center)
            posted.fire()
        }
        let saved = await expectPosts(Saved.self, count: 1, in: center) {
            Saved(id: 1).post(in: center)
            go.fire()
            await posted.wait()
        }
        #expect(saved == [Saved(id: 1)])
        await detached.value
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func expectNoPostsIgnoresATaskOutsideTheBlockPosting() async {
        let center = NotificationCenter()
        let (go, posted) = (Signal(), Signal())
        let parallel = Task.detached {
            await go.wait()
            Saved(id: 99).post(in: center)
            posted.fire()
        }
        await expectNoPosts(Saved.self, in: center) {
            Refreshed.post((), in: center)
            go.fire()
            await posted.wait()
        }
        await parallel.value
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsFromTasksOutsideTheBlockAreListedAsNotCounted() async {
        let center = NotificationCenter()
        let (go, posted) = (Signal(), Signal())
        let parallel = Task.detached {
            await go.wait()
            Saved(id: 99).post(in: center)
            posted.fire()
        }
        let issues = await recordedIssues {
            await expectPosts(Saved.self, in: center) {
                go.fire()
                await posted.wait()
            }
        }
        #expect(
            issues.map(\.message) == [
                "Expected 1 post of Saved, but none was posted; 1 post from tasks outside the block (another test's, "
                    + "or a detached task) was not counted: Saved(id: 99)"
            ]
        )
        await parallel.value
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsFromTasksTheBlockCreatesCount() async {
        let center = NotificationCenter()
        let saved = await expectPosts(Saved.self, count: 4, in: center) {
            async let child: Void = Saved(id: 1).post(in: center)
            await child
            await withTaskGroup(of: Void.self) { group in
                group.addTask { Saved(id: 2).post(in: center) }
            }
            await Task { Saved(id: 3).post(in: center) }.value
            await PostingActor().post(Saved(id: 4), in: center)
        }
        #expect(saved == [Saved(id: 1), Saved(id: 2), Saved(id: 3), Saved(id: 4)])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsAHandlerMakesOnThePostingThreadCount() async {
        let center = NotificationCenter()
        let token = Refreshed.observe(in: center) { Saved(id: 5).post(in: center) }
        await expectPosts(Saved.self, in: center) {
            Refreshed.post((), in: center)
        }
        withExtendedLifetime(token) {}
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aPostInANestedBlockCountsInBoth() async {
        let center = NotificationCenter()
        let outer = await expectPosts(Saved.self, count: 2, in: center) {
            Saved(id: 1).post(in: center)
            let inner = await expectPosts(Saved.self, in: center) {
                Saved(id: 2).post(in: center)
            }
            #expect(inner == [Saved(id: 2)])
        }
        #expect(outer == [Saved(id: 1), Saved(id: 2)])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aDetachedTaskIsOutsideTheBlockEvenWhenTheBlockStartsIt() async {
        let center = NotificationCenter()
        await expectNoPosts(Saved.self, in: center) {
            await Task.detached { Saved(id: 1).post(in: center) }.value
        }
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func countedPostsFromThreadsOutsideAnyTaskAreFlagged() async {
        let center = NotificationCenter()
        let issues = await recordedIssues {
            await expectPosts(Saved.self, count: 2, in: center) {
                Saved(id: 1).post(in: center)
                await withCheckedContinuation { continuation in
                    DispatchQueue.global().async {
                        Saved(id: 2).post(in: center)
                        continuation.resume()
                    }
                }
                await withCheckedContinuation { continuation in
                    Thread {
                        Saved(id: 3).post(in: center)
                        continuation.resume()
                    }
                    .start()
                }
            }
        }
        #expect(
            issues.map(\.message) == [
                "Expected 2 posts of Saved, but 3 were posted: Saved(id: 1), Saved(id: 2), Saved(id: 3); 2 of them came "
                    + "from a thread outside any task (such as a dispatch queue's), which may be code other than the "
                    + "block's: Saved(id: 2), Saved(id: 3)"
            ]
        )
    }

    // MARK: - Introspection

    @Test func introspectionListsExpectPostsAtTheLineThatCalledIt() async {
        let center = NotificationCenter()
        let line = #line + 1
        await expectPosts(Saved.self, in: center) {
            let observation = center.typedObservations.first
            #expect(observation?.fileID == "TypedNotificationsTestingTests/PostExpectationTests.swift")
            #expect(observation?.line == line)
            Saved(id: 1).post(in: center)
        }
        #expect(center.typedObservations.isEmpty)
    }

    @Test func introspectionListsExpectNoPostsAtTheLineThatCalledIt() async {
        let center = NotificationCenter()
        let line = #line + 1
        await expectNoPosts(Saved.self, in: center) {
            let observation = center.typedObservations.first
            #expect(observation?.fileID == "TypedNotificationsTestingTests/PostExpectationTests.swift")
            #expect(observation?.line == line)
        }
    }

    // MARK: - Failure messages

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func tooFewPostsAreReportedWithTheTypeAndWhatWasPosted() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        let issues = await recordedIssues {
            await expectPosts(Saved.self, count: 3, in: center) { store.save([1, 2]) }
        }
        #expect(issues.map(\.message) == ["Expected 3 posts of Saved, but 2 were posted: Saved(id: 1), Saved(id: 2)"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func tooManyPostsAreReported() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        let issues = await recordedIssues {
            await expectPosts(Saved.self, in: center) { store.save([1, 1]) }
        }
        #expect(issues.map(\.message) == ["Expected 1 post of Saved, but 2 were posted: Saved(id: 1), Saved(id: 1)"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func missingPostsAreReported() async {
        let center = NotificationCenter()
        let issues = await recordedIssues {
            await expectPosts(Saved.self, in: center) { Refreshed.post((), in: center) }
        }
        #expect(issues.map(\.message) == ["Expected 1 post of Saved, but none was posted"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func unexpectedPostsAreReported() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        let issues = await recordedIssues {
            await expectNoPosts(Saved.self, in: center) { store.save([4]) }
        }
        #expect(issues.map(\.message) == ["Expected no posts of Saved, but 1 was posted: Saved(id: 4)"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func payloadLessPostsAreCountedWithoutAList() async {
        let center = NotificationCenter()
        let issues = await recordedIssues {
            await expectPosts(Refreshed.self, count: 2, in: center) { Refreshed.post((), in: center) }
        }
        #expect(issues.map(\.message) == ["Expected 2 posts of Refreshed, but 1 was posted"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func longListsAreShortened() async {
        let center = NotificationCenter()
        let store = Store(center: center)
        let issues = await recordedIssues {
            await expectNoPosts(Saved.self, in: center) { store.save(Array(1...12)) }
        }
        let listed = (1...10).map { "Saved(id: \($0))" }.joined(separator: ", ")
        #expect(issues.map(\.message) == ["Expected no posts of Saved, but 12 were posted: \(listed), and 2 more"])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func postsFromOtherSendersAreListedSeparately() async {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let garden = Thermometer()
        let issues = await recordedIssues {
            await expectPosts(ReadingTaken.self, from: kitchen, in: center) {
                ReadingTaken.post(Celsius(value: 9), from: garden, in: center)
            }
        }
        #expect(
            issues.map(\.message) == [
                "Expected 1 post of ReadingTaken from the given sender, but none was posted; "
                    + "1 post from other senders was ignored: 9.0 °C"
            ]
        )
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.capturesReports, .timeLimit(.minutes(1))) func undecodablePlainPostsAreExplained() async {
        let center = NotificationCenter()
        let issues = await recordedIssues {
            await expectPosts(LegacyPayment.self, in: center) {
                center.post(name: LegacyPayment.notificationName, object: nil, userInfo: ["cents": 250])
            }
        }
        #expect(
            issues.map(\.message) == [
                #"Expected 1 post of LegacyPayment, but none was posted; 1 plain post could not be decoded: "#
                    + #"userInfo has no value for "amount""#
            ]
        )
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func issuesPointAtTheCaller() async {
        let center = NotificationCenter()
        var line = 0
        let issues = await recordedIssues {
            line = #line + 1
            await expectPosts(Saved.self, in: center) {}
        }
        #expect(issues.count == 1)
        #expect(issues.first?.sourceLocation?.line == line)
        #expect(issues.first?.sourceLocation?.fileName == "PostExpectationTests.swift")
    }
}

/// Code under test on an actor of its own: a post made there, awaited by the block, is in the block's task.
actor PostingActor {
    func post(_ saved: Saved, in center: NotificationCenter) {
        saved.post(in: center)
    }
}

/// Main-actor code under test, which is not `Sendable`.
@MainActor final class CounterModel {
    let center: NotificationCenter
    var refreshes = 0

    init(center: NotificationCenter) {
        self.center = center
    }

    func refresh() {
        refreshes += 1
        Refreshed.post((), in: center)
    }
}
