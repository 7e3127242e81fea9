import CTypedNotificationsRuntime
import Foundation

/// What the registry knows about one `Notifiable` type: its name, and its channels (one per center with observers).
///
/// Made when the type is first posted, observed or asked for its derived name, and kept for the life of the process
/// (a few words per type), so that ``TypeRecords`` can hand it to any thread without the registry's lock.
///
/// `@unchecked Sendable`: `channels` and `superseded` are used only under ``ObserverRegistry``'s lock; `name` and
/// `keepsLatest` never change; `channelCount` and `bridgingCheck` are atomic.
final class TypeRecord: @unchecked Sendable {
    let name: Notification.Name
    /// Whether the type is a ``LatestValueNotifiable`` (see ``ObserverRegistry/keepLatest(_:of:from:in:)``).
    let keepsLatest: Bool
    /// By center identity, so that a post finds its center's channel in one lookup however many other centers observe
    /// the type (one per document, window or test): Foundation's own post does not see the other centers either.
    /// The runtime's exclusivity checks, which cannot see the lock, are off, as for ``AnyChannel/subscriptions``: they
    /// would add a dynamic access check to every lookup (about 120 instructions on the post-1 row of the Performance
    /// article's instruction table), where the lock already makes each access exclusive.
    @exclusivity(unchecked) private var channels: [ObjectIdentifier: AnyChannel] = [:]
    /// Channels of dead centers whose identity a new center's channel took. Only where Foundation keeps a dead
    /// center's observers (``CenterIdentity/isChecked``): elsewhere a dead center's channels are dropped before its
    /// memory can be reused. Kept until their bridges end, which ends their observers
    /// (``ObserverRegistry/bridgeEnded(_:)``).
    private var superseded: [AnyChannel] = []
    /// ``count``, written under the lock with the channels, read without it by a post (``hasChannels``).
    private let channelCount = AtomicWord.make()
    #if DEBUG
    /// Set for a type with a name of its own: its next typed post checks that its two bridging halves agree
    /// (``NotificationDiagnostics/checkBridging(_:of:name:sender:in:)``), and takes the flag, so that one post per
    /// type makes it and later posts pay nothing.
    private let bridgingCheck = AtomicWord.make()
    #endif

    init(name: Notification.Name, keepsLatest: Bool, checksBridging: Bool) {
        self.name = name
        self.keepsLatest = keepsLatest
        #if DEBUG
        if checksBridging { bridgingCheck.store(1) }
        #endif
    }

    /// Whether the type has a channel on any center; without the lock. A post that reads `false` while another thread
    /// publishes the type's first channel is made before it, as if it had taken the lock first; one that begins after
    /// the publication (ordered after it, as by the observing call's return) reads `true`.
    var hasChannels: Bool { channelCount.load() != 0 }

    #if DEBUG
    /// Whether this post makes the type's bridging check; `true` for one post at most.
    func takesBridgingCheck() -> Bool {
        bridgingCheck.isSet && bridgingCheck.exchange(0) != 0
    }
    #endif

    /// The channel of `center`, which the caller holds; never a dead center's at the same address (``CenterIdentity``).
    /// Where identity is not enough, the weak reference is loaded too, only on an identity match: it is then `center`
    /// itself, so releasing the load cannot deallocate it under the lock, or `nil` for a dead center's channel.
    /// Only under the lock.
    func channel(in center: NotificationCenter) -> AnyChannel? {
        guard let channel = channels[ObjectIdentifier(center)] else { return nil }
        return !CenterIdentity.isChecked || channel.center === center ? channel : nil
    }

    /// Publishes `channel`, made for a center that ``channel(in:)`` found none for: one found under its identity is
    /// then a dead center's, kept aside until its bridge ends. Only under the lock.
    func add(_ channel: AnyChannel) {
        if let dead = channels.updateValue(channel, forKey: channel.centerID) { superseded.append(dead) }
        channelCount.store(UInt64(count))
    }

    /// `false` if `channel` is not one of this type's. Only under the lock.
    func remove(_ channel: AnyChannel) -> Bool {
        if channels[channel.centerID] === channel {
            channels[channel.centerID] = nil
        } else if let index = superseded.firstIndex(where: { $0 === channel }) {
            superseded.remove(at: index)
        } else {
            return false
        }
        channelCount.store(UInt64(count))
        return true
    }

    /// How many channels the type has, on every center, dead ones kept aside included. Only under the lock.
    var count: Int { channels.count + superseded.count }
}

