public import Foundation
public import TypedNotifications

// The keyboard's six notifications, without UIKit. They share one payload, `KeyboardFrameChange`, decoded from the keys
// `UIKit/UIWindow.h` declares, whose string values are the constants' names. Their sender is `nil` (UIKit posts them
// with no object); `Sender` stays `AnyObject`.

/// The keyboard's frames and animation, as every keyboard notification carries them in its `userInfo`.
///
/// UIKit writes the frames as `NSValue`s holding a `CGRect` in screen coordinates, the duration as an `NSNumber` of a
/// `double`, the curve as an `NSNumber` of an `NSInteger` and `isLocal` as an `NSNumber` of a `BOOL`; Swift values of
/// those types are read too. The frames, the duration and the curve are required: a notification without one, or with
/// a value of another type under any of the keys, is not decoded, and its typed observers skip it (debug builds report
/// it through `NotificationDiagnostics`). `isLocal` is optional: `nil` when the key is absent.
///
/// ```swift
/// let change = KeyboardFrameChange(
///     frameBegin: CGRect(x: 0, y: 844, width: 390, height: 336),
///     frameEnd: CGRect(x: 0, y: 508, width: 390, height: 336),
///     animationDuration: 0.25,
///     animationCurve: 7
/// )
/// let center = NotificationCenter()
/// let token = KeyboardWillShow.observe(in: center) { change in print(change.frameEnd.height) }
/// KeyboardWillShow.post(change, in: center)  // what UIKit would post: plain observers see its keys
/// ```
public struct KeyboardFrameChange: Hashable, Sendable {
    /// Where the keyboard is before the change, in screen coordinates: `UIKeyboardFrameBeginUserInfoKey`.
    public var frameBegin: CGRect
    /// Where the keyboard is after the change, in screen coordinates: `UIKeyboardFrameEndUserInfoKey`. Convert it to
    /// a view's coordinates (`view.convert(frame, from: nil)`) before comparing it with the view's bounds.
    public var frameEnd: CGRect
    /// How long the keyboard's animation lasts, in seconds: `UIKeyboardAnimationDurationUserInfoKey`.
    public var animationDuration: TimeInterval
    /// The raw value of the keyboard animation's `UIView.AnimationCurve`: `UIKeyboardAnimationCurveUserInfoKey`.
    ///
    /// UIKit's curves are `0` ease-in-out, `1` ease-in, `2` ease-out and `3` linear; the keyboard uses `7`, which
    /// `UIView.AnimationCurve` does not name. To animate alongside it, pass ``animationOptionsRawValue`` to
    /// `UIView.AnimationOptions(rawValue:)`, or `UIView.AnimationCurve(rawValue: animationCurve)` to
    /// `UIViewPropertyAnimator(duration:curve:animations:)`.
    public var animationCurve: Int
    /// Whether the keyboard belongs to this app rather than to another one sharing the screen (Split View, Slide
    /// Over): `UIKeyboardIsLocalUserInfoKey`; `nil` when the notification does not say.
    public var isLocal: Bool?

    /// A keyboard change, to post in a test as UIKit would.
    ///
    /// ```swift
    /// let hidden = KeyboardFrameChange(
    ///     frameBegin: CGRect(x: 0, y: 508, width: 390, height: 336),
    ///     frameEnd: CGRect(x: 0, y: 844, width: 390, height: 336),
    ///     animationDuration: 0.25,
    ///     animationCurve: 7,
    ///     isLocal: true
    /// )
    /// ```
    public init(
        frameBegin: CGRect,
        frameEnd: CGRect,
        animationDuration: TimeInterval,
        animationCurve: Int,
        isLocal: Bool? = nil
    ) {
        self.frameBegin = frameBegin
        self.frameEnd = frameEnd
        self.animationDuration = animationDuration
        self.animationCurve = animationCurve
        self.isLocal = isLocal
    }

    /// ``animationCurve`` as the raw value of `UIView.AnimationOptions`, whose curve bits start at bit 16; `0` for a
    /// negative curve.
    ///
    /// ```swift
    /// let change = KeyboardFrameChange(frameBegin: .zero, frameEnd: .zero, animationDuration: 0.25, animationCurve: 7)
    /// print(change.animationOptionsRawValue)  // prints 458752
    /// ```
    public var animationOptionsRawValue: UInt {
        animationCurve < 0 ? 0 : UInt(animationCurve) << 16
    }

