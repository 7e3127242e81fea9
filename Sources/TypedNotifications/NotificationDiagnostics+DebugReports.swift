public import Foundation

// Debug builds are loud: with no diagnostics handler installed, the mistakes that would otherwise go unnoticed are
// written to standard error, once each, as Foundation's Message API logs a runtime issue. Release builds never report
// by default, and `checkSenderFilter` compiles to nothing there.

extension NotificationDiagnostics {
    // MARK: - Sender filters

    /// Reports, in debug builds, an observing call whose sender filter is a `NotificationCenter`.
    ///
    /// `CounterDidChange.observe(from: center) { … }` compiles where `observe(in: center)` was meant: the sender filter
    /// of a type whose `Sender` is `AnyObject` accepts a center. It observes the default center for posts whose sender
    /// is that center object, and never fires. Every observing call passes its sender filter here, before it
    /// registers the observation; nothing happens unless `sender` is a center.
    ///
    /// The report, ``Event/Kind/centerAsSender(fileID:line:)``, goes where every report goes: to the handler of the
    /// innermost open ``withHandler(_:operation:)`` scope, or the process-wide one (see ``setHandler(_:)``), each
    /// time; with no handler, to standard error, once per call site. Runs on the observing thread; it calls the
    /// handler synchronously, so call it with none of the package's locks held. Does nothing in release builds.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// // What `CounterDidChange.observe(from: center) { … }` checks first, in a debug build: reported.
    /// NotificationDiagnostics.checkSenderFilter(
    ///     center, for: CounterDidChange.self, in: .default, file: #fileID, line: #line)
    /// ```
    ///
    /// - Parameters:
    ///   - sender: The sender filter passed to the observing call (`from:`), if any.
    ///   - subject: The observed type.
    ///   - center: The center observed (`in:`).
    ///   - file: The `#fileID` of the observing call.
    ///   - line: The `#line` of the observing call.
    @usableFromInline
    package static func checkSenderFilter<Observed: Notifiable>(
        _ sender: AnyObject?,
        for subject: Observed.Type,
        in center: NotificationCenter,
        file: StaticString,
        line: UInt
    ) {
        checkSenderFilter(sender, for: subject, in: center, site: ObservationSite(fileID: file, line: line))
    }

    /// As ``checkSenderFilter(_:for:in:file:line:)``, with the call site as the registration keeps it; what every
    /// observing call runs before it registers.
    @usableFromInline
    static func checkSenderFilter<Observed: Notifiable>(
        _ sender: AnyObject?,
        for subject: Observed.Type,
        in center: NotificationCenter,
        site: ObservationSite
    ) {
        #if DEBUG
        guard sender is NotificationCenter else { return }
        let kind = Event.Kind.centerAsSender(fileID: site.fileID, line: Int(site.line))
        report(kind, for: subject, name: subject.notificationName, in: center)
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
        case .centerAsSender(let fileID, let line):
            key = "\(ObjectIdentifier(event.type)) centerAsSender \(fileID):\(line)"
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
