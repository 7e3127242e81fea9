import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// A post reaches the observers of its own center only, on every target, however many other centers observe its type,
/// as a plain post reaches only its center's Foundation observers.
@Suite struct ObserversPerCenterTests {
    /// Three centers, each with an observer of the same type on `target`: each observer receives its own center's
    /// typed and plain posts, and none of the others'.
    @Test(arguments: ObservingTarget.allCases)
    func aPostReachesOnlyTheObserversOfItsCenter(target: ObservingTarget) async {
        let centers = (0..<3).map { _ in NotificationCenter() }
        let received = centers.map { _ in Recorded<Int>() }
        let releases = Releases(expecting: centers.count * 3)
        let observations = centers.indices.map { index in
            observeTracked(on: target, in: centers[index]) { received[index].append($0.index) }
        }
        for (index, center) in centers.enumerated() {
            releases.payload(index * 10).post(in: center)
            releases.payload(index * 10 + 1).post(in: center)
            // A plain post, through the type's bridge on this center only.
            center.post(
                name: Tracked.notificationName, object: nil,
                userInfo: [Notification.typedPayloadKey: releases.payload(index * 10 + 2)])
        }
        await releases.wait()
        for index in centers.indices {
            #expect(received[index].values == [index * 10, index * 10 + 1, index * 10 + 2], "center \(index)")
        }
        for observation in observations { observation.cancel() }
        withExtendedLifetime(observations) {}
    }

    /// A type observed on 1,000 centers, made and posted to in a random order: each observer receives exactly its own
    /// center's posts. Half the centers then end (some by cancelling, some by being released) and the others are
    /// posted to again, and new centers join: still each gets only its own; the type keeps one channel per live center.
    @Test(.seeded) func aThousandCentersEachReceiveOnlyTheirOwnPosts() {
        var random = SplitMix64(seed: TestSeed.run)
        let count = 1_000
        var centers: [NotificationCenter?] = (0..<count).map { _ in NotificationCenter() }
        let received = (0..<(count + 100)).map { _ in Recorded<Int>() }
        var tokens: [NotificationToken?] = Array(repeating: nil, count: count + 100)
        for index in (0..<count).shuffled(using: &random) {
            tokens[index] = PerCenterNumber.observe(in: centers[index]!) { received[index].append($0) }
        }
        for index in (0..<count).shuffled(using: &random) { PerCenterNumber.post(index, in: centers[index]!) }
        #expect((0..<count).allSatisfy { received[$0].values == [$0] }, "a post reached another center's observer")
        #expect(ObserverRegistry.shared.channelCount(of: PerCenterNumber.self) == count)

        // Half end: a cancelled token, or a released center (its channel goes with it).
        let ended = Set((0..<count).shuffled(using: &random).prefix(count / 2))
        for index in ended {
            if random.chance(50) { tokens[index]?.cancel() } else { centers[index] = nil }
        }
        // New centers join, made after the others, so that they may take a released one's address.
        for index in count..<(count + 100) {
            let center = NotificationCenter()
            centers.append(center)
            tokens[index] = PerCenterNumber.observe(in: center) { received[index].append($0) }
        }
        let live = (0..<(count + 100)).filter { !ended.contains($0) }
        #expect(ObserverRegistry.shared.channelCount(of: PerCenterNumber.self) == live.count)
        for index in live.shuffled(using: &random) { PerCenterNumber.post(-index - 1, in: centers[index]!) }
        for index in 0..<(count + 100) {
            var expected: [Int] = index < count ? [index] : []
            if !ended.contains(index) { expected.append(-index - 1) }
            #expect(received[index].values == expected, "center \(index)")
        }
        for index in live { #expect(centers[index]!.typedObservations.count == 1, "center \(index)") }
        tokens.removeAll()
        #expect(ObserverRegistry.shared.channelCount(of: PerCenterNumber.self) == 0)
        withExtendedLifetime(centers) {}
    }
}

/// Observed by ``ObserversPerCenterTests/aThousandCentersEachReceiveOnlyTheirOwnPosts()`` only, so that its count of
/// channels is that test's alone.
private enum PerCenterNumber: Notifiable { typealias Payload = Int }
