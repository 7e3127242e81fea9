public import Foundation

/// A hook that reports what the package skipped: plain posts it could not decode, payloads a bounded
/// ``NotificationSequence`` dropped, and, if asked, typed posts that reached no typed observer, or every typed post.
///
/// Install a handler for the whole process (``setHandler(_:)``), for logging; or for one scope
/// (``withHandler(_:operation:)``), in tests that run in parallel. A handler runs
/// synchronously on the posting thread, so keep it short and do not post from it.
///
/// With no handler, release builds are silent. Debug builds write the mistakes that would otherwise go unnoticed to
/// standard error, once each, as Foundation's Message API logs a runtime issue: for example a plain post that cannot
/// be decoded (``Event/Kind/decodingFailed(_:)``, once per type and error), an observation whose sender filter is a
/// center (``Event/Kind/centerAsSender(fileID:line:)``, once per call site), and a type that derives the name another
/// type derived (``Event/Kind/derivedNameCollision(with:)``, once per type). A handler, once installed, receives every
/// report instead.
///
/// Where a report goes: to the innermost ``withHandler(_:operation:)`` scope that is still open in the reporting
/// task's context (its own scopes, and those of the task that created it); otherwise to the process-wide handler. A
/// scope that has ended never receives reports, so a task that outlives its scope reports to the scope around it that
/// is still open, or to the process-wide handler, whatever other tasks are doing.
///
/// ```swift
/// NotificationDiagnostics.setHandler { event in
///     print("\(event.name.rawValue): \(event.kind)")
/// }
/// NotificationDiagnostics.reportsUnobservedPosts = true   // also report posts nobody observes
/// ```
public enum NotificationDiagnostics {
    /// One report.
    public struct Event: Sendable, CustomStringConvertible {
        /// What happened.
        public enum Kind: Sendable {
            /// A plain post under the type's name could not be decoded; its typed observers were skipped.
            case decodingFailed(any Error)
            /// A typed post reached no typed observer (reported only when ``reportsUnobservedPosts`` is on).
            case unobserved
            /// A ``NotificationSequence`` made with a bounded ``NotificationSequence/BufferingPolicy`` dropped a
            /// payload because its buffer was full; reported once per dropped payload, on the posting thread.
            case dropped
            /// A typed post, and how many typed observers it reached (reported only when ``tracesPosts`` is on).
            case posted(typedObserversReached: Int)
            /// A plain post under the name of a typed-only type (``Notifiable/postsThroughFoundation`` is `false`),
            /// which its typed observers do not see; reported in debug builds only, while the type has typed
            /// observers on that center.
            case plainPostIgnored
            /// An observing call, at `fileID` and `line`, was given a `NotificationCenter` as its sender filter
            /// (`from:`): it sees only posts whose sender is that center object, which is almost never meant.
            ///
            /// `CounterDidChange.observe(from: center) { … }` compiles where `observe(in: center)` was meant,
            /// observes ``Event/center`` (the default center), and never fires. Reported in debug builds only, when the
            /// observation is made.
            case centerAsSender(fileID: String, line: Int)
            /// A post was given a `NotificationCenter` as its sender (`from:`), where `in:` was almost surely meant: it
            /// went to ``Event/center`` (the default center, unless `in:` was given too), which is rarely the one whose
            /// observers were meant. Reported in debug builds only, when the post is made.
            case centerAsPostSender
            /// The token of an observation made at `fileID` and `line` was released right after it was made (as
            /// `_ = Type.observe { … }` does), which ended the observation at once.
            ///
            /// Reported in debug builds only, when the token is released on the thread that made it within a quarter
            /// of a second, before that thread posted, observed, cancelled, stored a token or listed observations.
            /// Likely a mistake: keep the token, or observe with `for:` an owner. A token kept that briefly, with
            /// nothing done meanwhile, is reported too; to end an observation that early on purpose, call `cancel()`
            /// on its token, which is not reported.
            case discardedToken(fileID: String, line: Int)
            /// An observation bound to an owner was made at `fileID` and `line` while the owner was being
            /// deinitialised (`observe(for: self)` in a `deinit`): it never fires. Reported in debug builds only.
            case deinitializingOwner(fileID: String, line: Int)
            /// A class that inherits its `Notifiable` conformance from a superclass was observed at `fileID` and
            /// `line` (`Subclass.observe { … }`): it has a notification of its own that posts of the superclass never
            /// reach. Observe the conforming class instead. Reported in debug builds only.
            case inheritedConformance(fileID: String, line: Int)
            /// A value that is not an enum case was observed at `fileID` and `line` as a case filter
            /// (`value.observe { … }`), which delivers only posts equal to that value. Pass `where:` to say what
            /// matches instead. Reported in debug builds only.
            case caseFilterOnNonEnum(fileID: String, line: Int)
            /// A case with an associated value, `caseName`, was observed at `fileID` and `line` as a case filter
            /// (`PaymentDidFinish.finished(id: 0).observe { … }`), which delivers only posts whose associated values
            /// are equal too, never the case's other posts. To observe every post of the case, pass
            /// `where: .matching { if case .finished = $0 { true } else { false } }` instead. Reported in debug builds
            /// only.
            case caseFilterWithAssociatedValue(caseName: String, fileID: String, line: Int)
            /// A post was made from a sender that is being deinitialised (`post(from: self)` in a `deinit`): observers
            /// filtering by that sender never receive it, since their reference to it already reads `nil`, and a
            /// handler that keeps the sender it is given would outlive the `deinit` and crash the process. Post before
            /// the object goes, or without `from:`. Reported in debug builds only, when the post is made.
            case deinitializingSender
            /// The type derives the same ``Notifiable/notificationName`` as `other`, a distinct type that derived it
            /// first, so plain observers, logs and plain posts cannot tell the two apart: each one's typed posts reach
            /// the other's plain observers, and each one's typed observers are given the other's plain posts to
            /// decode.
            ///
            /// The derived name leaves out the anonymous contexts of private and local types, so that it is the same
            /// on every launch; two types whose names differ only there share it: private types of one name in two
            /// files, a type local to a function and a top-level type of its name, a type local to a method of `Foo`
            /// and a nested `Foo.Local`. Give one of them a `notificationName` of its own. Reported in debug builds
            /// only, once, when the second type first derives its name (its first post, observation or read of the
            /// name); ``Event/center`` is then the default center, as a name belongs to no center.
            ///
            /// ```swift
            /// func saveDocument() {
            ///     struct Saved: Notifiable { let id: Int }
            ///     Saved(id: 1).post()
            /// }
            ///
            /// func saveDraft() {
            ///     // Would derive "MyApp.Saved" too, and be reported as derivedNameCollision(with:) the first time it
            ///     // is used after the other one: it names itself instead.
            ///     struct Saved: Notifiable {
            ///         static var notificationName: Notification.Name { .init("MyApp.Drafts.Saved") }
            ///         let id: Int
            ///     }
            ///     Saved(id: 2).post()
            /// }
            /// ```
            case derivedNameCollision(with: any Notifiable.Type)
            /// The type has a name of its own, and its first typed post wrote a `userInfo` that its
            /// ``Notifiable/payload(from:)`` cannot decode, throwing `error`: its two bridging halves disagree, and
            /// `missing` names the one to write, `"userInfo(for:)"` or `"payload(from:)"`.
            ///
            /// Typically the type customises ``Notifiable/payload(from:)`` to read a legacy `userInfo` layout but not
            /// ``Notifiable/userInfo(for:)``, so its typed posts reach the legacy plain observers with the payload
            /// under ``Foundation/Notification/typedPayloadKey`` only, and none of the keys they read (`missing` is
            /// then `"userInfo(for:)"`). Or it customises `userInfo(for:)` and not `payload(from:)`, so plain posts in
            /// its layout never reach its typed observers (`"payload(from:)"`). Reported in debug builds only, once per
            /// type, when it is first posted. Write both halves, reading and writing one layout:
            ///
            /// ```swift
            /// struct Download: Sendable { let bytes: Int }
            ///
            /// enum DownloadDidProgress: Notifiable {
            ///     typealias Payload = Download
            ///     static var notificationName: Notification.Name { .init("DownloadDidProgressNotification") }
            ///     static func payload(from notification: Notification) throws -> Download {
            ///         guard let bytes = notification.userInfo?["bytes"] as? Int else {
            ///             throw NotificationDecodingError.missingValue(key: "bytes")
            ///         }
            ///         return Download(bytes: bytes)
            ///     }
            ///     // Without this half, the first post is reported as halfBridged(missing: "userInfo(for:)", …).
            ///     static func userInfo(for download: Download) -> [AnyHashable: Any]? { ["bytes": download.bytes] }
            /// }
            /// ```
            case halfBridged(missing: String, error: any Error)
        }

