extension NotificationDiagnostics {
    /// Where debug builds write what they report with no handler installed: standard error while `nil`, the
    /// default; for the package's tests, which check what the default reporter says.
    ///
    /// Setting it, to a sink or back to `nil`, also forgets what was reported, so that a test sees each report once
    /// more. The sink is called on the reporting thread, with none of the package's locks held. Process-wide, so only
    /// a serialized suite may set it.
    ///
    /// ```swift
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = CounterDidChange.observe(in: center) { _ in }
    /// NotificationDiagnostics.defaultReportSink = { message in print("reported: \(message)") }
    /// center.post(name: CounterDidChange.notificationName, object: nil)   // debug builds: "reported: …"
    /// NotificationDiagnostics.defaultReportSink = nil
    /// ```
    package static var defaultReportSink: (@Sendable (String) -> Void)? {
        get { DefaultReports.sink.withLock { $0 }?.write }
        set {
            // The replaced sink is released after the lock, since releasing it may run any deinitialiser.
            let replaced = DefaultReports.sink.withLock { sink in
                defer { sink = newValue.map(DefaultReports.Sink.init) }
                return sink
            }
            DefaultReports.reported.withLock { $0.removeAll() }
            withExtendedLifetime(replaced) {}
        }
    }
}
