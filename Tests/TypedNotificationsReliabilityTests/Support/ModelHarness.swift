import Foundation
import TypedNotifications
import TypedNotificationsTestSupport

/// Runs a script against the real package on one `NotificationCenter`, recording what the handlers see.
///
/// Everything happens on the test's thread: handlers run synchronously inside `post`, and they call back into the
/// harness (to record and to react), which is why it is a class whose state is touched re-entrantly, never
/// concurrently. That is what makes `@unchecked Sendable` sound here; ThreadSanitizer would tell otherwise.
final class ModelHarness: @unchecked Sendable {
    let center: NotificationCenter
    private(set) var deliveries: [Delivery] = []
    /// One list per plain recorder.
    private(set) var sightings: [[Sighting]] = [[], []]
    /// How often a new sender got the address of the one it replaced (the case sender filtering must survive).
    private(set) var reusedAddresses = 0
    /// Calls of a sender-taking handler (every odd observer that is not owner-bound) whose sender was not the
    /// object of the post in progress: its sender if it is a `Sender`, otherwise `nil`.
    private(set) var wrongSenders: [String] = []
    /// The object of each post in progress, innermost last.
    private var postObjects: [AnyObject?] = []

    private var senders: [Sender?]
    private var nextGeneration: Int
    private var tokens: [Int: HeldObservation] = [:]
    private var owners: [Int: Owner] = [:]
    private var specs: [Int: ObserverSpec] = [:]
    private var reacted: Set<Int> = []
    private var armedRepost: (post: Int, repost: Repost)?
    private var plainObservers: [any NSObjectProtocol] = []

    init(center: NotificationCenter, senderSlots: Int) {
        self.center = center
        senders = (0..<senderSlots).map { Sender(generation: $0) }
        nextGeneration = senderSlots
        for recorder in sightings.indices {
            plainObservers.append(
                center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { [weak self] note in
                    self?.record(note, by: recorder)
                }
            )
        }
        plainObservers.append(
            center.addObserver(forName: Tick.notificationName, object: nil, queue: nil) { [weak self] note in
                self?.repostIfArmed(note)
            }
        )
    }

    /// Ends every observation the script left running and removes the plain observers.
    func tearDown() {
        let tokens = self.tokens
        self.tokens.removeAll()
        withExtendedLifetime(tokens) {}
        owners.removeAll()
        for observer in plainObservers { center.removeObserver(observer) }
        plainObservers.removeAll()
    }

    func takeRecords() -> (deliveries: [Delivery], sightings: [[Sighting]]) {
        defer {
            wrongSenders.removeAll()
            deliveries.removeAll(keepingCapacity: true)
            for index in sightings.indices { sightings[index].removeAll(keepingCapacity: true) }
        }
        return (deliveries, sightings.map { $0.sorted() })
    }

    // MARK: - Steps

    func run(_ step: Step) {
        switch step {
        case .observe(let spec): observe(spec)
        case .post(let post, let repost):
            if let repost, case .typed = post.style { armedRepost = (post.id, repost) }
            self.post(post)
        case .cancel(let id): tokens[id]?.cancel()
        case .releaseToken(let id): release(tokens.removeValue(forKey: id))
        case .releaseOwner(let id): release(owners.removeValue(forKey: id))
        case .replaceSender(let slot):
            let oldAddress = senders[slot].map(ObjectIdentifier.init)
            senders[slot] = nil  // freed first, so that the new sender can take its address
            let sender = Sender(generation: nextGeneration)
            nextGeneration += 1
            if ObjectIdentifier(sender) == oldAddress { reusedAddresses += 1 }
            senders[slot] = sender
        }
    }

    /// Releases `object` here, outside any access to the harness's dictionaries, since its deinit may run user code.
    private func release(_ object: AnyObject?) {
        withExtendedLifetime(object) {}
    }

    private func release(_ observation: HeldObservation?) {
        withExtendedLifetime(observation) {}
    }

    private func sender(_ choice: SenderChoice) -> Sender? {
        switch choice {
        case .none: nil
        case .slot(let slot): senders[slot]
        }
    }

