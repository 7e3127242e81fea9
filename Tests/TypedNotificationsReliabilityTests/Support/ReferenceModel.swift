/// One call of a typed handler: observer `observer` received the payload of post `post`.
struct Delivery: Hashable, CustomStringConvertible {
    let observer: Int
    let post: Int

    var description: String { "#\(observer)←\(post)" }
}

/// What a plain (Foundation) observer saw: the post's id (`-1` if it carried no `Tick`) and the generation of its
/// `object` (`-1` for `nil`).
struct Sighting: Hashable, Comparable, CustomStringConvertible {
    let post: Int
    let sender: Int

    static func < (lhs: Sighting, rhs: Sighting) -> Bool {
        (lhs.post, lhs.sender) < (rhs.post, rhs.sender)
    }

    var description: String { "\(post)@\(sender)" }
}

/// The reference model: who must receive what, in which order, written as directly as possible from the
/// guarantees, with no concurrency and no Foundation.
///
/// - A post reaches the observers that are live when it starts (a snapshot), in registration order, each at most
///   once; one that ends before its turn is skipped, one added meanwhile waits for the next post.
/// - An observer filtering on a sender matches only posts from that very object; a freed sender never posts again,
///   so its observers never match again, whatever object later takes its address.
/// - An observer ends when cancelled, when its token is released (not for owner-bound ones), or when its owner is
///   released (owner-bound ones only). An owner whose own handler is running is still alive (the handler holds it),
///   so releasing it from inside that handler's nested posts ends the observation only when the handler returns.
/// - Typed observers see typed posts and decodable plain posts alike; undecodable plain posts reach no one typed.
/// - Plain observers see every post, typed or plain, once, with the sender as `object`.
/// - The plain re-posting observer acts after a typed post's typed deliveries, from inside its Foundation delivery.
struct ReferenceModel {
    private struct Observer {
        let spec: ObserverSpec
        /// The generation of the sender filtered on, fixed at registration.
        let sender: Int?
        var isCancelled = false
        var isTokenReleased = false
        var isOwnerReleased = false
        var hasReacted = false
        /// How many calls of this observer's handler are running (reactions can post, so calls nest).
        var runningCalls = 0

        var isLive: Bool {
            !isCancelled && !(spec.isOwnerBound ? isOwnerReleased && runningCalls == 0 : isTokenReleased)
        }
    }

    /// In registration order.
    private var observers: [Observer] = []
    private var positions: [Int: Int] = [:]
    /// The generation of the object in each sender slot.
    private var slots: [Int]
    private var nextGeneration: Int
    private var armedRepost: (post: Int, repost: Repost)?

    /// The typed deliveries expected since the last `takeExpectations()`, in order.
    private(set) var deliveries: [Delivery] = []
    /// The sightings each plain recorder is expected to make since the last `takeExpectations()`, in any order.
    private(set) var sightings: [Sighting] = []

    init(senderSlots: Int) {
        slots = Array(0..<senderSlots)
        nextGeneration = senderSlots
    }

    var liveObserverCount: Int { observers.count { $0.isLive } }

    mutating func takeExpectations() -> (deliveries: [Delivery], sightings: [Sighting]) {
        defer {
            deliveries.removeAll(keepingCapacity: true)
            sightings.removeAll(keepingCapacity: true)
        }
        return (deliveries, sightings.sorted())
    }

    // MARK: - Steps

    mutating func apply(_ step: Step) {
        switch step {
        case .observe(let spec): observe(spec)
        case .post(let post, let repost):
            if let repost, case .typed = post.style { armedRepost = (post.id, repost) }
            self.post(post)
        case .cancel(let id): cancel(id)
        case .releaseToken(let id): releaseToken(id)
        case .releaseOwner(let id): releaseOwner(id)
        case .replaceSender(let slot):
            slots[slot] = nextGeneration
            nextGeneration += 1
        }
    }

    private mutating func observe(_ spec: ObserverSpec) {
        positions[spec.id] = observers.count
        observers.append(Observer(spec: spec, sender: generation(of: spec.filter)))
    }

    private mutating func cancel(_ id: Int) {
        // Cancelling goes through the token, so a released token can no longer cancel.
        guard let position = positions[id], !observers[position].isTokenReleased else { return }
        observers[position].isCancelled = true
    }

    private mutating func releaseToken(_ id: Int) {
        guard let position = positions[id] else { return }
        observers[position].isTokenReleased = true
    }

    private mutating func releaseOwner(_ id: Int) {
        guard let position = positions[id], observers[position].spec.isOwnerBound else { return }
        observers[position].isOwnerReleased = true
    }

    private func generation(of sender: SenderChoice) -> Int? {
        switch sender {
        case .none: nil
        case .slot(let slot): slots[slot]
        }
    }

    // MARK: - Delivery

    private mutating func post(_ post: PostSpec) {
        let sender = generation(of: post.sender)
        sightings.append(Sighting(post: post.style.isDecodable ? post.id : -1, sender: sender ?? -1))
        guard post.style.isDecodable else { return }
        let snapshot = observers.indices.filter { observers[$0].isLive }
        for position in snapshot {
            let observer = observers[position]
            guard observer.isLive, observer.sender == nil || observer.sender == sender else { continue }
            deliveries.append(Delivery(observer: observer.spec.id, post: post.id))
            if !observer.hasReacted, let reaction = observer.spec.reaction {
                observers[position].hasReacted = true
                observers[position].runningCalls += 1
                react(reaction, by: observer.spec.id)
                observers[position].runningCalls -= 1
            }
        }
        if case .typed = post.style, let armed = armedRepost, armed.post == post.id {
            armedRepost = nil
            switch armed.repost {
            case .fresh(let repost):
                self.post(repost)
            case .verbatim:
                self.post(PostSpec(id: post.id, sender: post.sender, style: .plain))
            case .observeThenVerbatim(let spec):
                observe(spec)
                self.post(PostSpec(id: post.id, sender: post.sender, style: .plain))
            case .relay(let other):
                self.post(PostSpec(id: post.id, sender: other, style: .plain))
            case .transform(let id):
                self.post(PostSpec(id: id, sender: post.sender, style: .plain))
            }
        }
    }

    private mutating func react(_ reaction: Reaction, by observer: Int) {
        switch reaction {
        case .cancel(let id): cancel(id)
        case .releaseToken(let id): releaseToken(id)
        case .releaseOwner(let id): releaseOwner(id)
        case .observe(let spec): observe(spec)
        case .post(let post): self.post(post)
        case .resubscribe(let spec):
            cancel(observer)
            observe(spec)
        }
    }
}
