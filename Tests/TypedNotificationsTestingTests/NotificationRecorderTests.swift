import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedNotificationsTesting

@Suite struct NotificationRecorderTests {
    // MARK: - Recording

    @Test func recordsTypedPostsInOrderFromCreationOn() {
        let center = NotificationCenter()
        Saved(id: 0).post(in: center)
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        Saved.post(Saved(id: 2), in: center)
        Saved(id: 3).post(in: center)

        #expect(recorder.payloads == [Saved(id: 1), Saved(id: 2), Saved(id: 3)])
        #expect(recorder.count == 3)
    }

    /// A recorder left observing (a leak, say) is listed by introspection at the test line that made it, not at the
    /// testing library's own.
    @Test func introspectionListsTheRecorderAtTheLineThatMadeIt() throws {
        let center = NotificationCenter()
        let line = #line + 1
        let recorder = NotificationRecorder(Saved.self, in: center)
        let observation = try #require(center.typedObservations.first)
        #expect(observation.fileID == "TypedNotificationsTestingTests/NotificationRecorderTests.swift")
        #expect(observation.line == line)
        withExtendedLifetime(recorder) {}
    }

    @Test func recordsPayloadLessPosts() {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Refreshed.self, in: center)
        Refreshed.post((), in: center)
        Refreshed.post((), in: center)
        #expect(recorder.count == 2)
    }

    @Test func recordsOnlyItsTypeAndCenter() {
        let center = NotificationCenter()
        let other = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Refreshed.post((), in: center)
        Saved(id: 1).post(in: other)
        #expect(recorder.count == 0)
    }

    @Test func recordsPlainPostsDecodedLikeTypedObserversSeeThem() {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(LegacyPayment.self, in: center)
        let typed = Recorded<Int>()
        let token = LegacyPayment.observe(in: center) { typed.append($0) }
        center.post(name: LegacyPayment.notificationName, object: nil, userInfo: ["amount": 250])
        LegacyPayment.post(400, in: center)
        #expect(recorder.payloads == [250, 400])
        #expect(recorder.payloads == typed.values)
        token.cancel()
    }

    @Test func undecodablePlainPostsAreSkippedAndKept() throws {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(LegacyPayment.self, in: center)
        let reported = reports {
            center.post(name: LegacyPayment.notificationName, object: nil, userInfo: nil)
            center.post(name: LegacyPayment.notificationName, object: nil, userInfo: ["amount": "12"])
        }
        LegacyPayment.post(7, in: center)

        #expect(recorder.payloads == [7])
        #expect(reported.map(\.kindName) == ["decodingFailed", "decodingFailed"], "each skip is reported")
        let errors = try #require(recorder.decodingErrors as? [NotificationDecodingError])
        try #require(errors.count == 2)
        #expect(errors[0] == .missingValue(key: "amount"))
        // Not the found type's name: on Apple platforms the value went through `NSDictionary` and is an `NSString`
        // of some private class.
        guard case .typeMismatch(let key, let expected, _) = errors[1] else {
            Issue.record("expected a type mismatch, got \(errors[1])")
            return
        }
        #expect(key == "amount")
        #expect(expected == "Int")
    }

    @Test func recordingSeesPostsMadeWhileTypedObserversRun() {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        // A typed observer that posts again: both posts are recorded, each once.
        let token = Saved.observe(in: center) { saved in
            if saved.id == 1 { Saved(id: 2).post(in: center) }
        }
        Saved(id: 1).post(in: center)
        #expect(recorder.payloads.map(\.id).sorted() == [1, 2])
        token.cancel()
    }

    // MARK: - Senders

    @Test func recordsSendersWhenTheyAreSendable() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let recorder = NotificationRecorder(ReadingTaken.self, in: center)
        ReadingTaken.post(Celsius(value: 21), from: kitchen, in: center)
        ReadingTaken.post(Celsius(value: 5), in: center)

        #expect(recorder.payloads == [Celsius(value: 21), Celsius(value: 5)])
        #expect(recorder.senders.map { $0 === kitchen } == [true, false])
        #expect(recorder.senders.map { $0 == nil } == [false, true])
    }

    @Test(.capturesReports) func filtersBySenderIdentity() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let garden = Thermometer()
        let recorder = NotificationRecorder(ReadingTaken.self, from: kitchen, in: center)
        ReadingTaken.post(Celsius(value: 21), from: kitchen, in: center)
        ReadingTaken.post(Celsius(value: 9), from: garden, in: center)
        ReadingTaken.post(Celsius(value: 0), in: center)
        center.post(name: ReadingTaken.notificationName, object: kitchen, userInfo: nil)  // undecodable, other type

        #expect(recorder.payloads == [Celsius(value: 21)])
        #expect(recorder.senders.allSatisfy { $0 === kitchen })
    }

    @Test func payloadsFromASenderWorkForAnySenderType() {
        let center = NotificationCenter()
        let drafts = Store(center: center)
        let archive = Store(center: center)
        let recorder = NotificationRecorder(Saved.self, in: center)
        drafts.save([1, 2])
        archive.save([3])
        drafts.save([4])

        #expect(recorder.payloads(from: drafts).map(\.id) == [1, 2, 4])
        #expect(recorder.payloads(from: archive).map(\.id) == [3])
        #expect(recorder.payloads(from: NSObject()).isEmpty)
    }

    @Test func doesNotKeepSendersAlive() {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(ReadingTaken.self, in: center)
        weak var released: Thermometer?
        do {
            let sensor = Thermometer()
            released = sensor
            ReadingTaken.post(Celsius(value: 3), from: sensor, in: center)
        }
        #expect(released == nil)
        #expect(recorder.count == 1)
        #expect(recorder.senders.count == 1)
        #expect(recorder.senders[0] == nil)
    }

    @Test func recordsNothingOnceItsSenderIsGone() {
        let center = NotificationCenter()
        var sensor: Thermometer? = Thermometer()
        let recorder = NotificationRecorder(ReadingTaken.self, from: sensor, in: center)
        sensor = nil
        // Whatever object Foundation sees now, even one at the freed address, is not the sender.
        for _ in 0..<20 {
            ReadingTaken.post(Celsius(value: 1), from: Thermometer(), in: center)
        }
        #expect(recorder.count == 0)
    }

    // MARK: - Lifetime

    @Test func cancelStopsRecordingAndKeepsWhatWasRecorded() {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        Saved(id: 1).post(in: center)
        recorder.cancel()
        recorder.cancel()
        Saved(id: 2).post(in: center)
        #expect(recorder.payloads == [Saved(id: 1)])
    }

    @Test func cancellingOneRecorderLeavesOthersRecording() {
        let center = NotificationCenter()
        let first = NotificationRecorder(Saved.self, in: center)
        let second = NotificationRecorder(Saved.self, in: center)
        first.cancel()
        Saved(id: 1).post(in: center)
        #expect(first.count == 0)
        #expect(second.count == 1)
    }

    @Test func releasingTheRecorderEndsRecording() {
        let center = NotificationCenter()
        weak var released: NotificationRecorder<Saved>?
        do {
            let recorder = NotificationRecorder(Saved.self, in: center)
            released = recorder
            Saved(id: 1).post(in: center)
            #expect(recorder.count == 1)
        }
        #expect(released == nil)
        Saved(id: 2).post(in: center)  // reaches nothing, and nothing crashes
        let later = NotificationRecorder(Saved.self, in: center)
        Saved(id: 3).post(in: center)
        #expect(later.payloads == [Saved(id: 3)])
    }

    // MARK: - Threads

    @Test func recordsEveryPostFromManyThreadsExactlyOnceInPerThreadOrder() {
        let center = NotificationCenter()
        let recorder = NotificationRecorder(Saved.self, in: center)
        let threads = 8
        let postsPerThread = 250
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<postsPerThread {
                Saved(id: thread * postsPerThread + index).post(in: center)
            }
        }

        let ids = recorder.payloads.map(\.id)
        #expect(ids.count == threads * postsPerThread)
        #expect(Set(ids).count == ids.count)
        for thread in 0..<threads {
            let fromThread = ids.filter { $0 / postsPerThread == thread }
            #expect(fromThread == fromThread.sorted(), "thread \(thread)'s posts out of order")
        }
    }
}
