public import Foundation
public import Observation

/// The latest payload of a ``LatestValueNotifiable`` type on a center, as an `@Observable` model: what a SwiftUI view
/// holds in `@State` and reads in `body`, with nothing to keep or cancel.
///
/// SwiftUI, and anything else that uses the Observation framework (`withObservationTracking`), sees ``value`` change
/// at each post of `Event` on the center:
///
/// - **Where the value changes:** on the main actor. A post made on the main actor changes it before `post` returns;
///   a post from any other thread at the main actor's next turn, in post order, as
///   ``Notifiable/observeOnMainActor(from:in:where:coalescing:file:line:isolation:_:)`` delivers.
/// - **When observation begins:** when the model is made. It starts with the kept latest payload,
///   ``LatestValueNotifiable/latest(in:)``, or `nil` if there is none, and then follows every post of the type on
///   the center, typed or plain, from any sender.
/// - **When observation ends:** when the model is released: it holds its observation's token, so the observation
///   ends with it, wherever the release happens. Or when the center is deallocated: the model does not keep its
///   center alive, and then keeps the last value it had.
/// - ``LatestValueNotifiable/clearLatest(in:)`` leaves it as it is: clearing affects observations made after it,
///   not this one, so ``value`` keeps the cleared payload until the next post. A model made after it starts with
///   `nil`.
///
/// It is `@MainActor`, so it is `Sendable`: read it on the main actor, and release it anywhere. Every post sets
/// ``value``, so an equal payload counts as a change too. To follow one sender's posts, or to do more than keep the
/// value, observe with ``Notifiable/observeOnMainActor(for:from:in:where:coalescing:file:line:isolation:_:)`` instead.
///
/// In a SwiftUI view, `@State private var unread = LatestValue<UnreadCount>()` and `unread.value?.count` in `body`
/// are all it takes: see <doc:CombineAndSwiftUI>. Elsewhere on the main actor:
///
/// ```swift
/// struct UnreadCount: LatestValueNotifiable { let count: Int }
///
/// @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
/// @MainActor func showUnread(in center: NotificationCenter) {
///     UnreadCount(count: 3).post(in: center)
///     let unread = LatestValue<UnreadCount>(in: center)   // unread.value?.count is 3: the kept latest payload
///     UnreadCount(count: 4).post(in: center)              // now 4, before `post` returns
///     print(unread.value?.count ?? 0)
/// }
/// ```
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@MainActor
@Observable
public final class LatestValue<Event: LatestValueNotifiable> {
    /// The payload of the latest post of `Event` on the center, or `nil` if there has been none since the center
    /// started keeping it (or since ``LatestValueNotifiable/clearLatest(in:)``, for a model made after it).
    ///
    /// Read-only, and read on the main actor, where it changes. Reading it in a SwiftUI view's `body`, or in
    /// `withObservationTracking`, tracks it:
    ///
    /// ```swift
    /// import Observation
    ///
    /// struct UnreadCount: LatestValueNotifiable { let count: Int }
    ///
    /// @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    /// @MainActor func trackUnread(_ unread: LatestValue<UnreadCount>) {
    ///     withObservationTracking {
    ///         _ = unread.value
    ///     } onChange: {
    ///         print("the unread count is about to change")   // once, at the next post
    ///     }
    /// }
    /// ```
    public private(set) var value: Event.Payload?

    /// Holds the observation's token, so that the observation ends when the model is released; never read.
    @ObservationIgnored private var observation: Set<NotificationToken> = []

    /// Makes a model of the latest payload of `Event` on `center`, which starts with the kept latest payload.
    ///
    /// Made on the main actor, as it is, the model holds ``LatestValueNotifiable/latest(in:)`` before this returns,
    /// then changes at every post, on the main actor, until it is released or `center` is deallocated.
    ///
    /// ```swift
    /// struct UnreadCount: LatestValueNotifiable { let count: Int }
    ///
    /// @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    /// @MainActor final class InboxScreen {
    ///     let unread: LatestValue<UnreadCount>
    ///
    ///     init(center: NotificationCenter = .default) {
    ///         unread = LatestValue(in: center)
    ///     }
    ///
    ///     var badge: String { unread.value.map { "\($0.count)" } ?? "" }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - center: The center whose posts to follow; `.default` unless given. It is not retained.
    ///   - file: Where the model is made, for ``Foundation/NotificationCenter/typedObservations``; leave the default.
    ///   - line: Where the model is made; leave the default.
    public init(in center: NotificationCenter = .default, file: StaticString = #fileID, line: UInt = #line) {
        // Read first, so that the model starts with the kept payload even when the replay below is queued (made in a
        // main-actor handler, or behind a full batch of main-actor deliveries); the replay then brings the same
        // payload or a later one, never an earlier one, as the kept payload only moves forward.
        value = Event.latest(in: center)
        // On the main actor (`isolation` is), so the kept payload is replayed before `observeOnMainActor` returns.
        // Stored with `store(in:)`, which marks the token kept: a model that SwiftUI makes and drops at once (a
        // `@State` initial value is evaluated again with every new value of the view) is no discarded token.
        Event.observeOnMainActor(in: center, file: file, line: line) { [weak self] payload in self?.value = payload }
            .store(in: &observation)
    }
}
