import Dispatch
import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedNotificationsTesting

/// Every timeout the recorder's waits accept: zero and below (negative attoseconds included), and huge ones.
@Suite struct RecorderTimeLimitTests {
    /// Timeouts that have elapsed before the wait begins.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static let elapsedTimeouts: [Duration] = [
        .zero, .milliseconds(-1), .nanoseconds(-1), .seconds(-1), .seconds(-1.5), .seconds(Int64.min),
        Duration(secondsComponent: 0, attosecondsComponent: -1),
    ]

    /// Timeouts no test could wait out, among them durations just past 2^64 nanoseconds, which a conversion to
    /// `UInt64` nanoseconds that wraps would turn into 1 ns and 0.28 s.
    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
    static let hugeTimeouts: [Duration] = [
        .seconds(Int64.max), .nanoseconds(UInt64.max), .seconds(18_446_744_073) + .nanoseconds(709_551_617),
        .seconds(18_446_744_074) - .milliseconds(10),
    ]

    // MARK: - Zero and negative timeouts

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1)), arguments: elapsedTimeouts)
    func nextWithATimeoutAtOrBelowZeroThrowsAtOnce(timeout: Duration) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let error = try await #require(throws: NotificationWaitError.self) { try await recorder.next(timeout: timeout) }
        #expect(error.reason == .timedOut(seconds: 0))
        #expect(error.expectedCount == 1)
        #expect(
            error.description == "Timed out after 0.0 seconds waiting for post 1 of Saved in next(); none was posted")
        #expect(recorder.isWaitingForNothing)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1)), arguments: elapsedTimeouts)
    func waitForCountWithATimeoutAtOrBelowZeroThrowsAtOnce(timeout: Duration) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        let error = try await #require(throws: NotificationWaitError.self) {
            try await recorder.waitForCount(2, timeout: timeout)
        }
        #expect(error.reason == .timedOut(seconds: 0))
        #expect(error.expectedCount == 2)
        #expect(error.postedCount == 1)
        #expect(recorder.isWaitingForNothing)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1)), arguments: elapsedTimeouts)
    func aTimeoutAtOrBelowZeroStillReturnsWhatIsRecordedAlready(timeout: Duration) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        Saved(id: 2).post(in: center)
        #expect(try await recorder.next(timeout: timeout) == Saved(id: 1))
        #expect(try await recorder.waitForCount(2, timeout: timeout) == [Saved(id: 1), Saved(id: 2)])
        #expect(try await recorder.next(timeout: timeout) == Saved(id: 2))
        await #expect(throws: NotificationWaitError.self) { try await recorder.next(timeout: timeout) }
    }

    // MARK: - Huge timeouts

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1)), arguments: hugeTimeouts)
    func nextWithAHugeTimeoutWaitsForAPostMadeLater(timeout: Duration) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        async let next = recorder.next(timeout: timeout)
        await recorder.untilWaiting(1)
        // A round trip through Dispatch before the post: a timeout that wrapped to a few nanoseconds would have ended
        // the wait by then.
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
        DispatchQueue.global().async { Saved(id: 1).post(in: center) }
        #expect(try await next == Saved(id: 1))
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1)), arguments: hugeTimeouts)
    func waitForCountWithAHugeTimeoutWaitsForPostsMadeLater(timeout: Duration) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        async let saved = recorder.waitForCount(2, timeout: timeout)
        await recorder.untilWaiting(1)
        await withCheckedContinuation { continuation in DispatchQueue.global().async { continuation.resume() } }
        Store(center: center).saveInBackground([1, 2])
        #expect(try await saved == [Saved(id: 1), Saved(id: 2)])
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func aHugeWaitEndsWhenItsTaskIsCancelled() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let waiting = Task { try await recorder.next(timeout: .seconds(Int64.max)) }
        await recorder.untilWaiting(1)
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(recorder.isWaitingForNothing)
    }

    // MARK: - Limits in seconds, the kind the library's waits take

    /// Limits in seconds that have passed before the wait begins.
    static let elapsedSeconds: [TimeInterval] = [0, -1, -.infinity, .nan, 1e-10]

    @Test(.timeLimit(.minutes(1)), arguments: elapsedSeconds)
    func nextWithALimitInSecondsAtOrBelowZeroThrowsAtOnce(timeout: TimeInterval) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let error = try await #require(throws: NotificationWaitError.self) { try await recorder.next(timeout: timeout) }
        #expect(error.reason == .timedOut(seconds: timeout > 0 ? timeout : 0))
        #expect(error.expectedCount == 1)
        #expect(recorder.isWaitingForNothing)
    }

    @Test(.timeLimit(.minutes(1)), arguments: elapsedSeconds)
    func aLimitInSecondsAtOrBelowZeroStillReturnsWhatIsRecordedAlready(timeout: TimeInterval) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        Saved(id: 2).post(in: center)
        #expect(try await recorder.next(timeout: timeout) == Saved(id: 1))
        #expect(try await recorder.waitForCount(2, timeout: timeout) == [Saved(id: 1), Saved(id: 2)])
        let error = try await #require(throws: NotificationWaitError.self) {
            try await recorder.waitForCount(3, timeout: timeout)
        }
        #expect(error.expectedCount == 3)
        #expect(error.postedCount == 2)
    }

    @Test(.timeLimit(.minutes(1)), arguments: [60, .infinity] as [TimeInterval])
    func waitsWithALimitInSecondsReturnPostsMadeLater(timeout: TimeInterval) async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        async let next = recorder.next(timeout: timeout)
        async let saved = recorder.waitForCount(2, timeout: timeout)
        await recorder.untilWaiting(2)
        DispatchQueue.global().async {
            Saved(id: 1).post(in: center)
            Saved(id: 2).post(in: center)
        }
        #expect(try await next == Saved(id: 1))
        #expect(try await saved == [Saved(id: 1), Saved(id: 2)])
    }

    @Test(.timeLimit(.minutes(1))) func aLimitInSecondsThatElapsesIsReportedInSeconds() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let error = try await #require(throws: NotificationWaitError.self) { try await recorder.next(timeout: 0.02) }
        #expect(error.reason == .timedOut(seconds: 0.02))
        #expect((error as any Error).localizedDescription == error.description)
        #expect(error.description.hasPrefix("Timed out after 0.02 seconds waiting for post 1 of Saved in next()"))
    }

    @Test(.timeLimit(.minutes(1))) func oneLimitInSecondsServesTheLibrarysWaitAndTheRecordersAlike() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let limit: TimeInterval = 0
        let libraryError = try await #require(throws: NextNotificationError.self) {
            try await Saved.next(in: center, timeout: limit) {}
        }
        let recorderError = try await #require(throws: NotificationWaitError.self) {
            try await recorder.next(timeout: limit)
        }
        #expect(libraryError.reason == .timedOut(seconds: 0))
        #expect(recorderError.reason == .timedOut(seconds: 0))
    }

    // MARK: - A limit lasts at least as long as it says, on the library's clock

    /// Nanoseconds since `start`, a reading of Dispatch's uptime clock, the one every limit of the package measures.
    static func nanoseconds(since start: UInt64) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds - start
    }

    @Test(.timeLimit(.minutes(1))) func waitsTimeOutNoSoonerThanTheirLimitInSeconds() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        var start = DispatchTime.now().uptimeNanoseconds
        let next = try await #require(throws: NotificationWaitError.self) { try await recorder.next(timeout: 0.3) }
        #expect(next.reason == .timedOut(seconds: 0.3))
        #expect(Self.nanoseconds(since: start) >= 300_000_000)
        start = DispatchTime.now().uptimeNanoseconds
        let count = try await #require(throws: NotificationWaitError.self) {
            try await recorder.waitForCount(1, timeout: 0.3)
        }
        #expect(count.reason == .timedOut(seconds: 0.3))
        #expect(Self.nanoseconds(since: start) >= 300_000_000)
    }

    @available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)  // Duration and the time-limit trait
    @Test(.timeLimit(.minutes(1))) func waitsTimeOutNoSoonerThanTheirDuration() async throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        var start = DispatchTime.now().uptimeNanoseconds
        let next = try await #require(throws: NotificationWaitError.self) {
            try await recorder.next(timeout: .milliseconds(300))
        }
        #expect(next.reason == .timedOut(seconds: 0.3))
        #expect(Self.nanoseconds(since: start) >= 300_000_000)
        start = DispatchTime.now().uptimeNanoseconds
        let count = try await #require(throws: NotificationWaitError.self) {
            try await recorder.waitForCount(1, timeout: .milliseconds(300))
        }
        #expect(count.reason == .timedOut(seconds: 0.3))
        #expect(Self.nanoseconds(since: start) >= 300_000_000)
    }

    // MARK: - Errors

    @Test func everyReasonEqualsItselfAndHashesAlike() {
        let reasons: [NotificationWaitError.Reason] = [
            .timedOut(seconds: .nan), .timedOut(seconds: 0), .timedOut(seconds: -0.0), .timedOut(seconds: 0.02),
            .recorderCancelled,
        ]
        for reason in reasons {
            #expect(reason == reason, "\(reason)")
        }
        #expect(NotificationWaitError.Reason.timedOut(seconds: .nan) == .timedOut(seconds: -.nan))
        #expect(NotificationWaitError.Reason.timedOut(seconds: .nan) != .timedOut(seconds: 0))
        #expect(NotificationWaitError.Reason.timedOut(seconds: 0) != .recorderCancelled)
        #expect(Set(reasons).count == 4)
    }
}
