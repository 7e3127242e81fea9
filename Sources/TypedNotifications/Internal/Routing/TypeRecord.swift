import Foundation

/// What the registry knows about one `Notifiable` type: its name, and its channels (one per center with observers).
///
/// Used only under the registry's lock. Made when the type is first posted, observed or asked for its derived name,
/// and kept for the life of the process: a few words per type.
struct TypeRecord {
    let name: Notification.Name
    /// Whether the type is a ``LatestValueNotifiable`` (see ``ObserverRegistry/keepLatest(_:of:from:in:)``).
    let keepsLatest: Bool
    var channels: [AnyChannel] = []
    #if DEBUG
    /// Whether the type's next typed post checks that its two bridging halves agree
    /// (``NotificationDiagnostics/checkBridging(_:of:name:sender:in:)``): set for a type with a name of its own, and
    /// cleared by the post that takes the check, so that one post per type makes it and later posts pay nothing.
    var checksBridging = false
    #endif

    /// The channel of `center`, which the caller holds; never a dead center's at the same address (``CenterIdentity``).
    /// Where identity is not enough, the weak reference is loaded too, only on an identity match: it is then `center`
    /// itself, so releasing the load cannot deallocate it under the lock, or `nil` for a dead center's channel.
    func channel(in center: NotificationCenter) -> AnyChannel? {
        let id = ObjectIdentifier(center)
        return channels.first { $0.centerID == id && (!CenterIdentity.isChecked || $0.center === center) }
    }

    /// `false` if `channel` is not one of this type's.
    mutating func remove(_ channel: AnyChannel) -> Bool {
        guard let index = channels.firstIndex(where: { $0 === channel }) else { return false }
        channels.remove(at: index)
        return true
    }
}