    /// The `userInfo` keys UIKit writes, by the name of their constants in `UIKit/UIWindow.h`, which are their values.
    ///
    /// ```swift
    /// let center = NotificationCenter()
    /// let plain = center.addObserver(forName: KeyboardWillShow.notificationName, object: nil, queue: nil) { note in
    ///     print(note.userInfo?[KeyboardFrameChange.Key.frameEnd] != nil)
    /// }
    /// ```
    public enum Key {
        /// `"UIKeyboardFrameBeginUserInfoKey"`.
        public static let frameBegin = "UIKeyboardFrameBeginUserInfoKey"
        /// `"UIKeyboardFrameEndUserInfoKey"`.
        public static let frameEnd = "UIKeyboardFrameEndUserInfoKey"
        /// `"UIKeyboardAnimationDurationUserInfoKey"`.
        public static let animationDuration = "UIKeyboardAnimationDurationUserInfoKey"
        /// `"UIKeyboardAnimationCurveUserInfoKey"`.
        public static let animationCurve = "UIKeyboardAnimationCurveUserInfoKey"
        /// `"UIKeyboardIsLocalUserInfoKey"`.
        public static let isLocal = "UIKeyboardIsLocalUserInfoKey"
    }

    /// Decodes the `userInfo` of a keyboard notification; see the type's documentation for what is required.
    static func decode(_ notification: Notification) throws -> Self {
        let userInfo = SystemUserInfo(notification)
        return Self(
            frameBegin: try userInfo.required(Key.frameBegin, as: "CGRect", SystemValue.rect),
            frameEnd: try userInfo.required(Key.frameEnd, as: "CGRect", SystemValue.rect),
            animationDuration: try userInfo.required(Key.animationDuration, as: "TimeInterval", SystemValue.double),
            animationCurve: try userInfo.required(Key.animationCurve, as: "Int", SystemValue.integer),
            isLocal: try userInfo.optional(Key.isLocal, as: "Bool", SystemValue.bool)
        )
    }

    /// The `userInfo` UIKit posts for this change: its keys, and `isLocal` only when it is known.
    var userInfo: [AnyHashable: Any] {
        var userInfo: [AnyHashable: Any] = [
            Key.frameBegin: SystemGeometry.postable(frameBegin),
            Key.frameEnd: SystemGeometry.postable(frameEnd),
            Key.animationDuration: animationDuration,
            Key.animationCurve: animationCurve,
        ]
        if let isLocal { userInfo[Key.isLocal] = isLocal }
        return userInfo
    }
}

/// The keyboard is about to appear: `UIResponder.keyboardWillShowNotification`.
///
/// UIKit posts it on the main thread, with no sender, and the frames and animation in `userInfo`, which
/// ``payload(from:)`` decodes into a ``KeyboardFrameChange`` (what is required and what is optional is there). Post one
/// in a test with `KeyboardWillShow.post(change, in: center)`: ``userInfo(for:)`` writes UIKit's keys, so plain
/// observers read it as UIKit's.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIKeyboardWillShowNotification"`; keys:
/// ``KeyboardFrameChange/Key``; confirmed by `UIKit/UIWindow.h` (`UIKeyboardWillShowNotification` and the
/// `UIKeyboard…UserInfoKey` keys), public code that observes the string value, and UIKit's own code, which reads and
/// writes the keys' string values.
///
/// ```swift
/// @MainActor final class ComposerModel {
///     private(set) var bottomInset: CGFloat = 0
///     init() {
///         KeyboardWillShow.observeOnMainActor(for: self) { model, change in
///             model.bottomInset = change.frameEnd.height  // animate over change.animationDuration
///         }
///     }
/// }
/// ```
public enum KeyboardWillShow: Notifiable {
    /// The keyboard's frames and animation.
    public typealias Payload = KeyboardFrameChange

