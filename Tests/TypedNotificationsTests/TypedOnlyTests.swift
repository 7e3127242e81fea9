import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

/// Types that opt out of Foundation (`postsThroughFoundation == false`): typed posts reach typed observers only, and
/// plain posts under the name reach plain observers only.
@Suite struct TypedOnlyTests {
    struct FrameDidRender: Notifiable, Equatable {
        static var postsThroughFoundation: Bool { false }
        let frame: Int
    }

    @Test func typedPostsReachTypedObserversAndNoPlainObserver() {
        let center = NotificationCenter()
        let typed = Recorded<Int>()
        let plain = Counter()
        let token = FrameDidRender.observe(in: center) { typed.append($0.frame) }
        let observer = center.addObserver(forName: FrameDidRender.notificationName, object: nil, queue: nil) { _ in
            plain.increment()
        }
        for frame in 1...3 { FrameDidRender(frame: frame).post(in: center) }
        #expect(typed.values == [1, 2, 3])
        #expect(plain.count == 0, "a typed-only post never reaches Foundation")
        center.removeObserver(observer)
        withExtendedLifetime(token) {}
    }

    @Test func plainPostsNeverReachTypedObserversAndDebugBuildsReportThem() {
        let center = NotificationCenter()
        let typed = Recorded<Int>()
        let token = FrameDidRender.observe(in: center) { typed.append($0.frame) }
        let events = Recorded<String>()
        let record: @Sendable (NotificationDiagnostics.Event) -> Void = { event in
            if case .plainPostIgnored = event.kind { events.append(event.name.rawValue) }
        }
        NotificationDiagnostics.withHandler(record) {
            let userInfo = FrameDidRender.userInfo(for: FrameDidRender(frame: 9))
            center.post(name: FrameDidRender.notificationName, object: nil, userInfo: userInfo)
        }
        #expect(typed.values == [])
        #if DEBUG
        #expect(events.values == [FrameDidRender.notificationName.rawValue])
        #else
        #expect(events.values == [], "only debug builds report it")
        #endif
        withExtendedLifetime(token) {}
    }

    @Test func everyDeliveryFormStillWorks() async {
        let center = NotificationCenter()
        let received = Recorded<Int>()
        let done = Signal()
        let queue = DispatchQueue(label: "typed-only")
        let immediate = FrameDidRender.observe(in: center) { received.append($0.frame) }
        let queued = FrameDidRender.observe(in: center, delivery: .async(on: queue)) { frame in
            received.append(-frame.frame)
            done.fire()
        }
        let frames = FrameDidRender.notifications(in: center)
        FrameDidRender(frame: 1).post(in: center)
        await done.wait()
        for await frame in frames {
            #expect(frame.frame == 1)
            break
        }
        #expect(received.values == [1, -1])
        withExtendedLifetime((immediate, queued)) {}
    }
}
