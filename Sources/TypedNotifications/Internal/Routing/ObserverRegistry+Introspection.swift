import Foundation

// What `NotificationCenter.typedObservations` and the testing kit's registration counts list, after a sweep of
// dead owners.

extension ObserverRegistry {
    /// The live typed observations on `center`, by type name then registration order, after a sweep of dead owners.
    func observations(in center: NotificationCenter) -> [TypedObservation] {
        let channels = sweepChannels(of: center)
        return state.withLock { _ in
            channels.sorted { $0.subjectName < $1.subjectName }.flatMap { channel in
                channel.subscriptions.compactMap { $0 }.filter { !$0.hasEnded }.map { subscription in
                    TypedObservation(
                        typeName: channel.subjectName,
                        name: channel.name,
                        delivery: subscription.kind,
                        filtersBySender: subscription.senderID != 0,
                        isOwnerBound: subscription.isOwnerBound,
                        fileID: subscription.site.fileID,
                        line: Int(subscription.site.line)
                    )
                }
            }
        }
    }

    /// Live typed observers and Foundation observers the package holds for `center`, after a sweep of dead owners.
    func registrationCounts(in center: NotificationCenter) -> (observers: Int, foundationObservers: Int) {
        let channels = sweepChannels(of: center)
        return state.withLock { _ in
            let live = channels.filter { !$0.subscriptions.isEmpty || $0.keepsLatest }
            return (live.reduce(0) { $0 + $1.subscriptions.count - $1.holes }, live.count)
        }
    }

    func sweepChannels(of center: NotificationCenter) -> [Channel] {
        let channels = state.withLock { $0.records.values.compactMap { $0.channel(in: center) } }
        for channel in channels { sweepEndedOwners(of: channel) }
        return channels
    }
}
