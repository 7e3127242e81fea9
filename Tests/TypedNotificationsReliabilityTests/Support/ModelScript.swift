import TypedNotificationsTestSupport

/// The operations of the model-based tests, and the seeded generator that scripts them.
///
/// A script is plain data: the reference model and the real package run the same script, and every choice (which
/// observer reacts, whom it cancels, what it posts) is made here, when the step is generated, never while it runs.

// MARK: - Operations

/// Who posts, or whom an observer filters on: nobody (`nil`), or the object currently in one sender slot.
enum SenderChoice: Hashable, CustomStringConvertible {
    case none
    case slot(Int)

    var description: String {
        switch self {
        case .none: "nil"
        case .slot(let slot): "slot \(slot)"
        }
    }
}

/// A plain post that typed observers must skip.
enum UndecodablePost: CaseIterable {
    case noUserInfo
    case missingKey
    case wrongType
}

enum PostStyle: CustomStringConvertible {
    /// `Tick(id:).post(from:in:)`.
    case typed
    /// `center.post(name:object:userInfo:)` with the payload under `Notification.typedPayloadKey`.
    case plain
    /// A plain post under the same name that does not decode.
    case undecodable(UndecodablePost)

    var description: String {
        switch self {
        case .typed: "typed"
        case .plain: "plain"
        case .undecodable(let kind): "undecodable(\(kind))"
        }
    }

    var isDecodable: Bool {
        if case .undecodable = self { return false }
        return true
    }
}

struct PostSpec: CustomStringConvertible {
    let id: Int
    let sender: SenderChoice
    let style: PostStyle

    var description: String { "\(style) post #\(id) from \(sender)" }
}

/// What the plain re-posting observer does when it sees a typed post, from inside its Foundation delivery.
enum Repost: CustomStringConvertible {
    /// Posts anew: a typed post, or a plain one with a new `userInfo`.
    case fresh(PostSpec)
    /// Posts the very notification again: `post(_:)`, or `post(name:object:userInfo:)` with the same values.
    case verbatim(asNotification: Bool)
    /// Adds a typed observer, then re-posts verbatim.
    case observeThenVerbatim(ObserverSpec)
    /// Re-posts the same `userInfo` on behalf of another object: a relay.
    case relay(to: SenderChoice)
    /// Copies the `userInfo`, replaces the payload with post `id`'s (dropping the package's mark, as a transformer
    /// should where Foundation copies `userInfo`), and re-posts it from the same sender.
    case transform(id: Int)

    var description: String {
        switch self {
        case .fresh(let post): "re-post \(post)"
        case .verbatim(let asNotification): "re-post verbatim\(asNotification ? " as Notification" : "")"
        case .observeThenVerbatim(let observer): "observe \(observer), then re-post verbatim"
        case .relay(let sender): "relay for \(sender)"
        case .transform(let id): "transform into #\(id)"
        }
    }
}

struct ObserverSpec: CustomStringConvertible {
    let id: Int
    let filter: SenderChoice
    let isOwnerBound: Bool
    /// What the handler does the first time it is called (never again).
    let reaction: Reaction?

    var description: String {
        let kind = isOwnerBound ? "owner-bound observer" : "observer"
        return "\(kind) #\(id) from \(filter)" + (reaction.map { " reacting: \($0)" } ?? "")
    }
}

/// Something a handler does from inside delivery.
indirect enum Reaction: CustomStringConvertible {
    case cancel(observer: Int)
    case releaseToken(observer: Int)
    case releaseOwner(observer: Int)
    case observe(ObserverSpec)
    case post(PostSpec)
    /// Cancels the handler's own observation and starts a new one: the re-subscribe pattern.
    case resubscribe(ObserverSpec)

    var description: String {
        switch self {
        case .cancel(let observer): "cancel #\(observer)"
        case .releaseToken(let observer): "release token of #\(observer)"
        case .releaseOwner(let observer): "release owner of #\(observer)"
        case .observe(let observer): "observe [\(observer)]"
        case .post(let post): "post [\(post)]"
        case .resubscribe(let observer): "cancel itself and observe [\(observer)]"
        }
    }
}

enum Step: CustomStringConvertible {
    case observe(ObserverSpec)
    /// A post; for a typed post, `repost` arms the plain re-posting observer for it.
    case post(PostSpec, repost: Repost?)
    case cancel(observer: Int)
    case releaseToken(observer: Int)
    case releaseOwner(observer: Int)
    /// Frees the sender in `slot` and puts a new object there, which often gets the freed object's address.
    case replaceSender(slot: Int)

