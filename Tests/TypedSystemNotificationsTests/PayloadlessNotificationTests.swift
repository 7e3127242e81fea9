import Foundation
import Testing
import TypedNotifications
import TypedNotificationsTestSupport
import TypedSystemNotifications

/// A payload-less system notification, with the name the system posts it under.
struct Payloadless: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let expectedName: Notification.Name
    let name: Notification.Name
    /// How many times a typed observer of `center` runs while `body` runs.
    let typedDeliveries: @Sendable (NotificationCenter, () -> Void) -> Int
    /// Decodes `notification` as the type.
    let decodes: @Sendable (Notification) -> Bool
    /// Posts the type's one value, typed, in `center`.
    let postTyped: @Sendable (NotificationCenter) -> Void
    /// What the type writes for its value.
    let userInfo: @Sendable () -> [AnyHashable: Any]?

    init<T: Notifiable & Equatable>(_ type: T.Type, _ expectedName: Notification.Name, _ value: T)
    where T.Payload == T {
        testDescription = "\(T.self)"
        self.expectedName = expectedName
        name = T.notificationName
        typedDeliveries = { center, body in
            let count = Protected(0)
            let token = T.observe(in: center) { payload in
                if payload == value { count.withLock { $0 += 1 } }
            }
            body()
            token.cancel()
            return count.value
        }
        decodes = { notification in (try? T.payload(from: notification)) == value }
        postTyped = { center in value.post(in: center) }
        userInfo = { T.userInfo(for: value) }
    }

    init<T: Notifiable & Equatable>(_ type: T.Type, _ rawName: String, _ value: T) where T.Payload == T {
        self.init(type, Notification.Name(rawName), value)
    }
}

