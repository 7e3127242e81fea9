import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedSystemNotifications

/// Stands for an `NSRunningApplication`.
private final class RunningApplication: Sendable {}

/// One of the two workspace notifications that carry the app they are about.
struct WorkspaceNotification: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let expectedName: String
    let name: Notification.Name
    let decode: @Sendable (Notification) throws -> WorkspaceApplication
    let userInfo: @Sendable (WorkspaceApplication) -> [AnyHashable: Any]?
    let typedDeliveries: @Sendable (NotificationCenter, () -> Void) -> [WorkspaceApplication]

    init<T: Notifiable>(_ type: T.Type, _ expectedName: String) where T.Payload == WorkspaceApplication {
        testDescription = "\(T.self)"
        self.expectedName = expectedName
        name = T.notificationName
        decode = { try T.payload(from: $0) }
        userInfo = { T.userInfo(for: $0) }
        typedDeliveries = { center, body in
            let received = Recorded<WorkspaceApplication>()
            let token = T.observe(in: center) { received.append($0) }
            body()
            token.cancel()
            return received.values
        }
    }
}

@Suite struct WorkspaceApplicationNotificationTests {
    static let all = [
        WorkspaceNotification(AppKitWorkspaceDidLaunchApplication.self, "NSWorkspaceDidLaunchApplicationNotification"),
        WorkspaceNotification(
            AppKitWorkspaceDidTerminateApplication.self,
            "NSWorkspaceDidTerminateApplicationNotification"
        ),
    ]

    @Test(arguments: all)
    func itsNameAndKeyAreAppKits(_ workspace: WorkspaceNotification) {
        #expect(workspace.name.rawValue == workspace.expectedName)
        #expect(WorkspaceApplication.applicationKey == "NSWorkspaceApplicationKey")
    }

    @Test(arguments: all)
    func appKitsUserInfoDecodesToTheSameApplication(_ workspace: WorkspaceNotification) throws {
        let app = RunningApplication()
        // AppKit also writes older keys (`NSApplicationName`…), which are not read.
        let userInfo: [AnyHashable: Any] = ["NSWorkspaceApplicationKey": app, "NSApplicationName": "Dock"]
        let posted = Notification(name: workspace.name, object: NSObject(), userInfo: userInfo)
        #expect(try workspace.decode(posted).application === app)
    }

    @Test(arguments: all)
    func aPlainPostInTheWorkspacesCenterReachesTypedObserversThere(_ workspace: WorkspaceNotification) {
        let workspaceCenter = NotificationCenter()  // stands for `NSWorkspace.shared.notificationCenter`
        let app = RunningApplication()
        let received = workspace.typedDeliveries(workspaceCenter) {
            workspaceCenter.post(name: workspace.name, object: nil, userInfo: ["NSWorkspaceApplicationKey": app])
        }
        #expect(received == [WorkspaceApplication(application: app)])
    }

    @Test(arguments: all)
    func aMissingApplicationIsAMissingValueAndAValueIsATypeMismatch(_ workspace: WorkspaceNotification) {
        let missing = Notification(name: workspace.name, object: nil, userInfo: ["NSApplicationName": "Dock"])
        #expect(throws: NotificationDecodingError.missingValue(key: "NSWorkspaceApplicationKey")) {
            try workspace.decode(missing)
        }
        let none = Notification(name: workspace.name, object: nil, userInfo: nil)
        #expect(throws: NotificationDecodingError.missingUserInfo) { try workspace.decode(none) }
        for value in [42 as Any, NSNumber(value: 42), NSString(string: "Dock"), NSArray(array: [])] {
            let posted = Notification(name: workspace.name, object: nil, userInfo: ["NSWorkspaceApplicationKey": value])
            #expect {
                try workspace.decode(posted)
            } throws: { error in
                guard case .typeMismatch(let key, _, _) = error as? NotificationDecodingError else { return false }
                return key == "NSWorkspaceApplicationKey"
            }
        }
    }

    @Test(arguments: all)
    func userInfoRoundTrips(_ workspace: WorkspaceNotification) throws {
        let app = WorkspaceApplication(application: RunningApplication())
        let plain = Notification(name: workspace.name, object: nil, userInfo: workspace.userInfo(app))
        #expect(try workspace.decode(plain) == app)
        #expect(systemKeys(workspace.userInfo(app)) == ["NSWorkspaceApplicationKey"])
    }

    @Test func applicationsAreEqualWhenTheyHoldTheSameObject() {
        let app = RunningApplication()
        #expect(WorkspaceApplication(application: app) == WorkspaceApplication(application: app))
        #expect(WorkspaceApplication(application: app) != WorkspaceApplication(application: RunningApplication()))
        #expect(Set([WorkspaceApplication(application: app), WorkspaceApplication(application: app)]).count == 1)
    }
}
