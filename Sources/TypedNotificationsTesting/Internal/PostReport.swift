import TypedNotifications

/// What a recorder or expectation saw, worded for failure messages that name the notification type and say what was
/// posted.
///
/// ```
/// Expected 3 posts of Saved, but 2 were posted: Saved(id: 1), Saved(id: 2)
/// Expected no posts of Saved, but 1 was posted: Saved(id: 4); 1 post from other senders was ignored: Saved(id: 5)
/// Expected 1 post of Saved, but 2 were posted: Saved(id: 1), Saved(id: 2); 1 of them came from a thread outside any
///     task (such as a dispatch queue's), which may be code other than the block's: Saved(id: 2)
/// expected 1 post of Saved, but 2 were posted: Saved(id: 1), Saved(id: 2); 1 more than expected: Saved(id: 2)
/// ```
struct PostReport<Event: Notifiable> {
    /// Payloads listed in a message, at most; the rest are counted.
    static var listLimit: Int { 10 }

    /// The posts that counted.
    var matched: [Event.Payload] = []
    /// Posts from objects other than the sender observed for.
    var fromOtherSenders: [Event.Payload] = []
    /// Posts that a predicate rejected.
    var rejected: [Event.Payload] = []
    /// Why plain posts could not be decoded.
    var decodingErrors: [any Error] = []
    /// For an `expectPosts` block: those of `matched` made on a thread that runs no task, which cannot be traced to
    /// the block.
    var matchedOutsideTasks: [Event.Payload] = []
    /// For an `expectPosts` block: posts made in tasks that are not the block's, which do not count.
    var fromOtherTasks: [Event.Payload] = []

    /// The notification type as messages name it, such as `Saved` or `Box<Int>`.
    static var subjectName: String { String(describing: Event.self) }

    /// `no posts of Saved`, `1 post of Saved`, `3 posts of Saved`, plus ` from the given sender` when filtering.
    static func expectation(_ count: Int, filtersBySender: Bool) -> String {
        let amount = count == 0 ? "no posts" : count == 1 ? "1 post" : "\(count) posts"
        return "\(amount) of \(subjectName)" + (filtersBySender ? " from the given sender" : "")
    }

    /// `none was posted`, `1 was posted: Saved(id: 1)`, `2 were posted: Saved(id: 1), Saved(id: 2)`.
    var outcome: String {
        switch matched.count {
        case 0: "none was posted"
        case 1: "1 was posted" + Self.list(matched)
        default: "\(matched.count) were posted" + Self.list(matched)
        }
    }

    /// What else happened, each part starting with `; `, or an empty string.
    var ignored: String {
        var parts = ""
        if !matchedOutsideTasks.isEmpty {
            parts += "; \(matchedOutsideTasks.count) of them came from a thread outside any task (such as a dispatch "
            parts += "queue's), which may be code other than the block's" + Self.list(matchedOutsideTasks)
        }
        if !fromOtherTasks.isEmpty {
            parts += "; " + Self.posts(fromOtherTasks.count) + " from tasks outside the block (another test's, or a "
            parts += "detached task) " + (fromOtherTasks.count == 1 ? "was" : "were") + " not counted"
            parts += Self.list(fromOtherTasks)
        }
        if !fromOtherSenders.isEmpty {
            parts += "; " + Self.posts(fromOtherSenders.count) + " from other senders "
            parts += (fromOtherSenders.count == 1 ? "was" : "were") + " ignored" + Self.list(fromOtherSenders)
        }
        if !rejected.isEmpty {
            parts += "; " + Self.posts(rejected.count) + " not matching the predicate "
            parts += (rejected.count == 1 ? "was" : "were") + " ignored" + Self.list(rejected)
        }
        if !decodingErrors.isEmpty {
            parts += "; " + (decodingErrors.count == 1 ? "1 plain post" : "\(decodingErrors.count) plain posts")
            parts +=
                " could not be decoded: "
                + decodingErrors.prefix(Self.listLimit).map { "\($0)" }.joined(separator: "; ")
        }
        return parts
    }

    /// `; 1 more than expected: Saved(id: 2)`: the payloads of `matched` past `count`, or an empty string.
    func excess(over count: Int) -> String {
        let extra = Array(matched.dropFirst(count))
        guard !extra.isEmpty else { return "" }
        return "; \(extra.count) more than expected" + Self.list(extra)
    }

    /// `outcome` followed by `ignored`.
    var summary: String { outcome + ignored }

    private static func posts(_ count: Int) -> String {
        count == 1 ? "1 post" : "\(count) posts"
    }

    /// `: Saved(id: 1), Saved(id: 2)`, with `, and 3 more` past the limit; empty for `Void` payloads, which all read
    /// `()`.
    private static func list(_ payloads: [Event.Payload]) -> String {
        guard Event.Payload.self != Void.self, !payloads.isEmpty else { return "" }
        var text = ": " + payloads.prefix(listLimit).map { String(describing: $0) }.joined(separator: ", ")
        if payloads.count > listLimit {
            text += ", and \(payloads.count - listLimit) more"
        }
        return text
    }
}
