public import Foundation

// Debug builds are loud: with no diagnostics handler installed, the mistakes that would otherwise go unnoticed are
// written to standard error, once each, as Foundation's Message API logs a runtime issue. Release builds never report
// by default, and the `check…` functions compile to nothing there.

extension NotificationDiagnostics {
    // MARK: - Mistakes that compile and never fire

    /// Reports, in debug builds, an observation that compiles but can never fire: a `NotificationCenter` as its
    /// sender filter (``Event/Kind/centerAsSender(fileID:line:)``), an owner being deinitialised
    /// (``Event/Kind/deinitializingOwner(fileID:line:)``), or a subclass of a conforming class
    /// (``Event/Kind/inheritedConformance(fileID:line:)``).
    ///
    /// Every observing form runs it before it registers, on the observing thread, with none of the package's locks
    /// held. The owner is loaded through a new weak reference while the caller holds it, so it cannot be released
    /// here. Does nothing in release builds.
    @usableFromInline
    static func checkObservation<Observed: Notifiable>(
        of subject: Observed.Type,
        sender: AnyObject?,
        owner: AnyObject?,
        in center: NotificationCenter,
        site: ObservationSite
    ) {
        #if DEBUG
        let fileID = site.fileID
        let line = Int(site.line)
        if sender is NotificationCenter {
            report(
                .centerAsSender(fileID: fileID, line: line), for: subject, name: subject.notificationName, in: center)
        }
        if let owner {
            if isDeinitializing(owner) {
                report(
                    .deinitializingOwner(fileID: fileID, line: line), for: subject, name: subject.notificationName,
                    in: center)
            }
        }
        // A class whose superclass conforms inherits the conformance (and its `Payload`), but has a notification of
        // its own.
        if let observed = Observed.self as? AnyClass, let superclass = _getSuperclass(observed),
            superclass is any Notifiable.Type
        {
            report(
                .inheritedConformance(fileID: fileID, line: line), for: subject, name: subject.notificationName,
                in: center)
        }
        #endif
    }

    /// Reports, in debug builds, a post whose sender is a `NotificationCenter` (``Event/Kind/centerAsPostSender``) or
    /// an object being deinitialised (``Event/Kind/deinitializingSender``). Every post calls it in debug builds, on the
    /// posting thread, before delivering, while the caller holds the sender.
    @usableFromInline
    static func checkPostSender<Posted: Notifiable>(
        _ sender: AnyObject?,
        of subject: Posted.Type,
        in center: NotificationCenter
    ) {
        guard let sender else { return }
        if sender is NotificationCenter {
            report(.centerAsPostSender, for: subject, name: subject.notificationName, in: center)
        }
        if isDeinitializing(sender) {
            report(.deinitializingSender, for: subject, name: subject.notificationName, in: center)
        }
    }

    /// Whether `object` is being deinitialised: a weak reference to an object in its `deinit` reads `nil` at once, as
    /// the sender filters' references do. A `weak var` assigned after its declaration, not a `weak let` (Swift 6.3).
    private static func isDeinitializing(_ object: AnyObject) -> Bool {
        weak var probe: AnyObject?
        probe = object
        return probe == nil
    }

    /// Reports, in debug builds, a case filter (`value.observe { … }`) on a value that is not an enum case
    /// (``Event/Kind/caseFilterOnNonEnum(fileID:line:)``) or on a case with an associated value
    /// (``Event/Kind/caseFilterWithAssociatedValue(caseName:fileID:line:)``). Runs on the observing thread, before it
    /// registers.
    static func checkCaseFilter<Observed: Notifiable>(
        _ value: Observed,
        in center: NotificationCenter,
        site: ObservationSite
    ) {
        #if DEBUG
        let mirror = Mirror(reflecting: value)
        guard mirror.displayStyle == .enum else {
            report(
                .caseFilterOnNonEnum(fileID: site.fileID, line: Int(site.line)), for: Observed.self,
                name: Observed.notificationName, in: center)
            return
        }
        // An enum case's mirror has one child, labelled with the case's name, when the case has an associated value,
        // and none otherwise.
        guard let caseName = mirror.children.first?.label else { return }
        report(
            .caseFilterWithAssociatedValue(caseName: caseName, fileID: site.fileID, line: Int(site.line)),
            for: Observed.self, name: Observed.notificationName, in: center)
        #endif
    }

    // MARK: - Names that collide

    /// Reports, in debug builds, a type that derives the same ``Notifiable/notificationName`` as a distinct type that
    /// derived it first (``Event/Kind/derivedNameCollision(with:)``).
    ///
    /// ``ObserverRegistry/derivedName(of:)`` runs it when it derives a type's name, once per type, with none of the
    /// package's locks held; a later post or observation reads the name from the type's record and never comes here.
    /// Does nothing in release builds.
    static func checkDerivedName<Named: Notifiable>(_ name: Notification.Name, of subject: Named.Type) {
        #if DEBUG
        guard let earlier = DerivedNames.earlierType(deriving: name, than: subject) else { return }
        report(.derivedNameCollision(with: earlier), for: subject, name: name, in: .default)
        #endif
    }

    // MARK: - Types bridged by halves

