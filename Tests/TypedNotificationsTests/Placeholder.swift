import Foundation
import Testing
import TypedNotifications

struct Smoke: Notifiable, Equatable { let count: Int }
enum Ping: Notifiable { typealias Payload = Void }

@Test func smoke() {
    let center = NotificationCenter()
    let box = Box()
    let t1 = center.observe(Smoke.self) { box.append("typed \($0.count)") }
    let plain = center.addObserver(forName: Smoke.notificationName, object: nil, queue: nil) { n in
        let v = n.userInfo?[Notification.typedPayloadKey] as? Smoke
        box.append("plain \(v?.count ?? -1)")
    }
    center.post(Smoke(count: 1))
    center.post(name: Smoke.notificationName, object: nil, userInfo: [Notification.typedPayloadKey: Smoke(count: 2)])
    center.post(name: Smoke.notificationName, object: nil, userInfo: nil)
    center.removeObserver(plain)
    _ = t1
    #expect(box.items.sorted() == ["plain -1", "plain 1", "plain 2", "typed 1", "typed 2"])
    print(Smoke.notificationName.rawValue, box.items)
}

final class Box: @unchecked Sendable {
    let lock = NSLock()
    var _items: [String] = []
    func append(_ s: String) { lock.lock(); _items.append(s); lock.unlock() }
    var items: [String] { lock.lock(); defer { lock.unlock() }; return _items }
}
