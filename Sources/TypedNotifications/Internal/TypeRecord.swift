import Foundation

/// What the registry knows about one `Notifiable` type: its name, and its channels (one per center with observers).
///
/// Used only under the registry's lock. Made when the type is first posted, observed or asked for its derived name,
/// and kept for the life of the process: a few words per type.
struct TypeRecord {
    let name: Notification.Name
    /// Whether the type is a ``LatestValueNotifiable`` (see ``ObserverRegistry/keepLatest(_:of:from:in:)``).
    let keepsLatest: Bool
    /// By center identity, so that a post finds its center's channel in one lookup however many other centers observe
    /// the type (one per document, window or test): Foundation's own post does not see the other centers either.
    private var channels: [ObjectIdentifier: AnyChannel] = [:]
    /// Channels of dead centers whose identity a new center's channel took. Only where Foundation keeps a dead
    /// center's observers (``CenterIdentity/isChecked``): elsewhere a dead center's channels are dropped before its
    /// memory can be reused. Kept until their bridges end, which ends their observers (``ObserverRegistry/bridgeEnded(_:)``).
    private var superseded: [AnyChannel] = []
    #if DEBUG
    /// Whether the type's next typed post checks that its two bridging halves agree
    /// (``NotificationDiagnostics/checkBridging(_:of:name:sender:in:)``): set for a type with a name of its own, and
    /// cleared by the post that takes the check, so that one post per type makes it and later posts pay nothing.
    var checksBridging = false
    #endif

    init(name: Notification.Name, keepsLatest: Bool) {
        self.name = name
        self.keepsLatest = keepsLatest
    }

    /// The channel of `center`, which the caller holds; never a dead center's at the same address (``CenterIdentity``).
    /// Where identity is not enough, the weak reference is loaded too, only on an identity match: it is then `center`
    /// itself, so releasing the load cannot deallocate it under the lock, or `nil` for a dead center's channel.
    func channel(in center: NotificationCenter) -> AnyChannel? {
        guard let channel = channels[ObjectIdentifier(center)] else { return nil }
        return !CenterIdentity.isChecked || channel.center === center ? channel : nil
    }

    /// Publishes `channel`, made for a center that ``channel(in:)`` found none for: one found under its identity is
    /// then a dead center's, kept aside until its bridge ends.
    mutating func add(_ channel: AnyChannel) {
        if let dead = channels.updateValue(channel, forKey: channel.centerID) { superseded.append(dead) }
    }

    /// `false` if `channel` is not one of this type's.
    mutating func remove(_ channel: AnyChannel) -> Bool {
        if channels[channel.centerID] === channel {
            channels[channel.centerID] = nil
            return true
        }
        guard let index = superseded.firstIndex(where: { $0 === channel }) else { return false }
        superseded.remove(at: index)
        return true
    }

    /// How many channels the type has, on every center, dead ones kept aside included.
    var channelCount: Int { channels.count + superseded.count }
}
