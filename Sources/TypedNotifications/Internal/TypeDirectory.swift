import CTypedNotificationsRuntime
import Foundation

/// What the registry knows about one `Notifiable` type: its name, and its channels (one per center with observers).
///
/// A record is made once per type and never freed, so a post can hold it without retaining it. `name` and `id` never
/// change. `channels` is read and written only under `ObserverRegistry`'s lock (hence `@unchecked Sendable`, and the
/// runtime's exclusivity checks, which cannot see that lock, switched off: they cost 3.8% of an observe-then-cancel
/// cycle, 7.6% together with those of ``AnySubscription/sender``, 2,150 → 2,314 instructions; callgrind,
/// `Benchmarks/instructions.sh`); `channelCount` mirrors its count atomically, so that a post can see without the lock
/// that the type has no channel at all.
final class TypeRecord: @unchecked Sendable {
    let id: ObjectIdentifier
    let name: Notification.Name
    @exclusivity(unchecked) private(set) var channels: [AnyChannel] = []
    let channelCount = AtomicWord.make()
    /// Whether the type is a ``LatestValueNotifiable``: its posts then always take the registry's lock, to keep the
    /// latest post.
    let keepsLatest: Bool

    init(id: ObjectIdentifier, name: Notification.Name, keepsLatest: Bool) {
        self.id = id
        self.name = name
        self.keepsLatest = keepsLatest
    }

    /// The channel of `center`, never a dead center's at the same address: only under the registry's lock, with
    /// `center` held by the caller.
    ///
    /// By identity, where Foundation releases a dead center's observers (and so the package drops its channels before
    /// the address can be reused; see ``CenterIdentity``). Elsewhere the channel's weak reference is loaded too, only
    /// when the identity is `center`'s: it is then `center` itself, which the caller holds (so releasing the load
    /// cannot deallocate it under the lock), or `nil`, when the channel belongs to a dead center.
    func channel(in center: NotificationCenter) -> AnyChannel? {
        let id = ObjectIdentifier(center)
        guard CenterIdentity.isChecked else { return channels.first { $0.centerID == id } }
        return channels.first { $0.centerID == id && $0.center === center }
    }

    /// Only under the registry's lock.
    func add(_ channel: AnyChannel) {
        channels.append(channel)
        channelCount.store(UInt64(channels.count))
    }

    /// Only under the registry's lock; `false` if `channel` is not one of this type's.
    @discardableResult
    func remove(_ channel: AnyChannel) -> Bool {
        guard let index = channels.firstIndex(where: { $0 === channel }) else { return false }
        channels.remove(at: index)
        channelCount.store(UInt64(channels.count))
        return true
    }
}

/// The records of all `Notifiable` types, found by type without a lock: an open-addressing hash table of
/// (type identity, record) pairs in plain words, read with atomic loads. It is the registry's only store of records.
///
/// It pays for its complexity on posts of types nobody observes: looking the record up in a dictionary under the
/// registry's lock instead costs 5.7% more instructions for a post with no observers (3,995 → 4,223), 1.7% with one;
/// and an observe-then-cancel cycle, which looked its record up in such a dictionary too, costs 4.7% less without it
/// (2,375 → 2,263; callgrind, `Benchmarks/instructions.sh`).
///
/// Records are only ever added, under `ObserverRegistry`'s lock, by one writer at a time. A writer stores a pair's
/// record before its key (release), and a reader loads the key (acquire) before the record, so a reader that finds a
/// key finds its record. When the table is half full, the writer copies it into one twice the size and publishes
/// that; the old table is never freed, since readers may still be probing it (it stays valid, merely missing newer
/// types, which they then find under the lock). The tables together take at most twice the last one's size: a few
/// words per type, for the life of the process.
enum TypeDirectory {
    /// The current table: `capacity` (a power of two) in word 0, then `capacity` pairs of words.
    private static let current = AtomicWord.make()
    /// How many records the current table holds. `nonisolated(unsafe)` is safe because it is read and written only by
    /// `insert(_:)`, which runs only under `ObserverRegistry`'s lock: one writer at a time, and readers never touch it.
    nonisolated(unsafe) private static var count = 0

