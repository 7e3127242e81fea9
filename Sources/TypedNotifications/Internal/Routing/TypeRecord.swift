import CTypedNotificationsRuntime
import Foundation

/// What the registry knows about one `Notifiable` type: its name, and its channels (one per center with observers).
///
/// Made when the type is first posted, observed or asked for its derived name, and kept for the life of the process
/// (a few words per type), so that ``TypeRecords`` can hand it to any thread without the registry's lock.
///
/// `@unchecked Sendable`: `channels` and `superseded` are used only under ``ObserverRegistry``'s lock; `subject`,
/// `name` and `keepsLatest` never change; `channelCount` and `bridgingCheck` are atomic.
final class TypeRecord: @unchecked Sendable {
    /// The `Notifiable` type's identity: the record's key in ``TypeRecords``.
    let subject: ObjectIdentifier
    let name: Notification.Name
    /// Whether the type is a ``LatestValueNotifiable`` (see ``ObserverRegistry/keepLatest(_:of:from:in:isolation:)``).
    let keepsLatest: Bool
    /// By center identity, so that a post finds its center's channel in one lookup however many other centers observe
    /// the type (one per document, window or test): Foundation's own post does not see the other centers either.
    /// The runtime's exclusivity checks, which cannot see the lock, are off, as for ``Channel/subscriptions``: they
    /// would add a dynamic access check to every lookup (they weigh on the post-1 row of the Performance article's
    /// instruction table), where the lock already makes each access exclusive.
    @exclusivity(unchecked) private var channels: [ObjectIdentifier: Channel] = [:]
    /// Channels of dead centers whose identity a new center's channel took. Only where Foundation keeps a dead
    /// center's observers (``Platform/checksCenterIdentity``): elsewhere a dead center's channels are dropped before its
    /// memory can be reused. Kept until their bridges end, which ends their observers
    /// (``ObserverRegistry/bridgeEnded(_:)``).
    private var superseded: [Channel] = []
    /// ``count``, written under the lock with the channels, read without it by a post (``hasChannels``).
    private let channelCount = AtomicWord.make()
    #if DEBUG
    /// Set for a type with a name of its own: its next typed post checks that its two bridging halves agree
    /// (``NotificationDiagnostics/checkBridging(_:of:name:sender:in:)``), and takes the flag, so that one post per
    /// type makes it and later posts pay nothing.
    private let bridgingCheck = AtomicWord.make()
    #endif

