/// A small, fast, seeded pseudo-random generator (SplitMix64), so that every randomised test replays from its seed.
///
/// The standard library has no seeded generator, and its `random(in:using:)` algorithms may change between Swift
/// releases, so the helpers below derive every choice from `next()` alone: a seed replays the same sequence on any
/// toolchain.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    /// A number in `0..<bound`; the modulo bias is below 2⁻⁵⁰ for the small bounds the tests use.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "an empty range has no random element")
        return Int(next() % UInt64(bound))
    }

    /// `true` with a probability of `percent` in 100.
    mutating func chance(_ percent: Int) -> Bool {
        below(100) < percent
    }

    mutating func element<Element>(of elements: [Element]) -> Element {
        elements[below(elements.count)]
    }

    /// The `index`-th seed derived from `seed`, so that a run of many sequences needs only one seed to replay them
    /// all, and each sequence also replays alone from its own.
    static func derivedSeed(_ seed: UInt64, index: Int) -> UInt64 {
        var generator = SplitMix64(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return generator.next()
    }
}
