import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

struct LatestCount: LatestValueNotifiable, Equatable {
    let count: Int
}

/// A typed-only latest type: its typed posts never reach Foundation.
struct TypedOnlyLatestCount: LatestValueNotifiable, Equatable {
    static var postsThroughFoundation: Bool { false }
    let count: Int
}

/// A payload whose release records how many of the package's locks the releasing thread holds.
final class LockCheckedPayload: Sendable {
    let id: Int
    let locksAtRelease: Recorded<Int>
    init(_ id: Int, _ locksAtRelease: Recorded<Int>) {
        self.id = id
        self.locksAtRelease = locksAtRelease
    }
    deinit { locksAtRelease.append(LockDiscipline.locksHeld) }
}

enum LatestLockCheckedPayload: LatestValueNotifiable {
    typealias Payload = LockCheckedPayload
}

enum LockCheckedPayloadPosted: Notifiable {
    typealias Payload = LockCheckedPayload
}

struct Burst: Notifiable, Equatable {
    let n: Int
}

struct BurstSharingItsName: Notifiable, Equatable {
    static var notificationName: Notification.Name { Burst.notificationName }
    let n: Int
}

/// An object whose identity a test can reuse.
final class ReusableObject: Sendable {}
