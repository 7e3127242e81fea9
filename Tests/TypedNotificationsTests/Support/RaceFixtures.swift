import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// MARK: - Other fixtures

enum ResubscribedNumber: Notifiable { typealias Payload = Int }
enum DyingCenterNumber: Notifiable { typealias Payload = Int }
enum ChurnA: Notifiable { typealias Payload = Int }
enum ChurnB: Notifiable { typealias Payload = Int }
enum ReleasedTokenNumber: Notifiable { typealias Payload = Int }
enum SharedTargetNumber: Notifiable { typealias Payload = Int }
enum RelayedNumber: Notifiable { typealias Payload = Int }

/// An actor that records what its observers receive, per observer.
actor ObserverSink {
    var seen: [Int: [Int]] = [:]
    func add(_ value: Int, observer: Int) { seen[observer, default: []].append(value) }
    func all() -> [Int: [Int]] { seen }
}
