import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// The public surface as a whole: how many entry points it has, and that its options compose. Every delivery form
// takes `from:`, `in:` and `where:`; the handler forms also take `for:`; a two-argument handler takes the payload last.

@Suite struct SurfaceTests {
    private static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The library's public functions named `post`, `observe…`, `notifications`, `publisher`, `next` or
    /// `awaitDelivery`, excluding the `next` requirements of `NotificationSequence.AsyncIterator`
    /// (`AsyncIteratorProtocol`'s, not entry points), and declarations marked `unavailable`, which cannot be called:
    /// they only turn a spelling the API does not offer into a compiler message saying what to write instead.
    @Test func theLibraryHasAtMostSixteenPostingAndObservingEntryPoints() throws {
        let sources = Self.root.appendingPathComponent("Sources/TypedNotifications")
        let files = try #require(FileManager.default.subpaths(atPath: sources.path)).filter { $0.hasSuffix(".swift") }
        let declaration = #/public (static )?func (post|observe\w*|notifications|publisher|next|awaitDelivery)\b/#
        var entryPoints: [String] = []
        for file in files.sorted() {
            let source = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            // The attributes since the last doc comment or declaration, to tell an unavailable declaration.
            var attributes = ""
            for line in source.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                if line.contains(declaration) {
                    if !attributes.contains("unavailable") { entryPoints.append("\(file): \(line)") }
                    attributes = ""
                } else if line.hasPrefix("///") || line.hasPrefix("}") {
                    attributes = ""
                } else {
                    attributes += line
                }
            }
        }
        // 2 posting forms, 9 observing forms, a sequence, a publisher, `next` as one step (on the type) or as the
        // second step of a race-free wait (on a sequence made first), and awaiting the delivery of posts.
        #expect(entryPoints.count == 16, "\(entryPoints.joined(separator: "\n"))")
        #expect(entryPoints.count <= 16)
    }

    // MARK: - `where:` on every form

    enum Player: Notifiable, Equatable {
        case play, pause, stop
    }

    @Test func whereFiltersOnThePostingThreadAndOnAQueue() async {
        let center = NotificationCenter()
        let immediate = Recorded<Player>()
        let queued = Recorded<Player>()
        let done = Signal()
        let queue = DispatchQueue(label: "surface.where")
        let tokens = [
            Player.observe(in: center, where: .matching { $0 != .stop }) { immediate.append($0) },
            Player.observe(in: center, delivery: .async(on: queue), where: .equals(.pause)) { player in
                queued.append(player)
                done.fire()
            },
        ]
        for player in [Player.play, .stop, .pause] { player.post(in: center) }
        await done.wait()
        #expect(immediate.values == [.play, .pause])
        #expect(queued.values == [.pause])
        withExtendedLifetime(tokens) {}
    }

    @Test @MainActor func whereFiltersOnTheMainActorWithAndWithoutAnOwner() {
        let center = NotificationCenter()
        let plain = Recorded<Player>()
        let owner = Counter()
        let token = Player.observeOnMainActor(in: center, where: .equals(.pause)) { plain.append($0) }
        Player.observeOnMainActor(for: owner, in: center, where: .equals(.play)) { owner, _ in owner.increment() }
        for player in [Player.play, .pause, .stop, .play] { player.post(in: center) }
        #expect(plain.values == [.pause])
        #expect(owner.count == 2)
        withExtendedLifetime(token) {}
    }

    actor Tally {
        var seen: [Player] = []
        func start(in center: NotificationCenter) {
            Player.observe(for: self, in: center, where: .equals(.stop)) { tally, player in tally.seen.append(player) }
        }
        func post(_ players: [Player], in center: NotificationCenter) -> [Player] {
            for player in players { player.post(in: center) }
            return seen
        }
    }

    @Test func whereFiltersOnAnActor() async {
        let center = NotificationCenter()
        let tally = Tally()
        await tally.start(in: center)
        #expect(await tally.post([.play, .stop, .pause, .stop], in: center) == [.stop, .stop])
    }

    @Test func whereFiltersAsyncHandlersWithAndWithoutAnOwner() async {
        let center = NotificationCenter()
        let plain = Recorded<Player>()
        let owned = Recorded<Player>()
        let owner = Counter()
        let bothSawStop = Signal()
        let token = Player.observe(in: center, where: .matching { $0 != .play }) { player async in
            plain.append(player)
            if player == .stop, owned.values.contains(.stop) { bothSawStop.fire() }
        }
        Player.observe(for: owner, in: center, where: .equals(.stop)) { _, player async in
            owned.append(player)
            if plain.values.contains(.stop) { bothSawStop.fire() }
        }
        for player in [Player.play, .pause, .stop] { player.post(in: center) }
        await bothSawStop.wait()
        #expect(plain.values == [.pause, .stop])
        #expect(owned.values == [.stop])
        withExtendedLifetime((token, owner)) {}
    }

    // MARK: - Owners and senders

    @Test func anAsyncHandlerBoundToAnOwnerEndsWithIt() async throws {
        let center = NotificationCenter()
        let seen = Recorded<Int>()
        var owner: Counter? = Counter()
        CounterDidChange.observe(for: owner!, in: center) { owner, change async in
            owner.increment()
            seen.append(change.count)
        }
        // The call holds the owner until it returns; the wait ends once it has.
        try await awaitDelivery { CounterDidChange(count: 1).post(in: center) }
        weak var probe: Counter?
        probe = owner
        owner = nil
        #expect(probe == nil, "the call that ran let go of its owner")
        CounterDidChange(count: 2).post(in: center)
        #expect(seen.values == [1])
        #expect(center.typedObservations.isEmpty, "the post after the owner died ended the observation")
    }

    @Test func aSenderReceivingHandlerTakesTheSenderFirstAndThePayloadLast() {
        let center = NotificationCenter()
        let thermometer = Thermometer()
        let received = Recorded<(Bool, Double)>()
        let token = Reading.observe(in: center) { sender, reading in
            received.append((sender === thermometer, reading.celsius))
        }
        Reading(celsius: 21).post(from: thermometer, in: center)
        Reading(celsius: 5).post(in: center)
        #expect(received.values.map(\.0) == [true, false])
        #expect(received.values.map(\.1) == [21, 5])
        withExtendedLifetime(token) {}
    }

    /// A type whose payload is `Void` posts `()`.
    enum Refreshed: Notifiable {
        typealias Payload = Void
    }

    @Test func aVoidPayloadIsPostedAsAnEmptyTuple() {
        let center = NotificationCenter()
        let count = Counter()
        let token = Refreshed.observe(in: center) { count.increment() }
        Refreshed.post((), in: center)
        #expect(count.count == 1)
        withExtendedLifetime(token) {}
    }
}
