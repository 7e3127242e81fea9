import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport

// A type that conforms to both `Notifiable` and Foundation's Message API, as the article "Foundation's Message API"
// shows: each API's post reaches only its own observers, and posting through both reaches each observer once. Never
// mixes the two APIs on one name: on Linux, a message posted under a name with a classic observer aborts the process.
// The Message API exists on Linux from Swift 6.3, and on Apple platforms in the OS 26 SDKs (Swift 6.2).

#if compiler(>=6.3) || (compiler(>=6.2) && canImport(Darwin))
private final class Downloader: Sendable {}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
private struct DownloadDidFinish: Notifiable, NotificationCenter.MainActorMessage {
    typealias Subject = Downloader
    typealias Sender = Downloader
    static var notificationName: Notification.Name { .init("TypedNotificationsTests.DownloadDidFinish.typed") }

    let bytes: Int
}

@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
extension NotificationCenter.MessageIdentifier
where Self == NotificationCenter.BaseMessageIdentifier<DownloadDidFinish> {
    fileprivate static var downloadDidFinish: Self { .init() }
}

@Suite struct MessageAPICoexistenceTests {
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @Test @MainActor func postingThroughBothAPIsReachesEachObserverOnce() {
        let center = NotificationCenter()
        let downloader = Downloader()
        let received = Protected<[String]>([])
        let message = center.addObserver(of: downloader, for: .downloadDidFinish) { finished in
            received.withLock { $0.append("message \(finished.bytes)") }
        }
        let typed = DownloadDidFinish.observe(from: downloader, in: center) { finished in
            received.withLock { $0.append("typed \(finished.bytes)") }
        }
        let finished = DownloadDidFinish(bytes: 64)
        center.post(finished, subject: downloader)
        finished.post(from: downloader, in: center)
        #expect(received.withLock { $0 } == ["message 64", "typed 64"])
        withExtendedLifetime((message, typed)) {}
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @Test @MainActor func centerPostOfATypeConformingToBothIsTheMessageAPIsPost() {
        let center = NotificationCenter()
        let received = Protected<[String]>([])
        let message = center.addObserver(for: DownloadDidFinish.self) { finished in
            received.withLock { $0.append("message \(finished.bytes)") }
        }
        let typed = DownloadDidFinish.observe(in: center) { finished in
            received.withLock { $0.append("typed \(finished.bytes)") }
        }
        center.post(DownloadDidFinish(bytes: 1))
        DownloadDidFinish(bytes: 2).post(in: center)
        #expect(received.withLock { $0 } == ["message 1", "typed 2"])
        withExtendedLifetime((message, typed)) {}
    }
}
#endif
