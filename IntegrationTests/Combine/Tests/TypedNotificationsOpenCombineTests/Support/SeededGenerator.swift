import Foundation

/// SplitMix64: a small, fast, seeded generator, so a randomised test replays from the seed it prints.
struct SeededGenerator: RandomNumberGenerator {
    private(set) var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    /// The seed from `TYPED_NOTIFICATIONS_SEED` if set, so a failure can be replayed, or a fresh one.
    static func seedFromEnvironment() -> UInt64 {
        if let text = ProcessInfo.processInfo.environment["TYPED_NOTIFICATIONS_SEED"], let seed = UInt64(text) {
            return seed
        }
        return UInt64.random(in: .min ... .max)
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }
}
