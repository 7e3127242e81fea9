public import Foundation
public import TypedNotifications

/// Records every post of one `Notifiable` type on a center, so a test can check what was posted, or wait for it.
///
/// Recording begins before the initialiser returns and ends when the recorder is cancelled or released. The recorder
/// keeps each payload and its sender, in post order, and is thread-safe: code under test may post from any thread
/// while the test reads ``payloads`` or waits with ``next(timeout:)-(Duration?)`` and
/// ``waitForCount(_:timeout:)-(_,Duration?)``.
///
/// ```swift
/// struct Saved: Notifiable { let id: Int }
///
/// @Test func savingPostsOneNotificationPerItem() async throws {
///     let center = NotificationCenter()
///     let store = Store(center: center)
///     let recorder = NotificationRecorder(Saved.self, in: center)   // records from this line on
///
///     store.save([1, 2, 3])
///
///     #expect(recorder.payloads.map(\.id) == [1, 2, 3])
///     #expect(recorder.count == 3)
///     let first = try await recorder.next()   // the first payload, already recorded
///     #expect(first.id == 1)
/// }
/// ```
///
/// ## What it sees
///
/// The recorder is a typed observer of every post of `Event` on its center, from any sender, on the posting thread: it
/// sees typed posts (`value.post(in:)`, `Event.post(_:in:)`) and plain posts under `Event.notificationName` alike,
/// each exactly once, synchronously, with its sender. A plain post is decoded once with `Event.payload(from:)`, as for
/// every typed observer; one that does not decode is never recorded and never crashes: it is kept in
/// ``decodingErrors`` and mentioned in failure messages. A typed post is recorded as posted, without a round trip
/// through `userInfo`. For a `LatestValueNotifiable` type, the latest post from before the recorder was made is not
/// recorded: the recorder records posts, not the state an observation starts with.
///
/// - Important: Handlers never run on the recorder's behalf: it only stores. Its `Sendable` story: payloads are
///   `Sendable`; senders are held weakly, compared by identity, and handed out only where `Sender` is `Sendable`
///   (see ``senders``).
public final class NotificationRecorder<Event: Notifiable>: Sendable {
    let recording: Recording<Event>
    private let observer: PostObserver<Event>
    /// Whether the recorder was made for one sender, for failure messages.
    let isFilteredBySender: Bool

    /// Starts recording posts of `subject` on `center`, optionally only those from `sender`.
    ///
    /// Recording begins before the initialiser returns, so a post on the next line is never missed, and ends when the
    /// recorder is cancelled or released. Posts from other senders are not recorded, but failure messages mention
    /// them.
    ///
    /// ```swift
    /// final class Store: Sendable {}
    /// struct Saved: Notifiable {
    ///     typealias Sender = Store
    ///     let id: Int
    /// }
    ///
    /// let center = NotificationCenter()
    /// let store = Store()
    /// let everything = NotificationRecorder(Saved.self, in: center)
    /// let fromStore = NotificationRecorder(Saved.self, from: store, in: center)
    /// Saved(id: 1).post(from: store, in: center)
    /// Saved(id: 2).post(in: center)
    /// // everything.count == 2, fromStore.count == 1
    /// ```
    ///
    /// - Parameters:
    ///   - subject: The notification type to record.
    ///   - sender: Only posts from this object, compared by identity, are recorded; `nil` for every sender. It is
    ///     not retained: once it is deallocated, nothing more is recorded.
    ///   - center: The center to record; `.default` unless given. Prefer a center of the test's own.
    ///   - file: Where the recorder is made, as `NotificationCenter.typedObservations` lists it, so that a
    ///     recorder left observing can be traced to its test. Leave the default.
    ///   - line: The line, likewise.
    public convenience init(
        _ subject: Event.Type,
        from sender: Event.Sender? = nil,
        in center: NotificationCenter = .default,
        file: StaticString = #fileID,
        line: UInt = #line
    ) {
        self.init(subject, from: sender, in: center, scope: nil, file: file, line: line)
    }

    /// Starts recording; with a `scope`, posts made in tasks outside it are not recorded, only listed in failure
    /// messages (see `expectPosts`).
    init(
        _ subject: Event.Type,
        from sender: Event.Sender?,
        in center: NotificationCenter,
        scope: PostScope?,
        file: StaticString,
        line: UInt
    ) {
        let recording = Recording<Event>(filtersBySender: sender != nil)
        self.recording = recording
        self.isFilteredBySender = sender != nil
        self.observer = PostObserver(center: center, sender: sender, scope: scope, file: file, line: line) { post in
            recording.record(post)
        }
    }

    deinit {
        observer.cancel()
    }

