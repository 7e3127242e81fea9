import Foundation
import Testing
@_spi(Publisher) import TypedNotifications
import TypedNotificationsTestSupport

/// Scoped diagnostics handlers and the post trace.
@Suite struct ScopedDiagnosticsTests {
    @Test func scopedHandlerSeesOnlyItsOwnScopesEvents() async {
        let center = NotificationCenter()
        let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
        let inside = Recorded<String>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in inside.append(event.name.rawValue) }
        await NotificationDiagnostics.withHandler(record) {
            center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: ["amount": 1])
            await Task {
                center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: [:])
            }.value
        }
        // Outside the scope: the scope's handler does not see it; a scope of its own does.
        let outside = reports {
            center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil, userInfo: [:])
        }
        #expect(inside.values == Array(repeating: BridgingTests.PaymentAccepted.notificationName.rawValue, count: 2))
        #expect(outside.map(\.kindName) == ["decodingFailed"])
        withExtendedLifetime(token) {}
    }

    @Test func aTaskThatOutlivesANestedScopeReportsToTheEnclosingScope() async {
        let center = NotificationCenter()
        let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
        let outer = Recorded<String>()
        let inner = Recorded<String>()
        let recordOuter: @Sendable (NotificationDiagnostics.Event) -> Void = { outer.append($0.name.rawValue) }
        let recordInner: @Sendable (NotificationDiagnostics.Event) -> Void = { inner.append($0.name.rawValue) }
        await NotificationDiagnostics.withHandler(recordOuter) {
            let (started, start) = AsyncStream.makeStream(of: Void.self)
            let leaked = NotificationDiagnostics.withHandler(recordInner) {
                Task {
                    for await _ in started {}
                    center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil)
                }
            }
            // The inner scope has ended; the outer one is still open.
            start.finish()
            await leaked.value
        }
        #expect(inner.values.isEmpty, "an ended scope received a report")
        #expect(outer.values == [BridgingTests.PaymentAccepted.notificationName.rawValue])
        withExtendedLifetime(token) {}
    }

    @Test func parallelScopesDoNotSeeEachOthersEvents() async {
        let results = await withTaskGroup(of: Int.self) { group in
            for failures in 1...4 {
                group.addTask {
                    let center = NotificationCenter()
                    let token = BridgingTests.PaymentAccepted.observe(in: center) { _ in }
                    let events = Counter()
                    let count: @Sendable (NotificationDiagnostics.Event) -> Void = { _ in events.increment() }
                    NotificationDiagnostics.withHandler(count) {
                        for _ in 0..<failures {
                            center.post(name: BridgingTests.PaymentAccepted.notificationName, object: nil)
                        }
                    }
                    withExtendedLifetime(token) {}
                    return failures * 100 + events.count
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.sorted() == [101, 202, 303, 404])
    }
}
