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

struct GenericPair<A, B>: Notifiable {}
enum GenericFresh<Tag>: Notifiable {}
class BaseNotification: Notifiable, @unchecked Sendable {}
final class SubNotification: BaseNotification, @unchecked Sendable {}
class SecondBase: Notifiable, @unchecked Sendable {}
final class SecondSub: SecondBase, @unchecked Sendable {}
class CustomNamedBase: Notifiable, @unchecked Sendable {
    class var notificationName: Notification.Name { .init("Naming.CustomBase") }
}
final class CustomNamedSub: CustomNamedBase, @unchecked Sendable {
    override class var notificationName: Notification.Name { .init("Naming.CustomSub") }
}
struct CustomNamed: Notifiable { static var notificationName: Notification.Name { .init("Naming.Custom") } }
enum CustomNamedVoid: Notifiable {
    typealias Payload = Void
    static var notificationName: Notification.Name { .init("Naming.CustomVoid") }
}

func genericNotificationName<T: Notifiable>(_: T.Type) -> Notification.Name { T.notificationName }
func expectedDerivedName(_ type: Any.Type) -> String { DerivedNames.stableName(String(reflecting: type)) }

extension NamingTests {
    @Test func defaultNameIsStableAndDerivedFromTheTypeName() {
        struct LocalPong: Notifiable {}
        enum LocalTag {}
        let types: [any Notifiable.Type] = [
            NumberPosted.self, GenericPair<Int, String>.self, GenericPair<LocalTag, [Int?]>.self, LocalPong.self,
            GenericFresh<LocalPong>.self, GenericPair<GenericPair<LocalTag, Int>, Void>.self,
        ]
        for type in types {
            let first = type.notificationName
            #expect(first.rawValue == expectedDerivedName(type), "\(first.rawValue)")
            #expect(!first.rawValue.contains("$"))
            #expect(type.notificationName == first, "the name changed between reads")
        }
        #expect(
            GenericPair<LocalTag, [Int?]>.notificationName.rawValue
                == "TypedNotificationsTests.GenericPair<TypedNotificationsTests.NamingTests.LocalTag, Swift.Array<Swift.Optional<Swift.Int>>>"
        )
        #expect(GenericPair<Int, String>.notificationName != GenericPair<String, Int>.notificationName)
    }

    /// A subclass of a conforming class: named after itself, the same through a generic context, its base after
    /// itself; whichever is read first.
    @Test func classHierarchiesGetTheirOwnDefaultNames() {
        // Subclass read first, then the base.
        let sub = SubNotification.notificationName
        #expect(sub.rawValue == "TypedNotificationsTests.SubNotification", "\(sub.rawValue)")
        #expect(genericNotificationName(SubNotification.self) == sub)
        #expect(BaseNotification.notificationName.rawValue == "TypedNotificationsTests.BaseNotification")
        #expect(genericNotificationName(BaseNotification.self) == BaseNotification.notificationName)
        // Base first (through a generic context), then the subclass.
        #expect(genericNotificationName(SecondBase.self).rawValue == "TypedNotificationsTests.SecondBase")
        #expect(SecondSub.notificationName.rawValue == "TypedNotificationsTests.SecondSub")
        #expect(genericNotificationName(SecondSub.self).rawValue == "TypedNotificationsTests.SecondSub")
        // Custom names in a hierarchy are kept, statically and generically.
        #expect(genericNotificationName(CustomNamedSub.self).rawValue == "Naming.CustomSub")
        #expect(CustomNamedSub.notificationName.rawValue == "Naming.CustomSub")
        #expect(genericNotificationName(CustomNamedBase.self).rawValue == "Naming.CustomBase")
    }

    /// Posting a subclass instance as the base uses the base's name; observing the base sees it; the typed post
    /// reaches a plain observer of the base's derived name.
    @Test func classHierarchyPostsUseTheirDerivedNames() {
        let center = NotificationCenter()
        let typed = Counter()
        let plain = Counter()
        let token = BaseNotification.observe(in: center) { _ in typed.increment() }
        let observer = center.addObserver(
            forName: Notification.Name("TypedNotificationsTests.BaseNotification"), object: nil, queue: nil
        ) { _ in
            plain.increment()
        }
        let instance: BaseNotification = SubNotification()
        instance.post(in: center)
        #expect(typed.value == 1)
        #expect(plain.value == 1)
        center.removeObserver(observer)
        withExtendedLifetime(token) {}
    }

    /// Many threads read the names of types nobody has named yet, all at once, some by posting first: all agree.
    @Test(.seeded) func concurrentFirstReadsOfUnnamedTypesAgree() async {
        let seed = TestSeed.run
        enum T0 {}
        enum T1 {}
        enum T2 {}
        enum T3 {}
        enum T4 {}
        enum T5 {}
        enum T6 {}
        enum T7 {}
        let types: [any Notifiable.Type] = [
            GenericFresh<T0>.self, GenericFresh<T1>.self, GenericFresh<T2>.self, GenericFresh<T3>.self,
            GenericPair<T4, T5>.self, GenericPair<T5, T4>.self, GenericFresh<GenericFresh<T6>>.self,
            GenericFresh<T7>.self,
        ]
        let expected = types.map { expectedDerivedName($0) }
        let center = NotificationCenter()
        let names = Recorded<(Int, String)>()
        let threads = 16
        await onThreads(threads) { thread in
            var random = SplitMix64(seed: SplitMix64.derivedSeed(seed, index: thread))
            var order = Array(types.indices)
            for index in order.indices.reversed() { order.swapAt(index, random.below(index + 1)) }
            for index in order {
                if thread % 4 == 0 {
                    // Routing a post first makes the record the other way (`cacheName`), racing the readers.
                    _ = ObserverRegistry.shared.route(types[index], in: center)
                }
                names.append((index, types[index].notificationName.rawValue))
            }
        }
        let all = names.values
        #expect(all.count == threads * types.count)
        for (index, name) in all {
            #expect(name == expected[index], "seed \(TestSeed.hex(seed)): \(name) != \(expected[index])")
        }
    }

    /// A custom name: read before anything else, kept after observing and posting; typed and plain posts and
    /// observers use it; the derived name is never used.
    @Test func customNameIsKept() async {
        let center = NotificationCenter()
        #expect(CustomNamedVoid.notificationName.rawValue == "Naming.CustomVoid")
        let typed = CountdownTally(2)
        let plainCustom = Counter()
        let plainDerived = Counter()
        let token = CustomNamedVoid.observe(in: center) { () async in typed.bump() }
        let custom = center.addObserver(forName: Notification.Name("Naming.CustomVoid"), object: nil, queue: nil) {
            _ in
            plainCustom.increment()
        }
        let derived = center.addObserver(
            forName: Notification.Name(expectedDerivedName(CustomNamedVoid.self)), object: nil, queue: nil
        ) { _ in plainDerived.increment() }
        CustomNamedVoid.post((), in: center)
        center.post(name: Notification.Name("Naming.CustomVoid"), object: nil)
        await waitOrRecordTimeout(typed.reached, "both posts at the async observer")
        #expect(plainCustom.value == 2)
        #expect(plainDerived.value == 0, "a post used the derived name")
        #expect(center.typedObservations.first?.name.rawValue == "Naming.CustomVoid")
        #expect(CustomNamedVoid.notificationName.rawValue == "Naming.CustomVoid")
        #expect(CustomNamed.notificationName.rawValue == "Naming.Custom")
        center.removeObserver(custom)
        center.removeObserver(derived)
        withExtendedLifetime(token) {}
    }
}
