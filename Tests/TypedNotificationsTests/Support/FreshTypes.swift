import Foundation
import Testing
import TypedNotificationsTestSupport

@testable import TypedNotifications

// MARK: - Fresh types

/// A type that no other test touches: each `Tag` is a chain of `TagBit0`/`TagBit1` wrappers built at run time
/// (``withFreshTag(_:)``), so its record is made by the test that uses it.
struct FreshNumber<Tag>: Notifiable { typealias Payload = Int }
/// The same, keeping its latest post.
struct FreshLatestNumber<Tag>: LatestValueNotifiable { typealias Payload = Int }
/// The same, typed-only: a typed post that misses an observer is not delivered to it by the type's bridge instead.
struct FreshTypedOnlyNumber<Tag>: Notifiable {
    typealias Payload = Int
    static var postsThroughFoundation: Bool { false }
}
/// A fresh type whose custom name posts and observes another fresh type, and reads a third one's derived name.
struct SideEffectNamed<Tag>: Notifiable {
    typealias Payload = Int
    static var notificationName: Notification.Name {
        SideEffectTarget<Tag>.post(1, in: .default)
        let token = SideEffectTarget<Tag>.observe(in: .default) { _ in }
        token.cancel()
        return Notification.Name("FirstUse.custom." + FreshNumber<Tag>.notificationName.rawValue)
    }
}
enum SideEffectTarget<Tag>: Notifiable { typealias Payload = Int }
enum TagBit0<Wrapped> {}
enum TagBit1<Wrapped> {}
enum TagRoot {}

/// Which fresh tag comes next, process-wide, so that no two uses share one.
let freshTagIndex = Counter()

protocol FreshTagVisitor {
    func visit<Tag>(_ tag: Tag.Type) async
}

private func wrapTag<T>(_: T.Type, bit: Bool) -> Any.Type {
    bit ? TagBit1<T>.self : TagBit0<T>.self
}

private func openTag<T>(_: T.Type, _ visitor: some FreshTagVisitor) async {
    await visitor.visit(T.self)
}

/// Calls `visitor` with a tag type that was never used before in this process.
func withFreshTag(_ visitor: some FreshTagVisitor) async {
    var index = freshTagIndex.increment()
    var tag: Any.Type = TagRoot.self
    repeat {
        tag = wrapTag(tag, bit: index & 1 == 1)
        index >>= 1
    } while index > 0
    await openTag(tag, visitor)
}
