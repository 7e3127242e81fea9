import Foundation
package import Testing

/// A small, fast, seeded pseudo-random generator (SplitMix64), so that every randomised test replays from its seed.
///
/// The standard library has no seeded generator, and its `random(in:using:)` algorithms may change between Swift
/// releases, so the helpers below derive every choice from `next()` alone: a seed replays the same sequence on any
/// toolchain.
package struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`; the modulo bias is below 2⁻⁵⁰ for the small bounds the tests use.
    package mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "an empty range has no random element")
        return Int(next() % UInt64(bound))
    }

    /// `true` with a probability of `percent` in 100.
    package mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    package mutating func element<Element>(of elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// The `index`-th seed derived from `seed`, so that a run of many sequences needs only one seed to replay them
    /// all, and each sequence also replays alone from its own.
    package static func derivedSeed(_ seed: UInt64, index: Int) -> UInt64 {
        var generator = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }
}

/// The seed of a test run, one rule for every test target: `TYPED_NOTIFICATIONS_SEED` (decimal, or hexadecimal with
/// `0x`) replays a run; otherwise each run takes a fresh seed. Tests print the seed with every failure, and only then
/// (the `.seeded` trait).
package enum TestSeed {
    /// The seed given in the environment, if any.
    package static let replayed: UInt64? = ProcessInfo.processInfo.environment["TYPED_NOTIFICATIONS_SEED"].flatMap(
        parse)

    /// The seed of this run: the replayed one, or a fresh one.
    package static let run: UInt64 = replayed ?? UInt64.random(in: .min ... .max)

    /// `text` as a seed: decimal, or hexadecimal after `0x`.
    package static func parse(_ text: String) -> UInt64? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        if trimmed.hasPrefix("0x") { return UInt64(trimmed.dropFirst(2), radix: 16) }
        return UInt64(trimmed)
    }

    package static func hex(_ seed: UInt64) -> String {
        "0x" + String(seed, radix: 16, uppercase: true)
    }

    /// The command that replays `seed`, for failure messages.
    package static func replayHint(seed: UInt64, test: String) -> String {
        "replay with: TYPED_NOTIFICATIONS_SEED=\(hex(seed)) swift test --filter \"\(test)\""
    }
}

/// A trait for a randomised test whose choices come from ``TestSeed/run``: each issue it records carries the seed and
/// the command that replays it, so that a failure replays and a passing run prints nothing.
///
/// ```swift
/// @Test(.seeded) func postsRacingCancellationNeverDeliverTwice() async { var random = SplitMix64(seed: TestSeed.run) … }
/// ```
package struct ReplaysFromSeed: TestTrait, SuiteTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let name = String(test.name.prefix { $0 != "(" })
        let replay = Comment(
            rawValue: "seed \(TestSeed.hex(TestSeed.run)); " + TestSeed.replayHint(seed: TestSeed.run, test: name))
        let commenting = IssueHandlingTrait.compactMapIssues { issue in
            var issue = issue
            issue.comments.append(replay)
            return issue
        }
        try await commenting.provideScope(for: test, testCase: testCase, performing: function)
    }
}

extension Trait where Self == ReplaysFromSeed {
    /// Adds the run's seed, and how to replay it, to every issue the test records (see ``ReplaysFromSeed``).
    package static var seeded: Self { ReplaysFromSeed() }
}
