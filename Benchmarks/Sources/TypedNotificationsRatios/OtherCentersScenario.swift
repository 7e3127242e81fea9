import BenchmarkScenarios

/// One observer on the posted center, and the same type observed on 1,000 other centers (the twin: the same name),
/// against plain code: a post's cost must not grow with the other centers, as Foundation's does not.
func otherCentersScenario() -> TimedScenario {
    TimedScenario(title: "post, 1 observer + 1,000 other centers", twin: "plain", target: 1.00, stretch: nil) {
        let typed = TypedOtherCentersFixture(otherCenters: 1_000)
        let plain = PlainOtherCentersFixture(otherCenters: 1_000)
        return Pair(
            typed: Side(run: typed.post, sink: typed.sink),
            twin: Side(run: plain.post, sink: plain.sink),
            deliveriesPerOperation: 1
        )
    }
}
