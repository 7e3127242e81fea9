import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

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

    // MARK: - Private and local types

    @Test func privateTypesAreNamedWithoutTheirAnonymousContext() {
        // The runtime prints `TypedNotificationsTests.(unknown context at $55e5c9f61868).PrivatePing`, whose address
        // changes on every launch.
        let types: [any Notifiable.Type] = [
            PrivatePing.self, FilePrivatePing.Nested.self, Hidden.self, Box<PrivatePing>.self,
        ]
        for type in types {
            #expect(!type.notificationName.rawValue.contains("$"), "\(type.notificationName.rawValue) has an address")
        }
        #expect(PrivatePing.notificationName.rawValue == "TypedNotificationsTests.PrivatePing")
        #expect(FilePrivatePing.Nested.notificationName.rawValue == "TypedNotificationsTests.FilePrivatePing.Nested")
        #expect(Hidden.notificationName.rawValue == "TypedNotificationsTests.NamingTests.Hidden")
        #expect(
            Box<PrivatePing>.notificationName.rawValue
                == "TypedNotificationsTests.Box<TypedNotificationsTests.PrivatePing>")
    }

    @Test func localTypesAreNamedWithoutTheirAnonymousContexts() {
        struct LocalPing: Notifiable {}
        let inClosure = { () -> any Notifiable.Type in
            enum ClosurePing: Notifiable {}
            return ClosurePing.self
        }()
        for type in [LocalPing.self, inClosure] {
            #expect(!type.notificationName.rawValue.contains("$"), "\(type.notificationName.rawValue) has an address")
        }
        #expect(LocalPing.notificationName.rawValue == "TypedNotificationsTests.NamingTests.LocalPing")
        #expect(inClosure.notificationName.rawValue == "TypedNotificationsTests.NamingTests.ClosurePing")
    }

    @Test(arguments: [
        ("Module.Plain", "Module.Plain"),
        ("Module.(unknown context at $55e5c9f61868).Hidden", "Module.Hidden"),
        ("Module.(unknown context at $1).(unknown context at $2).Local", "Module.Local"),
        (
            "Module.Box<Module.(unknown context at $7f00).Hidden, Module.(unknown context at $7f08).Outer.Inner>",
            "Module.Box<Module.Hidden, Module.Outer.Inner>"
        ),
        // Not the runtime's form: left as it is.
        ("Module.(unknown context at $42", "Module.(unknown context at $42"),
    ])
    func anonymousContextsAreLeftOutOfDerivedNames(reflected: String, expected: String) {
        #expect(DerivedNames.stableName(reflected) == expected)
    }

    @Test func overriddenNameIsUsedOnTheWire() {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let plain = center.addObserver(forName: .init("LegacyNamedNotification"), object: nil, queue: nil) { note in
            seen.append(note.name.rawValue)
        }
        defer { center.removeObserver(plain) }
        LegacyNamed(text: "hi").post(in: center)
        #expect(seen.values == ["LegacyNamedNotification"])
    }

    @Test func typesWithDistinctNamesDoNotSeeEachOther() {
        let center = NotificationCenter()
        let pings = Counter()
        let token = ModuleA.Ping.observe(in: center) { _ in pings.increment() }
        ModuleB.Ping().post(in: center)
        Box(value: 1).post(in: center)
        #expect(pings.count == 0)
        ModuleA.Ping().post(in: center)
        #expect(pings.count == 1)
        withExtendedLifetime(token) {}
    }
}

private struct PrivatePing: Notifiable {}

private enum FilePrivatePing {
    struct Nested: Notifiable {}
}

extension NamingTests {
    fileprivate struct Hidden: Notifiable {}
}
