public import Foundation

extension NotificationCenter {
    /// How many typed observers, and how many Foundation observers for them, the package holds for this center; for
    /// tests that check that ended observations leave nothing behind.
    ///
    /// Observations whose owner is gone are dropped first, as the next post would drop them. Behind
    /// `@_spi(Testing)`: it is a test hook, not part of the supported API.
    ///
    /// ```swift
    /// @_spi(Testing) import TypedNotifications
    ///
    /// struct CounterDidChange: Notifiable { let count: Int }
    /// let center = NotificationCenter()
    /// let token = center.observe(CounterDidChange.self) { _ in }
    /// token.cancel()
    /// assert(center.typedRegistrationCounts() == (0, 0))
    /// ```
    @_spi(Testing)
    public func typedRegistrationCounts() -> (observers: Int, foundationObservers: Int) {
        ObserverRegistry.shared.registrationCounts(in: self)
    }
}
