import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Seeded random sequences of operations, run against the package and checked step by step against
/// ``ReferenceModel``.
///
/// Each step is one of: observe (with or without a sender filter, token-held or owner-bound, some of whose handlers
/// react once by cancelling, releasing a token or an owner, observing or posting), post (typed, plain with the
/// payload, or plain and undecodable, from `nil` or one of three senders; a typed post may make a plain observer
/// re-post from inside its delivery), cancel, release a token, release an owner, or free a sender and make a new
/// one (often at the same address). After every step the test compares, exactly:
/// - the typed handlers' calls, in order, with the model's, and for the handlers that take the sender (every other
///   token-held observer), that each got the object of the post in progress;
/// - what each of two plain observers saw (as a multiset, since Foundation calls plain observers in hash order);
/// - `registrationCounts(in:)` with the model's live observers and one Foundation observer while any is live.
///
/// Every sequence ends by releasing everything and expecting `(0, 0)` registrations. The run's seed is random; a
/// failure prints the failing sequence's own seed, which replays just that sequence:
/// `TYPED_NOTIFICATIONS_SEED=0x… TYPED_NOTIFICATIONS_TRACE=1 swift test --filter
/// randomSequencesMatchTheReferenceModel`.
@Suite(.capturesReports) struct ModelBasedTests {
    /// The sequences are split into chunks that Swift Testing runs in parallel.
    static let chunks = Array(0..<8)
    static let stepsPerSequence = 300
    /// Per chunk: 8 × 80 = 640 sequences normally, 8 × 2,500 = 20,000 in the long run.
    static let sequencesPerChunk = TestEnvironment.scaled(normal: 80, long: 2_500, sanitized: 25)

    // MARK: - Random sequences

    @Test(arguments: chunks)
    func randomSequencesMatchTheReferenceModel(chunk: Int) {
        let center = NotificationCenter()
        if let seed = TestEnvironment.replaySeed {
            if chunk == 0 { _ = Self.run(seed: seed, on: center, trace: TestEnvironment.tracesReplay) }
            return
        }
        var reusedAddresses = 0
        for index in 0..<Self.sequencesPerChunk {
            let seed = SplitMix64.derivedSeed(TestEnvironment.runSeed, index: chunk * Self.sequencesPerChunk + index)
            guard let reused = Self.run(seed: seed, on: center, trace: false) else { return }
            reusedAddresses += reused
        }
        if !TestEnvironment.isAddressSanitized {
            // The sender-reuse case is exercised, not just allowed for.
            #expect(reusedAddresses > 0, "no new sender ever took a freed sender's address")
        }
    }

    // MARK: - Running one sequence

    /// Runs one sequence; returns how often a sender's address was reused, or `nil` after recording a failure.
    private static func run(seed: UInt64, on center: NotificationCenter, trace: Bool) -> Int? {
        var generator = ScriptGenerator(seed: seed)
        var model = ReferenceModel(senderSlots: ScriptGenerator.senderSlots)
        let harness = ModelHarness(center: center, senderSlots: ScriptGenerator.senderSlots)
        var recentSteps: [String] = []
        for index in 0..<stepsPerSequence {
            let step = generator.nextStep()
            if trace { print("step \(index): \(step)") }
            recentSteps = Array((recentSteps + ["\(index): \(step)"]).suffix(8))
            model.apply(step)
            harness.run(step)
            let problems = compare(model: &model, harness: harness)
            if !problems.isEmpty {
                harness.tearDown()
                report(problems, seed: seed, step: index, recentSteps: recentSteps)
                return nil
            }
        }
        harness.tearDown()
        let counts = ObserverRegistry.shared.registrationCounts(in: center)
        if counts != (0, 0) {
            let problem = "after releasing everything: registrations \(counts), expected (0, 0)"
            report([problem], seed: seed, step: nil, recentSteps: recentSteps)
            return nil
        }
        return harness.reusedAddresses
    }

    private static func compare(model: inout ReferenceModel, harness: ModelHarness) -> [String] {
        let expected = model.takeExpectations()
        var problems = harness.wrongSenders
        let actual = harness.takeRecords()
        if actual.deliveries != expected.deliveries {
            problems.append("typed calls (observer←post): expected \(expected.deliveries), got \(actual.deliveries)")
        }
        for (recorder, sightings) in actual.sightings.enumerated() where sightings != expected.sightings {
            problems.append(
                "plain observer \(recorder) saw (post@sender generation): expected \(expected.sightings), got \(sightings)"
            )
        }
        let live = model.liveObserverCount
        let counts = ObserverRegistry.shared.registrationCounts(in: harness.center)
        if counts != (live, live > 0 ? 1 : 0) {
            problems.append("registrations \(counts), expected (\(live), \(live > 0 ? 1 : 0))")
        }
        return problems
    }

    private static func report(_ problems: [String], seed: UInt64, step: Int?, recentSteps: [String]) {
        let place = step.map { "at step \($0)" } ?? "at the end"
        Issue.record(
            """
            Sequence with seed \(TestEnvironment.hex(seed)) diverged from the model \(place):
            \(problems.map { "- \($0)" }.joined(separator: "\n"))
            Last steps:
            \(recentSteps.joined(separator: "\n"))
            \(TestEnvironment.replayHint(seed: seed, test: "randomSequencesMatchTheReferenceModel"))
            """
        )
    }
}