@Suite struct PayloadlessNotificationTests {
    static let all: [Payloadless] = [
        // UIApplication
        Payloadless(ApplicationDidBecomeActive.self, "UIApplicationDidBecomeActiveNotification", .init()),
        Payloadless(ApplicationWillResignActive.self, "UIApplicationWillResignActiveNotification", .init()),
        Payloadless(ApplicationDidEnterBackground.self, "UIApplicationDidEnterBackgroundNotification", .init()),
        Payloadless(ApplicationWillEnterForeground.self, "UIApplicationWillEnterForegroundNotification", .init()),
        Payloadless(ApplicationWillTerminate.self, "UIApplicationWillTerminateNotification", .init()),
        Payloadless(
            ApplicationDidReceiveMemoryWarning.self,
            "UIApplicationDidReceiveMemoryWarningNotification",
            .init()
        ),
        Payloadless(ApplicationSignificantTimeChange.self, "UIApplicationSignificantTimeChangeNotification", .init()),
        Payloadless(
            ApplicationUserDidTakeScreenshot.self,
            "UIApplicationUserDidTakeScreenshotNotification",
            .init()
        ),
        Payloadless(
            ApplicationProtectedDataWillBecomeUnavailable.self,
            "UIApplicationProtectedDataWillBecomeUnavailable",
            .init()
        ),
        Payloadless(
            ApplicationProtectedDataDidBecomeAvailable.self,
            "UIApplicationProtectedDataDidBecomeAvailable",
            .init()
        ),
        // UIScene
        Payloadless(SceneWillConnect.self, "UISceneWillConnectNotification", .init()),
        Payloadless(SceneDidDisconnect.self, "UISceneDidDisconnectNotification", .init()),
        Payloadless(SceneDidActivate.self, "UISceneDidActivateNotification", .init()),
        Payloadless(SceneWillDeactivate.self, "UISceneWillDeactivateNotification", .init()),
        Payloadless(SceneWillEnterForeground.self, "UISceneWillEnterForegroundNotification", .init()),
        Payloadless(SceneDidEnterBackground.self, "UISceneDidEnterBackgroundNotification", .init()),
        // UIDevice
        Payloadless(DeviceOrientationDidChange.self, "UIDeviceOrientationDidChangeNotification", .init()),
        Payloadless(DeviceBatteryStateDidChange.self, "UIDeviceBatteryStateDidChangeNotification", .init()),
        Payloadless(DeviceBatteryLevelDidChange.self, "UIDeviceBatteryLevelDidChangeNotification", .init()),
        // UIAccessibility
        Payloadless(VoiceOverStatusDidChange.self, "UIAccessibilityVoiceOverStatusDidChangeNotification", .init()),
        Payloadless(
            ReduceMotionStatusDidChange.self,
            "UIAccessibilityReduceMotionStatusDidChangeNotification",
            .init()
        ),
        Payloadless(
            ReduceTransparencyStatusDidChange.self,
            "UIAccessibilityReduceTransparencyStatusDidChangeNotification",
            .init()
        ),
        Payloadless(
            DarkerSystemColorsStatusDidChange.self,
            "UIAccessibilityDarkerSystemColorsStatusDidChangeNotification",
            .init()
        ),
        Payloadless(BoldTextStatusDidChange.self, "UIAccessibilityBoldTextStatusDidChangeNotification", .init()),
        Payloadless(
            InvertColorsStatusDidChange.self,
            "UIAccessibilityInvertColorsStatusDidChangeNotification",
            .init()
        ),
        // Foundation: where both Foundations declare the name, each platform's own value.
        Payloadless(SystemClockDidChange.self, "NSSystemClockDidChangeNotification", .init()),
        Payloadless(SystemTimeZoneDidChange.self, .NSSystemTimeZoneDidChange, .init()),
        Payloadless(CurrentLocaleDidChange.self, NSLocale.currentLocaleDidChangeNotification, .init()),
        Payloadless(CalendarDayChanged.self, "NSCalendarDayChangedNotification", .init()),
        Payloadless(ThermalStateDidChange.self, "NSProcessInfoThermalStateDidChangeNotification", .init()),
        Payloadless(PowerStateDidChange.self, "NSProcessInfoPowerStateDidChangeNotification", .init()),
        Payloadless(UserDefaultsDidChange.self, "NSUserDefaultsDidChangeNotification", .init()),
        // AppKit
        Payloadless(AppKitApplicationDidBecomeActive.self, "NSApplicationDidBecomeActiveNotification", .init()),
        Payloadless(AppKitApplicationDidResignActive.self, "NSApplicationDidResignActiveNotification", .init()),
        Payloadless(AppKitApplicationWillTerminate.self, "NSApplicationWillTerminateNotification", .init()),
        Payloadless(AppKitWindowDidBecomeKey.self, "NSWindowDidBecomeKeyNotification", .init()),
        Payloadless(AppKitWindowDidResignKey.self, "NSWindowDidResignKeyNotification", .init()),
        Payloadless(AppKitWindowDidBecomeMain.self, "NSWindowDidBecomeMainNotification", .init()),
        Payloadless(AppKitWindowDidResignMain.self, "NSWindowDidResignMainNotification", .init()),
        Payloadless(AppKitWorkspaceWillSleep.self, "NSWorkspaceWillSleepNotification", .init()),
        Payloadless(AppKitWorkspaceDidWake.self, "NSWorkspaceDidWakeNotification", .init()),
    ]

    @Test func everyNameIsDistinct() {
        #expect(Set(Self.all.map(\.name)).count == Self.all.count)
    }

    @Test(arguments: all)
    func itsNameIsTheSystems(_ notification: Payloadless) {
        #expect(notification.name == notification.expectedName)
    }

    @Test(arguments: all)
    func aPlainPostAsTheSystemMakesItReachesTypedObserversOnce(_ notification: Payloadless) {
        let center = NotificationCenter()
        let sender = NSObject()  // the `UIApplication`, `UIScene`, `ProcessInfo`…
        let deliveries = notification.typedDeliveries(center) {
            center.post(name: notification.name, object: sender, userInfo: nil)
        }
        #expect(deliveries == 1)
    }

    @Test(arguments: all, Shape.allCases)
    func anyUserInfoDecodes(_ notification: Payloadless, shape: Shape) {
        let unexpected: [AnyHashable: Any] = ["key": shape.string("value"), "count": shape.integer(3)]
        #expect(notification.decodes(Notification(name: notification.name, object: nil, userInfo: unexpected)))
        #expect(notification.decodes(Notification(name: notification.name, object: nil, userInfo: nil)))
    }

    @Test(arguments: all)
    func aTypedPostReachesPlainObserversWithoutUserInfoAsTheSystemsDoes(_ notification: Payloadless) {
        #expect(notification.userInfo() == nil)
        let center = NotificationCenter()
        let received = plainUserInfos(of: notification.name, in: center) { notification.postTyped(center) }
        #expect(received.count == 1)
        #expect(received.map(systemKeys) == [[]])
    }
}