/// Every ``TypeRecord``, by its type's identity: inserted under the registry's lock, never removed, and found by any
/// thread without the lock, so that a post of a type with no observer anywhere takes no lock. That is what a plain
/// post costs too: the lock and a dictionary lookup were the difference on the post-0 row of the Performance article's
/// instruction table (and the ratio tool's "post, 0 observers" row).
///
/// Open addressing with linear probing, over pairs of words: the type's identity (`0` for an empty slot), then its
/// record, retained for good. An insertion writes the record, then the identity with a release store; a reader loads
/// the identity with acquire ordering, so it sees the record whole. A table more than half full is replaced by one
/// twice its size, published with a release store of its address. A replaced table is never freed: a reader may still
/// probe it, and what it finds there is as valid, since records never move or go; so all tables together take at most
/// twice the memory of the last.
///
/// `@unchecked Sendable`: the slots and the table's address are accessed only through C11 atomics, and a table's
/// size word is written before the table is published; `count` is used only under the registry's lock.
final class TypeRecords: @unchecked Sendable {
    /// The address of the current table: its mask (slots − 1), then the slots' pairs of words.
    private let table = AtomicWord.make()
    /// Records inserted; only under the lock.
    private var count = 0

    init() {
        table.store(UInt64(UInt(bitPattern: Self.makeTable(slots: 64))))
    }

    /// The record of the type `id`, if it has one; from any thread, without the lock.
    subscript(id: ObjectIdentifier) -> TypeRecord? {
        // Safe: the address is that of a table made by `makeTable`, never freed.
        let table = UnsafeMutablePointer<UInt64>(bitPattern: UInt(self.table.load()))!
        let key = Self.key(id)
        let mask = table.pointee
        var index = Self.index(of: key, mask: mask)
        while true {
            let pair = table + 1 + 2 * Int(index)
            switch tn_atomic_load_acquire(pair) {
            case key:
                // Safe: the second word of a pair is the retained record inserted with the first, never released.
                let record = UnsafeRawPointer(bitPattern: UInt(tn_atomic_load_relaxed(pair + 1)))!
                return Unmanaged<TypeRecord>.fromOpaque(record).takeUnretainedValue()
            case 0:
                return nil
            default:
                index = (index + 1) & mask
            }
        }
    }

    /// Inserts `record` for the type `id`, which has none; only under the lock.
    func insert(_ record: TypeRecord, for id: ObjectIdentifier) {
        var table = UnsafeMutablePointer<UInt64>(bitPattern: UInt(self.table.load()))!
        if (count + 1) * 2 > Int(table.pointee) + 1 {
            let larger = Self.makeTable(slots: (Int(table.pointee) + 1) * 2)
            Self.forEachPair(in: table) { key, record in Self.place(key, record, in: larger) }
            self.table.store(UInt64(UInt(bitPattern: larger)))
            table = larger
        }
        let retained = UInt64(UInt(bitPattern: Unmanaged.passRetained(record).toOpaque()))
        Self.place(Self.key(id), retained, in: table)
        count += 1
    }

    /// Every record, in no order; only under the lock.
    var values: [TypeRecord] {
        var records: [TypeRecord] = []
        let table = UnsafeMutablePointer<UInt64>(bitPattern: UInt(self.table.load()))!
        Self.forEachPair(in: table) { _, record in
            let pointer = UnsafeRawPointer(bitPattern: UInt(record))!
            records.append(Unmanaged<TypeRecord>.fromOpaque(pointer).takeUnretainedValue())
        }
        return records
    }

    private static func key(_ id: ObjectIdentifier) -> UInt64 {
        UInt64(UInt(bitPattern: id))
    }

    /// Fibonacci hashing: the high bits of the product spread metadata addresses, which share their low bits.
    private static func index(of key: UInt64, mask: UInt64) -> UInt64 {
        ((key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private static func makeTable(slots: Int) -> UnsafeMutablePointer<UInt64> {
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 + 2 * slots)
        table.initialize(repeating: 0, count: 1 + 2 * slots)
        table.pointee = UInt64(slots - 1)
        return table
    }

    private static func place(_ key: UInt64, _ record: UInt64, in table: UnsafeMutablePointer<UInt64>) {
        let mask = table.pointee
        var index = index(of: key, mask: mask)
        while tn_atomic_load_relaxed(table + 1 + 2 * Int(index)) != 0 { index = (index + 1) & mask }
        let pair = table + 1 + 2 * Int(index)
        tn_atomic_store_release(pair + 1, record)
        tn_atomic_store_release(pair, key)
    }

    private static func forEachPair(in table: UnsafeMutablePointer<UInt64>, _ body: (UInt64, UInt64) -> Void) {
        for index in 0...Int(table.pointee) {
            let pair = table + 1 + 2 * index
            let key = tn_atomic_load_relaxed(pair)
            if key != 0 { body(key, tn_atomic_load_relaxed(pair + 1)) }
        }
    }
}