    private func observe(_ spec: ObserverSpec) {
        specs[spec.id] = spec
        let sender = sender(spec.filter)
        let id = spec.id
        let token: HeldObservation
        if spec.isOwnerBound {
            let owner = Owner()
            owners[id] = owner
            token = .ownerBound(
                Tick.observe(for: owner, from: sender, in: center) { [weak self] _, tick in
                    self?.handle(tick, by: id)
                }
            )
        } else if id.isMultiple(of: 2) {
            token = .token(
                Tick.observe(from: sender, in: center) { [weak self] tick in
                    self?.handle(tick, by: id)
                }
            )
        } else {
            token = .token(
                Tick.observe(from: sender, in: center) { [weak self] postSender, tick in
                    self?.checkSender(postSender, of: tick, by: id)
                    self?.handle(tick, by: id)
                }
            )
        }
        tokens[id] = token
    }

    private func post(_ post: PostSpec) {
        let sender = sender(post.sender)
        postObjects.append(sender)
        defer { postObjects.removeLast() }
        switch post.style {
        case .typed:
            Tick(id: post.id).post(from: sender, in: center)
        case .plain:
            let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: Tick(id: post.id)]
            center.post(name: Tick.notificationName, object: sender, userInfo: userInfo)
        case .undecodable(.noUserInfo):
            center.post(name: Tick.notificationName, object: sender)
        case .undecodable(.missingKey):
            center.post(name: Tick.notificationName, object: sender, userInfo: ["id": post.id])
        case .undecodable(.wrongType):
            let userInfo: [AnyHashable: Any] = [Notification.typedPayloadKey: "Tick \(post.id)"]
            center.post(name: Tick.notificationName, object: sender, userInfo: userInfo)
        }
    }

    // MARK: - Handlers

    private func handle(_ tick: Tick, by observer: Int) {
        deliveries.append(Delivery(observer: observer, post: tick.id))
        guard !reacted.contains(observer), let reaction = specs[observer]?.reaction else { return }
        reacted.insert(observer)
        switch reaction {
        case .cancel(let id): tokens[id]?.cancel()
        case .releaseToken(let id): release(tokens.removeValue(forKey: id))
        case .releaseOwner(let id): release(owners.removeValue(forKey: id))
        case .observe(let spec): observe(spec)
        case .post(let post): self.post(post)
        case .resubscribe(let spec):
            tokens[observer]?.cancel()
            observe(spec)
        }
    }

    private func checkSender(_ received: AnyObject?, of tick: Tick, by observer: Int) {
        let expected = postObjects.last.flatMap { $0 as? Sender }
        if received !== expected {
            wrongSenders.append("observer \(observer) got \(String(describing: received)) for post \(tick.id)")
        }
    }

    private func record(_ notification: Notification, by recorder: Int) {
        let tick = notification.userInfo?[Notification.typedPayloadKey] as? Tick
        let sender = (notification.object as? Sender)?.generation ?? -1
        sightings[recorder].append(Sighting(post: tick?.id ?? -1, sender: sender))
    }

    private func repostIfArmed(_ notification: Notification) {
        guard let armed = armedRepost,
            (notification.userInfo?[Notification.typedPayloadKey] as? Tick)?.id == armed.post
        else { return }
        armedRepost = nil
        switch armed.repost {
        case .fresh(let repost):
            post(repost)
        case .verbatim(let asNotification):
            repostVerbatim(notification, asNotification: asNotification)
        case .observeThenVerbatim(let spec):
            observe(spec)
            repostVerbatim(notification, asNotification: true)
        case .relay(let other):
            let object = sender(other)
            postObjects.append(object)
            defer { postObjects.removeLast() }
            center.post(name: notification.name, object: object, userInfo: notification.userInfo)
        case .transform(let id):
            var userInfo = notification.userInfo ?? [:]
            userInfo[Notification.typedPayloadKey] = Tick(id: id)
            userInfo[Notification.typedPostKey] = nil
            postObjects.append(notification.object.map { $0 as AnyObject })
            defer { postObjects.removeLast() }
            center.post(name: notification.name, object: notification.object, userInfo: userInfo)
        }
    }

    private func repostVerbatim(_ notification: Notification, asNotification: Bool) {
        postObjects.append(notification.object.map { $0 as AnyObject })
        defer { postObjects.removeLast() }
        if asNotification {
            center.post(notification)
        } else {
            center.post(name: notification.name, object: notification.object, userInfo: notification.userInfo)
        }
    }
}
