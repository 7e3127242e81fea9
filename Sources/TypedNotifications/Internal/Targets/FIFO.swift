/// A first-in, first-out queue that gives back the slots of taken items as it goes, so that a standing backlog (a few
/// items queued while a few are taken, for ever) keeps its memory bounded by twice the largest backlog.
///
/// Items are user values: ``take()`` moves an item out of its slot, so that the caller releases it (outside any
/// lock); compacting moves only empty slots.
struct FIFO<Item> {
    /// Queued items from `head` on; the slots before `head` were emptied when taken.
    private(set) var slots: [Item?] = []
    private var head = 0

    var isEmpty: Bool { head == slots.count }
    /// The oldest item, left in the queue.
    var first: Item? { head < slots.count ? slots[head] : nil }
    var count: Int { slots.count - head }

    mutating func append(_ item: consuming Item) {
        slots.append(item)
    }

    mutating func take() -> Item? {
        guard head < slots.count else { return nil }
        var item: Item?
        swap(&item, &slots[head])
        head += 1
        if head == slots.count {
            // Emptied: every slot is `nil`. One slot (a queue that keeps up) goes without `removeAll`'s generic
            // range replacement (the main-actor-1 row of the Performance article's instruction table).
            if head == 1 { slots.removeLast() } else { slots.removeAll(keepingCapacity: true) }
            head = 0
        } else if head >= 32, head * 2 >= slots.count {
            // At least half the slots are empty: drop them, at a cost shared by the takes that emptied them.
            slots.removeFirst(head)
            head = 0
        }
        return item
    }

    /// Removes the queued items that match, keeping the others in order; hands the removed ones to the caller to
    /// release.
    mutating func removeAll(where matches: (Item) -> Bool) -> [Item] {
        var removed: [Item] = []
        var kept: [Item?] = []
        for index in head..<slots.count {
            guard let item = slots[index] else { continue }
            if matches(item) { removed.append(item) } else { kept.append(item) }
        }
        guard !removed.isEmpty else { return [] }
        slots = kept
        head = 0
        return removed
    }

    /// Empties the queue, handing the items to the caller to release.
    mutating func removeAll() -> [Item?] {
        var dropped: [Item?] = []
        swap(&dropped, &slots)
        head = 0
        return dropped
    }
}