    init(of subject: ObjectIdentifier, name: Notification.Name, keepsLatest: Bool, checksBridging: Bool) {
        self.subject = subject
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

    /// The channel of `center`, which the caller holds; never a dead center's at the same address (``Platform/checksCenterIdentity``).
    /// Where identity is not enough, the weak reference is loaded too, only on an identity match: it is then `center`
    /// itself, so releasing the load cannot deallocate it under the lock, or `nil` for a dead center's channel.
    /// Only under the lock.
    func channel(in center: NotificationCenter) -> Channel? {
        guard let channel = channels[ObjectIdentifier(center)] else { return nil }
        return !Platform.checksCenterIdentity || channel.center === center ? channel : nil
    }

    /// Publishes `channel`, made for a center that ``channel(in:)`` found none for: one found under its identity is
    /// then a dead center's, kept aside until its bridge ends. Only under the lock.
    func add(_ channel: Channel) {
        if let dead = channels.updateValue(channel, forKey: channel.centerID) { superseded.append(dead) }
        channelCount.store(UInt64(count))
    }

    /// `false` if `channel` is not one of this type's. Only under the lock.
    func remove(_ channel: Channel) -> Bool {
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
/// thread without the lock, so that a post of a type with no observer anywhere takes no lock, as a plain post takes
/// none, and hashes nothing. A hand-rolled table, kept because it pays on the post-0 row of the Performance article's
/// instruction table (and the ratio tool's "post, 0 observers" row): a dictionary under the lock costs that row the
/// lock round trip and a hash of the identity.
///
/// Open addressing with linear probing; a slot is one word, `0` or the address of a record, retained for good, whose
/// ``TypeRecord/subject`` is compared with the key. A slot is written once, with a release store, after the record is
/// made; a reader loads it with acquire ordering, so it sees the record whole. A table more than half full is replaced
/// by one twice its size, published with a release store of its address. A replaced table is never freed: a reader
/// may still probe it, and what it finds there is as valid, since records never move or go (a record inserted since
/// is found under the lock); so all the tables together take at most twice the memory of the last.
///
/// `@unchecked Sendable`: the slots and the table's address are accessed only through C11 atomics, a table's size word
/// is written before the table is published, and `count` is used only under the registry's lock.
final class TypeRecords: @unchecked Sendable {
    /// The address of the current table: its mask (slots − 1), then its slots.
    private let table = AtomicWord.make()
    /// Records inserted; only under the lock.
    private var count = 0

    init() {
        table.store(UInt64(UInt(bitPattern: Self.makeTable(slots: 64))))
    }

    /// The record of the type `subject`, if it has one; from any thread, without the lock.
    subscript(subject: ObjectIdentifier) -> TypeRecord? {
        let table = currentTable
        let mask = table.pointee
        var index = Self.index(of: subject, mask: mask)
        while let record = Self.record(at: index, in: table) {
            if record.subject == subject { return record }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Inserts `record`, whose type has none; only under the lock.
    func insert(_ record: TypeRecord) {
        var table = currentTable
        if (count + 1) * 2 > Int(table.pointee) + 1 {
            let larger = Self.makeTable(slots: (Int(table.pointee) + 1) * 2)
            for old in values(in: table) { Self.place(old, in: larger) }
            self.table.store(UInt64(UInt(bitPattern: larger)))
            table = larger
        }
        // Safe to retain for good and never release: records live as long as the process, and a reader may hold
        // this address at any time, so the table's words are unretained references that never dangle.
        _ = Unmanaged.passRetained(record)
        Self.place(record, in: table)
        count += 1
    }

    /// Every record, in no order; only under the lock.
    var values: [TypeRecord] { values(in: currentTable) }

    private var currentTable: UnsafeMutablePointer<UInt64> {
        // Safe: the address is that of a table made by `makeTable`, never freed.
        UnsafeMutablePointer(bitPattern: UInt(table.load()))!
    }

    private func values(in table: UnsafeMutablePointer<UInt64>) -> [TypeRecord] {
        (0...table.pointee).compactMap { Self.record(at: $0, in: table) }
    }

    /// Fibonacci hashing: the high bits of the product spread metadata addresses, which share their low bits.
    private static func index(of subject: ObjectIdentifier, mask: UInt64) -> UInt64 {
        ((UInt64(UInt(bitPattern: subject)) &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    private static func record(at index: UInt64, in table: UnsafeMutablePointer<UInt64>) -> TypeRecord? {
        let word = tn_atomic_load_acquire(table + 1 + Int(index))
        // Safe: a slot's word is `0` or a record retained by `insert` and never released.
        return UnsafeRawPointer(bitPattern: UInt(word)).map {
            Unmanaged<TypeRecord>.fromOpaque($0).takeUnretainedValue()
        }
    }

    private static func makeTable(slots: Int) -> UnsafeMutablePointer<UInt64> {
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 + slots)
        table.initialize(repeating: 0, count: 1 + slots)
        table.pointee = UInt64(slots - 1)
        return table
    }

    private static func place(_ record: TypeRecord, in table: UnsafeMutablePointer<UInt64>) {
        let mask = table.pointee
        var index = index(of: record.subject, mask: mask)
        while Self.record(at: index, in: table) != nil { index = (index + 1) & mask }
        // Safe unretained: `insert` retained the record for good; the release store publishes it to lock-free readers
        // only after its fields are set.
        tn_atomic_store_release(
            table + 1 + Int(index), UInt64(UInt(bitPattern: Unmanaged.passUnretained(record).toOpaque())))
    }
}
