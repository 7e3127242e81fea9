import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedSystemNotifications

/// How a test writes the values of a system notification's `userInfo`: as Swift code would, or as the system does on
/// Apple platforms, once they have crossed into Objective-C. Every decoding test runs with both, in every build; the
/// simulated-Apple build also hands typed posts' `userInfo` to plain observers as Apple's Foundation would.
enum Shape: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case swift
    case objectiveC

    var testDescription: String { rawValue }

    func rect(_ rect: CGRect) -> Any {
        switch self {
        case .swift: rect
        case .objectiveC: SystemGeometry.objectiveCValue(rect)
        }
    }

    func double(_ value: Double) -> Any {
        switch self {
        case .swift: value
        case .objectiveC: NSNumber(value: value)
        }
    }

    func integer(_ value: Int) -> Any {
        switch self {
        case .swift: value
        case .objectiveC: NSNumber(value: value)
        }
    }

    /// As UIKit writes `UIKeyboardIsLocalUserInfoKey`: `numberWithInt:`, not `numberWithBool:`.
    func bool(_ value: Bool) -> Any {
        switch self {
        case .swift: value
        case .objectiveC: NSNumber(value: Int32(value ? 1 : 0))
        }
    }

    func string(_ value: String) -> Any {
        switch self {
        case .swift: value
        case .objectiveC: NSString(string: value)
        }
    }

    func strings(_ values: [String]) -> Any {
        switch self {
        case .swift: values
        case .objectiveC: NSArray(array: values.map { NSString(string: $0) })
        }
    }
}

/// What a plain observer of `center` receives under `name` while `body` runs: each notification's `userInfo`.
func plainUserInfos(
    of name: Notification.Name,
    in center: NotificationCenter,
    during body: () -> Void
) -> [[AnyHashable: Any]?] {
    let received = Recorded<UserInfoBox>()
    let observer = center.addObserver(forName: name, object: nil, queue: nil) { notification in
        received.append(UserInfoBox(userInfo: notification.userInfo))
    }
    body()
    center.removeObserver(observer)
    return received.values.map(\.userInfo)
}

/// A `userInfo` carried out of an observer's block; `@unchecked Sendable` is safe because the tests read it only after
/// the post that wrote it has returned, on the thread that posted.
struct UserInfoBox: @unchecked Sendable {
    let userInfo: [AnyHashable: Any]?
}

/// The keys of `userInfo` that the system would write: all but those this package adds to a typed post where Foundation
/// copies `userInfo` (`"tn.post"`, see the Guarantees article).
func systemKeys(_ userInfo: [AnyHashable: Any]?) -> Set<String> {
    Set((userInfo ?? [:]).keys.compactMap { $0.base as? String }.filter { !$0.hasPrefix("tn.") })
}