        /// What happened.
        public let kind: Kind
        /// The `Notifiable` type concerned.
        public let type: any Notifiable.Type
        /// The notification name concerned.
        public let name: Notification.Name
        /// The center the post went through.
        public let center: NotificationCenter
        /// The post's sender, described, for ``Kind/posted(typedObserversReached:)``; `nil` otherwise, or when the
        /// post had none.
        public let sender: String?

        /// A sentence naming the type, the notification name and what happened.
        public var description: String {
            switch kind {
            case .decodingFailed(let error):
                "\(String(reflecting: type)): could not decode a plain post of \(name.rawValue): \(error)"
            case .unobserved:
                "\(String(reflecting: type)): a post of \(name.rawValue) reached no typed observer"
            case .dropped:
                "\(String(reflecting: type)): a bounded sequence dropped a payload of \(name.rawValue)"
            case .plainPostIgnored:
                "\(String(reflecting: type)): a plain post of \(name.rawValue) was ignored: the type is typed-only"
            case .centerAsSender(let fileID, let line):
                "\(String(reflecting: type)): observed at \(fileID):\(line) with a NotificationCenter as its sender "
                    + "filter (from:), so it sees only posts sent by that center object; to observe posts in that "
                    + "center, pass it as in:"
            case .centerAsPostSender:
                "\(String(reflecting: type)): posted with a NotificationCenter as its sender, post(from: center), so "
                    + "it went to the center named by in: (the default center unless given), not to that one; to post "
                    + "in a center, write post(in: center)"
            case .discardedToken(let fileID, let line):
                "\(String(reflecting: type)): the token of the observation made at \(fileID):\(line) was released right "
                    + "after it was made, before anything was posted, which ended the observation; this is likely a "
                    + "mistake (_ = observe { … }, or a token in a local that goes out of scope): keep the token for as "
                    + "long as the observation should last (in a property, or a local that lives until the posts), "
                    + "or observe with for: an owner. To end an observation this early on purpose, call cancel() on "
                    + "its token, which is not reported"
            case .deinitializingOwner(let fileID, let line):
                "\(String(reflecting: type)): observed at \(fileID):\(line) for an owner that is being deinitialised, "
                    + "so it never fires"
            case .inheritedConformance(let fileID, let line):
                "\(String(reflecting: type)): observed at \(fileID):\(line), but it inherits Notifiable from a "
                    + "superclass, whose posts it never sees; observe the class that conforms"
            case .caseFilterOnNonEnum(let fileID, let line):
                "\(String(reflecting: type)): observed at \(fileID):\(line) as a case filter on a value that is not "
                    + "an enum case, which delivers only equal posts; pass where: to say what matches"
            case .caseFilterWithAssociatedValue(let caseName, let fileID, let line):
                "\(String(reflecting: type)): observed at \(fileID):\(line) as a case filter on .\(caseName), which "
                    + "has an associated value, so it delivers only posts whose associated values are equal too; to "
                    + "observe every .\(caseName), write \(String(reflecting: type)).observe(where: .matching { if case "
                    + ".\(caseName) = $0 { true } else { false } }) { ... }"
            case .deinitializingSender:
                "\(String(reflecting: type)): posted from a sender that is being deinitialised (post(from: self) in a "
                    + "deinit), which observers filtering by that sender never receive, and which crashes the process "
                    + "if a handler keeps the sender; post before the object goes, or without from:"
            case .derivedNameCollision(let other):
                "\(String(reflecting: type)): derives the notification name \(name.rawValue), which "
                    + "\(String(reflecting: other)) derived first, so their plain observers and plain posts meet; give "
                    + "one of them a name of its own: static var notificationName: Notification.Name { .init(\"...\") }"
            case .halfBridged(let missing, let error) where missing == "userInfo(for:)":
                "\(String(reflecting: type)): has a payload(from:) of its own but not a userInfo(for:), so its typed "
                    + "posts reach plain observers of \(name.rawValue) with the payload under \""
                    + Notification.typedPayloadKey + "\" only, which payload(from:) cannot read (\(error)); write "
                    + "userInfo(for:) to write what payload(from:) reads"
            case .halfBridged(let missing, let error):
                "\(String(reflecting: type)): the userInfo(for:) its typed posts give plain observers of "
                    + "\(name.rawValue) cannot be decoded by its payload(from:) (\(error)), so plain posts in that layout "
                    + "never reach its typed observers; write \(missing) to read what userInfo(for:) writes"
            case .posted(let reached):
                "\(String(reflecting: type)): posted \(name.rawValue) from \(sender ?? "no sender"), "
                    + "reaching \(reached) typed observer\(reached == 1 ? "" : "s")"
            }
        }
    }

