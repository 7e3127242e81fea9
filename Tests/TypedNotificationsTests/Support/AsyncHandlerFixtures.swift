import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

enum NumberPosted: Notifiable { typealias Payload = Int }

/// A payload that says when it is released.
final class ReleaseReporting: Sendable {
    let id: Int
    let onRelease: @Sendable () -> Void
    init(_ id: Int = 0, onRelease: @escaping @Sendable () -> Void) {
        self.id = id
        self.onRelease = onRelease
    }
    deinit { onRelease() }
}

enum ReleaseReportingPosted: Notifiable { typealias Payload = ReleaseReporting }

/// An owner (or captured object) that says when it is deinitialised.
final class DeinitReportingOwner: Sendable {
    let isDead: AtomicWord
    let onDeinit: @Sendable () -> Void
    init(isDead: AtomicWord = AtomicWord.make(), onDeinit: @escaping @Sendable () -> Void = {}) {
        self.isDead = isDead
        self.onDeinit = onDeinit
    }
    deinit {
        isDead.store(1)
        onDeinit()
    }
}

struct LatestNumber: LatestValueNotifiable, Equatable { let value: Int }

/// Counts to `target`, then fires `reached`.
final class CountdownTally: Sendable {
    let counter = Counter()
    let target: Int
    let reached = Signal()
    init(_ target: Int) {
        self.target = target
        if target == 0 { reached.fire() }
    }
    func bump() { if counter.increment() == target { reached.fire() } }
    var count: Int { counter.value }
}

/// Waits for `signal`, recording an issue (instead of hanging) if it does not fire within `seconds`. The timeout is a
/// failure bound only; it never stands in for synchronisation.
@discardableResult
func waitOrRecordTimeout(
    _ signal: Signal, _ what: String, seconds: UInt64 = 60, sourceLocation: SourceLocation = #_sourceLocation
) async -> Bool {
    let fired = await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await signal.wait()
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(nanoseconds: seconds * 1_000_000_000)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
    if !fired { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    return fired
}

/// Posts a tracked payload, waits until the handler has started on it (it then waits on a gate of the test's), and
/// queues `backlog` more tracked payloads behind that running call; each payload bumps `released` when released.
func queueReleaseReportingBehindARunningCall(
    _ backlog: Int, in center: NotificationCenter, started: Signal, released: CountdownTally
)
    async
{
    ReleaseReportingPosted.post(ReleaseReporting { released.bump() }, in: center)
    await waitOrRecordTimeout(started, "the first call")
    for index in 1...backlog { ReleaseReportingPosted.post(ReleaseReporting(index) { released.bump() }, in: center) }
}

/// Busy-waits `iterations` steps: a seeded delay that moves where a race lands, never a synchronisation.
func busyWait(_ iterations: Int) {
    var sink = 0
    for index in 0..<iterations { sink &+= index }
    withExtendedLifetime(sink) {}
}

/// Whether `values`, restricted to those of `source` (`value / 1_000_000`), are exactly `expected`.
func expectSourceInOrder(
    _ values: [Int], source: Int, expected: [Int], _ label: String, sourceLocation: SourceLocation = #_sourceLocation
) {
    let mine = values.filter { $0 / 1_000_000 == source }
    #expect(
        mine == expected,
        "\(label): source \(source) out of order, lost or duplicated (\(mine.count) of \(expected.count))",
        sourceLocation: sourceLocation)
}

/// Types that one test each observes, so that `ObserverRegistry.channelCount(of:)` (which, unlike introspection,
/// sweeps no dead owners) says whether a post itself ended the observation.
enum SenderFilterRace: Notifiable { typealias Payload = Int }
enum SenderFilterPlain: Notifiable { typealias Payload = ReleaseReporting }