    /// `"UIKeyboardWillShowNotification"`.
    public static let notificationName = Notification.Name("UIKeyboardWillShowNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` as ``KeyboardFrameChange`` says.
    public static func payload(from notification: Notification) throws -> KeyboardFrameChange {
        try KeyboardFrameChange.decode(notification)
    }

    /// UIKit's `userInfo` for `change`.
    public static func userInfo(for change: KeyboardFrameChange) -> [AnyHashable: Any]? { change.userInfo }
}

/// The keyboard appeared: `UIResponder.keyboardDidShowNotification`.
///
/// UIKit posts it on the main thread, with no sender, and the frames and animation in `userInfo`, which
/// ``payload(from:)`` decodes into a ``KeyboardFrameChange`` (what is required and what is optional is there). Post one
/// in a test with `KeyboardDidShow.post(change, in: center)`: ``userInfo(for:)`` writes UIKit's keys, so plain
/// observers read it as UIKit's.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIKeyboardDidShowNotification"`; keys:
/// ``KeyboardFrameChange/Key``; confirmed by `UIKit/UIWindow.h` (`UIKeyboardDidShowNotification` and the
/// `UIKeyboard…UserInfoKey` keys), reimplementations of UIKit that declare the string value, and UIKit's own code,
/// which reads and writes the keys' string values.
///
/// ```swift
/// let token = KeyboardDidShow.observeOnMainActor { change in print(change.frameEnd) }
/// ```
public enum KeyboardDidShow: Notifiable {
    /// The keyboard's frames and animation.
    public typealias Payload = KeyboardFrameChange

    /// `"UIKeyboardDidShowNotification"`.
    public static let notificationName = Notification.Name("UIKeyboardDidShowNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` as ``KeyboardFrameChange`` says.
    public static func payload(from notification: Notification) throws -> KeyboardFrameChange {
        try KeyboardFrameChange.decode(notification)
    }

    /// UIKit's `userInfo` for `change`.
    public static func userInfo(for change: KeyboardFrameChange) -> [AnyHashable: Any]? { change.userInfo }
}

/// The keyboard is about to disappear: `UIResponder.keyboardWillHideNotification`.
///
/// UIKit posts it on the main thread, with no sender, and the frames and animation in `userInfo`, which
/// ``payload(from:)`` decodes into a ``KeyboardFrameChange`` (what is required and what is optional is there). Post one
/// in a test with `KeyboardWillHide.post(change, in: center)`: ``userInfo(for:)`` writes UIKit's keys, so plain
/// observers read it as UIKit's.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIKeyboardWillHideNotification"`; keys:
/// ``KeyboardFrameChange/Key``; confirmed by `UIKit/UIWindow.h` (`UIKeyboardWillHideNotification` and the
/// `UIKeyboard…UserInfoKey` keys), public code that observes the string value, and UIKit's own code, which reads and
/// writes the keys' string values.
///
/// ```swift
/// let token = KeyboardWillHide.observeOnMainActor { change in print(change.frameEnd) }
/// ```
public enum KeyboardWillHide: Notifiable {
    /// The keyboard's frames and animation.
    public typealias Payload = KeyboardFrameChange

    /// `"UIKeyboardWillHideNotification"`.
    public static let notificationName = Notification.Name("UIKeyboardWillHideNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` as ``KeyboardFrameChange`` says.
    public static func payload(from notification: Notification) throws -> KeyboardFrameChange {
        try KeyboardFrameChange.decode(notification)
    }

    /// UIKit's `userInfo` for `change`.
    public static func userInfo(for change: KeyboardFrameChange) -> [AnyHashable: Any]? { change.userInfo }
}

/// The keyboard disappeared: `UIResponder.keyboardDidHideNotification`.
///
/// UIKit posts it on the main thread, with no sender, and the frames and animation in `userInfo`, which
/// ``payload(from:)`` decodes into a ``KeyboardFrameChange`` (what is required and what is optional is there). Post one
/// in a test with `KeyboardDidHide.post(change, in: center)`: ``userInfo(for:)`` writes UIKit's keys, so plain
/// observers read it as UIKit's.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIKeyboardDidHideNotification"`; keys:
/// ``KeyboardFrameChange/Key``; confirmed by `UIKit/UIWindow.h` (`UIKeyboardDidHideNotification` and the
/// `UIKeyboard…UserInfoKey` keys), public code that observes the string value, and UIKit's own code, which reads and
/// writes the keys' string values.
///
/// ```swift
/// let token = KeyboardDidHide.observeOnMainActor { change in print(change.frameEnd) }
/// ```
public enum KeyboardDidHide: Notifiable {
    /// The keyboard's frames and animation.
    public typealias Payload = KeyboardFrameChange

