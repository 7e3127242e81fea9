import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

final class CallbackOwner: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}
