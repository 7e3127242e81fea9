import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// A center's death ends its observations, while other threads post and observe the same type, and a new center at
/// its address never reaches them.
@Suite struct CenterDeathRaceTests {
    /// Threads make centers, observe and post on them, and let them go with the tokens still held, while other
    /// threads post and observe the same type on a center of their own: no handler sees another center's post, every
    /// post on a center reaches its observers once, and dead centers leave no channel.
    @Test(.seeded) func centersDieWhileOtherThreadsPostAndObserveTheSameType() async {
        let seed = TestSeed.run
        let stable = NotificationCenter()
        let stableSeen = Recorded<Int>()
        let stableToken = DyingCenterNumber.observe(in: stable) { stableSeen.append($0) }
        let strays = Recorded<String>()
        let kept = Protected<[NotificationToken]>([])
        await onThreads(5) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            for step in 0..<300 {
                let tag = (thread + 1) * 100_000 + step * 10
                if thread < 3 {
                    var center: NotificationCenter? = NotificationCenter()
                    let seen = Recorded<Int>()
                    let token = DyingCenterNumber.observe(in: center!) { value in
                        seen.append(value)
                        if value / 10 != tag / 10 { strays.append("\(tag): got \(value)") }
                    }
                    DyingCenterNumber.post(tag, in: center!)
                    if random.chance(50) { DyingCenterNumber.post(tag + 1, in: center!) }
                    busyWait(random.below(300))
                    center = nil
                    if seen.values.first != tag { strays.append("\(tag): missed its post (\(seen.values))") }
                    // Released later, on another thread, after its center.
                    kept.withLock { $0.append(token) }
                } else {
                    DyingCenterNumber.post(thread * 1_000 + step, in: stable)
                    let token = DyingCenterNumber.observe(in: stable) { _ in }
                    busyWait(random.below(300))
                    token.cancel()
                }
            }
        }
        #expect(strays.values.isEmpty, "\(strays.values.prefix(5)), seed \(TestSeed.hex(seed))")
        let expected = (3..<5).flatMap { thread in (0..<300).map { thread * 1_000 + $0 } }
        #expect(stableSeen.values.sorted() == expected, "the stable center lost or duplicated posts")
        #expect(ObserverRegistry.shared.channelCount(of: DyingCenterNumber.self) == 1, "a dead center left its channel")
        let tokens = kept.value
        kept.set([])
        await onThreads(2) { thread in
            for (index, token) in tokens.enumerated() where index % 2 == thread { token.cancel() }
        }
        #expect(ObserverRegistry.shared.channelCount(of: DyingCenterNumber.self) == 1)
        withExtendedLifetime(stableToken) {}
    }

    /// A center dies with an observation still held; new centers, likely at its address, must never reach it, and
    /// their own observers receive each post once.
    @Test func aNewCenterAtADeadCentersAddressNeverReachesItsObservations() {
        var reused = 0
        for round in 0..<200 {
            var address: ObjectIdentifier?
            weak var dead: NotificationCenter?
            let old = Recorded<Int>()
            var token: NotificationToken?
            do {
                let center = NotificationCenter()
                address = ObjectIdentifier(center)
                dead = center
                token = SharedTargetNumber.observe(in: center) { old.append($0) }
                SharedTargetNumber.post(round, in: center)
            }
            #expect(dead == nil, "round \(round): the observation kept its center alive")
            // New centers until one takes the dead one's address (or 16 tried); all are observed and posted to.
            var centers: [NotificationCenter] = []
            var newTokens: [NotificationToken] = []
            let new = Recorded<Int>()
            repeat {
                let center = NotificationCenter()
                centers.append(center)
                newTokens.append(SharedTargetNumber.observe(in: center) { new.append($0) })
            } while ObjectIdentifier(centers.last!) != address && centers.count < 16
            if ObjectIdentifier(centers.last!) == address { reused += 1 }
            for (index, center) in centers.enumerated() { SharedTargetNumber.post(-index - 1, in: center) }
            #expect(old.values == [round], "round \(round): the dead center's observer saw \(old.values)")
            #expect(new.values.sorted() == (1...centers.count).map { -$0 }.reversed())
            #expect(centers.last!.typedObservations.count == 1)
            withExtendedLifetime((token, newTokens)) {}
            token = nil
        }
        print("new center at a dead one's address: \(reused) of 200 rounds made a center at a dead one's address")
    }
}
