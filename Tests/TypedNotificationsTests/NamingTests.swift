import Foundation
import Testing
import TypedNotifications

@Suite struct NamingTests {
    @Test func defaultNameIsTheModuleQualifiedTypeName() {
        #expect(CounterDidChange.notificationName.rawValue == "TypedNotificationsTests.CounterDidChange")
    }

    @Test func sameSimpleNameInTwoNamespacesDoesNotCollide() {
        #expect(ModuleA.Ping.notificationName != ModuleB.Ping.notificationName)
        #expect(ModuleA.Ping.notificationName.rawValue == "TypedNotificationsTests.ModuleA.Ping")
    }

    @Test func genericArgumentsAreDistinguished() {
        #expect(Box<Int>.notificationName != Box<String>.notificationName)
        #expect(Box<Int>.notificationName.rawValue == "TypedNotificationsTests.Box<Swift.Int>")
    }

    @Test func nameIsStableAcrossReadsAndThreads() {
        let names = Recorded<Notification.Name>()
        DispatchQueue.concurrentPerform(iterations: 64) { _ in
            names.append(Box<Double>.notificationName)
        }
        #expect(Set(names.values) == [Box<Double>.notificationName])
    }

    @Test func overriddenNameIsUsedOnTheWire() {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let plain = center.addObserver(forName: .init("LegacyNamedNotification"), object: nil, queue: nil) { note in
            seen.append(note.name.rawValue)
        }
        defer { center.removeObserver(plain) }
        center.post(LegacyNamed(text: "hi"))
        #expect(seen.values == ["LegacyNamedNotification"])
    }

    @Test func typesWithDistinctNamesDoNotSeeEachOther() {
        let center = NotificationCenter()
        let pings = Counter()
        let token = center.observe(ModuleA.Ping.self) { _ in pings.increment() }
        center.post(ModuleB.Ping())
        center.post(Box(value: 1))
        #expect(pings.count == 0)
        center.post(ModuleA.Ping())
        #expect(pings.count == 1)
        withExtendedLifetime(token) {}
    }
}
