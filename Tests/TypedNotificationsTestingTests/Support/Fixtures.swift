import Foundation
import TypedNotifications
import TypedNotificationsTestSupport

/// The running example of the article: a store that posts one `Saved` per saved item, from itself.
struct Saved: Notifiable, Equatable {
    let id: Int
}

final class Store: Sendable {
    let center: NotificationCenter

    init(center: NotificationCenter) {
        self.center = center
    }

    func save(_ ids: [Int]) {
        for id in ids {
            Saved(id: id).post(from: self, in: center)
        }
    }

    /// Saves on a background queue and returns at once, as code under test often does.
    func saveInBackground(_ ids: [Int]) {
        DispatchQueue.global().async { self.save(ids) }
    }
}

/// A payload-less event.
enum Refreshed: Notifiable {
    typealias Payload = Void
}

/// A type with a typed sender and a separate payload type.
final class Thermometer: Sendable {}

struct Celsius: Sendable, Equatable, CustomStringConvertible {
    let value: Double
    var description: String { "\(value) °C" }
}

enum ReadingTaken: Notifiable {
    typealias Sender = Thermometer
    typealias Payload = Celsius
}

/// A type with a legacy `userInfo` layout, decoded by hand.
enum LegacyPayment: Notifiable {
    typealias Payload = Int
    static var notificationName: Notification.Name { .init("LegacyPaymentAccepted") }

    static func payload(from notification: Notification) throws -> Int {
        guard let amount = notification.userInfo?["amount"] else {
            throw NotificationDecodingError.missingValue(key: "amount")
        }
        guard let cents = amount as? Int else {
            throw NotificationDecodingError.typeMismatch(key: "amount", expected: "Int", found: "\(type(of: amount))")
        }
        return cents
    }

    static func userInfo(for payload: Int) -> [AnyHashable: Any]? {
        ["amount": payload]
    }
}