    /// A handler in a class of its own: the statics below are generic over it, not over a function type, whose
    /// metadata two threads instantiating these statics at once could race on (seen with Swift 6.3 on Linux).
    fileprivate final class Handler: Sendable {
        let call: @Sendable (Event) -> Void
        init(_ call: @escaping @Sendable (Event) -> Void) { self.call = call }
    }

    /// A ``withHandler(_:operation:)`` scope: its handler, the scope it is nested in, and whether it has ended.
    ///
    /// Tasks created in the scope inherit it with the task-local `scope` and may outlive it, as may deliveries queued
    /// in it (``DeliveryTarget/Entry``), so it is marked ended when `withHandler` returns: reports skip it from then
    /// on, and it lets go of its handler, so that whatever the handler captured is not kept by work still pending.
    final class Scope: Sendable {
        /// `nil` once the scope has ended; released outside the lock.
        private let handler: Locked<Handler?>
        /// The scope that was open in the task when this one began.
        let enclosing: Scope?
        /// Set once, when `withHandler` returns.
        private let ended = AtomicWord.make()

        fileprivate init(_ handler: Handler, enclosing: Scope?) {
            self.handler = Locked(handler)
            self.enclosing = enclosing
        }

        func end() {
            ended.store(1)
            let released = handler.withLock { handler in
                defer { handler = nil }
                return handler
            }
            withExtendedLifetime(released) {}
        }