    /// The record of the type `id`, if it has one; free of locks.
    @inline(__always)
    static func record(for id: ObjectIdentifier) -> TypeRecord? {
        let bits = current.load()
        guard bits != 0, let table = UnsafeMutablePointer<UInt64>(bitPattern: UInt(bits)) else { return nil }
        let key = UInt64(UInt(bitPattern: id))
        let mask = tn_atomic_load_relaxed(table) - 1
        var slot = hash(key) & mask
        while true {
            let pair = table + 1 + Int(slot) * 2
            let found = tn_atomic_load_acquire(pair)
            if found == key {
                let record = tn_atomic_load_relaxed(pair + 1)
                // Safe: records are retained forever by `insert(_:)`.
                return Unmanaged<TypeRecord>.fromOpaque(UnsafeRawPointer(bitPattern: UInt(record))!)
                    .takeUnretainedValue()
            }
            if found == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Every record; only under the registry's lock, so that none is added meanwhile.
    static func records() -> [TypeRecord] {
        guard let table = UnsafeMutablePointer<UInt64>(bitPattern: UInt(current.load())) else { return [] }
        return (0..<Int(tn_atomic_load_relaxed(table))).compactMap { slot in
            let pair = table + 1 + slot * 2
            guard tn_atomic_load_relaxed(pair) != 0 else { return nil }
            let record = UnsafeRawPointer(bitPattern: UInt(tn_atomic_load_relaxed(pair + 1)))!
            // Safe: records are retained forever by `insert(_:)`.
            return Unmanaged<TypeRecord>.fromOpaque(record).takeUnretainedValue()
        }
    }

    /// Adds `record`, retaining it forever. Only under the registry's lock, for a type that has no record yet.
    static func insert(_ record: TypeRecord) {
        var table = UnsafeMutablePointer<UInt64>(bitPattern: UInt(current.load()))
        let capacity = table.map { Int(tn_atomic_load_relaxed($0)) } ?? 0
        if (count + 1) * 2 > capacity {
            let grown = makeTable(capacity: max(16, capacity * 2))
            if let table {
                for slot in 0..<capacity {
                    let pair = table + 1 + slot * 2
                    let key = tn_atomic_load_relaxed(pair)
                    if key != 0 { place(key: key, value: tn_atomic_load_relaxed(pair + 1), in: grown) }
                }
            }
            current.store(UInt64(UInt(bitPattern: grown)))
            table = grown
        }
        // Retained here and never released: that is what makes `record(for:)`'s unretained reads of the pointer safe
        // (the record outlives every table that refers to it, and types are never forgotten).
        let value = UInt64(UInt(bitPattern: Unmanaged.passRetained(record).toOpaque()))
        place(key: UInt64(UInt(bitPattern: record.id)), value: value, in: table!)
        count += 1
    }

    private static func makeTable(capacity: Int) -> UnsafeMutablePointer<UInt64> {
        let table = UnsafeMutablePointer<UInt64>.allocate(capacity: 1 + capacity * 2)
        table.initialize(repeating: 0, count: 1 + capacity * 2)
        tn_atomic_store_relaxed(table, UInt64(capacity))
        return table
    }

    private static func place(key: UInt64, value: UInt64, in table: UnsafeMutablePointer<UInt64>) {
        let mask = tn_atomic_load_relaxed(table) - 1
        var slot = hash(key) & mask
        while tn_atomic_load_relaxed(table + 1 + Int(slot) * 2) != 0 { slot = (slot + 1) & mask }
        let pair = table + 1 + Int(slot) * 2
        tn_atomic_store_relaxed(pair + 1, value)
        tn_atomic_store_release(pair, key)
    }

    /// Metadata addresses are aligned and clustered: mix the bits before masking.
    @inline(__always)
    private static func hash(_ key: UInt64) -> UInt64 {
        (key &* 0x9E37_79B9_7F4A_7C15) >> 32
    }
}
