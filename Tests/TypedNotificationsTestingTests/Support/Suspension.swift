import TypedNotificationsTestSupport

@testable import TypedNotificationsTesting

extension NotificationRecorder {
    /// Returns once `count` waits are suspended on the recorder, so that a test can post after a wait has begun.
    ///
    /// A wait begins within microseconds of the call that starts it; this only yields until then, and the suites'
    /// time limit bounds it.
    func untilWaiting(_ count: Int) async {
        while recording.waitCount < count {
            await Task.yield()
        }
    }
}

@available(macOS 13, iOS 16, tvOS 16, watchOS 9, *)
extension Duration {
    /// A timeout for waits that should end within microseconds: it turns a bug that would hang the test into a
    /// failure, and a passing test never waits for it.
    static var safetyNet: Duration { .seconds(10) }
}

extension NotificationRecorder {
    /// Whether no wait is registered on the recorder: every wait that began has ended and left nothing behind.
    var isWaitingForNothing: Bool {
        recording.waitCount == 0
    }
}