    var description: String {
        switch self {
        case .observe(let observer): "observe: \(observer)"
        case .post(let post, let repost): "\(post)" + (repost.map { ", then \($0)" } ?? "")
        case .cancel(let observer): "cancel #\(observer)"
        case .releaseToken(let observer): "release token of #\(observer)"
        case .releaseOwner(let observer): "release owner of #\(observer)"
        case .replaceSender(let slot): "replace the sender in slot \(slot)"
        }
    }
}

// MARK: - Generating scripts

/// Generates the steps of one sequence from its seed.
struct ScriptGenerator {
    static let senderSlots = 3

    private var random: SplitMix64
    private var nextObserverID = 0
    private var nextPostID = 0
    /// Every observer id handed out so far, live or not: cancelling or releasing them exercises stale tokens.
    private var observerIDs: [Int] = []

    init(seed: UInt64) {
        random = SplitMix64(seed: seed)
    }

    mutating func nextStep() -> Step {
        let roll = random.below(100)
        if observerIDs.isEmpty || roll < 24 { return .observe(observerSpec(depth: 0)) }
        switch roll {
        case ..<46:
            let post = postSpec(style: .typed)
            return .post(post, repost: random.chance(20) ? repost(of: post) : nil)
        case ..<58: return .post(postSpec(style: .plain), repost: nil)
        case ..<61:
            let kind = random.element(of: UndecodablePost.allCases)
            return .post(postSpec(style: .undecodable(kind)), repost: nil)
        case ..<75: return .cancel(observer: anyObserver())
        case ..<84: return .releaseToken(observer: anyObserver())
        case ..<94: return .releaseOwner(observer: anyObserver())
        default: return .replaceSender(slot: random.below(Self.senderSlots))
        }
    }

    private mutating func observerSpec(depth: Int) -> ObserverSpec {
        let id = nextObserverID
        nextObserverID += 1
        observerIDs.append(id)
        let filter = random.chance(40) ? SenderChoice.slot(random.below(Self.senderSlots)) : .none
        let isOwnerBound = random.chance(35)
        let reaction = depth < 2 && random.chance(35) ? reaction(of: id, depth: depth) : nil
        return ObserverSpec(id: id, filter: filter, isOwnerBound: isOwnerBound, reaction: reaction)
    }

    private mutating func reaction(of observer: Int, depth: Int) -> Reaction {
        // Targets include the observer itself and observers that are gone: both must be harmless.
        let target = random.chance(30) ? observer : anyObserver()
        switch random.below(8) {
        case 0: return .cancel(observer: target)
        case 1: return .releaseToken(observer: target)
        case 2: return .releaseOwner(observer: target)
        case 3: return .observe(observerSpec(depth: depth + 1))
        case 4: return .resubscribe(observerSpec(depth: depth + 1))
        default:
            let style: PostStyle = random.chance(60) ? .typed : random.chance(80) ? .plain : .undecodable(.wrongType)
            return .post(postSpec(style: style))
        }
    }

    private mutating func repost(of post: PostSpec) -> Repost {
        switch random.below(7) {
        case 0: return .fresh(postSpec(style: .typed, sender: post.sender))
        case 1: return .fresh(postSpec(style: .plain, sender: post.sender))
        case 2: return .verbatim(asNotification: true)
        case 3: return .verbatim(asNotification: false)
        case 4: return .relay(to: random.chance(30) ? .none : .slot(random.below(Self.senderSlots)))
        case 5: return .transform(id: postSpec(style: .plain).id)
        default: return .observeThenVerbatim(observerSpec(depth: 1))
        }
    }

    private mutating func postSpec(style: PostStyle, sender: SenderChoice? = nil) -> PostSpec {
        let id = nextPostID
        nextPostID += 1
        let sender = sender ?? (random.chance(35) ? .none : .slot(random.below(Self.senderSlots)))
        return PostSpec(id: id, sender: sender, style: style)
    }

    private mutating func anyObserver() -> Int {
        // Mostly recent observers, which are more often still live.
        let recent = observerIDs.suffix(12)
        if random.chance(75) { return recent[recent.startIndex + random.below(recent.count)] }
        return random.element(of: observerIDs)
    }
}