        /// The handler of this scope if it is still open, or else of the innermost open scope around it.
        fileprivate var innermostOpenHandler: Handler? {
            var scope: Scope? = self
            while let current = scope {
                if !current.ended.isSet, let handler = current.handler.withLock({ $0 }) { return handler }
                scope = current.enclosing
            }
            return nil
        }
    }

    private static let handler = Locked<Handler?>(nil)
    /// The flags behind ``reportsUnobservedPosts`` and ``tracesPosts``: atomic, since every post reads them, on any
    /// thread, without a lock.
    private static let unobservedReports = AtomicWord.make()
    private static let postTraces = AtomicWord.make()
    /// How many ``withHandler(_:operation:)`` scopes are open, so that reports while none is skip the task-local
    /// lookup.
    private static let scopes = AtomicWord.make()
    /// The innermost scope begun in the task or the tasks that created it; it may have ended since.
    @TaskLocal private static var scope: Scope?

    /// The scope of the current task, for a delivery queued to run elsewhere (``DeliveryTarget/Entry``); `nil`, with
    /// no task-local lookup, while no scope is open anywhere.
    static var queuedScope: Scope? {
        scopes.loadRelaxed() == 0 ? nil : scope
    }

    /// Runs a queued delivery with the scope its post was made in (``queuedScope``), so that its reports go there, and
    /// never to the scope of whatever code runs it (a later post made on the target's actor runs earlier posts'
    /// deliveries). While no scope is open anywhere, there is none to bind or to hide.
    static func reporting<Result>(to queued: Scope?, _ body: () -> Result) -> Result {
        guard queued != nil || scopes.loadRelaxed() != 0 else { return body() }
        return $scope.withValue(queued, operation: body)
    }

    /// As ``reporting(to:_:)``, for an `async` handler.
    static func reporting(to queued: Scope?, _ body: () async -> Void) async {
        guard queued != nil || scopes.loadRelaxed() != 0 else { return await body() }
        await $scope.withValue(queued, operation: body)
    }

    /// Runs `operation` with `handler` receiving the events of posts made in it (in its task and the tasks it
    /// creates, not on other threads), instead of the process-wide handler.
    ///
    /// For tests that run in parallel: each sees its own events. The scope is open while `operation` runs, and
    /// receives the reports of its task and of the tasks created in it, unless a scope nested in it is open there.
    /// Once `withHandler` returns, no report made afterwards reaches `handler` (one racing with the return on
    /// another thread may): a task created in the scope that reports later reports to the innermost scope around this
    /// one that is still open, or, if there is none, to the process-wide handler (see ``setHandler(_:)``).
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let log: @Sendable (NotificationDiagnostics.Event) -> Void = { event in print(event) }
    /// NotificationDiagnostics.withHandler(log) {
    ///     center.post(name: CounterDidChange.notificationName, object: nil)   // cannot be decoded: reported
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - handler: Called synchronously on the posting thread for each event of the scope.
    ///   - operation: The code whose events `handler` receives.
    /// - Returns: What `operation` returns.
    public static func withHandler<Result>(
        _ handler: @escaping @Sendable (Event) -> Void,
        operation: () throws -> Result
    ) rethrows -> Result {
        let scope = Scope(Handler(handler), enclosing: Self.scope)
        scopes.add(1)
        defer {
            scope.end()
            scopes.add(UInt64.max)
        }
        return try $scope.withValue(scope, operation: operation)
    }

