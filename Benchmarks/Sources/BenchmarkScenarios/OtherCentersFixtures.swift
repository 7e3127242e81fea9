import Foundation
import TypedNotifications

// One observer on the posted center while the same type (the same name, for the twin) is observed on many other
// centers: one center per document, window or test. Foundation keeps observers per center, so its post does not see
// the other centers; a typed post must find its center's observers as directly.
//
// The other centers are observed first, so that the posted center is the newest (the document just opened). Their
// observers add to a sink of their own, which must stay at zero: they are never posted to.

/// A ``TypedFixture`` with one observer of ``Tick``, made after `otherCenters` centers each with one observer of `Tick`.
package final class TypedOtherCentersFixture: @unchecked Sendable {
    package let posted: TypedFixture
    private let strays = Sink()
    private var others: [(center: NotificationCenter, token: NotificationToken)] = []

    package init(otherCenters: Int) {
        let strays = strays
        for _ in 0..<otherCenters {
            let center = NotificationCenter()
            others.append((center, Tick.observe(in: center) { tick in strays.add(tick.sequence) }))
        }
        posted = TypedFixture(observers: 1)
    }

    package var sink: Sink { posted.sink }

    @inline(never)
    package func post(_ count: Int) {
        posted.post(count)
        precondition(strays.value == 0, "a post reached an observer on another center")
    }
}

/// The plain twin: a ``PlainFixture`` with one observer of ``PlainTick/name``, made after `otherCenters` centers each
/// with one plain observer of that name.
package final class PlainOtherCentersFixture: @unchecked Sendable {
    package let posted: PlainFixture
    private let strays = Sink()
    private var others: [(center: NotificationCenter, registration: any NSObjectProtocol)] = []

    package init(otherCenters: Int) {
        let strays = strays
        for _ in 0..<otherCenters {
            let center = NotificationCenter()
            let registration = center.addObserver(forName: PlainTick.name, object: nil, queue: nil) { notification in
                if let tick = notification.userInfo?[PlainTick.key] as? Tick { strays.add(tick.sequence) }
            }
            others.append((center, registration))
        }
        posted = PlainFixture(observers: 1)
    }

    deinit {
        for (center, registration) in others { center.removeObserver(registration) }
    }

    package var sink: Sink { posted.sink }

    @inline(never)
    package func post(_ count: Int) {
        posted.post(count)
        precondition(strays.value == 0, "a post reached an observer on another center")
    }
}