    /// `"UIKeyboardDidHideNotification"`.
    public static let notificationName = Notification.Name("UIKeyboardDidHideNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` as ``KeyboardFrameChange`` says.
    public static func payload(from notification: Notification) throws -> KeyboardFrameChange {
        try KeyboardFrameChange.decode(notification)
    }

    /// UIKit's `userInfo` for `change`.
    public static func userInfo(for change: KeyboardFrameChange) -> [AnyHashable: Any]? { change.userInfo }
}

/// The keyboard's frame is about to change: it appears, disappears, docks, undocks, or changes height:
/// `UIResponder.keyboardWillChangeFrameNotification`.
///
/// UIKit posts it on the main thread, with no sender, and the frames and animation in `userInfo`, which
/// ``payload(from:)`` decodes into a ``KeyboardFrameChange`` (what is required and what is optional is there). Post one
/// in a test with `KeyboardWillChangeFrame.post(change, in: center)`: ``userInfo(for:)`` writes UIKit's keys, so plain
/// observers read it as UIKit's.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIKeyboardWillChangeFrameNotification"`; keys:
/// ``KeyboardFrameChange/Key``; confirmed by `UIKit/UIWindow.h` (`UIKeyboardWillChangeFrameNotification` and the
/// `UIKeyboard…UserInfoKey` keys), reimplementations of UIKit and React Native's macOS shim, which declare the string
/// value, and UIKit's own code, which reads and writes the keys' string values.
///
/// ```swift
/// let token = KeyboardWillChangeFrame.observeOnMainActor { change in print(change.frameEnd) }
/// ```
public enum KeyboardWillChangeFrame: Notifiable {
    /// The keyboard's frames and animation.
    public typealias Payload = KeyboardFrameChange

    /// `"UIKeyboardWillChangeFrameNotification"`.
    public static let notificationName = Notification.Name("UIKeyboardWillChangeFrameNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` as ``KeyboardFrameChange`` says.
    public static func payload(from notification: Notification) throws -> KeyboardFrameChange {
        try KeyboardFrameChange.decode(notification)
    }

    /// UIKit's `userInfo` for `change`.
    public static func userInfo(for change: KeyboardFrameChange) -> [AnyHashable: Any]? { change.userInfo }
}

/// The keyboard's frame changed: `UIResponder.keyboardDidChangeFrameNotification`.
///
/// UIKit posts it on the main thread, with no sender, and the frames and animation in `userInfo`, which
/// ``payload(from:)`` decodes into a ``KeyboardFrameChange`` (what is required and what is optional is there). Post one
/// in a test with `KeyboardDidChangeFrame.post(change, in: center)`: ``userInfo(for:)`` writes UIKit's keys, so plain
/// observers read it as UIKit's. A latest-value notification: each center keeps its latest change, so an observer that
/// starts late receives the keyboard's current frame first, and ``latest(in:)`` reads it.
///
/// Platforms: iOS, iPadOS, Mac Catalyst and visionOS. Name: `"UIKeyboardDidChangeFrameNotification"`; keys:
/// ``KeyboardFrameChange/Key``; confirmed by `UIKit/UIWindow.h` (`UIKeyboardDidChangeFrameNotification` and the
/// `UIKeyboard…UserInfoKey` keys), reimplementations of UIKit that declare the string value, and UIKit's own code,
/// which reads and writes the keys' string values.
///
/// ```swift
/// let token = KeyboardDidChangeFrame.observeOnMainActor { change in print(change.frameEnd) }
/// let current = KeyboardDidChangeFrame.latest()?.frameEnd  // once one has been posted, or observed
/// ```
public enum KeyboardDidChangeFrame: LatestValueNotifiable {
    /// The keyboard's frames and animation.
    public typealias Payload = KeyboardFrameChange

    /// `"UIKeyboardDidChangeFrameNotification"`.
    public static let notificationName = Notification.Name("UIKeyboardDidChangeFrameNotification")

    /// Decodes UIKit's `userInfo`; throws a `NotificationDecodingError` as ``KeyboardFrameChange`` says.
    public static func payload(from notification: Notification) throws -> KeyboardFrameChange {
        try KeyboardFrameChange.decode(notification)
    }

    /// UIKit's `userInfo` for `change`.
    public static func userInfo(for change: KeyboardFrameChange) -> [AnyHashable: Any]? { change.userInfo }
}