    /// As ``withHandler(_:operation:)``, for asynchronous code.
    ///
    /// The same rule applies: the scope receives reports while `operation` runs, and never after.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// func check(_ center: NotificationCenter) async {
    ///     let log: @Sendable (NotificationDiagnostics.Event) -> Void = { event in print(event) }
    ///     await NotificationDiagnostics.withHandler(log) {
    ///         await Task { center.post(name: CounterDidChange.notificationName, object: nil) }.value
    ///     }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - handler: Called synchronously on the posting thread for each event of the scope.
    ///   - isolation: The caller's actor, in which `operation` runs; leave the default.
    ///   - operation: The code whose events `handler` receives.
    /// - Returns: What `operation` returns.
    public static func withHandler<Result>(
        _ handler: @escaping @Sendable (Event) -> Void,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        let scope = Scope(Handler(handler), enclosing: Self.scope)
        scopes.add(1)
        defer {
            scope.end()
            scopes.add(UInt64.max)
        }
        return try await $scope.withValue(scope, operation: operation, isolation: isolation)
    }

    /// Installs `handler`, replacing any previous one; `nil` silences diagnostics again.
    ///
    /// It receives every report made outside the open ``withHandler(_:operation:)`` scopes of the reporting task,
    /// from any thread: posts on threads that are not tasks, and tasks whose scopes have all ended.
    ///
    /// ```swift
    /// NotificationDiagnostics.setHandler { event in print(event) }
    /// NotificationDiagnostics.setHandler(nil)
    /// ```
    ///
    /// - Parameter handler: Called synchronously on the posting thread for each event, from any thread.
    public static func setHandler(_ handler: (@Sendable (Event) -> Void)?) {
        // The replaced handler is released after the lock, since releasing it may run any deinitialiser.
        let replaced = self.handler.withLock { current in
            defer { current = handler.map(Handler.init) }
            return current
        }
        withExtendedLifetime(replaced) {}
    }

    /// Whether typed posts that reach no typed observer are reported as ``Event/Kind/unobserved``. Off by default.
    ///
    /// ```swift
    /// NotificationDiagnostics.reportsUnobservedPosts = true
    /// ```
    public static var reportsUnobservedPosts: Bool {
        get { unobservedReports.loadRelaxed() != 0 }
        set { unobservedReports.store(newValue ? 1 : 0) }
    }

    /// Whether every typed post is reported as ``Event/Kind/posted(typedObserversReached:)``, with its type, sender and
    /// how many typed observers it reached. Off by default: a trace for debugging.
    ///
    /// ```swift
    /// NotificationDiagnostics.tracesPosts = true
    /// ```
    public static var tracesPosts: Bool {
        get { postTraces.loadRelaxed() != 0 }
        set { postTraces.store(newValue ? 1 : 0) }
    }

    /// Whether a post must call ``reportPost(_:for:name:sender:in:)``; one relaxed load of each flag.
    @usableFromInline
    static var reportsPosts: Bool {
        postTraces.loadRelaxed() != 0 || unobservedReports.loadRelaxed() != 0
    }

    /// Reports a typed post that reached `reached` typed observers, as the flags ask.
    @usableFromInline
    static func reportPost<Posted: Notifiable>(
        _ reached: Int,
        for subject: Posted.Type,
        name: Notification.Name,
        sender: AnyObject?,
        in center: NotificationCenter
    ) {
        if tracesPosts {
            let described = sender.map { String(describing: $0) }
            report(.posted(typedObserversReached: reached), for: subject, name: name, sender: described, in: center)
        }
        if reached == 0, reportsUnobservedPosts {
            report(.unobserved, for: subject, name: name, in: center)
        }
    }

    @usableFromInline
    static func report<Posted: Notifiable>(
        _ kind: Event.Kind,
        for subject: Posted.Type,
        name: Notification.Name,
        sender: String? = nil,
        in center: NotificationCenter
    ) {
        // No scope open anywhere means none in this task either; an ended scope passes the report on.
        let scoped = scopes.loadRelaxed() == 0 ? nil : scope?.innermostOpenHandler
        let event = Event(kind: kind, type: subject, name: name, center: center, sender: sender)
        guard let handler = scoped ?? handler.withLock({ $0 }) else {
            #if DEBUG
            reportByDefault(event)
            #endif
            return
        }
        LockDiscipline.assertNoLockHeld("calls a diagnostics handler")
        handler.call(event)
    }
}
