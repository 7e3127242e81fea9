package import Foundation

// The one difference between platforms in this module: how a `CGRect` in `userInfo` looks once it has crossed into
// Objective-C, and how it is read back. UIKit posts the keyboard's frames as `NSValue`s holding a `CGRect`.
//
// On Apple platforms the Foundation overlay bridges `CGRect` to and from `NSValue` (SE-0139), so `value as? CGRect`
// reads UIKit's `NSValue`, and a Swift `CGRect` posted in `userInfo` reaches Objective-C observers as one. Swift's
// Foundation elsewhere has `NSValue(rect:)` and `rectValue` but no such bridge, so the `NSValue` is read explicitly.
// The simulated-Apple build (`-DTYPED_NOTIFICATIONS_SIMULATE_DARWIN`) posts rects as `NSValue`s, as observers on
// Apple platforms receive them, and reads them back with the Linux code.

/// Rects in `userInfo`, as the system writes them.
package enum SystemGeometry {
    /// `rect` as an observer on an Apple platform receives it from the system: an `NSValue` holding it.
    package static func objectiveCValue(_ rect: CGRect) -> Any {
        #if canImport(Darwin)
        rect as AnyObject  // the overlay's bridge makes the `NSValue`
        #else
        NSValue(rect: rect)
        #endif
    }

    /// What ``userInfo(for:)`` writes for `rect`: the `CGRect` itself, which Apple's Foundation bridges to an `NSValue`
    /// on its way to Objective-C observers; in the simulated-Apple build, that `NSValue` already.
    static func postable(_ rect: CGRect) -> Any {
        #if TYPED_NOTIFICATIONS_SIMULATE_DARWIN
        objectiveCValue(rect)
        #else
        rect
        #endif
    }

    /// `value` as a `CGRect`: a `CGRect`, or an `NSValue` holding one; `nil` for anything else, an `NSValue` holding
    /// another type included.
    package static func rect(_ value: Any) -> CGRect? {
        if let rect = value as? CGRect { return rect }
        #if canImport(Darwin)
        return nil
        #else
        guard let value = value as? NSValue, String(cString: value.objCType) == rectType else { return nil }
        return value.rectValue
        #endif
    }

    #if !canImport(Darwin)
    /// The type encoding of an `NSValue` made with `NSValue(rect:)`.
    private static let rectType = String(cString: NSValue(rect: .zero).objCType)
    #endif
}
