import Foundation
import Synchronization
import TypedNotifications

/// The payload of every scenario: one market-data tick, a realistic three-field value.
///
/// 32 bytes inline: an `Int`, a `Double` and a `String` of at most 15 UTF-8 bytes, which Swift stores inline (no heap
/// allocation of its own). That is more than an existential's 24-byte inline buffer, so putting it in `userInfo` as
/// `Any` boxes it on the heap, as it would for most real payloads.
package struct Tick: Notifiable, Sendable, Equatable {
    package let sequence: Int
    package let price: Double
    package let symbol: String

    package init(sequence: Int, price: Double, symbol: String) {
        self.sequence = sequence
        self.price = price
        self.symbol = symbol
    }
}

/// What the plain `NotificationCenter` twins use: the same name string as the typed `Tick` (so Foundation hashes a
/// name of the same length), on a center of their own, and the `userInfo` key `"tick"`.
package enum PlainTick {
    package static let name = Notification.Name("BenchmarkScenarios.Tick")
    package static let key = "tick"
}

/// What every observer does with a delivery: reads the payload and adds its `sequence` (always 1) to a counter, so
/// the counter is also the number of deliveries, which the runners check.
package final class Sink: Sendable {
    private let total = Atomic<Int>(0)

    package init() {}

    @inline(__always)
    package func add(_ value: Int) {
        total.wrappingAdd(value, ordering: .relaxed)
    }

    package var value: Int { total.load(ordering: .relaxed) }
}

/// The object type the `MainActorMessage` twin names as its `Subject`; posts never pass one.
package final class Ticker {}

// Foundation's MainActorMessage exists on Linux from Swift 6.3 and on Apple platforms from the OS 26 releases.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter {
    /// Foundation's own typed message (SF-0011), the second twin: the same three fields as ``Tick``.
    ///
    /// Posted and observed only on centers that have no classic observer for its name: on Linux, mixing the two
    /// aborts the process.
    package struct TickMessage: NotificationCenter.MainActorMessage, Sendable {
        package typealias Subject = Ticker

        package let sequence: Int
        package let price: Double
        package let symbol: String

        package init(sequence: Int, price: Double, symbol: String) {
            self.sequence = sequence
            self.price = price
            self.symbol = symbol
        }
    }
}

// MARK: - Observers on other names

/// Gives each `OtherTick<…>` type a distinct depth, hence a distinct notification name.
package protocol OtherTickNaming {
    static var depth: Int { get }
}

package enum OtherTickBase: OtherTickNaming {
    package static var depth: Int { 0 }
}

/// One distinct `Notifiable` type per nesting level, so a scenario can hold typed observers on 1,000 other names
/// (`BenchmarkScenarios.OtherTick.1` … `.1000`); the plain twin uses the same 1,000 name strings.
package enum OtherTick<Inner: OtherTickNaming>: Notifiable, OtherTickNaming {
    package typealias Payload = Tick

    package static var depth: Int { Inner.depth + 1 }

    package static var notificationName: Notification.Name { OtherNames.name(depth) }
}

package enum OtherNames {
    package static func name(_ index: Int) -> Notification.Name {
        Notification.Name("BenchmarkScenarios.OtherTick.\(index)")
    }
}
