import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

/// Handlers that take the sender.
@Suite struct SenderHandlerTests {
    @Test func handlerReceivesTheTypedSenderOfTypedAndPlainPosts() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let seen = Recorded<String>()
        let token = Reading.observe(in: center) { thermometer, reading in
            seen.append("\(reading.celsius) \(thermometer === kitchen ? "kitchen" : thermometer == nil ? "nil" : "?")")
        }
        Reading(celsius: 1).post(from: kitchen, in: center)
        Reading(celsius: 2).post(in: center)
        center.post(
            name: Reading.notificationName, object: kitchen, userInfo: Reading.userInfo(for: Reading(celsius: 3)))
        // A plain post whose object is not a `Thermometer`: the handler gets `nil`, not a wrong cast.
        center.post(
            name: Reading.notificationName, object: Sender(), userInfo: Reading.userInfo(for: Reading(celsius: 4)))
        #expect(seen.values == ["1.0 kitchen", "2.0 nil", "3.0 kitchen", "4.0 nil"])
        withExtendedLifetime(token) {}
    }

    @Test func queuedHandlerReceivesTheSender() async {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let seen = Recorded<Bool>()
        let done = Signal()
        let token = Reading.observe(in: center, delivery: .async(on: DispatchQueue(label: "readings"))) {
            thermometer, _ in
            seen.append(thermometer === kitchen)
            done.fire()
        }
        Reading(celsius: 1).post(from: kitchen, in: center)
        await done.wait()
        #expect(seen.values == [true])
        withExtendedLifetime(token) {}
    }

    @Test func senderFilterStillApplies() {
        let center = NotificationCenter()
        let kitchen = Thermometer()
        let seen = Recorded<Double>()
        let token = Reading.observe(from: kitchen, in: center) { thermometer, reading in
            #expect(thermometer === kitchen)
            seen.append(reading.celsius)
        }
        Reading(celsius: 1).post(from: Thermometer(), in: center)
        Reading(celsius: 2).post(from: kitchen, in: center)
        #expect(seen.values == [2])
        withExtendedLifetime(token) {}
    }
}
