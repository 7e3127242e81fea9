import Foundation
import Testing
import TypedNotifications
import TypedNotificationsPublicConformers
import TypedNotificationsTestSupport

// Public types declared in another module with nothing but `: Notifiable` (see `PublicConformers.swift`): they
// compile there, and here they post and are observed as any conformer is.

@Suite struct PublicConformerTests {
    @Test func aPublicStructFromAnotherModulePostsAndIsObserved() {
        let center = NotificationCenter()
        let seen = Recorded<String>()
        let token = SearchTextDidChange.observe(in: center) { change in seen.append(change.text) }
        SearchTextDidChange(text: "swift").post(in: center)
        #expect(seen.values == ["swift"])
        withExtendedLifetime(token) {}
    }

    @Test func aPublicEnumFromAnotherModuleIsObservedOnAQueue() async throws {
        let center = NotificationCenter()
        let seen = Recorded<UploadState>()
        let token = UploadState.observe(in: center, delivery: .async(on: DispatchQueue(label: "uploads"))) { state in
            seen.append(state)
        }
        try await awaitDelivery {
            UploadState.started.post(in: center)
            UploadState.finished(bytes: 8).post(in: center)
        }
        #expect(seen.values == [.started, .finished(bytes: 8)])
        withExtendedLifetime(token) {}
    }

    @Test func aPublicPayloadlessEventFromAnotherModuleIsObserved() {
        let center = NotificationCenter()
        let calls = Counter()
        let token = SessionDidExpire.observe(in: center) { calls.increment() }
        SessionDidExpire.post((), in: center)
        #expect(calls.count == 1)
        withExtendedLifetime(token) {}
    }
}