    /// The payloads recorded so far, in post order.
    ///
    /// Posts from one thread appear in the order they were made; posts racing on several threads appear in the order
    /// the recorder received them. A post made by an observer while another post is being delivered may be recorded
    /// before the post that triggered it.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    /// let center = NotificationCenter()
    /// let recorder = NotificationRecorder(Saved.self, in: center)
    /// Saved(id: 1).post(in: center)
    /// Saved(id: 2).post(in: center)
    /// #expect(recorder.payloads.map(\.id) == [1, 2])
    /// ```
    public var payloads: [Event.Payload] {
        recording.payloads
    }

    /// How many posts have been recorded.
    ///
    /// ```swift
    /// enum Refreshed: Notifiable { typealias Payload = Void }
    /// let center = NotificationCenter()
    /// let recorder = NotificationRecorder(Refreshed.self, in: center)
    /// Refreshed.post((), in: center)
    /// #expect(recorder.count == 1)
    /// ```
    public var count: Int {
        recording.count
    }

    /// The payloads of the recorded posts made by `sender`, compared by identity, in post order.
    ///
    /// Works for any `Sender`, `Sendable` or not, because it never hands a sender out.
    ///
    /// ```swift
    /// final class Store {}
    /// struct Saved: Notifiable { let id: Int }
    ///
    /// let center = NotificationCenter()
    /// let (drafts, archive) = (Store(), Store())
    /// let recorder = NotificationRecorder(Saved.self, in: center)
    /// Saved(id: 1).post(from: drafts, in: center)
    /// Saved(id: 2).post(from: archive, in: center)
    /// #expect(recorder.payloads(from: drafts).map(\.id) == [1])
    /// ```
    ///
    /// - Parameter sender: The object whose posts to return.
    /// - Returns: Its payloads; empty if it posted none.
    public func payloads(from sender: Event.Sender) -> [Event.Payload] {
        recording.payloads(from: sender)
    }

    /// Why plain posts under `Event.notificationName` could not be decoded, in post order.
    ///
    /// Such posts are not recorded, and never crash; typed observers skip them too. Use this to check a custom
    /// `Event.payload(from:)` against legacy code.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    /// let center = NotificationCenter()
    /// let recorder = NotificationRecorder(Saved.self, in: center)
    /// center.post(name: Saved.notificationName, object: nil, userInfo: ["id": 1])   // not the typed layout
    /// #expect(recorder.count == 0)
    /// #expect(recorder.decodingErrors.count == 1)
    /// ```
    public var decodingErrors: [any Error] {
        recording.report.decodingErrors
    }

    /// Stops recording: no post that starts after this returns is recorded. Idempotent and thread-safe.
    ///
    /// What was recorded stays readable, and ``next(timeout:)-(Duration?)`` still returns it; a wait that needs a post
    /// that can no longer arrive throws ``NotificationWaitError`` with reason
    /// ``NotificationWaitError/Reason/recorderCancelled``.
    /// Releasing the recorder stops recording too.
    ///
    /// ```swift
    /// struct Saved: Notifiable { let id: Int }
    /// let center = NotificationCenter()
    /// let recorder = NotificationRecorder(Saved.self, in: center)
    /// Saved(id: 1).post(in: center)
    /// recorder.cancel()
    /// Saved(id: 2).post(in: center)
    /// #expect(recorder.count == 1)
    /// ```
    public func cancel() {
        observer.cancel()
        recording.stop()
    }

    /// Everything seen, for failure messages.
    var report: PostReport<Event> {
        recording.report
    }
}

extension NotificationRecorder where Event.Sender: Sendable {
    /// The sender of each recorded post, in the order of ``NotificationRecorder/payloads``.
    ///
    /// An element is `nil` for a post made without a sender, and for a sender that has been deallocated since: the
    /// recorder holds senders weakly, so it never extends an object's life. Available when `Sender` is `Sendable`,
    /// so that handing senders to the test is safe; otherwise use ``NotificationRecorder/payloads(from:)``.
    ///
    /// ```swift
    /// final class Store: Sendable {}
    /// struct Saved: Notifiable {
    ///     typealias Sender = Store
    ///     let id: Int
    /// }
    ///
    /// let center = NotificationCenter()
    /// let store = Store()
    /// let recorder = NotificationRecorder(Saved.self, in: center)
    /// Saved(id: 1).post(from: store, in: center)
    /// Saved(id: 2).post(in: center)
    /// #expect(recorder.senders.map { $0 === store } == [true, false])
    /// ```
    public var senders: [Event.Sender?] {
        recording.senders.map { $0.object as? Event.Sender }
    }
}