    /// Reports, in debug builds, a type with a name of its own whose ``Notifiable/userInfo(for:)`` writes what its
    /// ``Notifiable/payload(from:)`` cannot decode (``Event/Kind/halfBridged(missing:error:)``), `payload` being the
    /// payload of its first typed post.
    ///
    /// A type with a name of its own bridges a name that plain code posts and observes, and its two halves must agree:
    /// plain observers read what `userInfo(for:)` writes, plain posts reach typed observers through `payload(from:)`.
    /// The decoder is given the `userInfo` as plain observers receive it (bridged to Objective-C where Foundation does
    /// so), with the post's name and sender. The half named missing is `userInfo(for:)` when it writes the default
    /// layout (the payload alone under ``Foundation/Notification/typedPayloadKey``, or nothing), which a decoder that
    /// reads a legacy layout cannot read; `payload(from:)` when `userInfo(for:)` writes a layout of its own.
    ///
    /// `NotificationCenter.deliver` runs it once per type (``TypeRecord/takesBridgingCheck()``), before delivering, on the
    /// posting thread, with none of the package's locks held, as it calls both halves. Does nothing in release builds.
    @usableFromInline
    static func checkBridging<Posted: Notifiable>(
        _ payload: Posted.Payload,
        of subject: Posted.Type,
        name: Notification.Name,
        sender: AnyObject?,
        in center: NotificationCenter
    ) {
        #if DEBUG
        // A typed-only type's posts never reach plain observers, and plain posts never reach its typed ones.
        guard subject.postsThroughFoundation else { return }
        LockDiscipline.assertNoLockHeld("checks a type's bridging halves")
        let written = subject.userInfo(for: payload)
        let plain = Notification(name: name, object: sender, userInfo: Platform.postable(written))
        let error: any Error
        do {
            _ = try subject.payload(from: plain)
            return
        } catch let thrown {
            error = thrown
        }
        let payloadKey = AnyHashable(Notification.typedPayloadKey)
        let writesDefaultLayout = written?.keys.allSatisfy { $0 == payloadKey } ?? true
        let missing = writesDefaultLayout ? "userInfo(for:)" : "payload(from:)"
        report(.halfBridged(missing: missing, error: error), for: subject, name: name, in: center)
        #endif
    }

    // MARK: - The default reporter

    /// Writes `event` to standard error (or to ``defaultReportSink``) if it is one that debug builds report with no
    /// handler installed, and was not reported before.
    ///
    /// Called by `report` when no handler receives `event`, with none of the package's locks held.
    static func reportByDefault(_ event: Event) {
        // Worded and keyed before taking the lock: both describe user values (the error).
        let key: String
        switch event.kind {
        case .decodingFailed(let error):
            key = "\(ObjectIdentifier(event.type)) decodingFailed \(String(reflecting: error))"
        case .centerAsSender(let fileID, let line), .discardedToken(let fileID, let line),
            .deinitializingOwner(let fileID, let line), .inheritedConformance(let fileID, let line),
            .caseFilterOnNonEnum(let fileID, let line), .caseFilterWithAssociatedValue(_, let fileID, let line):
            key = "\(ObjectIdentifier(event.type)) \(event.kind) \(fileID):\(line)"
        case .centerAsPostSender:
            key = "\(ObjectIdentifier(event.type)) centerAsPostSender"
        case .deinitializingSender:
            key = "\(ObjectIdentifier(event.type)) deinitializingSender"
        case .derivedNameCollision:
            key = "\(ObjectIdentifier(event.type)) derivedNameCollision"
        case .halfBridged:
            key = "\(ObjectIdentifier(event.type)) halfBridged"
        case .unobserved, .dropped, .posted, .plainPostIgnored:
            return
        }
        let message =
            "TypedNotifications: \(event) (debug builds report this once; a NotificationDiagnostics handler receives "
            + "every report)"
        guard DefaultReports.reported.withLock({ $0.insert(key).inserted }) else { return }
        let sink = DefaultReports.sink.withLock { $0 }
        LockDiscipline.assertNoLockHeld("writes a diagnostic")
        if let sink {
            sink.write(message)
        } else {
            FileHandle.standardError.write(Data((message + "\n").utf8))
        }
    }
}

/// What the default reporter has reported, and where it writes: the state behind
/// ``NotificationDiagnostics/reportByDefault(_:)``.
enum DefaultReports {
    /// A sink in a class of its own, as ``NotificationDiagnostics``'s handlers are, so that no static is generic over
    /// a function type.
    final class Sink: Sendable {
        let write: @Sendable (String) -> Void
        init(_ write: @escaping @Sendable (String) -> Void) { self.write = write }
    }

    /// The key of each report made, so that each is made once. It grows by one short string per distinct type and
    /// error (or call site) reported, in debug builds only.
    ///
    /// Locked because posting threads report at once; the lock is held only to insert a key, which runs no user
    /// code (the key is worded before), and never while writing.
    static let reported = Locked<Set<String>>([])
    /// Where reports go instead of standard error; set by tests only (``NotificationDiagnostics/defaultReportSink``).
    ///
    /// Locked because a test sets it while other threads report; the lock is held only to read or swap the reference,
    /// and the sink is called, and a replaced one released, after it.
    static let sink = Locked<Sink?>(nil)
}
