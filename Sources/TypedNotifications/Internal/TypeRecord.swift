import Foundation

/// What the registry knows about one `Notifiable` type: its name, and its channels (one per center with observers).
///
/// Kept in the registry's state, so read and written only under its lock. A type's record is made the first time the
/// type is posted, observed or asked for its derived name, and kept for the life of the process: a few words per type.
struct TypeRecord {
    let name: Notification.Name
    /// Whether the type is a ``LatestValueNotifiable``: its posts then keep the latest post (see
    /// ``ObserverRegistry/keepLatest(_:of:from:in:)``).
    let keepsLatest: Bool
    private(set) var channels: [AnyChannel] = []

    init(name: Notification.Name, keepsLatest: Bool) {
        self.name = name
        self.keepsLatest = keepsLatest
    }

    /// The channel of `center`, never a dead center's at the same address; `center` is held by the caller.
    ///
    /// By identity, where Foundation releases a dead center's observers (and so the package drops its channels before
    /// the address can be reused; see ``CenterIdentity``). Elsewhere the channel's weak reference is loaded too, only
    /// when the identity is `center`'s: it is then `center` itself, which the caller holds (so releasing the load
    /// cannot deallocate it under the lock), or `nil`, when the channel belongs to a dead center.
    func channel(in center: NotificationCenter) -> AnyChannel? {
        let id = ObjectIdentifier(center)
        return channels.first { $0.centerID == id && (!CenterIdentity.isChecked || $0.center === center) }
    }

    mutating func add(_ channel: AnyChannel) {
        channels.append(channel)
    }

    /// `false` if `channel` is not one of this type's.
    mutating func remove(_ channel: AnyChannel) -> Bool {
        guard let index = channels.firstIndex(where: { $0 === channel }) else { return false }
        channels.remove(at: index)
        return true
    }
}
