import Foundation

// Debug builds are loud: with no diagnostics handler installed, the mistakes that would otherwise go unnoticed are
// written to standard error, once each, as Foundation's Message API logs a runtime issue. Release builds never report
// by default.

extension NotificationDiagnostics {
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
    /// error reported, in debug builds only.
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
